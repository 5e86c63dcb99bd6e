"""Shared by the live tests: random float WAVs, tap files and the float64
reference convolution (Debian's python3 with NumPy)."""
import struct
import sys

import numpy as np


def write_wav_float(path, x, rate):
    """x: frames x channels float32, written as WAVE_FORMAT_IEEE_FLOAT."""
    x = np.asarray(x, dtype='<f4')
    frames, channels = x.shape
    data = x.tobytes()
    fmt = struct.pack('<HHIIHH', 3, channels, rate, rate * channels * 4, channels * 4, 32)
    fact = struct.pack('<I', frames)
    body = (b'WAVE' + b'fmt ' + struct.pack('<I', len(fmt)) + fmt
            + b'fact' + struct.pack('<I', len(fact)) + fact
            + b'data' + struct.pack('<I', len(data)) + data)
    with open(path, 'wb') as f:
        f.write(b'RIFF' + struct.pack('<I', len(body)) + body)


def random_signal(seed, frames, channels):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.5, 0.5, (frames, channels)).astype(np.float32)


def random_taps(seed, ntaps):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, ntaps) / np.sqrt(ntaps)).astype(np.float32)


def write_taps(path, h):
    with open(path, 'w') as f:
        f.write('# random taps for a live test\n')
        f.write('\n'.join(repr(float(v)) for v in h) + '\n')


def full_convolution(x, h):
    """numpy.convolve's full output per channel, in float64."""
    return np.stack([np.convolve(x[:, c].astype(np.float64), h.astype(np.float64))
                     for c in range(x.shape[1])], axis=1)


def played_from_raw(path, want):
    """The frames ALSA's file plugin wrote to path (float32, 2 channels) from
    the first that is not silent (PortAudio primes the device with exact
    zeros first), as many as want has, in float64, and the whole file; exits
    with FAIL when the file is silent or holds too few."""
    raw = np.fromfile(path, dtype='<f4').reshape(-1, 2).astype(np.float64)
    sound = np.flatnonzero(np.any(raw != 0, axis=1))
    if len(sound) == 0:
        sys.exit('FAIL: the raw file is silent')
    start = sound[0]
    got = raw[start:start + len(want)]
    if len(got) < len(want):
        sys.exit('FAIL: %d frames of signal in the raw file, %d expected' % (len(got), len(want)))
    return got, raw, start


if __name__ == '__main__':
    sys.exit('a module for the live tests')
