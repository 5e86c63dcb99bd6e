"""The float64 reference for --normalize peak (gfir_filter_loudness): the
largest over outputs of the largest over frequency of the sum of the
output's |gain| x |H(w)|, its true value rather than a grid's.

A grid 32 times as fine as the filter is long finds every local maximum
that can hold the peak (the grid's largest is within a factor
cos(pi n / (2 grid)) of the peak, 0.1%); the direct sum at 33 points across
two grid steps around each such maximum then reads the peak to about 1e-6,
under the 1e-5 the tests allow.
"""
import numpy as np


def peak_of_sums(outputs):
    """outputs: a list, per output, of (taps, gain) pairs."""
    n = max(len(h) for paths in outputs for h, _ in paths)
    grid = 8192
    while grid < 32 * n:
        grid *= 2
    best = 0.0
    for paths in outputs:
        total = sum(abs(g) * np.abs(np.fft.rfft(np.asarray(h, dtype=np.float64), grid))
                    for h, g in paths)
        top = total.max()
        bound = top * np.cos(np.pi * n / (2 * grid))
        inner = total[1:-1]
        near = np.flatnonzero((inner >= bound) & (inner >= total[:-2]) & (inner >= total[2:])) + 1
        for k in np.concatenate(([int(np.argmax(total))], near)):
            w = 2 * np.pi * (k + np.linspace(-1, 1, 33)) / grid
            vals = sum(abs(g) * np.abs(np.exp(-1j * np.outer(w, np.arange(len(h))))
                                       @ np.asarray(h, dtype=np.float64)) for h, g in paths)
            top = max(top, vals.max())
        best = max(best, top)
    return best
