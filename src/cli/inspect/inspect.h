/*
 * inspect.h - looking at a designed chain: --describe (stages, taps, latency,
 * the plans that run it, every path, measured passband and stopband) and
 * --response (an SVG of the magnitude response), and the run that does them
 * from one design of the filter, filtering INPUT into OUTPUT too when asked.
 */
#ifndef GFIR_CLI_INSPECT_H
#define GFIR_CLI_INSPECT_H

#include "chain.h"
#include "file/output.h"
#include "filter/filter.h"

#include <math.h>

/* A magnitude in dB, -300 for silence. */
static inline double inspect_db(double mag)
{
    return mag > 1e-15 ? 20 * log10(mag) : -300;
}

/*
 * inspect.c: --describe and --response, then INPUT into OUTPUT when OUTPUT
 * is given. The filter is designed once, its files read once (a FIFO or a
 * pipe can be read only once), at INPUT's rate for its channels, or without
 * INPUT at --rate (48000 Hz) for --channels; describe, plot and the file's
 * plans all take that design. Everything is checked before anything is
 * written, and the plot is made final only when all of it succeeded. One
 * line and 1 on failure.
 */
int cli_inspect(const cli_options *o);

/* describe.c: d, and the plans that run it (chain: for a file of
 * chain->in_channels channels), on standard output. One line and 1 when the
 * response cannot be measured or standard output cannot be written. */
int cli_describe(const cli_options *o, const cli_design *d, const cli_chain *chain);

/* plot.c: --response's SVG of d's magnitude response (each tap set's curve
 * read off an FFT grid), written whole to a temporary file beside path by
 * OUTPUT's rules (file/output.h), made final by cli_plot_commit;
 * cli_plot_end removes it unless committed. Each prints one line and
 * returns 1 on failure. */
typedef struct cli_plot {
    output_file of;
} cli_plot;

#define CLI_PLOT_INIT {OUTPUT_FILE_INIT}

int cli_plot_write(cli_plot *p, const char *path, const cli_filter *f, const cli_design *d);
int cli_plot_commit(cli_plot *p);
void cli_plot_end(cli_plot *p);

#endif
