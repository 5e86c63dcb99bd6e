"""gfir.Plan on the CPU: any chunking gives one pass's samples (the
streaming contract), latency, flush, reset, layouts and errors."""
import numpy as np
import pytest

import gfir
from conftest import TOLERANCE, rel_l2, signal


def causal(x, h):
    """(channels, frames) x through h: (ntaps,) or (channels, ntaps)."""
    h = np.broadcast_to(h, (x.shape[0], h.shape[-1]))
    return np.stack([np.convolve(a.astype(np.float64), b.astype(np.float64))[:x.shape[1]]
                     for a, b in zip(x, h)])


def chunks(rng, total, how):
    done = 0
    while done < total:
        n = {"1": 1, "7": 7, "997": 997, "random": int(rng.integers(0, 3000))}[how]
        n = min(n, total - done)
        yield done, n
        done += n


@pytest.mark.parametrize("how", ["1", "7", "997", "random"])
@pytest.mark.parametrize("ntaps,channels,per_channel", [(1, 1, False), (33, 2, True),
                                                        (1023, 3, False), (5000, 2, True)])
def test_any_chunking_is_one_pass(rng, how, ntaps, channels, per_channel):
    frames = 6000 if how != "1" else 1500
    x = signal(rng, channels, frames)
    h = signal(rng, channels, ntaps) if per_channel else signal(rng, ntaps)
    plan = gfir.Plan(h, channels, backend="cpu")
    y = np.full((channels, frames), np.nan, np.float32)
    for at, n in chunks(rng, frames, how):
        y[:, at:at + n] = plan(x[:, at:at + n])
    assert plan.latency == 0
    assert rel_l2(y, causal(x, h)) < TOLERANCE


def test_latency_flush_and_reset(rng):
    x, h = signal(rng, 2, 20000), signal(rng, 4095)
    with gfir.Plan(h, 2, max_latency=None, max_block_frames=8192, backend="cpu") as plan:
        lat = plan.latency
        assert plan.kernel == "fft" and lat > 0  # offline: the partitioned FFT and its delay
        y = np.concatenate([plan(x), plan.flush(lat + 4094)], axis=1)
        full = np.stack([np.convolve(a.astype(np.float64), h) for a in x])
        assert rel_l2(y[:, lat:], full) < TOLERANCE
        assert np.all(y[:, :lat] == 0)
        plan.reset()
        again = np.concatenate([plan(x), plan.flush(lat + 4094)], axis=1)
        np.testing.assert_array_equal(again, y)


def test_interleaved_frames_along_axis_0(rng):
    x, h = signal(rng, 3000, 4), signal(rng, 64)
    plan = gfir.Plan(h, 4, backend="cpu")
    y1 = plan(x[:1234], axis=0)
    y2 = plan(x[1234:], axis=0)
    y = np.concatenate([y1, y2])
    assert y.shape == x.shape and y1.flags.c_contiguous
    assert rel_l2(y.T, causal(x.T, h)) < TOLERANCE


def test_out_parameter_and_float64(rng):
    x, h = signal(rng, 2, 1000), signal(rng, 9)
    plan = gfir.Plan(h, 2, backend="cpu")
    out = np.empty_like(x)
    assert plan.process(x, out=out) is out
    assert rel_l2(out, causal(x, h)) < TOLERANCE
    plan.reset()
    y = plan(x.astype(np.float64))
    assert y.dtype == np.float64 and rel_l2(y, causal(x, h)) < TOLERANCE
    with pytest.raises(ValueError, match="out"):
        plan.process(x, out=np.empty((2, 999), np.float32))
    with pytest.raises(TypeError, match="float32"):
        plan(x.astype(np.int32))


def test_properties_and_errors(rng):
    plan = gfir.Plan(signal(rng, 31), 2, backend="cpu", kernel="direct")
    assert (plan.ntaps, plan.channels, plan.backend, plan.kernel) == (31, 2, "cpu", "direct")
    assert "ntaps=31" in repr(plan)
    with pytest.raises(ValueError, match="channel"):
        plan(signal(rng, 3, 100))
    with pytest.raises(ValueError, match="channel"):
        plan(signal(rng, 100))
    with pytest.raises(gfir.ArgumentError, match="channels is 0"):
        gfir.Plan(signal(rng, 5), 0)
    with pytest.raises(ValueError, match=r"\(channels, ntaps\)"):
        gfir.Plan(signal(rng, 3, 5), 2)
    with pytest.raises(gfir.UnavailableError, match="kernel"):
        gfir.Plan(signal(rng, 5), backend="cpu", kernel="tiled")
    plan.close()
    plan.close()  # twice is harmless; using it is not
    with pytest.raises(ValueError, match="closed"):
        plan(signal(rng, 2, 10))
    with pytest.raises(ValueError, match="closed"):
        plan.latency


def test_device_calls_need_the_gpu(rng):
    # a CPU plan refuses set_taps from the host, and the library refuses device calls
    plan = gfir.Plan(signal(rng, 5), backend="cpu")
    with pytest.raises(TypeError, match="device"):
        plan.set_taps(signal(rng, 5))
    with pytest.raises(gfir.UnavailableError, match="device memory"):
        plan._plan.execute_device(0, 1, 1, 0, 1, 1, 10, 0)


def test_close_waits_for_a_call_in_flight(rng):
    # ctypes lets the main thread run while a worker is inside a long call
    # (the gold kernel: about 10^9 multiply-adds); close() then must not free
    # the plan under it (a use after free in the engine) but wait, and the
    # call's samples must be whole
    import threading
    import time
    import scipy.signal
    x, h = signal(rng, 1 << 19), signal(rng, 2001)
    ref = scipy.signal.fftconvolve(x.astype(np.float64), h.astype(np.float64))[:x.size]
    for _ in range(5):  # again if the worker was not yet inside when close came
        plan = gfir.Plan(h, backend="cpu", kernel="gold", threads=1)
        inside, got = threading.Event(), {}

        def work():
            inside.set()
            try:
                got["y"] = plan(x)
            except ValueError as e:
                got["error"] = e
            got["returned"] = time.monotonic()
        worker = threading.Thread(target=work)
        worker.start()
        inside.wait()
        time.sleep(0.05)
        plan.close()
        closed = time.monotonic()
        worker.join()
        if "y" in got:
            break
        assert "closed" in str(got["error"])  # close came first: the call refused
    assert "y" in got, "the worker never got inside its call before close"
    assert closed >= got["returned"]
    assert rel_l2(got["y"], ref) < TOLERANCE
    with pytest.raises(ValueError, match="closed"):
        plan(x[:10])


@pytest.mark.parametrize("arg,value", [("channels", 2**32 + 2), ("max_latency", -1),
                                       ("threads", -1), ("max_block_frames", -1),
                                       ("max_block_frames", 2**64), ("device", 2**31),
                                       ("expected_frames", -5)])
def test_integers_out_of_their_c_range_are_refused(rng, arg, value):
    # ctypes would wrap each silently: 2**32 + 2 channels as 2, -1 as "any latency"
    with pytest.raises(ValueError, match=f"{arg}.* must be "):
        gfir.Plan(signal(rng, 5), **{arg: value})


@pytest.mark.parametrize("value", [2.0, True, "2", None])
def test_integers_must_be_integers(rng, value):
    with pytest.raises(TypeError, match="channels must be an integer"):
        gfir.Plan(signal(rng, 5), value)


def test_integer_arguments_that_fit_pass(rng):
    # NumPy integers and the C range's ends; the library judges what they mean
    plan = gfir.Plan(signal(rng, 4095), np.int64(2), max_latency=np.uint64(2**64 - 1),
                     max_block_frames=np.int32(8192), backend="cpu")
    assert plan.channels == 2 and plan.latency > 0  # max_latency of SIZE_MAX: any
    with pytest.raises(gfir.ArgumentError, match="channels"):
        gfir.Plan(signal(rng, 5), 2**32 - 1)
    with pytest.raises(ValueError, match="frames must be 0 to"):
        plan.flush(-1)
    with pytest.raises(TypeError, match="frames must be an integer"):
        plan.flush(2.5)


@pytest.mark.parametrize("order", [">", "<"])
@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_either_byte_order_is_read_as_numbers(rng, order, dtype):
    # '>f4' is named float32 too; its bytes are not this machine's floats
    x, h = signal(rng, 2, 3001), signal(rng, 2, 65)
    plan = gfir.Plan(h.astype(order + dtype), 2, backend="cpu")
    y = plan(x.astype(order + dtype))
    assert y.dtype == np.dtype(dtype) and y.dtype.isnative
    assert rel_l2(y, causal(x, h)) < TOLERANCE


def test_out_in_the_other_byte_order_is_refused(rng):
    plan = gfir.Plan(signal(rng, 9), backend="cpu")
    other = ">f4" if np.little_endian else "<f4"
    with pytest.raises(ValueError, match="byte order"):
        plan.process(signal(rng, 100), out=np.empty(100, other))
    with pytest.raises(ValueError, match="byte order"):
        plan.flush(10, out=np.empty(10, other))


def test_a_read_only_out_is_refused(rng):
    # the library would write into the bytes object under the view
    frozen = bytes(400)
    plan = gfir.Plan(signal(rng, 9), backend="cpu")
    with pytest.raises(ValueError, match="writable"):
        plan.process(signal(rng, 100), out=np.frombuffer(frozen, np.float32))
    assert frozen == bytes(400)


def unaligned(a):
    """a's values in float32 one byte past an aligned address."""
    raw = np.empty(a.size * 4 + 1, np.uint8)
    u = np.frombuffer(raw.data, np.float32, a.size, offset=1).reshape(a.shape)
    u[...] = a
    assert not u.flags.aligned
    return u


def test_unaligned_samples_are_copied_before_the_library_reads_them(rng):
    # C reads floats at their alignment (vector loads, UBSan's check)
    x, h = signal(rng, 1001), signal(rng, 17)
    b, a = gfir._arrays.backend_of(unaligned(x))
    assert gfir._arrays.float32_of(b, a, "x")[0].flags.aligned
    assert gfir.plan.host_taps(unaligned(h)).flags.aligned
    plan = gfir.Plan(unaligned(h), backend="cpu")
    assert rel_l2(plan(unaligned(x)), causal(x[None, :], h)[0]) < TOLERANCE


def test_no_frames_give_no_frames(rng):
    # the C API's "any frame count, 0 included": an empty chunk of a stream
    plan = gfir.Plan(signal(rng, 7), 2, backend="cpu")
    assert plan(np.empty((2, 0), np.float32)).shape == (2, 0)
    assert plan(np.empty((0, 2)), axis=0).shape == (0, 2)
    assert plan.flush(0).shape == (2, 0)
    with pytest.raises(gfir.ArgumentError, match="ntaps is 0"):
        gfir.Plan(np.empty(0, np.float32))


@pytest.mark.parametrize("kernel,ntaps", [("gold", 31), ("direct", 4001), ("fft", 4001)])
@pytest.mark.parametrize("shift", [0, 1, -1, 7])
def test_out_overlapping_x(rng, kernel, ntaps, shift):
    # out= one frame ahead of x was read after being written (errors of 4%
    # to 1e27); in place (shift 0) the library allows as it is
    n, h = 20011, signal(rng, ntaps)
    buf = signal(rng, n + abs(shift))
    xs, os = (slice(0, n), slice(shift, n + shift)) if shift >= 0 else \
        (slice(-shift, n - shift), slice(0, n))
    ref = causal(buf[None, xs], h)[0]
    plan = gfir.Plan(h, backend="cpu", kernel=kernel, max_block_frames=8192)
    y = plan.process(buf[xs], out=buf[os])
    assert rel_l2(y, ref) < TOLERANCE
