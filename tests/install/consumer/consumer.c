/*
 * consumer.c - a program that knows libgfir only as installed: its header and
 * a link flag. It filters an impulse per channel and checks that the output is
 * the taps, so a wrong library (or none) cannot pass by merely linking.
 * Exit status 0 when right, 1 otherwise.
 */
#include <gfir.h>

#include <stdio.h>
#include <string.h>

#define NTAPS 7
#define FRAMES 16
#define CHANNELS 2

int main(void)
{
    const float taps[CHANNELS * NTAPS] = {0.5f, -0.25f, 0.125f, 1.0f, 2.0f, -3.0f, 0.75f,
                                          1.5f, 0.25f,  -1.0f,  4.0f, 0.5f, 0.0f,  -2.0f};
    float in[FRAMES * CHANNELS] = {0}, out[FRAMES * CHANNELS];
    gfir_config cfg;
    gfir_plan *plan = NULL;
    int bad = 0;

    gfir_config_init(&cfg);
    cfg.channels = CHANNELS;
    cfg.filter_channels = CHANNELS;
    cfg.backend = GFIR_BACKEND_CPU;
    if (gfir_plan_create(&plan, taps, NTAPS, &cfg) != GFIR_OK) {
        fprintf(stderr, "consumer: create failed: %s\n", gfir_plan_error_detail(NULL));
        return 1;
    }
    in[0] = 1.0f;                /* channel 0: impulse at frame 0 */
    in[3 * CHANNELS + 1] = 1.0f; /* channel 1: impulse at frame 3 */
    if (gfir_plan_execute(plan, in, out, FRAMES) != GFIR_OK)
        bad = 1;
    for (int i = 0; i < FRAMES && !bad; i++) {
        float want0 = i < NTAPS ? taps[i] : 0.0f;
        float want1 = i >= 3 && i - 3 < NTAPS ? taps[NTAPS + i - 3] : 0.0f;
        if (out[i * CHANNELS] != want0 || out[i * CHANNELS + 1] != want1)
            bad = 1;
    }
    gfir_plan_destroy(plan);
    printf("consumer: libgfir %s (built with header %d): %s\n", gfir_version_string(),
           GFIR_VERSION_NUMBER, bad ? "WRONG output" : "ok");
    return bad;
}
