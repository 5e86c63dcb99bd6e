/*
 * fuzz_taps.c - libFuzzer target: any bytes as a --taps file. The parser must
 * return a tap set or one error, never read past what it was given, and keep
 * its memory to the coefficients found.
 */
#include "filter/taps.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    float *taps;
    size_t ntaps;
    FILE *fp;
    if (size == 0)
        return 0; /* fmemopen refuses an empty buffer */
    fp = fmemopen((void *)data, size, "r");
    if (!fp)
        return 0;
    if (taps_read_text(fp, "fuzz", (size_t)1 << 20, &taps, &ntaps) == 0) {
        if (ntaps == 0 || !taps)
            abort();
        free(taps);
    } else if (taps || ntaps) {
        abort();
    }
    fclose(fp);
    return 0;
}
