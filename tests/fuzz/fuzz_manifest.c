/*
 * fuzz_manifest.c - libFuzzer target: any bytes as a batch manifest (TSV, CSV
 * or JSONL, told apart as gfir batch tells them), read record by record with
 * every field gfir asks for. The reader must return records, bad lines or
 * the end, never read past its line, and keep its memory to one line
 * (table.h's bounds); every value it hands out is a string of the line.
 */
#include "batch/table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const keys[] = {"id",   "input", "output", "ir",   "preset",
                                   "taps", "gain",  "align",  "format", "seed"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/gfir-fuzz-manifest-XXXXXX";
    table_reader t;
    int fd = mkstemp(path), got;
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    if (table_open(&t, path) == 0) {
        size_t records = 0;
        while ((got = table_next(&t)) != 0) {
            if (got < 0) {
                if (!t.error[0])
                    abort(); /* a bad line always says why */
                if (t.io_error)
                    break;
                continue;
            }
            records++;
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                const char *v = NULL;
                if (table_get(&t, keys[k], &v) == 1 && (!v || strlen(v) > size))
                    abort();
            }
        }
        if (records > size)
            abort();
    } else if (!t.error[0]) {
        abort();
    }
    table_close(&t);
    unlink(path);
    return 0;
}
