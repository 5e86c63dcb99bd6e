"""Shared by the Python package's tests: the random signals (never zeros)
and the measure every comparison uses."""
import zlib

import numpy as np
import pytest

# relative L2 error of float32 results against float64 references, as the
# C tests' (tests/common/stream_check.h): 1e-5 up to 65536 taps
TOLERANCE = 1e-5


def rel_l2(got, ref) -> float:
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


@pytest.fixture
def rng(request):
    # a seed of each test's own, so failures reproduce alone
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


def signal(rng, *shape, dtype=np.float32):
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)
