#!/usr/bin/python3
"""Writes the golden vectors of tests/design_test.c: Kaiser windowed-sinc
designs by SciPy in float64 (scipy.signal.kaiserord and firwin), the
independent reference for src/design/kaiser.c.

Run with Debian's python3 (python3-numpy, python3-scipy):
    /usr/bin/python3 tests/design/gen_design_golden.py
It rewrites tests/design/data/: one file per case and cases.txt listing them.
Each case file is one header line
    type rate_hz cutoff1_hz cutoff2_hz transition_hz attenuation_db ntaps beta
followed by ntaps taps, one per line. The parameters are printed with 17
significant digits, so C reads back the very doubles SciPy was given.
"""
import math
import os
import sys

import numpy as np
import scipy
from scipy import signal

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# (type, rate_hz, cutoff1_hz, cutoff2_hz, transition_hz, attenuation_db, name)
# cutoff2_hz is 0 where the type uses one cutoff.
PRESETS = [
    ("lowpass", 44100, 4000, 0, 400, 80, "preset_lowpass_44100"),
    ("lowpass", 48000, 4000, 0, 400, 80, "preset_lowpass_48000"),
    ("highpass", 48000, 200, 0, 100, 80, "preset_highpass_48000"),
    ("bandpass", 8000, 300, 3400, 200, 60, "preset_telephone_8000"),
    ("bandpass", 44100, 300, 3400, 200, 60, "preset_telephone_44100"),
    ("highpass", 44100, 40, 0, 60, 40, "preset_rumble_44100"),
]

# Every type, every common rate, narrow and wide transitions, attenuations on
# both sides of kaiser_beta's branches (21: beta 0; 50: the middle formula's
# end), near-Nyquist and near-DC edges, the shortest designs, even kaiserord
# lengths (type II lowpass/bandpass; +1 for highpass/bandstop) and odd ones.
GENERAL = [
    ("lowpass", 8000, 1000, 0, 100, 21, "lp_8000_a21"),
    ("lowpass", 8000, 3000, 0, 800, 30, "lp_8000_wide_a30"),
    ("lowpass", 22050, 1234.5, 0, 321.25, 50, "lp_22050_a50"),
    ("lowpass", 44100, 21000, 0, 2000, 60, "lp_44100_nyq_a60"),
    ("lowpass", 96000, 20000, 0, 2000, 100, "lp_96000_a100"),
    ("lowpass", 48000, 12000, 0, 30000, 8, "lp_48000_shortest"),
    ("highpass", 8000, 500, 0, 200, 50, "hp_8000_a50"),
    ("highpass", 44100, 10, 0, 20000, 80, "hp_44100_wide_a80"),
    ("highpass", 96000, 1000, 0, 500, 30, "hp_96000_a30"),
    ("highpass", 48000, 15000, 0, 3000, 21, "hp_48000_a21"),
    ("bandpass", 96000, 1000, 20000, 1000, 80, "bp_96000_a80"),
    ("bandpass", 48000, 100, 23800, 150, 50, "bp_48000_edges_a50"),
    ("bandpass", 44100, 5000, 5600, 300, 100, "bp_44100_narrow_a100"),
    ("bandstop", 8000, 900, 1100, 100, 80, "bs_8000_a80"),
    ("bandstop", 96000, 45000, 47000, 500, 21, "bs_96000_nyq_a21"),
    ("bandstop", 48000, 50, 60, 1500, 30, "bs_48000_a30"),
    ("bandstop", 44100, 3000, 9000, 4000, 60, "bs_44100_wide_a60"),
]


def kaiserord_length(atten, transition, rate):
    return signal.kaiserord(atten, transition / (rate / 2))


def knife_edge_cases():
    """Transitions at which Kaiser's length formula is a whole number in real
    arithmetic, so that the rounding of each floating-point step decides the
    ceil. Kept: those where evaluating the formula in another order than
    SciPy's gives another length, i.e. cases only an exact replica passes."""
    cases = []
    for atten, rate, ftype in ((60, 48000, "lowpass"), (80, 44100, "bandpass"),
                               (40, 96000, "highpass"), (70, 8000, "bandstop"),
                               (90, 48000, "lowpass"), (55, 44100, "lowpass")):
        for order in range(100, 2000, 1):
            width = (atten - 7.95) / (2.285 * math.pi * order)
            transition = width * (rate / 2)
            numtaps, _ = kaiserord_length(atten, transition, rate)
            w = transition / (rate / 2)
            other = int(math.ceil((atten - 7.95) / (2.285 * math.pi * w))) + 1
            if other != numtaps:
                nyq = rate / 2
                if ftype in ("lowpass", "highpass"):
                    c1, c2 = nyq / 3, 0
                else:
                    c1, c2 = nyq / 4, nyq / 2
                cases.append((ftype, rate, c1, c2, transition, atten,
                              "edge_%s_%d_a%d" % (ftype, rate, atten)))
                break
    return cases


def design(ftype, rate, c1, c2, transition, atten):
    numtaps, beta = kaiserord_length(atten, transition, rate)
    if ftype in ("highpass", "bandstop") and numtaps % 2 == 0:
        numtaps += 1  # firwin refuses even lengths that must pass Nyquist
    cutoff = c1 if ftype in ("lowpass", "highpass") else [c1, c2]
    taps = signal.firwin(numtaps, cutoff, window=("kaiser", beta), pass_zero=ftype,
                         scale=True, fs=rate)
    return numtaps, beta, taps


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    names = []
    for ftype, rate, c1, c2, transition, atten, name in PRESETS + GENERAL + knife_edge_cases():
        numtaps, beta, taps = design(ftype, rate, c1, c2, transition, atten)
        with open(os.path.join(OUT, name + ".txt"), "w") as f:
            f.write("%s %.17g %.17g %.17g %.17g %.17g %d %.17g\n"
                    % (ftype, rate, c1, c2, transition, atten, numtaps, beta))
            f.writelines("%.9g\n" % t for t in taps)
        names.append(name)
        print("%-28s %5d taps  beta %.6f" % (name, numtaps, beta), file=sys.stderr)
    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("# Written by tests/design/gen_design_golden.py with SciPy %s, NumPy %s.\n"
                % (scipy.__version__, np.__version__))
        f.writelines(n + ".txt\n" for n in names)


if __name__ == "__main__":
    main()
