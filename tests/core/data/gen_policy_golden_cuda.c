/*
 * gen_policy_golden_cuda.c - wrote policy_golden_cuda.txt: the CUDA backend's
 * choices by the policy as it stood at 8beed11, before the engines became
 * objects, with no GPU needed (its static choose_on called directly on the
 * CUDA backend; the crossover is the default when no device answers). It
 * builds only against that tree, not this one, and is kept as the table's
 * provenance (not part of the build):
 *
 *   git archive 8beed11 | tar -x -C /tmp/old && cd /tmp/old
 *   cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DGFIR_CUDA=ON
 *   cmake --build b --target gfir_static
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -DGFIR_HAVE_CUDA -I include -I src \
 *      -I kernels -I /usr/local/cuda/include THIS_FILE b/libgfir.a \
 *      -L/usr/local/cuda/lib64 -lcudart_static -lfftw3f -lfftw3f_threads \
 *      -lpthread -ldl -lrt -lm -lstdc++ -o gen
 *   XDG_CACHE_HOME=/nonexistent/gfir-policy-golden ./gen > policy_golden_cuda.txt
 */
#include "core/policy.c"
#include <stdio.h>
#include <string.h>

static const gfir_kernel kernels[] = {GFIR_KERNEL_AUTO, GFIR_KERNEL_GOLD, GFIR_KERNEL_DIRECT,
    GFIR_KERNEL_BASIC, GFIR_KERNEL_CONSTANT, GFIR_KERNEL_TILED, GFIR_KERNEL_CACHED, GFIR_KERNEL_FFT};
static const size_t ntaps[] = {1, 127, 190, 191, 192, 4096, 8192, 8193, 65536};
static const size_t blocks[] = {1, 64, 100, 2048, 2049, 4096};
static const unsigned chans[] = {1, 2};

int main(void)
{
    for (size_t k = 0; k < 8; k++)
        for (size_t t = 0; t < 9; t++)
            for (size_t b = 0; b < 6; b++)
                for (size_t c = 0; c < 2; c++)
                    for (unsigned shared = 0; shared < 2; shared++) {
                        gfir_plan plan;
                        memset(&plan, 0, sizeof plan);
                        plan.inputs = plan.outputs = plan.channels = chans[c];
                        plan.filter_channels = shared ? 1 : chans[c];
                        if (!shared && chans[c] == 1)
                            continue;
                        plan.ntaps = ntaps[t];
                        plan.block_frames = blocks[b];
                        plan.max_latency_frames = 0;
                        gfir_status st = choose_on(&plan, &gf_cuda_backend, kernels[k]);
                        printf("cuda %s %zu %zu %u %u -> ", gfir_kernel_name(kernels[k]), ntaps[t],
                               blocks[b], chans[c], plan.filter_channels);
                        if (st != GFIR_OK) {
                            printf("refused %d\n", (int)st);
                            continue;
                        }
                        const char *e = plan.form == GF_FORM_FDL ? "cuda-fdl"
                                        : plan.kernel == GFIR_KERNEL_FFT ? "cuda-fft" : "cuda-direct";
                        printf("%s %s %zu 0\n", e, gfir_kernel_name(plan.kernel), plan.partition);
                    }
    return 0;
}
