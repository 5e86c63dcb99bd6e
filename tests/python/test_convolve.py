"""gfir.convolve on the CPU against numpy.convolve and scipy.signal in
float64: modes, axes, layouts, dtypes, sizes around the filter's."""
import numpy as np
import pytest
import scipy.signal

import gfir
from conftest import TOLERANCE, rel_l2, signal

MODES = ("full", "same", "valid")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("t,m", [(1, 1), (1000, 1), (997, 15), (4099, 255), (3000, 1023),
                                 (20011, 4097), (500, 700), (31, 1000), (2, 3)])
def test_one_dimension_matches_scipy(rng, mode, t, m):
    x, h = signal(rng, t), signal(rng, m)
    y = gfir.convolve(x, h, mode)
    ref = scipy.signal.convolve(x.astype(np.float64), h.astype(np.float64), mode,
                                method="direct")
    assert y.dtype == np.float32
    assert rel_l2(y, ref) < TOLERANCE
    if t >= m or mode != "same":  # NumPy's 'same' is max(t, m) long
        assert rel_l2(y, np.convolve(x.astype(np.float64), h, mode)) < TOLERANCE


def test_long_filter(rng):
    x, h = signal(rng, 2, 70001), signal(rng, 65535)
    ref = scipy.signal.fftconvolve(x.astype(np.float64), h[None, :].astype(np.float64),
                                   "same", axes=-1)
    assert rel_l2(gfir.convolve(x, h, "same"), ref) < TOLERANCE


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("mode", MODES)
def test_axes_of_a_three_dimensional_signal(rng, axis, mode):
    # axis 1 is shorter than the filter: 'valid' then swaps, as for 1-D
    x, h = signal(rng, 37, 5, 41), signal(rng, 7)
    ref = np.apply_along_axis(lambda r: scipy.signal.convolve(r, h.astype(np.float64), mode),
                              axis, x.astype(np.float64))
    y = gfir.convolve(x, h, mode, axis=axis)
    assert y.shape == ref.shape
    assert rel_l2(y, ref) < TOLERANCE


def _reference_rows(x, h, mode):
    return np.stack([np.convolve(r.astype(np.float64), h.astype(np.float64), mode) for r in x])


def test_interleaved_frames_along_axis_0(rng):
    # (frames, channels) C-ordered: one multichannel plan on the frames as they are
    x, h = signal(rng, 5003, 6), signal(rng, 301)
    y = gfir.convolve(x, h, "full", axis=0)
    assert y.shape == (5303, 6)
    assert y.flags.c_contiguous  # the result keeps the input's memory order
    assert rel_l2(y.T, _reference_rows(x.T, h, "full")) < TOLERANCE


@pytest.mark.parametrize("view", ["strided", "reversed", "fortran", "transposed", "broadcast"])
def test_non_contiguous_input(rng, view):
    base, h = signal(rng, 6, 4001), signal(rng, 63)
    x = {"strided": base[::2, ::3], "reversed": base[:, ::-1],
         "fortran": np.asfortranarray(base), "transposed": base.T.copy().T,
         "broadcast": np.broadcast_to(base[0], (5, base.shape[1]))}[view]
    assert rel_l2(gfir.convolve(x, h, "same"), _reference_rows(x, h, "same")) < TOLERANCE


def test_many_rows(rng):
    x, h = signal(rng, 1030, 67), signal(rng, 31)  # more rows than a plan's 1024 channels
    assert rel_l2(gfir.convolve(x, h), _reference_rows(x, h, "full")) < TOLERANCE


def test_float64_is_computed_in_float32_and_returned_as_float64(rng):
    x, h = rng.uniform(-1, 1, 3001), rng.uniform(-1, 1, 101)
    y = gfir.convolve(x, h, "valid")
    assert y.dtype == np.float64
    err = rel_l2(y, np.convolve(x, h, "valid"))
    assert err < TOLERANCE
    assert err > 1e-12  # float32's rounding is there: not a float64 computation


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.complex64, np.float16, bool])
def test_other_dtypes_are_refused(rng, dtype):
    x = (signal(rng, 100) * 100).astype(dtype)
    with pytest.raises(TypeError, match="float32"):
        gfir.convolve(x, signal(rng, 5))


def test_bad_arguments(rng):
    x, h = signal(rng, 100), signal(rng, 5)
    with pytest.raises(ValueError, match="mode"):
        gfir.convolve(x, h, "middle")
    with pytest.raises(ValueError, match="1-D"):
        gfir.convolve(x, np.ones((2, 5), np.float32))
    with pytest.raises(np.AxisError if hasattr(np, "AxisError") else ValueError):
        gfir.convolve(x, h, axis=3)
    with pytest.raises(ValueError):
        gfir.convolve(x, h, backend="gpu")


def test_device_reaches_the_library(rng):
    # device= names the GPU of a host signal: checked as an integer here,
    # by the library against the GPUs there are (a GPU past the last, or
    # none at all, is refused); the CPU has no devices to choose
    x, h = signal(rng, 2, 3001), signal(rng, 33)
    for fn, hh in ((gfir.convolve, h), (gfir.convolve_batch, np.stack([h, -h]))):
        with pytest.raises(TypeError, match="device"):
            fn(x, hh, backend="cuda", device="1")
        n = gfir.backend_devices("cuda")
        with pytest.raises(gfir.ArgumentError if n else gfir.UnavailableError):
            fn(x, hh, backend="cuda", device=n)
        want = fn(x, hh, backend="cpu")
        assert rel_l2(fn(x, hh, backend="cpu", device=0), want) == 0
        if n:
            assert rel_l2(fn(x, hh, backend="cuda", device=n - 1), want) < TOLERANCE


def test_library_errors_carry_the_detail(rng):
    h = signal(rng, 5)
    h[2] = np.nan
    with pytest.raises(gfir.ArgumentError, match="not finite") as e:
        gfir.convolve(signal(rng, 100), h)
    assert e.value.name == "GFIR_ERR_TAPS" and e.value.status == -3
    assert isinstance(e.value, gfir.GfirError) and isinstance(e.value, ValueError)


def test_kernels_by_name(rng):
    x, h = signal(rng, 2, 5000), signal(rng, 129)
    ref = _reference_rows(x, h, "same")
    for kernel in ("gold", "direct", "fft"):
        assert rel_l2(gfir.convolve(x, h, "same", kernel=kernel, backend="cpu"), ref) < TOLERANCE


def test_same_filter_again_and_a_new_one(rng):
    # kept plans: the second call of a shape reuses the plan, a new filter gets its own
    x = signal(rng, 3, 9001)
    for _ in range(2):
        for m in (255, 256):
            h = signal(rng, m)
            assert rel_l2(gfir.convolve(x, h, "same"), _reference_rows(x, h, "same")) < TOLERANCE
    gfir.clear_cache()


def test_list_input(rng):
    assert np.allclose(gfir.convolve([1.0, 2.0, 3.0], [1.0, -1.0]), [1.0, 1.0, 1.0, -3.0])


@pytest.mark.parametrize("mode", MODES)
def test_an_empty_signal_or_filter_is_refused(rng, mode):
    # SciPy has no one answer (scipy.signal.convolve raises in 'full' and
    # 'valid' and returns [] in 'same'; oaconvolve returns a 1-D [] for any
    # shape): gfir raises the ValueError its docstring names
    x, h = signal(rng, 3, 100), signal(rng, 5)
    for args in ((x[:, :0], h), (x, h[:0]), (x[0, :0], h[:0])):
        with pytest.raises(ValueError, match="must not be empty"):
            gfir.convolve(*args, mode)
    with pytest.raises(ValueError, match="must not be empty"):
        gfir.convolve(x[:0], h, mode, axis=0)
    with pytest.raises(ValueError, match="must not be empty"):
        gfir.convolve_batch(x[:, :0], signal(rng, 3, 5), mode)
    with pytest.raises(ValueError, match="must not be empty"):
        gfir.convolve_batch(x, signal(rng, 3, 0), mode)


@pytest.mark.parametrize("mode", MODES)
def test_no_signals_give_an_empty_result_of_the_modes_length(rng, mode):
    # a batch of none: the shape the same call would have for one signal
    _, length = gfir._convolve.window(100, 5, mode)
    assert gfir.convolve(signal(rng, 0, 100), signal(rng, 5), mode).shape == (0, length)
    assert gfir.convolve(signal(rng, 4, 0, 100), signal(rng, 5), mode).shape == (4, 0, length)
    y = gfir.convolve_batch(signal(rng, 0, 100), signal(rng, 0, 5), mode)
    assert y.shape == (0, length) and y.dtype == np.float32


@pytest.mark.parametrize("order", [">", "<"])
@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_either_byte_order_is_read_as_numbers(rng, order, dtype):
    # '>f4' is named float32 too: read as raw bytes it gave zeros and 1e38s
    x, h = signal(rng, 3, 2001), signal(rng, 3, 33)
    ref = _reference_rows(x, h[0], "same")
    y = gfir.convolve(x.astype(order + dtype), h[0].astype(order + dtype), "same")
    assert y.dtype == np.dtype(dtype) and y.dtype.isnative
    assert rel_l2(y, ref) < TOLERANCE
    ref = np.stack([np.convolve(a.astype(np.float64), b.astype(np.float64)) for a, b in zip(x, h)])
    y = gfir.convolve_batch(x.astype(order + dtype), h.astype(order + dtype))
    assert rel_l2(y, ref) < TOLERANCE


class ForeignCudaArray:
    """A CUDA array of another library, as __cuda_array_interface__ shows it."""

    def __init__(self, typestr):
        self.__cuda_array_interface__ = {"shape": (100,), "typestr": typestr,
                                         "data": (0, False), "version": 3}


def test_a_cuda_array_in_the_other_byte_order_is_refused(rng):
    # nothing on the device would convert it, and its bytes are no native floats
    other = ">f4" if np.little_endian else "<f4"
    with pytest.raises(TypeError, match="byte order"):
        gfir.convolve(ForeignCudaArray(other), signal(rng, 5))
