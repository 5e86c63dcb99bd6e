/*
 * save_state.c - a saved state directory for the live tests, made as a host
 * makes one: instantiates URI in the test host (host.h), sets its IR by
 * patch:Set, runs until the plugin echoes the path on notify, and saves its
 * state with liblilv into DIR (DIR/state.ttl, the IR linked beside it).
 *   save_state URI DIR IR_FILE
 */
#include "host.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    static float x[2][256], y[2][256];
    float *in[2] = {x[0], x[1]}, *out[2] = {y[0], y[1]};
    host h, fresh;
    if (argc != 4) {
        fprintf(stderr, "usage: save_state URI DIR IR_FILE\n");
        return 2;
    }
    if (host_open(&h, argv[1], 48000, 256))
        return 1;
    host_set_ir(&h, argv[3]);
    for (int i = 0; i < 100 && strcmp(h.notified_path, argv[3]); i++)
        host_cycle(&h, in, out, 256);
    if (strcmp(h.notified_path, argv[3])) {
        fprintf(stderr, "save_state: %s did not load %s: %s\n", argv[1], argv[3],
                h.notified_status);
        return 1;
    }
    /* saves, then restores into a fresh instance: the directory must load */
    if (host_save_restore(&h, argv[2], &fresh)) {
        fprintf(stderr, "save_state: cannot save or restore %s\n", argv[2]);
        return 1;
    }
    host_close(&fresh);
    host_close(&h);
    return 0;
}
