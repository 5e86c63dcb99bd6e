/*
 * options.c - argv into cli_options, and the help page.
 */
#include "filter/filter.h"
#include "filter/preset.h"
#include "argparse.h"
#include "gpu.h"
#include "message.h"
#include "version.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_BLOCK_FRAMES ((size_t)1 << 24)
/* --duration's bound, 366 days: a frame count at any rate fits an unsigned long */
#define MAX_DURATION_S 31622400.0

static const char usage_line[] = "usage: gfir [options] INPUT OUTPUT";
#define SHORT_OPTIONS ":p:t:i:g:n:a:f:b:k:qvh"

/* gfir with nothing to do: what it is for, in a few lines. */
static void print_brief(void)
{
    cli_line("%s", usage_line);
    cli_page("Filters sound files with FIR filters. For example:\n"
             "  gfir in.wav out.wav --preset lowpass       low-pass at 4 kHz\n"
             "  gfir in.flac out.mp3 --ir hall.wav         convolve with a room\n"
             "  gfir --describe --preset telephone         inspect a filter\n"
             "  gfir --list-presets                        the named filters\n"
             "gfir --help lists every option; man gfir has the rest.\n");
}

static void print_help(void)
{
    printf("%s\n", usage_line);
    fputs(
"Filters a sound file with FIR filters (designed low/high/band-pass filters, any\n"
"set of coefficients, or an impulse response such as a room reverb) on the CPU\n"
"or an NVIDIA GPU. Reads and writes every format libsndfile does (WAV, FLAC,\n"
"MP3, Ogg Vorbis, Opus, AIFF, CAF, ...), in blocks, so any length of file\n"
"works in bounded memory. Tags (title, artist, ...) and the channel layout\n"
"go from INPUT to OUTPUT where OUTPUT's format holds them.\n"
"\n"
"Examples:\n"
"  gfir in.wav out.wav --preset lowpass        low-pass at 4 kHz\n"
"  gfir in.wav out.wav --preset lowpass:cutoff_hz=3000\n"
"  gfir in.wav out.wav --preset rumble --preset lowpass    a chain of two\n"
"  gfir dry.wav wet.wav --ir hall.wav          convolve with a room's response\n"
"  gfir --describe --response tel.svg --preset telephone   inspect, no files\n"
"  gfir batch jobs.tsv                         many files (gfir batch --help)\n"
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
"  -i, --ir FILE[,FILE...]\n"
"                       an impulse response (any sound file), resampled to the\n"
"                       rate filtered at when it differs. 1 channel filters every\n"
"                       channel; C channels filter C channels one to one; on a\n"
"                       mono input C channels make C outputs (a stereo reverb);\n"
"                       4 channels on a stereo input are true stereo. A list\n"
"                       gives one file per output: a file of 1 channel takes\n"
"                       input k to output k, one of a channel per input mixes\n"
"                       every input. A name without '/' that is not here is\n"
"                       looked up beside the presets\n"
"      --true-stereo ll,lr,rl,rr|ll,rl,lr,rr\n"
"                       the order of a true-stereo IR's channels, XY from\n"
"                       input X to output Y (default ll,lr,rl,rr)\n"
"  -g, --gain DB        scale the filter by DB decibels (e.g. -3)\n"
"  -n, --normalize none|peak|energy\n"
"                       peak: the loudest frequency of any output at 0 dB;\n"
"                       energy: unity gain for white noise. Default: peak for\n"
"                       a chain with an impulse response (no clipping of\n"
"                       ordinary program material), else none (the raw taps)\n"
"      --ir-trim DB     cut an IR's leading samples below DB (e.g. -60)\n"
"                       relative to its peak, and say how much latency went\n"
"      --wet DB         an IR's output level (default 0 dB, after --normalize)\n"
"      --dry DB         mix in the signal the IR is given at DB, at the IR's\n"
"                       time zero (default none); --gain then scales both\n"
"      --min-phase      make the filter minimum phase: the same magnitude\n"
"                       response with the least delay (no pre-ringing)\n"
"      --max-taps N     the most taps the filter may have, counted over its\n"
"                       paths (a mono filter on C channels counts C times);\n"
"                       a longer one is refused before it is made, naming its\n"
"                       size and memory (default 33554432: a 10 s hall at\n"
"                       192 kHz on 8 channels is 15.4 M; at most 1073741824)\n"
"\n"
"Output:\n"
"  -a, --align same|causal|full\n"
"                       same: as long as INPUT, no delay (numpy's 'same';\n"
"                       default for presets and --taps); causal: as long as\n"
"                       INPUT, delayed by the filter; full: INPUT plus the\n"
"                       filter's tail (default with --ir: keeps a reverb tail)\n"
"  -f, --format CONTAINER[:SAMPLES][:QUALITY]\n"
"                       e.g. wav:pcm16, flac:pcm24, wav:float, mp3, opus; SAMPLES\n"
"                       is pcm8, pcm16, pcm24, pcm32, float, double, ulaw, alaw,\n"
"                       vorbis, opus, mp3. Default: the container from OUTPUT's\n"
"                       extension with INPUT's samples where it holds them\n"
"                       (pcm16 from a codec such as MP3); .mp3 is MP3 at LAME\n"
"                       -V 2, .opus Opus at 64 kbit/s a channel, .ogg Vorbis\n"
"                       at q5; :SAMPLES alone keeps OUTPUT's container.\n"
"                       QUALITY: mp3:320k (constant kbit/s), mp3:v0 (LAME -V 0\n"
"                       to 9), opus:96k (kbit/s in all), vorbis:q6 (oggenc -q 0\n"
"                       to 10), flac:8 (level 0 to 8)\n"
"      --no-dither      do not add TPDF dither to 8- and 16-bit output\n"
"      --rate HZ        write OUTPUT at HZ: INPUT is resampled (libsoxr, very\n"
"                       high quality) before the filter, which is designed and\n"
"                       run at HZ (cheaper when downsampling, and cutoffs stay\n"
"                       in Hz of OUTPUT)\n"
"\n"
"Inspecting a filter (without OUTPUT nothing is filtered):\n"
"      --list-presets   list the presets and what they do\n"
"      --describe       print the chain: stages, taps, latency, measured\n"
"                       passband ripple and stopband attenuation\n"
"      --response FILE.svg\n"
"                       plot the magnitude response (dB over log frequency)\n"
"                       as SVG\n"
"      --rate HZ        without INPUT: the sample rate --describe and\n"
"                       --response design at (default 48000)\n"
"\n"
"Engine:\n"
"  -b, --backend auto|cpu|cuda   where to filter (default auto)\n"
"      --gpu N          filter on GPU N (0 is the first of those\n"
"                       CUDA_VISIBLE_DEVICES leaves); implies --backend cuda\n"
"                       (with --backend auto: where AUTO takes the GPU)\n"
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
"      --channels N     channels for --monitor (default 2), and of the signal\n"
"                       --describe and --response assume without INPUT\n"
"      --crossfade MS   fade from the old filter to a reloaded one over MS\n"
"                       milliseconds (default 50). The filter is reloaded when\n"
"                       its preset or IR/taps files change, and on SIGHUP\n"
"      --gpus LIST|all  split the filter's output channels over these CUDA\n"
"                       GPUs (0,1), or every one visible; each runs its share\n"
"                       at the same time, within the same period. Implies\n"
"                       --backend cuda\n"
"\n"
"Other:\n"
"  -q, --quiet          no notes and no progress bar; errors and clipping\n"
"                       warnings still print\n"
"  -v, --verbose        say backend, kernel, block size, output format and speed\n"
"      --debug          live audio: let ALSA and JACK print their own messages\n"
"                       while devices are probed (silenced otherwise)\n"
"      --version        print the version and what this gfir was built with\n"
"  -h, --help           this page\n"
"\n"
"Presets are looked up in $GFIR_PRESET_PATH (colon-separated directories),\n"
"~/.config/gfir/presets, then gfir's own presets directory.\n"
"OUTPUT is written to a temporary file beside it and renamed only on success:\n"
"a failed run leaves an existing OUTPUT as it was. OUTPUT may not be INPUT.\n"
"INPUT - reads standard input, OUTPUT - writes standard output (WAV unless\n"
"--format); a FIFO or a device as OUTPUT is written straight through. From a\n"
"pipe, a format that needs to seek (FLAC, CAF, ...) is copied to an unlinked\n"
"temporary file in $TMPDIR (or /tmp) first; every input is read to its end.\n"
"A name such as -v.wav (a '-', then something no option is) is a file name;\n"
"-- ends the options for any other.\n"
"An option that does not apply to what was asked (--channels when\n"
"filtering a file, --format with --play, ...) is wrong usage.\n"
"Exit status: 0 success, 1 failure, 2 wrong usage.\n",
        stdout);
}

static const cli_args parsing = {usage_line, "gfir --help"};

enum {
    OPT_BLOCK = 256, OPT_NO_DITHER, OPT_LIST_PRESETS, OPT_DESCRIBE, OPT_RESPONSE, OPT_RATE,
    OPT_VERSION, OPT_PLAY, OPT_MONITOR, OPT_LIST_DEVICES, OPT_DEVICE, OPT_INPUT_DEVICE,
    OPT_PERIOD, OPT_DURATION, OPT_CHANNELS, OPT_NO_FOLD, OPT_CROSSFADE, OPT_TRUE_STEREO,
    OPT_IR_TRIM, OPT_MIN_PHASE, OPT_WET, OPT_DRY, OPT_DEBUG, OPT_MAX_TAPS, OPT_GPU, OPT_GPUS,
    OPT_END
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, 'p'},
    {"taps", required_argument, NULL, 't'},
    {"ir", required_argument, NULL, 'i'},
    {"gain", required_argument, NULL, 'g'},
    {"normalize", required_argument, NULL, 'n'},
    {"true-stereo", required_argument, NULL, OPT_TRUE_STEREO},
    {"ir-trim", required_argument, NULL, OPT_IR_TRIM},
    {"min-phase", no_argument, NULL, OPT_MIN_PHASE},
    {"wet", required_argument, NULL, OPT_WET},
    {"dry", required_argument, NULL, OPT_DRY},
    {"max-taps", required_argument, NULL, OPT_MAX_TAPS},
    {"align", required_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'f'},
    {"backend", required_argument, NULL, 'b'},
    {"kernel", required_argument, NULL, 'k'},
    {"gpu", required_argument, NULL, OPT_GPU},
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
    {"crossfade", required_argument, NULL, OPT_CROSSFADE},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"debug", no_argument, NULL, OPT_DEBUG},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* --wet or --dry DB: a level a mix knob reaches, -120 to +24 dB. */
static int mix_level(const char *name, const char *arg, cli_filter *f, int dry)
{
    double *db = dry ? &f->dry_db : &f->wet_db;
    if (cli_arg_double(&parsing, name, arg, db))
        return 2;
    if (!(*db >= -120 && *db <= 24))
        return cli_usage_error(&parsing, "%s %s: give a level from -120 to 24 dB", name, arg);
    f->mix = 1;
    f->dry |= dry;
    return 0;
}

/* One option; returns 0 to go on, else an exit code. */
static int apply_option(int c, const char *arg, cli_options *o)
{
    static const char *const aligns[] = {"same", "causal", "full", NULL};
    static const char *const normalizes[] = {"none", "peak", "energy", NULL};
    static const char *const orders[] = {"ll,lr,rl,rr", "ll,rl,lr,rr", NULL};
    unsigned long long n = 0;
    int i = 0;

    switch (c) {
    case 'p':
        return cli_filter_add_preset(o->filter, arg) ? 1 : 0;
    case 't':
        return cli_filter_add_file(o->filter, STAGE_TAPS, arg) ? 1 : 0;
    case 'i':
        return cli_filter_add_file(o->filter, STAGE_IR, arg) ? 1 : 0;
    case 'g':
        return cli_arg_double(&parsing, "--gain", arg, &o->filter->gain_db) ? 2 : 0;
    case 'n':
        if (cli_arg_choice(&parsing, "--normalize", arg, normalizes, &i))
            return 2;
        o->filter->normalize = (cli_normalize)i;
        return 0;
    case OPT_TRUE_STEREO:
        if (cli_arg_choice(&parsing, "--true-stereo", arg, orders, &i))
            return 2;
        o->filter->true_stereo = (cli_true_stereo)i;
        return 0;
    case OPT_IR_TRIM:
        if (cli_arg_double(&parsing, "--ir-trim", arg, &o->filter->trim_db))
            return 2;
        o->filter->trim = 1;
        return o->filter->trim_db < 0 && o->filter->trim_db >= -300
                   ? 0
                   : cli_usage_error(&parsing, "--ir-trim %s: give a level below the IR's peak, "
                                     "-300 to 0 dB, such as -60", arg);
    case OPT_MIN_PHASE:
        o->filter->min_phase = 1;
        return 0;
    case OPT_WET:
    case OPT_DRY:
        return mix_level(c == OPT_WET ? "--wet" : "--dry", arg, o->filter, c == OPT_DRY);
    case 'a':
        if (cli_arg_choice(&parsing, "--align", arg, aligns, &i))
            return 2;
        o->align = (cli_align)i;
        return 0;
    case 'f':
        o->format = arg;
        return 0;
    case 'b':
        return cli_arg_backend(&parsing, arg, &o->backend) ? 2 : 0;
    case 'k':
        return cli_arg_kernel(&parsing, arg, &o->kernel) ? 2 : 0;
    case OPT_GPU:
        return cli_arg_gpus(&parsing, "--gpu", arg, 1, 0, &o->gpu, &i);
    case OPT_BLOCK:
        if (cli_arg_whole(&parsing, "--block", arg, 1, MAX_BLOCK_FRAMES, &n))
            return 2;
        o->block_frames = (size_t)n;
        return 0;
    case OPT_NO_DITHER:
        o->no_dither = 1;
        return 0;
    case OPT_NO_FOLD:
        o->no_fold = 1;
        return 0;
    case OPT_MAX_TAPS:
        if (cli_arg_whole(&parsing, "--max-taps", arg, 1, GFIR_MAX_PLAN_TAPS, &n))
            return 2;
        o->filter->max_taps = (size_t)n;
        return 0;
    case OPT_LIST_PRESETS:
        o->list_presets = 1;
        return 0;
    case OPT_DESCRIBE:
        o->describe = 1;
        return 0;
    case OPT_RESPONSE:
        o->response_svg = arg;
        return 0;
    case OPT_RATE:
        if (cli_arg_double(&parsing, "--rate", arg, &o->rate_hz))
            return 2;
        return o->rate_hz >= CLI_MIN_RATE_HZ && o->rate_hz <= CLI_MAX_RATE_HZ
                   ? 0
                   : cli_usage_error(&parsing, "--rate %s: gfir designs at %g to %g Hz", arg,
                                     CLI_MIN_RATE_HZ, CLI_MAX_RATE_HZ);
    case OPT_PLAY:
        o->play = 1;
        return 0;
    case OPT_MONITOR:
        o->monitor = 1;
        return 0;
    case OPT_LIST_DEVICES:
        o->list_devices = 1;
        return 0;
    case OPT_DEVICE:
        o->device = arg;
        return 0;
    case OPT_INPUT_DEVICE:
        o->input_device = arg;
        return 0;
    case OPT_PERIOD:
        if (cli_arg_whole(&parsing, "--period", arg, 16, 1 << 16, &n))
            return 2;
        o->period_frames = (unsigned)n;
        return 0;
    case OPT_DURATION:
        /* bounded, so that seconds times the rate is a frame count */
        if (cli_arg_double(&parsing, "--duration", arg, &o->duration_s))
            return 2;
        return o->duration_s > 0 && o->duration_s <= MAX_DURATION_S
                   ? 0
                   : cli_usage_error(&parsing, "--duration %s: want seconds, more than 0 and "
                                     "at most %.0f (a year)", arg, MAX_DURATION_S);
    case OPT_CHANNELS:
        if (cli_arg_whole(&parsing, "--channels", arg, 1, GFIR_MAX_CHANNELS, &n))
            return 2;
        o->channels = (unsigned)n;
        return 0;
    case OPT_CROSSFADE:
        if (cli_arg_double(&parsing, "--crossfade", arg, &o->crossfade_ms))
            return 2;
        return o->crossfade_ms >= 0 && o->crossfade_ms <= 10000
                   ? 0
                   : cli_usage_error(&parsing, "--crossfade %s: must be 0 to 10000 ms", arg);
    case OPT_GPUS:
        o->gpus_spec = arg;
        return cli_arg_gpus(&parsing, "--gpus", arg, GFIR_MAX_DEVICES, 0, o->gpus, &i);
    case 'q':
        o->quiet = 1;
        return 0;
    case 'v':
        o->verbose = 1;
        o->filter->verbose = 1;
        return 0;
    case OPT_DEBUG:
        o->debug = 1;
        return 0;
    case OPT_VERSION:
        cli_print_version();
        o->answered = 1;
        return 0;
    case 'h':
        print_help();
        o->answered = 1;
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
        return 0;
    if (o->filter->chain.nstages == 0)
        return cli_usage_error(&parsing, "no filter given: use --preset, --taps or --ir");
    if (o->monitor) {
        if (nargs > 0)
            return cli_usage_error(&parsing, "--monitor takes no INPUT or OUTPUT ('%s')", args[0]);
        return 0;
    }
    if (o->play) {
        if (nargs != 1)
            return cli_usage_error(&parsing, "--play takes one INPUT and no OUTPUT");
        o->input = args[0];
        return 0;
    }
    if (nargs > 2)
        return cli_usage_error(&parsing, "too many operands: '%s'", args[2]);
    if (nargs < 2 && !(inspect && nargs <= 1))
        return nargs ? cli_usage_error(&parsing, "missing OUTPUT after '%s'", args[0])
                     : cli_usage_error(&parsing, "missing INPUT and OUTPUT");
    o->input = nargs > 0 ? args[0] : NULL;
    o->output = nargs > 1 ? args[1] : NULL;
    /* standard output carries one thing */
    if (o->output && !strcmp(o->output, "-") && o->describe)
        return cli_usage_error(&parsing, "OUTPUT '-' and --describe both write to standard "
                               "output; give one of them");
    return 0;
}

/* ---- which options go with which mode ---------------------------------------- */

enum {
    MODE_FILE = 1,          /* INPUT filtered into OUTPUT */
    MODE_DESCRIBE = 2,
    MODE_RESPONSE = 4,
    MODE_NO_INPUT = 8,      /* --describe or --response designing at --rate */
    MODE_PLAY = 16,
    MODE_MONITOR = 32,
    MODE_FILTERS = MODE_FILE | MODE_DESCRIBE | MODE_PLAY | MODE_MONITOR,
    MODE_LIVE = MODE_PLAY | MODE_MONITOR
};

static const struct {
    int opt;
    const char *name;
    int modes;
    const char *where, *why;    /* why: what applies instead where there is INPUT, or "" */
} scoped[] = {
    {OPT_RATE, "--rate", MODE_FILE | MODE_NO_INPUT,
     "filtering INPUT into OUTPUT, and --describe and --response without INPUT",
     "; INPUT's own rate is used"},
    {'f', "--format", MODE_FILE, "filtering INPUT into OUTPUT", ""},
    {OPT_NO_DITHER, "--no-dither", MODE_FILE, "filtering INPUT into OUTPUT", ""},
    {'a', "--align", MODE_FILE, "filtering INPUT into OUTPUT", ""},
    {OPT_NO_FOLD, "--no-fold", MODE_FILE | MODE_DESCRIBE, "filtering a file and --describe",
     ""},
    {OPT_BLOCK, "--block", MODE_FILE | MODE_DESCRIBE, "filtering a file and --describe", ""},
    {'b', "--backend", MODE_FILTERS, "filtering, --describe, --play and --monitor", ""},
    {'k', "--kernel", MODE_FILTERS, "filtering, --describe, --play and --monitor", ""},
    {OPT_GPU, "--gpu", MODE_FILTERS, "filtering, --describe, --play and --monitor", ""},
    {OPT_DEVICE, "--device", MODE_LIVE, "--play and --monitor", ""},
    {OPT_PERIOD, "--period", MODE_LIVE, "--play and --monitor", ""},
    {OPT_DURATION, "--duration", MODE_LIVE, "--play and --monitor", ""},
    {OPT_CROSSFADE, "--crossfade", MODE_LIVE, "--play and --monitor", ""},
    {OPT_GPUS, "--gpus", MODE_LIVE, "--play and --monitor", ""},
    {OPT_DEBUG, "--debug", MODE_LIVE, "--play, --monitor and --list-devices", ""},
    {OPT_INPUT_DEVICE, "--input-device", MODE_MONITOR, "--monitor", ""},
    {OPT_CHANNELS, "--channels", MODE_MONITOR | MODE_NO_INPUT,
     "--monitor, and --describe and --response without INPUT", "; INPUT has its own channels"},
};

/* The options that choose a mode rather than tune one. */
static int choosing_mode(int opt)
{
    return opt == 'q' || opt == 'v' || opt == OPT_DEBUG || opt == OPT_LIST_PRESETS ||
           opt == OPT_LIST_DEVICES;
}

static const char *long_name(int opt)
{
    for (const struct option *lo = long_options; lo->name; lo++)
        if (lo->val == opt)
            return lo->name;
    return "?";
}

/* Modes that exclude each other, and the list modes, which take nothing else. */
static int check_modes(const cli_options *o, const unsigned char *seen, int nargs, char **args)
{
    const char *list = o->list_presets ? "--list-presets" : o->list_devices ? "--list-devices"
                                                                            : NULL;
    if (o->list_presets && o->list_devices)
        return cli_usage_error(&parsing, "--list-presets and --list-devices: give one");
    if (list) {
        for (int c = 0; c < OPT_END; c++)
            if (seen[c] && !choosing_mode(c))
                return cli_usage_error(&parsing, "%s takes no other options ('--%s')", list, long_name(c));
        if (nargs > 0)
            return cli_usage_error(&parsing, "%s takes no INPUT or OUTPUT ('%s')", list, args[0]);
    }
    if (o->list_presets && o->debug)
        return cli_usage_error(&parsing, "--debug applies only to --play, --monitor and "
                               "--list-devices, not to --list-presets");
    if (o->play && o->monitor)
        return cli_usage_error(&parsing, "--play and --monitor: give one");
    if ((o->play || o->monitor) && (o->describe || o->response_svg))
        return cli_usage_error(&parsing, "%s goes without --describe and --response (run gfir --describe "
                           "first)", o->play ? "--play" : "--monitor");
    if (o->response_svg) {
        const char *dot = strrchr(o->response_svg, '.');
        if (!dot || strchr(dot, '/') || strcasecmp(dot, ".svg"))
            return cli_usage_error(&parsing, "--response %s: gfir plots SVG only; name the file *.svg",
                               o->response_svg);
    }
    return 0;
}

/* Options given for a mode other than the one asked for would do nothing:
 * say so rather than ignore them. */
static int check_scope(const cli_options *o, const unsigned char *seen)
{
    int mode = 0;
    char asked[64];
    if (o->list_presets || o->list_devices)
        return 0;
    if (o->play)
        mode = MODE_PLAY;
    else if (o->monitor)
        mode = MODE_MONITOR;
    else {
        mode |= o->output ? MODE_FILE : 0;
        mode |= o->describe ? MODE_DESCRIBE : 0;
        mode |= o->response_svg ? MODE_RESPONSE : 0;
        mode |= (o->describe || o->response_svg) && !o->input ? MODE_NO_INPUT : 0;
    }
    snprintf(asked, sizeof asked, "%s%s",
             mode & MODE_PLAY ? "--play" : mode & MODE_MONITOR ? "--monitor"
             : mode & MODE_FILE ? "filtering a file" : mode & MODE_DESCRIBE ? "--describe"
                                                                           : "--response",
             mode & (MODE_DESCRIBE | MODE_RESPONSE) && !(mode & MODE_FILE) && o->input
                 ? " with INPUT" : "");
    for (size_t i = 0; i < sizeof scoped / sizeof scoped[0]; i++)
        if (seen[scoped[i].opt] && !(mode & scoped[i].modes))
            return cli_usage_error(&parsing, "%s applies only to %s, not to %s%s", scoped[i].name,
                               scoped[i].where, asked,
                               o->input ? scoped[i].why : "");
    /* a sound file's rate is a whole number of Hz */
    if ((mode & MODE_FILE) && o->rate_hz != (double)(int)o->rate_hz)
        return cli_usage_error(&parsing, "--rate %g: OUTPUT's rate is a whole number of Hz",
                               o->rate_hz);
    return 0;
}

int cli_parse_options(int argc, char **argv, cli_options *o)
{
    unsigned char seen[OPT_END] = {0};
    cli_names names;
    int c, rc = 0, nargs, nothing_asked;
    memset(o, 0, sizeof *o);
    o->align = CLI_ALIGN_DEFAULT;
    o->period_frames = 256;
    o->crossfade_ms = 50;
    o->filter = cli_filter_new();
    if (!o->filter)
        return cli_error("out of memory");
    cli_names_hide(argc, argv, SHORT_OPTIONS, long_options, &names);
    while ((c = cli_next_option(&parsing, argc, argv, SHORT_OPTIONS, long_options)) != -1) {
        if (c == CLI_ARGS_BAD || (rc = apply_option(c, optarg, o)) != 0 || o->answered) {
            cli_names_restore(argc, argv, &names);
            return c == CLI_ARGS_BAD ? 2 : rc;
        }
        seen[c] = 1;
    }
    cli_names_restore(argc, argv, &names);
    nargs = argc - optind;
    nothing_asked = nargs == 0;
    for (c = 0; c < OPT_END; c++)
        nothing_asked &= !seen[c] || c == 'q' || c == 'v';
    if (nothing_asked) {
        print_brief();
        return 2;
    }
    if ((rc = check_modes(o, seen, nargs, argv + optind)) != 0 ||
        (rc = check_operands(nargs, argv + optind, o)) != 0 ||
        (rc = check_scope(o, seen)) != 0)
        return rc;
    if (seen[OPT_GPU] && seen[OPT_GPUS])
        return cli_usage_error(&parsing, "--gpu and --gpus: give one (--gpu N is one GPU, "
                               "--gpus LIST splits the filter over several)");
    /* a GPU named is where to filter; --backend auto still weighs one */
    if ((seen[OPT_GPU] || seen[OPT_GPUS]) && seen['b'] && o->backend == GFIR_BACKEND_CPU)
    {
        char named[32];
        if (seen[OPT_GPU])
            snprintf(named, sizeof named, "--gpu %d", o->gpu);
        else
            snprintf(named, sizeof named, "--gpus %.20s", o->gpus_spec);
        return cli_usage_error(&parsing, "%s and --backend cpu: a GPU filters with --backend "
                               "cuda or auto; give one of them", named);
    }
    if ((seen[OPT_GPU] || seen[OPT_GPUS]) && !seen['b'])
        o->backend = GFIR_BACKEND_CUDA;
    if (seen[OPT_GPU]) {
        char spec[16];
        snprintf(spec, sizeof spec, "%d", o->gpu);
        return cli_arg_gpus(&parsing, "--gpu", spec, 1, 1, &o->gpu, &c);
    }
    if (seen[OPT_GPUS]) {
        int n = 0;
        if ((rc = cli_arg_gpus(&parsing, "--gpus", o->gpus_spec, GFIR_MAX_DEVICES, 1, o->gpus,
                               &n)) != 0)
            return rc;
        o->ngpus = (unsigned)n;
    }
    return 0;
}
