"""gfir.convolve_batch on the CPU: every row through its own filter."""
import numpy as np
import pytest
import scipy.signal

import gfir
from conftest import TOLERANCE, rel_l2, signal


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_rows_have_their_own_filters(rng, mode):
    x, h = signal(rng, 7, 3001), signal(rng, 7, 257)
    h[3, 200:] = 0.0  # a shorter filter, padded
    ref = np.stack([scipy.signal.convolve(a.astype(np.float64), b.astype(np.float64), mode,
                                          method="direct") for a, b in zip(x, h)])
    y = gfir.convolve_batch(x, h, mode)
    assert y.shape == ref.shape and y.dtype == np.float32
    assert rel_l2(y, ref) < TOLERANCE


def test_shapes_are_checked(rng):
    with pytest.raises(ValueError, match=r"\(B, T\)"):
        gfir.convolve_batch(signal(rng, 3, 100), signal(rng, 2, 10))
    with pytest.raises(ValueError, match=r"\(B, T\)"):
        gfir.convolve_batch(signal(rng, 100), signal(rng, 10))


def test_float64_batch(rng):
    x, h = rng.uniform(-1, 1, (3, 1000)), rng.uniform(-1, 1, (3, 50))
    y = gfir.convolve_batch(x, h)
    assert y.dtype == np.float64
    ref = np.stack([np.convolve(a, b) for a, b in zip(x, h)])
    assert rel_l2(y, ref) < TOLERANCE
