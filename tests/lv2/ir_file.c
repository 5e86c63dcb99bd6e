/*
 * ir_file.c - impulse-response files for the LV2 tests (ir_file.h).
 */
#include "ir_file.h"

#include <sndfile.h>
#include <stdlib.h>

int ir_file_write(const char *path, double rate_hz, const float *taps, unsigned channels,
                  size_t ntaps, size_t lead_zeros)
{
    SF_INFO info = {0, (int)rate_hz, (int)channels, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 0, 0};
    const size_t frames = lead_zeros + ntaps;
    float *buf = calloc(frames * channels, sizeof *buf);
    SNDFILE *sf = buf ? sf_open(path, SFM_WRITE, &info) : NULL;
    int failed = !sf;
    for (size_t i = 0; sf && i < ntaps; i++)
        for (unsigned c = 0; c < channels; c++)
            buf[(lead_zeros + i) * channels + c] = taps[c * ntaps + i];
    if (sf) {
        failed = sf_writef_float(sf, buf, (sf_count_t)frames) != (sf_count_t)frames;
        failed |= sf_close(sf) != 0;
    }
    free(buf);
    return failed;
}
