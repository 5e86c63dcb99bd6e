#!/usr/bin/python3
"""Synthesises the impulse response of the `hall` preset: presets/hall.wav.

    /usr/bin/python3 tools/make_reverb_ir.py [OUT.wav]

A stereo room response at 48 kHz, 16-bit, made from a fixed seed so the
checked-in file can be made again byte for byte:
  - the direct sound, one sample at t = 0 in both channels;
  - a dozen early reflections between 7 and 80 ms, sparse and decaying,
    at different times in the two channels;
  - a late tail of Gaussian noise, independent per channel (so the stereo
    image is wide), under an exponential envelope that falls 60 dB in RT60
    seconds, fading in over the first 20 ms, and darkening with time as air
    absorbs high frequencies: a one-pole low-pass whose cutoff slides from
    12 kHz down to 2 kHz over the response.
The tail carries half the direct sound's energy (-3 dB), so the preset keeps
the dry signal in front and the level about where it was.
"""
import sys

import numpy as np
from scipy.io import wavfile

RATE = 48000
SECONDS = 2.0
RT60 = 1.8
TAIL_ENERGY = 0.5


def late_tail(rng, n):
    t = np.arange(n) / RATE
    envelope = 10.0 ** (-3.0 * t / RT60) * np.minimum(1.0, t / 0.020)
    noise = rng.standard_normal(n)
    # one-pole low-pass with a cutoff sliding from 12 kHz to 2 kHz
    cutoff = 12000.0 * (2000.0 / 12000.0) ** (t / SECONDS)
    a = np.exp(-2.0 * np.pi * cutoff / RATE)
    out = np.empty(n)
    state = 0.0
    for i in range(n):
        state = (1.0 - a[i]) * noise[i] + a[i] * state
        out[i] = state
    return out * envelope


def channel(rng):
    n = int(SECONDS * RATE)
    h = late_tail(rng, n)
    h *= np.sqrt(TAIL_ENERGY / np.sum(h * h))
    for _ in range(12):
        delay = int(rng.uniform(0.007, 0.080) * RATE)
        h[delay] += rng.choice((-1.0, 1.0)) * 0.6 * np.exp(-delay / (0.060 * RATE))
    h[0] = 1.0
    return h


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "presets/hall.wav"
    rng = np.random.default_rng(20261122)
    h = np.stack([channel(rng), channel(rng)], axis=1)
    h /= np.max(np.abs(h))  # full scale at the direct sound, no clipping
    wavfile.write(out, RATE, np.round(h * 32767.0).astype(np.int16))
    print(f"make_reverb_ir: wrote {out}: {h.shape[0]} taps x 2 channels at {RATE} Hz")


if __name__ == "__main__":
    main()
