/*
 * mix.c - the dry signal folded into an impulse response (mix.h).
 */
#include "filter/mix.h"
#include "message.h"

int mix_check(const stage_design *sd, const char *name)
{
    if (!sd->paths || sd->inputs == 1 || sd->inputs == sd->outputs)
        return 0;
    return cli_error("--dry: IR '%s' makes %u outputs of %u inputs, so an output has no input "
                     "of its own to mix in; --dry takes an IR whose outputs are its inputs, or "
                     "a mono input", name, sd->outputs, sd->inputs);
}

void mix_stage(stage_design *sd, double wet, double dry)
{
    const size_t n = (size_t)sd->nsets * sd->ntaps;
    for (size_t i = 0; i < n; i++)
        sd->taps[i] = (float)(wet * sd->taps[i]);
    if (!sd->paths) {
        /* one set for every channel, or set c for channel c: each is a dry path */
        for (unsigned s = 0; s < sd->nsets; s++)
            sd->taps[(size_t)s * sd->ntaps] += (float)dry;
        return;
    }
    /* an IR's layouts give each path a set of its own (layout.c) */
    for (size_t k = 0; k < sd->npaths; k++) {
        const gfir_path *p = &sd->paths[k];
        if (sd->inputs == 1 || p->input == p->output)
            sd->taps[(size_t)p->taps * sd->ntaps] += (float)(dry / p->gain);
    }
}
