/*
 * cost.c - the CPU's time to filter, by a model fitted to measurements
 * (cost.h). It only has to be right to a factor well under two: it decides
 * whether a GPU's start-up, a third of a second, pays.
 *
 * Direct convolution: ntaps multiply-adds per frame and channel at
 * DIRECT_MACS_PER_S per thread (tools/bench/cpu.sh, docs/BENCHMARKS.md:
 * 18-22 GMAC/s on one thread of the 2-core development machine from 255 taps
 * up), shared across every thread.
 *
 * Uniformly partitioned FFT with partitions of P frames and K = ntaps / P
 * partitions: FFT_LOG_NS * log2(2P) + FFT_PART_NS * K ns per frame and
 * channel on one thread, fitted to `cpu_fft_bench --partition` (same machine,
 * 2026-11-23): 512 taps at P = 512 3.5 ns, 65536 at 32768 5.4 ns, 262144 at
 * 32768 6.3 ns (model 8.8) and at 8192 16.0 (model 20.2), 2^20 at 32768 23.3
 * (model 20.8). The engine spreads channels over threads, and a single
 * channel's partitions only when there are many of them. The zero-latency
 * FFT engine's model is its own (gf_cpu_fft_nonuniform_ns()).
 */
#include "cpu/cost.h"
#include "cpu/fft_nonuniform.h"
#include "cpu/pool.h"

#define DIRECT_MACS_PER_S 20e9
#define FFT_LOG_NS 0.3
#define FFT_PART_NS 0.5

static double log2_of(double n)
{
    double l = 0;
    while (n > 1) {
        n /= 2;
        l++;
    }
    return l;
}

double gf_cpu_seconds(const gfir_plan *plan, double frames)
{
    const double threads = plan->threads ? plan->threads : gf_cpu_count();
    const double samples = frames * plan->channels;
    if (plan->kernel == GFIR_KERNEL_FFT && plan->form == GF_FORM_NONUNIFORM) {
        /* Large calls spread their channels over the threads. */
        const double used = plan->channels < threads ? plan->channels : threads;
        return samples * gf_cpu_fft_nonuniform_ns(plan->ntaps) * 1e-9 / used;
    }
    if (plan->kernel == GFIR_KERNEL_FFT && plan->partition) {
        const double p = (double)plan->partition;
        const double parts = (double)((plan->ntaps + plan->partition - 1) / plan->partition);
        const double ns = FFT_LOG_NS * log2_of(2 * p) + FFT_PART_NS * parts;
        double used = plan->channels > 1 ? plan->channels : parts >= 32 ? threads : 1;
        used = used < threads ? used : threads;
        return samples * ns * 1e-9 / used;
    }
    return samples * (double)plan->ntaps / (DIRECT_MACS_PER_S * threads);
}
