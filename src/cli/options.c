/*
 * options.c - argv into cli_options, and the help page.
 */
#include "filter/filter.h"
#include "filter/preset.h"
#include "message.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCK_FRAMES ((size_t)1 << 24)

static const char usage_line[] = "usage: gfir [options] INPUT OUTPUT";

static void print_help(void)
{
    printf("%s\n", usage_line);
    fputs(
"Filters a sound file with FIR filters (designed low/high/band-pass filters, any\n"
"set of coefficients, or an impulse response such as a room reverb) on the CPU\n"
"or an NVIDIA GPU. Reads and writes every format libsndfile does (WAV, FLAC,\n"
"AIFF, Ogg, ...), in blocks, so any length of file works in bounded memory.\n"
"\n"
"Examples:\n"
"  gfir in.wav out.wav --preset lowpass        low-pass at 4 kHz\n"
"  gfir in.wav out.wav --preset lowpass:cutoff_hz=3000\n"
"  gfir in.wav out.wav --preset rumble --preset lowpass    a chain of two\n"
"  gfir dry.wav wet.wav --ir hall.wav          convolve with a room's response\n"
"  gfir --describe --response tel.svg --preset telephone   inspect, no files\n"
"\n"
"The filter (give one or more; they run in order as one chain):\n"
"  -p, --preset NAME[:KEY=VALUE,...]\n"
"                       a named preset (gfir --list-presets) or a path to an\n"
"                       .ini file; KEY=VALUE overrides a setting of every stage\n"
"                       that has it, SECTION.KEY=VALUE of one stage. Keys:\n"
"                       cutoff_hz, low_hz, high_hz, transition_hz,\n"
"                       attenuation_db, type\n"
"  -t, --taps FILE      coefficients as text: numbers separated by spaces,\n"
"                       commas or newlines; '#' starts a comment\n"
"  -i, --ir FILE        an impulse response (any sound file); 1 channel filters\n"
"                       every channel, C channels filter C channels one to one;\n"
"                       resampled to the input's rate when it differs\n"
"  -g, --gain DB        scale the filter by DB decibels (e.g. -3)\n"
"  -n, --normalize none|peak\n"
"                       peak: scale the filter so its loudest frequency is 0 dB\n"
"                       (default none)\n"
"\n"
"Output:\n"
"  -a, --align same|causal|full\n"
"                       same: as long as INPUT, no delay (numpy's 'same';\n"
"                       default for presets and --taps); causal: as long as\n"
"                       INPUT, delayed by the filter; full: INPUT plus the\n"
"                       filter's tail (default with --ir: keeps a reverb tail)\n"
"  -f, --format CONTAINER[:SAMPLES]\n"
"                       e.g. wav:pcm16, flac:pcm24, wav:float, aiff; SAMPLES is\n"
"                       pcm8, pcm16, pcm24, pcm32, float, double, ulaw, alaw,\n"
"                       vorbis. Default: the container from OUTPUT's extension\n"
"                       and INPUT's sample format\n"
"      --no-dither      do not add TPDF dither to 8- and 16-bit output\n"
"\n"
"Inspecting a filter (without OUTPUT nothing is filtered):\n"
"      --list-presets   list the presets and what they do\n"
"      --describe       print the chain: stages, taps, latency, measured\n"
"                       passband ripple and stopband attenuation\n"
"      --response FILE.svg\n"
"                       plot the magnitude response (dB over log frequency)\n"
"      --rate HZ        sample rate to design at without INPUT (default 48000)\n"
"\n"
"Engine:\n"
"  -b, --backend auto|cpu|cuda   where to filter (default auto)\n"
"  -k, --kernel NAME    auto, gold, direct, fft; CUDA: basic, constant, tiled,\n"
"                       cached (default auto: picked from the filter and block)\n"
"      --block FRAMES   frames per block (default 65536)\n"
"      --no-fold        files: run a chain's stages one after another instead\n"
"                       of folding them into one filter first (same output)\n"
"\n"
"Live audio (gfir built with PortAudio):\n"
"      --play           gfir INPUT --play ...: filter INPUT to the sound card\n"
"      --monitor        gfir --monitor ...: filter the sound card's input live\n"
"      --list-devices   list audio devices\n"
"      --device NAME|INDEX        output device (default: the system's)\n"
"      --input-device NAME|INDEX  input device for --monitor\n"
"      --period FRAMES  frames per audio callback (default 256)\n"
"      --duration SECONDS         stop after this long (default: end or Ctrl-C)\n"
"      --channels N     channels for --monitor (default 2)\n"
"\n"
"Other:\n"
"  -q, --quiet          no notes and no progress bar; errors and clipping\n"
"                       warnings still print\n"
"  -v, --verbose        say backend, kernel, block size and speed\n"
"      --version        print the version\n"
"  -h, --help           this page\n"
"\n"
"Presets are looked up in $GFIR_PRESET_PATH (colon-separated directories),\n"
"~/.config/gfir/presets, then gfir's own presets directory.\n"
"OUTPUT is written to a temporary file beside it and renamed only on success:\n"
"a failed run leaves an existing OUTPUT as it was. OUTPUT may not be INPUT.\n"
"INPUT - reads standard input, OUTPUT - writes standard output (WAV unless\n"
"--format); a FIFO or a device as OUTPUT is written straight through.\n"
"Exit status: 0 success, 1 failure, 2 wrong usage.\n",
        stdout);
}

void cli_usage_hint(void)
{
    fprintf(stderr, "%s   (gfir --help for more)\n", usage_line);
}

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Usage errors: the line at fault, then the usage line; exit status 2. */
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vmessage(fmt, ap);
    va_end(ap);
    cli_usage_hint();
    return 2;
}

static int parse_double(const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !isfinite(v))
        return usage_error("%s %s: not a number", opt, arg);
    *out = v;
    return 0;
}

static int parse_size(const char *opt, const char *arg, size_t lo, size_t hi, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(arg, &end, 10);
    if (end == arg || *end || arg[0] == '-' || v < lo || v > hi)
        return usage_error("%s %s: want a whole number from %zu to %zu", opt, arg, lo, hi);
    *out = (size_t)v;
    return 0;
}

enum {
    OPT_BLOCK = 256, OPT_NO_DITHER, OPT_LIST_PRESETS, OPT_DESCRIBE, OPT_RESPONSE, OPT_RATE,
    OPT_VERSION, OPT_PLAY, OPT_MONITOR, OPT_LIST_DEVICES, OPT_DEVICE, OPT_INPUT_DEVICE,
    OPT_PERIOD, OPT_DURATION, OPT_CHANNELS, OPT_NO_FOLD
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, 'p'},
    {"taps", required_argument, NULL, 't'},
    {"ir", required_argument, NULL, 'i'},
    {"gain", required_argument, NULL, 'g'},
    {"normalize", required_argument, NULL, 'n'},
    {"align", required_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'f'},
    {"backend", required_argument, NULL, 'b'},
    {"kernel", required_argument, NULL, 'k'},
    {"block", required_argument, NULL, OPT_BLOCK},
    {"no-dither", no_argument, NULL, OPT_NO_DITHER},
    {"no-fold", no_argument, NULL, OPT_NO_FOLD},
    {"list-presets", no_argument, NULL, OPT_LIST_PRESETS},
    {"describe", no_argument, NULL, OPT_DESCRIBE},
    {"response", required_argument, NULL, OPT_RESPONSE},
    {"rate", required_argument, NULL, OPT_RATE},
    {"play", no_argument, NULL, OPT_PLAY},
    {"monitor", no_argument, NULL, OPT_MONITOR},
    {"list-devices", no_argument, NULL, OPT_LIST_DEVICES},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"input-device", required_argument, NULL, OPT_INPUT_DEVICE},
    {"period", required_argument, NULL, OPT_PERIOD},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"channels", required_argument, NULL, OPT_CHANNELS},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_choice(const char *opt, const char *arg, const char *const *names, int *out)
{
    for (int i = 0; names[i]; i++) {
        if (!strcmp(arg, names[i])) {
            *out = i;
            return 0;
        }
    }
    return usage_error("%s %s: unknown value (gfir --help lists the choices)", opt, arg);
}

/* One option; returns -1 to go on, else an exit code. */
static int apply_option(int c, const char *arg, cli_options *o)
{
    static const char *const aligns[] = {"same", "causal", "full", NULL};
    static const char *const normalizes[] = {"none", "peak", NULL};
    size_t n = 0;
    int i = 0;

    switch (c) {
    case 'p':
        return cli_filter_add_preset(o->filter, arg) ? 1 : -1;
    case 't':
        return cli_filter_add_file(o->filter, STAGE_TAPS, arg) ? 1 : -1;
    case 'i':
        return cli_filter_add_file(o->filter, STAGE_IR, arg) ? 1 : -1;
    case 'g':
        return parse_double("--gain", arg, &o->filter->gain_db) ? 2 : -1;
    case 'n':
        if (parse_choice("--normalize", arg, normalizes, &i))
            return 2;
        o->filter->normalize_peak = i;
        return -1;
    case 'a':
        if (parse_choice("--align", arg, aligns, &i))
            return 2;
        o->align = (cli_align)i;
        return -1;
    case 'f':
        o->format = arg;
        return -1;
    case 'b':
        if (gfir_backend_from_name(arg, &o->backend) != GFIR_OK)
            return usage_error("--backend %s: unknown backend (auto, cpu, cuda)", arg);
        return -1;
    case 'k':
        if (gfir_kernel_from_name(arg, &o->kernel) != GFIR_OK)
            return usage_error("--kernel %s: unknown kernel (gfir --help lists them)", arg);
        return -1;
    case OPT_BLOCK:
        return parse_size("--block", arg, 1, MAX_BLOCK_FRAMES, &o->block_frames) ? 2 : -1;
    case OPT_NO_DITHER:
        o->no_dither = 1;
        return -1;
    case OPT_NO_FOLD:
        o->no_fold = 1;
        return -1;
    case OPT_LIST_PRESETS:
        o->list_presets = 1;
        return -1;
    case OPT_DESCRIBE:
        o->describe = 1;
        return -1;
    case OPT_RESPONSE:
        o->response_svg = arg;
        return -1;
    case OPT_RATE:
        if (parse_double("--rate", arg, &o->rate_hz))
            return 2;
        return o->rate_hz >= CLI_MIN_RATE_HZ && o->rate_hz <= CLI_MAX_RATE_HZ
                   ? -1
                   : usage_error("--rate %s: gfir designs at %g to %g Hz", arg, CLI_MIN_RATE_HZ,
                                 CLI_MAX_RATE_HZ);
    case OPT_PLAY:
        o->play = 1;
        return -1;
    case OPT_MONITOR:
        o->monitor = 1;
        return -1;
    case OPT_LIST_DEVICES:
        o->list_devices = 1;
        return -1;
    case OPT_DEVICE:
        o->device = arg;
        return -1;
    case OPT_INPUT_DEVICE:
        o->input_device = arg;
        return -1;
    case OPT_PERIOD:
        if (parse_size("--period", arg, 16, 1 << 16, &n))
            return 2;
        o->period_frames = (unsigned)n;
        return -1;
    case OPT_DURATION:
        return parse_double("--duration", arg, &o->duration_s) ? 2 : -1;
    case OPT_CHANNELS:
        if (parse_size("--channels", arg, 1, GFIR_MAX_CHANNELS, &n))
            return 2;
        o->channels = (unsigned)n;
        return -1;
    case 'q':
        o->quiet = 1;
        return -1;
    case 'v':
        o->verbose = 1;
        return -1;
    case OPT_VERSION:
        printf("gfir %s\n", gfir_version_string());
        return 0;
    case 'h':
        print_help();
        return 0;
    default:
        return 2;
    }
}

/* The operands each mode takes. */
static int check_operands(int nargs, char **args, cli_options *o)
{
    const int inspect = o->describe || o->response_svg;
    if (o->list_presets || o->list_devices)
        return -1;
    if (o->filter->chain.nstages == 0)
        return usage_error("no filter given: use --preset, --taps or --ir");
    if (o->monitor) {
        if (nargs > 0)
            return usage_error("--monitor takes no INPUT or OUTPUT ('%s')", args[0]);
        return -1;
    }
    if (o->play) {
        if (nargs != 1)
            return usage_error("--play takes one INPUT and no OUTPUT");
        o->input = args[0];
        return -1;
    }
    if (nargs > 2)
        return usage_error("too many operands: '%s'", args[2]);
    if (nargs < 2 && !(inspect && nargs <= 1))
        return nargs ? usage_error("missing OUTPUT after '%s'", args[0])
                     : usage_error("missing INPUT and OUTPUT");
    o->input = nargs > 0 ? args[0] : NULL;
    o->output = nargs > 1 ? args[1] : NULL;
    /* standard output carries one thing */
    if ((o->output && !strcmp(o->output, "-")) + o->describe +
            (o->response_svg && !strcmp(o->response_svg, "-")) > 1)
        return usage_error("OUTPUT '-', --describe and --response - all write to standard "
                           "output; give only one of them");
    return -1;
}

int cli_parse_options(int argc, char **argv, cli_options *o)
{
    int c, rc;
    memset(o, 0, sizeof *o);
    o->align = CLI_ALIGN_DEFAULT;
    o->period_frames = 256;
    o->filter = cli_filter_new();
    if (!o->filter)
        return cli_error("out of memory");
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:t:i:g:n:a:f:b:k:qvh", long_options, NULL)) != -1) {
        if (c == '?') {
            if (optopt) {
                char opt[3] = {'-', (char)optopt, '\0'};
                return usage_error("unknown option '%s'", opt);
            }
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
        if (c == ':')
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        rc = apply_option(c, optarg, o);
        if (rc >= 0)
            return rc;
    }
    return check_operands(argc - optind, argv + optind, o);
}
