/*
 * ir_file.h - impulse-response files for the LV2 tests: planar taps written
 * as a float WAV, the way a user's IR file comes.
 */
#ifndef GFIR_TEST_LV2_IR_FILE_H
#define GFIR_TEST_LV2_IR_FILE_H

#include <stddef.h>

/* Writes taps (channels sets of ntaps, one after another) to path as a
 * float WAV of channels channels at rate_hz, after lead_zeros silent
 * frames. 0 on success, 1 on failure. */
int ir_file_write(const char *path, double rate_hz, const float *taps, unsigned channels,
                  size_t ntaps, size_t lead_zeros);

#endif
