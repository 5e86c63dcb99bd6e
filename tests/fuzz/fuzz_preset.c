/*
 * fuzz_preset.c - libFuzzer target: a preset file and its overrides. The
 * first line of the input is what follows NAME: in --preset NAME:key=value,...
 * and the rest is the INI file (a [route]'s lines too), parsed, checked and,
 * where its designs are of a sensible size, designed at 48 kHz, folded and
 * unfolded.
 */
#include "filter/filter.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Designs longer than this are what the user asked for, at their cost: the
 * fuzzer would spend its time in the window function. */
#define MAX_DESIGN_TAPS 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/gfir-fuzz-preset-XXXXXX";
static char ini[sizeof dir + 8];

static int small_designs(const cli_filter *f)
{
    for (size_t i = 0; i < f->chain.nstages; i++) {
        const cli_stage *s = &f->chain.stages[i];
        size_t n;
        if (s->kind == STAGE_DESIGN &&
            (gfir_design_length(s->type, 48000.0, s->transition_hz, s->attenuation_db, &n) !=
                 GFIR_OK ||
             n > MAX_DESIGN_TAPS))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    const size_t line = nl ? (size_t)(nl - data) : size;
    char *spec;
    cli_filter *f;
    cli_design d;
    FILE *fp;

    if (!ini[0]) {
        if (!mkdtemp(dir))
            abort();
        snprintf(ini, sizeof ini, "%s/p.ini", dir);
    }
    fp = fopen(ini, "wb");
    if (!fp)
        abort();
    if (nl)
        fwrite(nl + 1, 1, size - line - 1, fp);
    fclose(fp);
    spec = malloc(strlen(ini) + line + 2);
    f = cli_filter_new();
    if (!spec || !f)
        abort();
    /* a NUL in the line ends the spec there, as it would on a command line */
    snprintf(spec, strlen(ini) + line + 2, "%s%s%.*s", ini, line ? ":" : "", (int)line,
             (const char *)data);
    if (cli_filter_add_preset(f, spec) == 0 && small_designs(f)) {
        f->gain_db = (size & 1) ? -6.0 : 0.0;
        f->normalize = (cli_normalize)((size >> 1) % 3);
        if (cli_design_build(f, 48000.0, 2, 1, &d) == 0)
            cli_design_free(&d);
        if (cli_design_stages(f, 44100.0, 2, 1, &d) == 0)
            cli_design_free(&d);
    }
    cli_filter_free(f);
    free(spec);
    return 0;
}
