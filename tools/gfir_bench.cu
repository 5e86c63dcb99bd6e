/*
 * gfir_bench.cu - times gfir's CUDA kernels with CUDA events.
 *
 *   gfir-bench [--channels C] [--frames N] [--taps 15,63,...] [--kernels a,b]
 *              [--runs R] [--csv FILE] [--threads T] [--fft-sizes N,..]
 *              [--fft-parts P,..]
 *              [--live-blocks B,..] [--no-host]
 *   gfir-bench --calibrate [--channels C] [--frames N] [--runs R]
 *
 * Table 1: data resident on the device. For each tap count and kernel, the
 * median of R runs (after warm-up) over two alternating random inputs, as
 * Gsamples/s, effective GB/s (inputs read once plus outputs written once), the
 * fraction of the device-to-device copy bandwidth and of the FP32 FMA rate
 * (direct kernels only: an FFT does not do ntaps FMAs per sample), both
 * measured in the same run, and the memory floor: the bytes that the
 * kernel's passes must move through device memory, at the measured copy
 * rate, and the time as a multiple of it. Direct kernels and smfft's
 * one-pass shape read the input once and write the output once; the
 * four-step shape also writes its work matrix (N points of 8 bytes per
 * segment pair and channel), reads and rewrites it, and reads it back: 32 N
 * bytes a pair more (the filter's spectrum, read once a pair, is counted as
 * held in L2). No floor is given for the cuFFT passes, whose inner passes
 * are cuFFT's own. Every kernel reads the same planar
 * halo-prefixed input and writes planar output; for fft that is the whole
 * engine of kernels/fft/ (smfft's transforms in shared memory, or the cuFFT
 * passes: gather into segments, R2C, spectral multiply or partitioned
 * multiply-accumulate, C2R, extract of the valid samples), with its plans
 * and the filter spectrum made before timing.
 * Its shape is the library's rule for a block of all the frames: smfft(N)
 * for a whole filter at N points in smfft's transforms, fft(N) for one in
 * cuFFT's, fftp(P) for partitions of P taps. --fft-sizes
 * and --fft-parts add rows at other shapes (whole sizes of at least 2 ntaps;
 * partitions below ntaps), to tune the rule from: fft_sweep rows in the CSV,
 * which the peer comparison ignores.
 * Table 2: the streaming plan API from pinned host memory, host to device and
 * back included (wall clock around gfir_plan_execute, which is synchronous).
 * Table 3: one call of the plan API at audio block sizes from ordinary
 * (pageable) memory, as a live caller makes it: GPU and CPU side by side, the
 * figures behind AUTO's choice of backend.
 * Table 4: live-sized calls (--live-blocks, frames per call) from ordinary
 * memory on the GPU, direct and fft at every --taps count: the median wall
 * time of one gfir_plan_execute, to set against the block's duration at 48 kHz.
 * --csv appends machine-readable rows for tools/bench/gpu_peers.py.
 *
 * --calibrate times the direct kernel against the FFT engine at tap counts
 * from 127 to 2047 on this device (data on the device, as Table 1) and keeps
 * the smallest count from which FFT stays faster in the user's cache
 * directory, where AUTO on the CUDA backend looks for it by device name.
 */
#include "core/cache.h"
#include "gfir.h"
#include "cuda/tuning.h"
#include "fft/fft.h"
#include "kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#define CUDA_OK(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "gfir-bench: %s: %s\n", #call, cudaGetErrorString(e_));       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

struct kernel_entry {
    const char *name;
    cudaError_t (*launch)(const gf_conv_args *, cudaStream_t);
};
static const kernel_entry all_kernels[] = {
    {"basic", gf_launch_basic}, {"constant", gf_launch_constant},
    {"tiled", gf_launch_tiled}, {"cached", gf_launch_cached},
    {"direct", gf_launch_direct},
};
/* The textbook kernels take seconds per run beyond this; they are there to
 * teach, not to compete with direct and fft on long filters. */
#define TEXTBOOK_MAX_TAPS 16383

static std::vector<size_t> parse_list(const char *s)
{
    std::vector<size_t> v;
    for (const char *p = s; *p;) {
        char *end;
        v.push_back(strtoull(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) {
            fprintf(stderr, "gfir-bench: bad list '%s'\n", s);
            exit(2);
        }
    }
    return v;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void fill_random(float *h, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        h[i] = (float)((double)((s * 0x2545F4914F6CDD1DULL) >> 40) / 8388608.0 - 1.0);
    }
}

/* Times `runs` launches of fn after `warm` untimed ones; median milliseconds. */
template <class F> static double time_ms(F fn, int warm, int runs)
{
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    for (int i = 0; i < warm; i++)
        fn(i);
    std::vector<double> t;
    for (int i = 0; i < runs; i++) {
        CUDA_OK(cudaEventRecord(a));
        fn(i);
        CUDA_OK(cudaEventRecord(b));
        CUDA_OK(cudaEventSynchronize(b));
        float ms;
        CUDA_OK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return median(t);
}

/* The FP32 FMA ceiling: independent FMA chains in registers, no memory. */
__global__ void fma_peak_kernel(float *out, int iters)
{
    float a[8];
    for (int j = 0; j < 8; j++)
        a[j] = threadIdx.x * 1e-3f + j;
    const float m = 0.999f, c = 1e-4f;
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            a[j] = fmaf(a[j], m, c);
    float s = 0;
    for (int j = 0; j < 8; j++)
        s += a[j];
    if (s == 12345.0f)
        out[0] = s; /* keeps the chains alive */
}

static double measure_fma_rate(void)
{
    int dev, sms;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    float *d;
    CUDA_OK(cudaMalloc(&d, sizeof(float)));
    const int blocks = sms * 8, threads = 256, iters = 1 << 14;
    double ms = time_ms([&](int) { fma_peak_kernel<<<blocks, threads>>>(d, iters); }, 2, 7);
    CUDA_OK(cudaGetLastError());
    cudaFree(d);
    return (double)blocks * threads * iters * 8 / (ms * 1e-3); /* FMA/s */
}

static double measure_copy_bw(size_t bytes)
{
    void *a, *b;
    CUDA_OK(cudaMalloc(&a, bytes));
    CUDA_OK(cudaMalloc(&b, bytes));
    CUDA_OK(cudaMemset(a, 1, bytes));
    double ms = time_ms([&](int) { CUDA_OK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); },
                        3, 15);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * bytes / (ms * 1e-3); /* read + written, bytes/s */
}

/* Milliseconds to move `bytes` through device memory at the copy rate. */
static double floor_ms(double bytes, double copy_bw)
{
    return bytes / copy_bw * 1e3;
}

/* The row's last two columns: the memory floor and the time over it. */
static void print_floor(double ms, double floor)
{
    if (floor > 0)
        printf(" %9.4f %6.2fx\n", floor, ms / floor);
    else
        printf(" %9s %7s\n", "-", "-");
}

/* The FFT engine from the same planar input to the same planar output as the
 * direct kernels, on the legacy default stream that time_ms records on. */
static double time_fft(float *const d_x[2], size_t x_stride, float *d_y, const float *h_taps,
                     size_t ntaps, unsigned channels, size_t frames, size_t n_fft, size_t part,
                     unsigned flags, int runs, double copy_bw, FILE *csv, const char *csv_kind)
{
    char why[256] = "";
    gf_fft_filter *f;
    gf_fft_engine *e;
    if (gf_fft_filter_create(&f, h_taps, ntaps, 1, n_fft, part, 0, why, sizeof why) != GFIR_OK) {
        fprintf(stderr, "gfir-bench: fft at %zu taps, N = %zu: %s\n", ntaps, n_fft, why);
        exit(1);
    }
    if (gf_fft_engine_create(&e, f, channels, frames, 0, flags, why, sizeof why) != GFIR_OK) {
        fprintf(stderr, "gfir-bench: fft at %zu taps, N = %zu: %s\n", ntaps, n_fft, why);
        exit(1);
    }
    double ms = time_ms(
        [&](int i) {
            if (gf_fft_run(e, d_x[i & 1], x_stride, frames, d_y, 1, frames, why, sizeof why) !=
                GFIR_OK) {
                fprintf(stderr, "gfir-bench: fft: %s\n", why);
                exit(1);
            }
        },
        3, runs);
    CUDA_OK(cudaDeviceSynchronize());
    const size_t samples = frames * channels;
    const double gbps = ((double)(frames + ntaps - 1) * channels * 4 + samples * 4.0) /
                        (ms * 1e-3) / 1e9;
    char label[32];
    snprintf(label, sizeof label, "%s(%zu)",
             part ? "fftp" : gf_fft_engine_smfft(e) ? "smfft" : "fft", part ? part : n_fft);
    printf("%6zu %-12s %10.4f %10.2f %9.0f %7.1f%% %8s", ntaps, label, ms,
           samples / (ms * 1e-3) / 1e9, gbps, 100 * gbps * 1e9 / copy_bw, "-");
    double floor = 0; /* see the top of this file */
    if (!part && gf_fft_engine_smfft(e)) {
        double bytes = ((double)(frames + ntaps - 1) + frames) * channels * 4;
        if (n_fft > GF_SMFFT_ONEPASS_MAX) {
            const size_t hop = n_fft - (ntaps - 1), rows = (frames + hop - 1) / hop;
            bytes += 32.0 * (double)n_fft * (double)((rows + 1) / 2) * channels;
        }
        floor = floor_ms(bytes, copy_bw);
    }
    print_floor(ms, floor);
    if (csv)
        fprintf(csv, "%s,fft,%zu,%.5f,%zu,%zu\n", csv_kind, ntaps, ms, n_fft, part);
    gf_fft_engine_destroy(e);
    gf_fft_filter_destroy(f);
    return ms;
}

/* --calibrate: see the top of this file. */
static int calibrate(const cudaDeviceProp &prop, unsigned channels, size_t frames, int runs)
{
    static const size_t list[] = {127, 191, 255, 319, 383, 447, 511, 767, 1023, 1535, 2047};
    const size_t count = sizeof list / sizeof list[0], max_taps = list[count - 1];
    const size_t x_stride = frames + max_taps - 1, taps_stride = 2048;
    std::vector<float> h_x(channels * x_stride), h_taps(taps_stride, 0.0f);
    float *d_x[2], *d_y, *d_taps;
    for (int k = 0; k < 2; k++) {
        fill_random(h_x.data(), h_x.size(), 11 + k);
        CUDA_OK(cudaMalloc(&d_x[k], h_x.size() * sizeof(float)));
        CUDA_OK(cudaMemcpy(d_x[k], h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaMalloc(&d_y, frames * channels * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_taps, taps_stride * sizeof(float)));
    printf("calibrating AUTO's direct/fft crossover on %s: %u channels x %zu frames, "
           "median of %d runs\n%6s %-12s %10s\n",
           prop.name, channels, frames, runs, "ntaps", "kernel", "ms");
    const double copy_bw = measure_copy_bw(frames * channels * sizeof(float));
    std::vector<double> direct(count), fft(count);
    for (size_t i = 0; i < count; i++) {
        const size_t ntaps = list[i];
        std::fill(h_taps.begin(), h_taps.end(), 0.0f);
        fill_random(h_taps.data(), ntaps, ntaps);
        CUDA_OK(cudaMemcpy(d_taps, h_taps.data(), taps_stride * sizeof(float),
                           cudaMemcpyHostToDevice));
        gf_conv_args a = {NULL, x_stride, d_taps, taps_stride, 1, ntaps, d_y, frames, frames,
                            channels, 0, 0, 0, 0};
        direct[i] = time_ms(
            [&](int r) {
                a.d_x = d_x[r & 1];
                CUDA_OK(gf_launch_direct(&a, 0));
            },
            3, runs);
        printf("%6zu %-12s %10.4f\n", ntaps, "direct", direct[i]);
        const size_t part = gf_fft_part(ntaps, frames);
        fft[i] = time_fft(d_x, x_stride, d_y, h_taps.data(), ntaps, channels, frames,
                          part ? 2 * part : gf_fft_size(ntaps, frames), part, 0, runs, copy_bw,
                          NULL, "");
    }
    /* the smallest count from which fft wins at every larger one measured */
    size_t cross = max_taps + 1;
    for (size_t i = count; i-- > 0 && fft[i] <= direct[i];)
        cross = list[i];
    char path[4096] = "";
    gf_cache_path(path, sizeof path, GF_CUDA_CROSSOVER_FILE, 0);
    for (int k = 0; k < 2; k++)
        cudaFree(d_x[k]);
    cudaFree(d_y);
    cudaFree(d_taps);
    if (gf_cache_store(GF_CUDA_CROSSOVER_FILE, prop.name, cross) != 0) {
        fprintf(stderr, "gfir-bench: cannot write the crossover to %s\n",
                path[0] ? path : "the cache directory (neither XDG_CACHE_HOME nor HOME set)");
        return 1;
    }
    printf("AUTO on %s takes fft from %zu taps: kept in %s\n", prop.name, cross, path);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A plan over a random tap set; the benchmark cannot go on without it. */
static gfir_plan *bench_plan(gfir_backend backend, gfir_kernel kernel, unsigned channels,
                             size_t ntaps, size_t block, unsigned threads)
{
    std::vector<float> h(ntaps);
    fill_random(h.data(), ntaps, ntaps);
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = channels;
    cfg.backend = backend;
    cfg.kernel = kernel;
    cfg.max_block_frames = block;
    cfg.threads = threads;
    gfir_plan *plan;
    if (gfir_plan_create(&plan, h.data(), ntaps, &cfg) != GFIR_OK) {
        fprintf(stderr, "gfir-bench: plan: %s\n", gfir_plan_error_detail(NULL));
        exit(1);
    }
    return plan;
}

/* One plan per block size, kernel and tap count; calls of exactly one block. */
static void live_table(const std::vector<size_t> &taps, const std::vector<std::string> &names,
                       const std::vector<size_t> &blocks, unsigned channels, FILE *csv)
{
    const int calls = 200;
    printf("\nTable 4: live-sized calls on the GPU, ordinary host memory, median ms per call (of %d)\n",
           calls);
    printf("%6s %8s %-8s %10s %12s\n", "ntaps", "frames", "kernel", "ms/call", "block at 48k");
    for (size_t block : blocks) {
        std::vector<float> in(block * channels), out(block * channels);
        fill_random(in.data(), in.size(), 5);
        for (size_t ntaps : taps) {
            for (gfir_kernel kernel : {GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT}) {
                const char *kname = gfir_kernel_name(kernel);
                if (std::find(names.begin(), names.end(), kname) == names.end())
                    continue;
                gfir_plan *plan = bench_plan(GFIR_BACKEND_CUDA, kernel, channels, ntaps, block, 0);
                std::vector<double> t;
                for (int r = 0; r < calls + 10; r++) {
                    double t0 = now_s();
                    if (gfir_plan_execute(plan, in.data(), out.data(), block) != GFIR_OK) {
                        fprintf(stderr, "gfir-bench: execute: %s\n",
                                gfir_plan_error_detail(plan));
                        exit(1);
                    }
                    if (r >= 10)
                        t.push_back((now_s() - t0) * 1e3);
                }
                gfir_plan_destroy(plan);
                const double ms = median(t);
                printf("%6zu %8zu %-8s %10.4f %9.2f ms\n", ntaps, block, kname, ms,
                       block / 48.0);
                if (csv)
                    fprintf(csv, "live,%s,%zu,%zu,%.5f\n", kname, block, ntaps, ms);
            }
        }
    }
}

/* Median wall time of one execute of `frames` frames, after warm-up. */
static double call_us(gfir_backend backend, unsigned channels, size_t ntaps, size_t frames)
{
    std::vector<float> in(frames * channels), out(frames * channels);
    fill_random(in.data(), in.size(), frames);
    gfir_plan *plan = bench_plan(backend, GFIR_KERNEL_AUTO, channels, ntaps, frames, 1);
    std::vector<double> t;
    for (int r = 0; r < 220; r++) {
        double t0 = now_s();
        if (gfir_plan_execute(plan, in.data(), out.data(), frames) != GFIR_OK) {
            fprintf(stderr, "gfir-bench: execute: %s\n", gfir_plan_error_detail(plan));
            exit(1);
        }
        if (r >= 20)
            t.push_back((now_s() - t0) * 1e6);
    }
    gfir_plan_destroy(plan);
    return median(t);
}

static void small_blocks(unsigned channels, FILE *csv)
{
    printf("\nTable 3: one execute call at audio block sizes, pageable memory, %u channels, "
           "median of 200 (microseconds; each backend's auto kernel, fft for the longer\n"
           "filters; CPU on one thread)\n", channels);
    printf("%6s %7s %10s %10s\n", "ntaps", "frames", "cuda us", "cpu us");
    for (size_t ntaps : {63, 255, 1023, 4095})
        for (size_t frames : {64, 256, 1024, 4096}) {
            double g = call_us(GFIR_BACKEND_CUDA, channels, ntaps, frames);
            double c = call_us(GFIR_BACKEND_CPU, channels, ntaps, frames);
            printf("%6zu %7zu %10.1f %10.1f\n", ntaps, frames, g, c);
            if (csv)
                fprintf(csv, "small_block,%zu,%zu,%.2f,%.2f\n", ntaps, frames, g, c);
        }
}

int main(int argc, char **argv)
{
    unsigned channels = 2, threads = 0;
    size_t frames = (size_t)1 << 24;
    int runs = 15, host_table = 1;
    std::vector<size_t> fft_sizes, fft_parts;
    std::vector<size_t> live_blocks = {256, 4096};
    std::vector<size_t> taps = {15, 63, 255, 1023, 4095, 16383, 65535, 262143, 1048576};
    std::vector<std::string> names = {"basic",  "constant", "tiled",
                                      "cached", "direct",   "fft", "fft-cufft"};
    const char *csv_path = NULL;
    int calibrate_only = 0;

    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto val = [&]() -> const char * {
            if (i + 1 >= argc) {
                fprintf(stderr, "gfir-bench: %s needs a value\n", a.c_str());
                exit(2);
            }
            return argv[++i];
        };
        if (a == "--channels") channels = (unsigned)atoi(val());
        else if (a == "--frames") frames = strtoull(val(), NULL, 10);
        else if (a == "--taps") taps = parse_list(val());
        else if (a == "--runs") runs = atoi(val());
        else if (a == "--threads") threads = (unsigned)atoi(val());
        else if (a == "--csv") csv_path = val();
        else if (a == "--fft-sizes") fft_sizes = parse_list(val());
        else if (a == "--fft-parts") fft_parts = parse_list(val());
        else if (a == "--live-blocks") live_blocks = parse_list(val());
        else if (a == "--no-host") host_table = 0;
        else if (a == "--calibrate") calibrate_only = 1;
        else if (a == "--kernels") {
            names.clear();
            std::string s = val();
            for (size_t p = 0, q; p <= s.size(); p = q + 1) {
                q = s.find(',', p);
                if (q == std::string::npos) q = s.size();
                names.push_back(s.substr(p, q - p));
            }
        } else {
            fprintf(stderr, "usage: gfir-bench [--channels C] [--frames N] [--taps a,b] "
                            "[--kernels k,..] [--runs R] [--threads T] [--csv FILE] [--fft-sizes N,..] "
                            "[--fft-parts P,..] "
                            "[--live-blocks b,..] [--no-host] | --calibrate [--channels C] "
                            "[--frames N] [--runs R]\n");
            return 2;
        }
    }
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        fprintf(stderr, "gfir-bench: no usable CUDA device\n");
        return 1;
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    if (calibrate_only)
        return calibrate(prop, channels, frames, runs);
    FILE *csv = csv_path ? fopen(csv_path, "a") : NULL;
    if (csv_path && !csv) {
        fprintf(stderr, "gfir-bench: cannot write %s\n", csv_path);
        return 1;
    }

    const size_t samples = frames * channels;
    const double copy_bw = measure_copy_bw(samples * sizeof(float));
    const double fma_rate = measure_fma_rate();
    printf("device: %s, %d SMs; %u channels x %zu frames; median of %d runs\n", prop.name,
           prop.multiProcessorCount, channels, frames, runs);
    printf("measured ceilings: device-to-device copy %.0f GB/s (read + write), FP32 FMA %.1f "
           "TFLOP/s\n\n",
           copy_bw / 1e9, 2 * fma_rate / 1e12);
    if (csv)
        fprintf(csv, "ceiling,copy_GBps,%.1f\nceiling,fma_TFLOPs,%.2f\ndevice,%s\n", copy_bw / 1e9,
                2 * fma_rate / 1e12, prop.name);

    printf("Table 1: data on the device\n");
    printf("%6s %-12s %10s %10s %9s %8s %8s %9s %7s\n", "ntaps", "kernel", "ms", "Gsamp/s",
           "GB/s", "%copy", "%FMA", "floor ms", "/floor");

    const size_t max_taps = *std::max_element(taps.begin(), taps.end());
    const size_t taps_stride = (max_taps + GF_TAP_STEP - 1) / GF_TAP_STEP * GF_TAP_STEP;
    const size_t x_stride = frames + max_taps - 1;
    std::vector<float> h_x(channels * x_stride), h_taps(channels * taps_stride, 0.0f);
    float *d_x[2], *d_y, *d_taps;
    for (int k = 0; k < 2; k++) {
        fill_random(h_x.data(), h_x.size(), 11 + k);
        CUDA_OK(cudaMalloc(&d_x[k], h_x.size() * sizeof(float)));
        CUDA_OK(cudaMemcpy(d_x[k], h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaMalloc(&d_y, samples * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_taps, h_taps.size() * sizeof(float)));

    for (size_t ntaps : taps) {
        const size_t stride = (ntaps + GF_TAP_STEP - 1) / GF_TAP_STEP * GF_TAP_STEP;
        std::fill(h_taps.begin(), h_taps.end(), 0.0f);
        fill_random(h_taps.data(), ntaps, ntaps); /* filter 0, shared by every channel */
        CUDA_OK(cudaMemcpy(d_taps, h_taps.data(), stride * sizeof(float), cudaMemcpyHostToDevice));
        for (const std::string &name : names) {
            const size_t rule_part = gf_fft_part(ntaps, frames);
            const size_t rule = rule_part ? 2 * rule_part : gf_fft_size(ntaps, frames);
            if (name == "fft-cufft") { /* the cuFFT passes where fft runs smfft */
                if (!rule_part && rule <= GF_SMFFT_MAX)
                    time_fft(d_x, x_stride, d_y, h_taps.data(), ntaps, channels, frames, rule, 0,
                             GF_FFT_CUFFT_ONLY, runs, copy_bw, csv, "fft_cufft");
                continue;
            }
            if (name == "fft") {
                time_fft(d_x, x_stride, d_y, h_taps.data(), ntaps, channels, frames, rule,
                         rule_part, 0, runs, copy_bw, csv, "device_resident");
                for (size_t n_fft : fft_sizes)
                    /* below 2 ntaps most of each transform is overlap */
                    if ((n_fft != rule || rule_part) && n_fft >= 2 * ntaps &&
                        (n_fft & (n_fft - 1)) == 0)
                        for (unsigned flags = 0; flags <= GF_FFT_CUFFT_ONLY;
                             flags += GF_FFT_CUFFT_ONLY)
                            if (!flags || n_fft <= GF_SMFFT_MAX) /* both where both run */
                                time_fft(d_x, x_stride, d_y, h_taps.data(), ntaps, channels,
                                         frames, n_fft, 0, flags, runs, copy_bw, csv,
                                         "fft_sweep");
                for (size_t part : fft_parts)
                    if (part != rule_part && part < ntaps && part >= 64 &&
                        (part & (part - 1)) == 0)
                        time_fft(d_x, x_stride, d_y, h_taps.data(), ntaps, channels, frames,
                                 2 * part, part, 0, runs, copy_bw, csv, "fft_sweep");
                continue;
            }
            const kernel_entry *ke = NULL;
            for (const kernel_entry &e : all_kernels)
                if (name == e.name) ke = &e;
            if (!ke) {
                fprintf(stderr, "gfir-bench: unknown kernel '%s'\n", name.c_str());
                return 2;
            }
            if (ke->launch == gf_launch_constant && !gf_constant_fits(ntaps, 1))
                continue;
            if (ke->launch != gf_launch_direct && ntaps > TEXTBOOK_MAX_TAPS)
                continue;
            gf_conv_args a = {NULL, x_stride, d_taps, stride, 1, ntaps, d_y, frames, frames,
                                channels, threads, 0, 0, 0};
            double ms = time_ms(
                [&](int i) {
                    a.d_x = d_x[i & 1];
                    CUDA_OK(ke->launch(&a, 0));
                },
                3, runs);
            const double bytes = (double)(frames + ntaps - 1) * channels * 4 + samples * 4.0;
            const double gbps = bytes / (ms * 1e-3) / 1e9;
            const double fma = (double)samples * ntaps / (ms * 1e-3);
            printf("%6zu %-12s %10.4f %10.2f %9.0f %7.1f%% %7.1f%%", ntaps, name.c_str(), ms,
                   samples / (ms * 1e-3) / 1e9, gbps, 100 * gbps * 1e9 / copy_bw,
                   100 * fma / fma_rate);
            print_floor(ms, floor_ms(bytes, copy_bw));
            if (csv)
                fprintf(csv, "device_resident,%s,%zu,%.5f\n", name.c_str(), ntaps, ms);
        }
    }
    for (int k = 0; k < 2; k++)
        cudaFree(d_x[k]);
    cudaFree(d_y);
    cudaFree(d_taps);

    if (host_table) {
        printf("\nTable 2: plan API, pinned host memory, copies to the device and back "
               "included\n");
        printf("%6s %-8s %10s %10s %12s\n", "ntaps", "kernel", "ms", "Gsamp/s", "vs PCIe");
        float *h_in, *h_out;
        CUDA_OK(cudaHostAlloc(&h_in, samples * sizeof(float), cudaHostAllocDefault));
        CUDA_OK(cudaHostAlloc(&h_out, samples * sizeof(float), cudaHostAllocDefault));
        fill_random(h_in, samples, 3);
        /* the floor: the same bytes copied in and out, nothing computed */
        float *d_tmp;
        CUDA_OK(cudaMalloc(&d_tmp, samples * sizeof(float)));
        double pcie_ms = time_ms(
            [&](int) {
                CUDA_OK(cudaMemcpyAsync(d_tmp, h_in, samples * 4, cudaMemcpyHostToDevice));
                CUDA_OK(cudaMemcpyAsync(h_out, d_tmp, samples * 4, cudaMemcpyDeviceToHost));
            },
            2, 7);
        cudaFree(d_tmp);
        printf("%6s %-8s %10.3f %10.2f %12s\n", "copy", "-", pcie_ms,
               samples / (pcie_ms * 1e-3) / 1e9, "1.00x");
        for (size_t ntaps : taps) {
            for (gfir_kernel kernel : {GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT}) {
                const char *kname = gfir_kernel_name(kernel);
                if (std::find(names.begin(), names.end(), kname) == names.end())
                    continue;
                gfir_plan *plan = bench_plan(GFIR_BACKEND_CUDA, kernel, channels, ntaps, frames, 0);
                std::vector<double> t;
                for (int r = 0; r < runs / 3 + 2; r++) {
                    double t0 = now_s();
                    if (gfir_plan_execute(plan, h_in, h_out, frames) != GFIR_OK) {
                        fprintf(stderr, "gfir-bench: execute: %s\n", gfir_plan_error_detail(plan));
                        return 1;
                    }
                    if (r >= 2)
                        t.push_back((now_s() - t0) * 1e3);
                }
                gfir_plan_destroy(plan);
                double ms = median(t);
                printf("%6zu %-8s %10.3f %10.2f %11.2fx\n", ntaps, kname, ms,
                       samples / (ms * 1e-3) / 1e9, ms / pcie_ms);
                if (csv)
                    fprintf(csv, "host_pinned,%s,%zu,%.5f\n", kname, ntaps, ms);
            }
        }
        if (csv)
            fprintf(csv, "host_pinned,copy_only,0,%.5f\n", pcie_ms);
        cudaFreeHost(h_in);
        cudaFreeHost(h_out);
    }
    if (host_table) {
        small_blocks(channels, csv);
        live_table(taps, names, live_blocks, channels, csv);
    }
    if (csv)
        fclose(csv);
    return 0;
}
