/*
 * fuzz_input.c - libFuzzer target: any bytes as INPUT and as an --ir file.
 * INPUT is opened (the rate check, the short-data check), read to its end,
 * and its format streamed as a WAV header would be to a pipe; the same bytes
 * are then loaded as an impulse response at 48 kHz, resampled where their
 * rate differs.
 */
#define _GNU_SOURCE /* memfd_create */
#include "file/file.h"
#include "file/format.h"
#include "file/stream.h"
#include "filter/ir.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Decoders can expand a small file a lot (FLAC's constant blocks): enough
 * frames to go through every block of the reader. */
#define MAX_READ_FRAMES (1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int mem = -1, sink = -1;
static char path[64];

static void read_all(SNDFILE *sf, const SF_INFO *info)
{
    static float buf[4096];
    const sf_count_t per = (sf_count_t)(sizeof buf / sizeof buf[0]) / info->channels;
    sf_count_t total = 0, got;
    if (per <= 0)
        return;
    while (total < MAX_READ_FRAMES && (got = sf_readf_float(sf, buf, per)) > 0)
        total += got;
}

static void stream_header(const SF_INFO *info)
{
    SF_INFO out;
    SNDFILE *sf;
    static const float silence[64];
    if (format_choose(NULL, "-", 1, info, 0, &out) != 0)
        return;
    if (lseek(sink, 0, SEEK_SET) != 0 ||
        stream_open(sink, "fuzz", &out, cli_input_frames(info), &sf) != 0)
        return;
    if (info->channels <= 64)
        sf_writef_float(sf, silence, 1);
    sf_close(sf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SNDFILE *in;
    SF_INFO info;
    float *taps;
    size_t ntaps, silent;
    unsigned channels;

    if (mem < 0) {
        mem = memfd_create("gfir-fuzz-input", 0);
        sink = open("/dev/null", O_WRONLY);
        if (mem < 0 || sink < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", mem);
    }
    if (ftruncate(mem, 0) != 0 || pwrite(mem, data, size, 0) != (ssize_t)size)
        abort();
    if (cli_open_input(path, 0, &in, &info) == 0) {
        read_all(in, &info);
        stream_header(&info);
        cli_close_input(in);
    }
    if (taps_load_ir(path, 48000.0, 1, 0, (size_t)1 << 24, &taps, &ntaps, &channels, &silent) == 0) {
        if (!taps || ntaps == 0 || channels == 0)
            abort();
        free(taps);
    }
    return 0;
}
