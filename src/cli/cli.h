/*
 * cli.h - what the gfir command line shares between its files: the parsed
 * options (chain.h turns them into plans at a sample rate).
 *
 * main.c/options.c parse argv into cli_options; file/ runs the offline job;
 * live/ (when built with PortAudio) runs --play, --monitor, --list-devices.
 * Every function here that fails prints one line on stderr and returns 1.
 */
#ifndef GFIR_CLI_H
#define GFIR_CLI_H

#include "gfir.h"

#include <stddef.h>

/* Frames per block when filtering a file: large blocks let the FFT kernels use
 * long partitions and the GPU long transfers; memory stays a few MB a channel. */
#define CLI_FILE_BLOCK_FRAMES 65536

/* The sample rates gfir designs and filters at: what audio uses. Outside it a
 * small file could ask for unbounded work: a design's taps grow with the rate
 * (2^31 Hz gave a 27-million-tap low-pass), an IR's resampled length with the
 * ratio of the rates. INPUT, IR files and --rate are held to it. */
#define CLI_MIN_RATE_HZ 1000.0
#define CLI_MAX_RATE_HZ 768000.0

typedef enum cli_align {
    CLI_ALIGN_DEFAULT = -1, /* same for presets and --taps, full for --ir */
    CLI_ALIGN_SAME = 0,
    CLI_ALIGN_CAUSAL = 1,
    CLI_ALIGN_FULL = 2
} cli_align;

/* The filter as the user gave it (--preset, --taps, --ir, --gain,
 * --normalize): stages not yet designed, since designs depend on the rate. */
typedef struct cli_filter cli_filter;

typedef struct cli_options {
    const char *input;          /* INPUT, or NULL for --monitor */
    const char *output;         /* OUTPUT, or NULL for --play and --monitor */
    cli_filter *filter;
    cli_align align;

    gfir_backend backend;       /* --backend, default auto */
    gfir_kernel kernel;         /* --kernel, default auto */
    int gpu;                    /* --gpu: the CUDA device plans go to (gfir_config.device),
                                   an ordinal of the visible ones; default 0 */
    size_t block_frames;        /* --block, 0 = the engine's default */

    int play;                   /* --play */
    int monitor;                /* --monitor */
    int list_devices;           /* --list-devices */
    const char *device;         /* --device NAME|INDEX, NULL = default output */
    const char *input_device;   /* --input-device NAME|INDEX, NULL = default input */
    unsigned period_frames;     /* --period, default 256 */
    double duration_s;          /* --duration; <= 0: to the end (--play) or Ctrl-C */
    double crossfade_ms;        /* --crossfade: a reloaded filter fades in over this long */
    unsigned channels;          /* --channels for --monitor; 0 = 2 or what the device has */
    int gpus[GFIR_MAX_DEVICES]; /* --gpus: the live plan split over these CUDA devices */
    unsigned ngpus;             /* 0: no --gpus */
    const char *gpus_spec;      /* --gpus as given, checked against the host after parsing */

    int verbose;                /* -v */
    int debug;                  /* --debug: ALSA's and JACK's own messages (live audio) */
    int quiet;                  /* -q */

    const char *format;         /* --format CONTAINER[:SUBTYPE], NULL = from OUTPUT and INPUT */
    int no_dither;              /* --no-dither */
    int describe;               /* --describe */
    const char *response_svg;   /* --response FILE.svg, or NULL */
    int list_presets;           /* --list-presets */
    double rate_hz;             /* --rate, for --describe/--response without INPUT; 0 = 48000 */
    int no_fold;                /* --no-fold: files run one plan per stage, in series */
    int answered;               /* --help or --version was printed: nothing more to do */
} cli_options;

/* options.c: 0 to go on, else the exit code (2 for a usage error, 1 for a
 * bad preset or filter file); after --help or --version, 0 with o->answered
 * set: nothing more to do. */
int cli_parse_options(int argc, char **argv, cli_options *o);

/* filter/filter.c */
void cli_filter_free(cli_filter *f);

#endif
