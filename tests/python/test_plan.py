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
