"""The package on the GPU: CuPy arrays and PyTorch CUDA tensors against
SciPy in float64. Layouts with no copy (planar rows, interleaved frames,
strided and broadcast views), refused dtypes, streams other than the
default, batches of per-row filters, and streaming plans (the delay-line
engine included). Each library's tests skip where it or a GPU is missing;
run_gpu.py, which ctest runs, reports the whole file skipped then."""
import numpy as np
import pytest
import scipy.signal

import gfir
from conftest import TOLERANCE, rel_l2, signal

if not gfir.backend_available("cuda"):
    pytest.skip("no usable CUDA device, or gfir built without CUDA", allow_module_level=True)


class Cupy:
    name = "cupy"

    def __init__(self):
        import cupy
        self.m = cupy

    def put(self, a):
        return self.m.asarray(a)

    def get(self, a):
        return self.m.asnumpy(a)

    def is_mine(self, a):
        return isinstance(a, self.m.ndarray)

    def stream(self):
        return self.m.cuda.Stream(non_blocking=True)

    def on(self, s):
        return s

    def sync(self, s):
        s.synchronize()

    def random(self, shape):
        return self.m.random.uniform(-1, 1, shape, dtype=self.m.float32)

    def transpose(self, a):
        return a.T

    def broadcast(self, row, n):
        return self.m.broadcast_to(row, (n, row.shape[0]))

    def device(self, k):
        return self.m.cuda.Device(k)

    def device_of(self, a):
        return a.device.id


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.m = torch
        if not torch.cuda.is_available():
            raise ImportError("torch without CUDA")

    def put(self, a):
        return self.m.as_tensor(np.asarray(a), device="cuda")

    def get(self, a):
        return a.detach().cpu().numpy()

    def is_mine(self, a):
        return isinstance(a, self.m.Tensor) and a.is_cuda

    def stream(self):
        return self.m.cuda.Stream()

    def on(self, s):
        return self.m.cuda.stream(s)

    def sync(self, s):
        s.synchronize()

    def random(self, shape):
        return self.m.rand(shape, device="cuda") * 2 - 1

    def transpose(self, a):
        return a.t()

    def broadcast(self, row, n):
        return row.expand(n, row.shape[0])

    def device(self, k):
        return self.m.cuda.device(k)

    def device_of(self, a):
        return a.device.index


@pytest.fixture(params=[Cupy, Torch], ids=["cupy", "torch"])
def lib(request):
    try:
        return request.param()
    except ImportError as e:
        pytest.skip(f"{request.param.__name__}: {e}")


def reference(x, h, mode, axis=-1):
    return np.apply_along_axis(
        lambda r: scipy.signal.fftconvolve(r, np.asarray(h, np.float64), mode), axis,
        np.asarray(x, np.float64))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shape,m", [((1,), 1), ((5003,), 15), ((2, 30011), 255),
                                     ((3, 20011), 4097), ((2, 140001), 40000),
                                     ((4, 1500), 2000), ((257, 1001), 63)])
def test_convolve_matches_scipy(lib, rng, mode, shape, m):
    x, h = signal(rng, *shape), signal(rng, m)
    y = gfir.convolve(lib.put(x), lib.put(h), mode)
    assert lib.is_mine(y) and str(y.dtype).endswith("float32")
    assert rel_l2(lib.get(y), reference(x, h, mode)) < TOLERANCE


def test_host_taps_and_kept_plans(lib, rng):
    # host taps are uploaded once per plan; a new filter replaces them on the device
    x = lib.put(signal(rng, 2, 20011))
    for m in (1023, 1023, 1024):
        h = signal(rng, m)
        for _ in range(2):
            y = gfir.convolve(x, h, "same")
            assert rel_l2(lib.get(y), reference(lib.get(x), h, "same")) < TOLERANCE


@pytest.mark.parametrize("view", ["interleaved", "strided", "broadcast", "column"])
def test_views_without_copies(lib, rng, view):
    base, h = signal(rng, 6, 8003), signal(rng, 301)
    d = lib.put(base)
    if view == "interleaved":  # (frames, channels) along axis 0
        x, axis = lib.put(np.ascontiguousarray(base.T)), 0
    elif view == "strided":
        x, axis = d[::2, ::3], -1
    elif view == "broadcast":  # one row, channel stride 0
        x, axis = lib.broadcast(d[1], 4), -1
    else:  # a column of a C-ordered array: stride 6 along time
        x, axis = lib.transpose(d)[:, 2], 0
    y = gfir.convolve(x, h, "full", axis=axis)
    assert rel_l2(lib.get(y), reference(lib.get(x), h, "full", axis)) < TOLERANCE


def test_dtypes(lib, rng):
    x, h = signal(rng, 2, 5000), signal(rng, 77)
    y = gfir.convolve(lib.put(x.astype(np.float64)), h)
    assert str(y.dtype).endswith("float64")
    assert rel_l2(lib.get(y), reference(x, h, "full")) < TOLERANCE
    for bad in (np.int16, np.float16):
        with pytest.raises(TypeError, match="float32"):
            gfir.convolve(lib.put((x * 100).astype(bad)), h)
    with pytest.raises(ValueError, match="backend"):
        gfir.convolve(lib.put(x), h, backend="cpu")


def test_a_stream_of_our_own(lib, rng):
    # everything queued on a non-default stream, nothing synchronised but it
    h = signal(rng, 2049)
    s = lib.stream()
    with lib.on(s):
        x = lib.random((3, 100003))
        y = gfir.convolve(x, lib.put(h), "same") * 2
        z = gfir.convolve_batch(x, lib.put(np.stack([h, -h, h])), "valid")
    lib.sync(s)
    ref = reference(lib.get(x), h, "same")
    assert rel_l2(lib.get(y), 2 * ref) < TOLERANCE
    ref_b = reference(lib.get(x), h, "valid") * np.array([1, -1, 1])[:, None]
    assert rel_l2(lib.get(z), ref_b) < TOLERANCE


@pytest.mark.parametrize("rows", [37, 300])
def test_batches_of_filters(lib, rng, rows):
    # 4 s at 16 kHz with 0.5 s impulse responses, scaled down; 300 rows are two plans
    t, m = 16000, 2001
    for _ in range(2):  # the kept plan takes the second batch's filters on the device
        x, h = signal(rng, rows, t), signal(rng, rows, m)
        h[::5, 1000:] = 0.0
        y = gfir.convolve_batch(lib.put(x), lib.put(h))
        ref = np.stack([scipy.signal.fftconvolve(a.astype(np.float64), b) for a, b in zip(x, h)])
        assert rel_l2(lib.get(y), ref) < TOLERANCE


def causal(x, h):
    h = np.broadcast_to(h, (x.shape[0], h.shape[-1]))
    return np.stack([scipy.signal.fftconvolve(a.astype(np.float64), b)[:x.shape[1]]
                     for a, b in zip(x, h)])


@pytest.mark.parametrize("ntaps,block,chunk", [(255, 4096, 1000), (4097, 1 << 17, 50000),
                                               (5000, 256, 256), (5000, 512, 100)])
def test_streaming_plan(lib, rng, ntaps, block, chunk):
    # blocks of up to 2048 frames with a long filter take the delay-line engine
    x, h = signal(rng, 2, 200003 if block > 4096 else 12007), signal(rng, 2, ntaps)
    plan = gfir.Plan(h, 2, backend="cuda", max_block_frames=block)
    out = []
    for i, at in enumerate(range(0, x.shape[1], chunk)):
        part = x[:, at:at + chunk]
        if i % 4 == 3:  # a host call between device calls
            out.append(plan(part))
        elif i % 4 == 1:  # interleaved frames
            out.append(lib.get(plan(lib.put(np.ascontiguousarray(part.T)), axis=0)).T)
        else:
            out.append(lib.get(plan(lib.put(part))))
    y = np.concatenate(out, axis=1)
    assert rel_l2(y, causal(x, h)) < TOLERANCE
    tail = plan.flush(ntaps - 1, like=lib.put(x[:, :1]))
    assert lib.is_mine(tail)
    full = np.stack([scipy.signal.fftconvolve(a.astype(np.float64), b) for a, b in zip(x, h)])
    assert rel_l2(lib.get(tail), full[:, x.shape[1]:]) < TOLERANCE


def test_plan_set_taps_and_reset(lib, rng):
    x, h1, h2 = signal(rng, 2, 30011), signal(rng, 2, 1500), signal(rng, 2, 1500)
    plan = gfir.Plan(h1, 2, backend="cuda", max_block_frames=32768)
    assert rel_l2(lib.get(plan(lib.put(x))), causal(x, h1)) < TOLERANCE
    plan.set_taps(lib.put(h2))  # also forgets the history
    assert rel_l2(lib.get(plan(lib.put(x))), causal(x, h2)) < TOLERANCE
    plan.reset()
    out = lib.put(np.zeros_like(x))
    assert plan.process(lib.put(x), out=out) is out
    assert rel_l2(lib.get(out), causal(x, h2)) < TOLERANCE
    with pytest.raises(gfir.ArgumentError, match="overlap"):
        d = lib.put(x)
        plan.process(d, out=d)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_empty_arrays_on_the_device(lib, rng, mode):
    # no rows: an empty result of the mode's length, no plan (a division by
    # zero before); an empty signal or filter: the ValueError of the CPU path
    _, length = gfir._convolve.window(1000, 31, mode)
    y = gfir.convolve_batch(lib.put(signal(rng, 0, 1000)), lib.put(signal(rng, 0, 31)), mode)
    assert lib.is_mine(y) and tuple(y.shape) == (0, length)
    y = gfir.convolve(lib.put(signal(rng, 0, 1000)), signal(rng, 31), mode)
    assert lib.is_mine(y) and tuple(y.shape) == (0, length)
    with pytest.raises(ValueError, match="must not be empty"):
        gfir.convolve(lib.put(signal(rng, 2, 0)), signal(rng, 31), mode)


def test_the_second_device(lib, rng):
    # arrays on device 1 run there, on their library's stream there, whatever
    # device is current; a plan on another device refuses them
    if gfir.backend_devices("cuda") < 2:
        pytest.skip("one GPU is visible")
    x, h, hb = signal(rng, 3, 40011), signal(rng, 2049), signal(rng, 3, 999)
    with lib.device(1):
        s = lib.stream()
        with lib.on(s):
            d = lib.put(x)
            y = gfir.convolve(d, lib.put(h), "same")
            z = gfir.convolve_batch(d, hb, "full", device=1)
            plan = gfir.Plan(h, 3, backend="cuda", device=1, max_block_frames=1 << 16)
            p = plan(d)
            tail = plan.flush(2048, like=d[:, :1])
        lib.sync(s)
    for a in (y, z, p, tail):
        assert lib.device_of(a) == 1
    assert rel_l2(lib.get(y), reference(x, h, "same")) < TOLERANCE
    ref_b = np.stack([scipy.signal.fftconvolve(a.astype(np.float64), b) for a, b in zip(x, hb)])
    assert rel_l2(lib.get(z), ref_b) < TOLERANCE
    assert rel_l2(lib.get(p), causal(x, h)) < TOLERANCE
    full = reference(x, h, "full")
    assert rel_l2(lib.get(tail), full[:, x.shape[1]:x.shape[1] + 2048]) < TOLERANCE
    # device 0 current: the array still says where
    y0 = gfir.convolve(d, h, "valid")
    assert lib.device_of(y0) == 1
    assert rel_l2(lib.get(y0), reference(x, h, "valid")) < TOLERANCE
    with pytest.raises(ValueError, match="device=0"):
        gfir.convolve(d, h, device=0)
    with pytest.raises(ValueError, match="on device 1"):
        gfir.Plan(h, 3, backend="cuda")(d)
    with pytest.raises(ValueError, match="on device 0"):
        plan.flush(16, like=lib.put(x[:, :1]))
    # a host signal sent to device 1
    assert rel_l2(gfir.convolve(x, h, "same", backend="cuda", device=1),
                  reference(x, h, "same")) < TOLERANCE


def test_close_waits_for_a_device_call_in_flight(lib, rng):
    # as the CPU test: a worker inside a device call, close() from another
    # thread waits for it and frees the plan after; later calls raise
    import threading
    x, h = signal(rng, 2, 1 << 18), signal(rng, 2, 4097)
    plan = gfir.Plan(h, 2, backend="cuda", max_block_frames=1024)
    d = lib.put(x)
    got = {}

    def work():
        for _ in range(50):
            try:
                plan.reset()
                got["y"] = plan(d)
            except ValueError as e:
                got["error"] = e
                return
    worker = threading.Thread(target=work)
    worker.start()
    plan.close()
    worker.join()
    if "y" in got:
        assert rel_l2(lib.get(got["y"]), causal(x, h)) < TOLERANCE
    assert "closed" in str(got.get("error", "closed"))
    with pytest.raises(ValueError, match="closed"):
        plan(d)
