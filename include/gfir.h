/*
 * gfir.h - FIR filtering of audio on the CPU and on NVIDIA GPUs.
 *
 * The one public header of libgfir. C99, usable from C++.
 *
 * A plan holds everything that is expensive to choose or allocate (backend,
 * kernel, buffers, device memory, FFT plans); executing it is cheap and
 * allocates nothing for blocks up to max_block_frames. With the CPU backend
 * and threads = 1 it also takes no locks and never waits, so it can run
 * inside an audio callback; worker threads and the GPU synchronise. Every
 * gfir_plan_create() that succeeds is matched by one gfir_plan_destroy().
 *
 *   gfir_config cfg;
 *   gfir_plan *plan;
 *   gfir_config_init(&cfg);
 *   cfg.channels = 2;
 *   if (gfir_plan_create(&plan, taps, ntaps, &cfg) != GFIR_OK) ...
 *   gfir_plan_execute(plan, in, out, frames);   // as often as needed
 *   gfir_plan_destroy(plan);
 *
 * Functions return GFIR_OK (0) or a negative gfir_status; the library never
 * prints, exits or aborts.
 */
#ifndef GFIR_H
#define GFIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what libgfir exports; everything else in it is hidden. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define GFIR_API __attribute__((visibility("default")))
#else
#define GFIR_API
#endif

#define GFIR_VERSION_MAJOR 0
#define GFIR_VERSION_MINOR 2
#define GFIR_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, for compile-time comparisons. */
#define GFIR_VERSION_NUMBER \
    (GFIR_VERSION_MAJOR * 10000 + GFIR_VERSION_MINOR * 100 + GFIR_VERSION_PATCH)

/* The version of the library linked at run time, e.g. "0.1.0". */
GFIR_API const char *gfir_version_string(void);

/*
 * Status codes. The values are fixed within a major version.
 */
typedef enum gfir_status {
    GFIR_OK = 0,
    GFIR_ERR_NULL = -1,         /* a required pointer argument is NULL */
    GFIR_ERR_CHANNELS = -2,     /* channels or out_channels is 0 or above GFIR_MAX_CHANNELS,
                                   filter_channels does not fit them, or a path
                                   names a channel or tap set that does not exist */
    GFIR_ERR_TAPS = -3,         /* ntaps is 0 or above GFIR_MAX_TAPS, or a tap is
                                   NaN or infinite */
    GFIR_ERR_ARG = -4,          /* another argument is out of its documented range */
    GFIR_ERR_NOMEM = -5,        /* host or device memory could not be allocated */
    GFIR_ERR_UNAVAILABLE = -6,  /* the backend was not built, or has no device */
    GFIR_ERR_UNSUPPORTED = -7,  /* the kernel cannot run this configuration */
    GFIR_ERR_DEVICE = -8,       /* the device failed while running; see
                                   gfir_plan_error_detail() */
    GFIR_ERR_BUSY = -9,         /* a crossfade is still running: try the swap again
                                   after a later call (gfir_plan_swap()) */
    GFIR_ERR_TOO_LARGE = -10    /* the plan's filter is larger than GFIR_MAX_PLAN_TAPS:
                                   ntaps times its paths (or channels); refused
                                   before anything is allocated */
} gfir_status;

/* A static English sentence for a status, e.g. "a required pointer is NULL".
 * Unknown values give "unknown gfir status". Never NULL. */
GFIR_API const char *gfir_strerror(gfir_status status);

/* Largest channel count of a plan (inputs and outputs each), largest tap
 * count per tap set, and most paths of a routed plan (a full 1024 x 1024
 * matrix). Memory, not these, bounds most plans: where the host's or a
 * device's runs out, gfir_plan_create() returns GFIR_ERR_NOMEM and
 * gfir_plan_error_detail(NULL) names what was asked for and what was free.
 * The CUDA engines that run a routed plan's paths as channels take at most
 * 65535 of them (the delay-line engine, which runs paths itself, any). */
#define GFIR_MAX_CHANNELS 1024
#define GFIR_MAX_TAPS ((size_t)1 << 26)
#define GFIR_MAX_PATHS 1048576

/* Largest filter a plan takes, counted as the convolutions it runs: ntaps
 * times its paths (at least filter_channels) with paths, else ntaps times
 * channels. A plan holds each of those taps several times over (the taps,
 * their spectra and each input's history: 16 to 32 bytes a tap on the CPU),
 * so 2^30 is 16 to 32 GB, more than any audio filter needs (a 10 s hall
 * at 192 kHz is 1.9 M taps a path). Beyond it gfir_plan_create() returns
 * GFIR_ERR_TOO_LARGE before it allocates, and gfir_plan_error_detail() names
 * the count. Callers that let users ask for filters (gfir's --max-taps) keep
 * their own lower ceiling. */
#define GFIR_MAX_PLAN_TAPS ((size_t)1 << 30)

/*
 * Backends. A backend that was not built or has no usable device is absent:
 * asking for it by name gives GFIR_ERR_UNAVAILABLE, and AUTO never picks it.
 */
typedef enum gfir_backend {
    GFIR_BACKEND_AUTO = 0,      /* CUDA when available and worth it, else CPU */
    GFIR_BACKEND_CPU = 1,
    GFIR_BACKEND_CUDA = 2
} gfir_backend;

/*
 * Algorithms. Not every kernel exists on every backend; asking a backend for
 * one it lacks gives GFIR_ERR_UNSUPPORTED.
 */
typedef enum gfir_kernel {
    GFIR_KERNEL_AUTO = 0,       /* the backend picks from ntaps, channels, block */
    GFIR_KERNEL_GOLD = 1,       /* CPU: plain loop accumulating in double (reference) */
    GFIR_KERNEL_DIRECT = 2,     /* fastest direct convolution of the backend */
    GFIR_KERNEL_BASIC = 3,      /* CUDA: one thread per output, taps in global memory */
    GFIR_KERNEL_CONSTANT = 4,   /* CUDA: taps in constant memory (ntaps * filters <= 16384) */
    GFIR_KERNEL_TILED = 5,      /* CUDA: input tile and halo cells in shared memory */
    GFIR_KERNEL_CACHED = 6,     /* CUDA: tile in shared memory, halo cells through L2 */
    GFIR_KERNEL_FFT = 7         /* overlap-save FFT convolution */
} gfir_kernel;

/* Lower-case names ("auto", "cpu", "cuda"; "auto", "gold", "direct", ...) and
 * their inverse. The name functions return NULL for an unknown value; the
 * parsers return GFIR_ERR_ARG for an unknown name and leave *out alone. */
GFIR_API const char *gfir_backend_name(gfir_backend backend);
GFIR_API const char *gfir_kernel_name(gfir_kernel kernel);
GFIR_API gfir_status gfir_backend_from_name(const char *name, gfir_backend *out);
GFIR_API gfir_status gfir_kernel_from_name(const char *name, gfir_kernel *out);

/* 1 when the backend is built and has a usable device now, else 0. */
GFIR_API int gfir_backend_available(gfir_backend backend);

/* How many devices of the backend this process may use now: the ordinals
 * gfir_config.device takes are 0 to this minus 1 (for CUDA the devices
 * CUDA_VISIBLE_DEVICES leaves visible). 1 for the CPU (the host), 0 for a
 * backend that is absent (not built, no device) or unknown. */
GFIR_API int gfir_backend_devices(gfir_backend backend);

/* Starts the backend's device ahead of the first plan: for CUDA the driver
 * and the device's context (about 0.3 s on an H100 machine), on a thread of
 * the library's own, while the caller goes on opening its input and
 * designing its filter. It returns at once and is safe to call more than
 * once and from any thread: a device starts once, a later
 * gfir_plan_create() on it waits for the start-up under way rather than
 * start it again, and AUTO weighs only what is left of it against the work
 * (see gfir_config.expected_frames). GFIR_BACKEND_AUTO prepares every
 * device backend this build has; the CPU has nothing to start. What goes
 * wrong is reported by the create that needs the device, with
 * gfir_plan_error_detail(), as without this call; nothing is printed. A
 * process that ends (or unloads libgfir) while a start-up runs waits for it
 * to finish first, so call this only where the device will likely be used.
 *
 * Returns GFIR_OK when the start-up is under way or done, or nothing is to
 * start; GFIR_ERR_ARG for an unknown backend or a negative device;
 * GFIR_ERR_UNAVAILABLE when the backend is not in this build; GFIR_ERR_NOMEM
 * when no thread could be made (a create then starts the device itself);
 * and where an earlier start-up on the device has ended in failure, its
 * status (GFIR_ERR_UNAVAILABLE: no usable device; GFIR_ERR_ARG: no device
 * of that ordinal). */
GFIR_API gfir_status gfir_backend_prepare(gfir_backend backend, int device);

/*
 * Routing: a filter as a set of paths. Each path takes one input channel
 * through one tap set, scales it by a gain, and adds it into one output
 * channel; each output is the sum of its paths, and an output no path
 * reaches is silence. Mono to stereo, true stereo (LL, LR, RL, RR), cross-feed
 * and room-correction matrices are all path sets. Several paths may share an
 * input or a tap set. The CUDA delay-line engine (small calls on the GPU)
 * transforms each input once and sums each output in the frequency domain;
 * the other engines filter each path as a channel of its own.
 */
typedef struct gfir_path {
    unsigned input;             /* input channel, below gfir_config.channels */
    unsigned output;            /* output channel, below the plan's output channels */
    unsigned taps;              /* tap set, below gfir_config.filter_channels */
    float gain;                 /* linear, finite */
} gfir_path;

/*
 * How to build a plan. Always start from gfir_config_init(), then set fields.
 *
 * The struct grows at its end in later versions: gfir_config_init() records
 * the size the caller was compiled with in struct_size, and
 * gfir_plan_create() gives the fields a smaller (older) struct lacks their
 * defaults. A larger (newer) struct is accepted when the fields this library
 * does not know are all zero, which is every new field's default, and
 * refused with GFIR_ERR_ARG otherwise: the caller asked for something this
 * library cannot do.
 */
typedef struct gfir_config {
    size_t struct_size;         /* set by gfir_config_init(); leave it alone */
    unsigned channels;          /* interleaved input channels, 1..GFIR_MAX_CHANNELS, and output
                                   channels unless out_channels says otherwise; default 1 */
    unsigned filter_channels;   /* tap sets, stored one after another, ntaps each. Without
                                   paths: 1 (shared by every channel) or channels (set c
                                   filters channel c); with paths: any count from 1, up to
                                   GFIR_MAX_PATHS; default 1 */
    size_t max_block_frames;    /* largest call to execute that runs without being split;
                                   larger calls are split, never refused; 0 = 4096 */
    gfir_backend backend;       /* default GFIR_BACKEND_AUTO */
    gfir_kernel kernel;         /* default GFIR_KERNEL_AUTO */
    unsigned threads;           /* CPU: worker threads for large blocks; 0 = one per core,
                                   1 = only the calling thread; default 0 */
    int device;                 /* CUDA: device ordinal; default 0 (see devices) */
    size_t max_latency_frames;  /* the most latency, in frames, the plan may add beyond the
                                   filter's own (see gfir_plan_latency()): AUTO never picks an
                                   engine that adds more, and a kernel named explicitly runs in
                                   a form within it where it has one. Default 0: the plan is
                                   the exact causal convolution, output i at call i.
                                   GFIR_LATENCY_ANY accepts any (offline work, where the
                                   caller drops the first frames): engines then run at
                                   their fastest, whatever max_block_frames (the CPU's
                                   FFT partitions up to 65536 frames) */
    size_t expected_frames;     /* frames the plan will filter in all, when the caller knows
                                   (a file's length); 0 = unknown, a stream. AUTO then weighs
                                   what is left of a device's start-up (about 0.35 s for
                                   CUDA's first plan in a process, less what
                                   gfir_backend_prepare() has done) against the work it
                                   would take off the CPU; and the CPU's FFT engines
                                   measure FFT sizes the wisdom cache lacks (up to seconds)
                                   only where the work repays it, else estimate them */
    unsigned out_channels;      /* interleaved output channels, 1..GFIR_MAX_CHANNELS; 0 (the
                                   default) means as many as the input. Without paths it
                                   must be 0 or channels */
    unsigned reserved;          /* 0; the place of a later field (it fills what would
                                   otherwise be padding, which no check could see) */
    const gfir_path *paths;     /* NULL (the default): channel c through its tap set into
                                   output c, as filter_channels says. Otherwise npaths paths
                                   (see gfir_path), copied at create */
    size_t npaths;              /* 1..GFIR_MAX_PATHS when paths is set, else 0 */
    const int *devices;         /* CUDA: NULL (the default) runs the plan on `device`; else
                                   ndevices device ordinals, read at create: one runs the plan
                                   there, several split it over them ("Plans over several
                                   devices" below). A device may be listed more than once */
    unsigned ndevices;          /* 1..GFIR_MAX_DEVICES when devices is set, else 0 */
    unsigned reserved2;         /* 0; the place of a later field, as reserved */
} gfir_config;

/* Most devices one plan is split over. */
#define GFIR_MAX_DEVICES 64

/* max_latency_frames for callers that do not count latency. */
#define GFIR_LATENCY_ANY ((size_t)-1)

/* Fills *cfg with the defaults above for a struct of struct_size bytes. Use
 * the macro, which passes the size of the gfir_config this header declares;
 * bindings from other languages call the function with their struct's size. */
GFIR_API void gfir_config_init_size(gfir_config *cfg, size_t struct_size);
#define gfir_config_init(cfg) gfir_config_init_size((cfg), sizeof(gfir_config))

typedef struct gfir_plan gfir_plan;

/*
 * Makes a plan that filters cfg->channels interleaved channels with the given
 * taps: cfg->filter_channels sets of ntaps float coefficients, one after
 * another. The taps and paths are copied; the caller may free them on return.
 *
 * Filtering is causal: y[i] = sum_k h[k] * x[i - k] per path (per channel
 * without paths), with x[i] = 0 before the first sample (the convention of
 * numpy.convolve). With the default cfg->max_latency_frames of 0 it is exact:
 * output i leaves the call that takes input i, on every backend and for
 * every filter length. A larger budget lets AUTO pick engines that hand
 * output out gfir_plan_latency() frames later.
 *
 * On success *plan is set and GFIR_OK returned; on failure *plan is set to NULL
 * (when plan itself is not NULL) and a negative status returned, and
 * gfir_plan_error_detail(NULL) says why on this thread. A filter above
 * GFIR_MAX_PLAN_TAPS (ntaps times its paths, or its channels) gives
 * GFIR_ERR_TOO_LARGE before anything is allocated.
 *
 * The CPU FFT kernel measures FFTW plans the first time a size is used (up to
 * a few seconds) and keeps them in $XDG_CACHE_HOME/gfir/fftw-wisdom (else
 * ~/.cache/gfir/fftw-wisdom); set GFIR_FFTW_PLANNER=estimate in the
 * environment to skip both. FFTW's planner is one per process: gfir plans
 * under a lock of its own, so a program that also plans with fftwf must not
 * do so while it creates or destroys gfir plans, and the wisdom gfir saves
 * holds whatever the process's planner learnt. The CUDA backend opens
 * libcufft at run time; where it cannot, AUTO keeps FFT work off the GPU.
 */
GFIR_API gfir_status gfir_plan_create(gfir_plan **plan, const float *taps, size_t ntaps,
                             const gfir_config *cfg);

/*
 * Filters frames interleaved frames from in (frames * channels floats) to out
 * (frames * output channels floats). Any frame count is allowed, 0 included,
 * and in == out is allowed when the two channel counts are equal (the two
 * must otherwise not overlap). Each channel's history, the last ntaps - 1
 * inputs, carries from call to call, so any chunking of a signal gives the
 * samples of one whole-signal pass, to float rounding.
 *
 * It allocates nothing and does no I/O. With the CPU backend and threads = 1
 * it takes no locks; otherwise it may wait for its worker threads (large
 * blocks) or the GPU. A plan may be used by one thread at a time, any thread.
 * After a failure (GFIR_ERR_DEVICE) the history is undefined: reset the plan
 * before using it again.
 *
 * The output is delayed by gfir_plan_latency() frames beyond the filter's own
 * delay: 0 unless cfg->max_latency_frames allowed more.
 */
GFIR_API gfir_status gfir_plan_execute(gfir_plan *plan, const float *in, float *out, size_t frames);

/* As gfir_plan_execute() with frames frames of silence as input: pulls out
 * what the latency and the filter's tail hold. */
GFIR_API gfir_status gfir_plan_flush(gfir_plan *plan, float *out, size_t frames);

/* Frames by which the output lags the input beyond the filter itself: 0 for
 * every engine but the CPU's uniformly partitioned FFT, whose partition size
 * it is (taken only within the caller's latency budget). */
GFIR_API size_t gfir_plan_latency(const gfir_plan *plan);

/* Clears every channel's history (and any buffered latency), as if newly
 * created; a crossfade in progress ends at once, with the new filter. */
GFIR_API gfir_status gfir_plan_reset(gfir_plan *plan);

/* What the plan resolved AUTO to, and its shape. */
GFIR_API gfir_backend gfir_plan_backend(const gfir_plan *plan);
GFIR_API gfir_kernel gfir_plan_kernel(const gfir_plan *plan);
GFIR_API size_t gfir_plan_ntaps(const gfir_plan *plan);
GFIR_API unsigned gfir_plan_channels(const gfir_plan *plan);      /* input channels */
GFIR_API unsigned gfir_plan_out_channels(const gfir_plan *plan);  /* output channels */

/*
 * A sentence on the last failure: of the plan's last call when plan is not
 * NULL (for instance the CUDA error text behind GFIR_ERR_DEVICE), of this
 * thread's last failed gfir_plan_create() or gfir_filter_create() when plan
 * is NULL. "" when there is
 * nothing to say. Valid until the next call on that plan or thread.
 */
GFIR_API const char *gfir_plan_error_detail(const gfir_plan *plan);

/* Frees everything the plan holds. NULL is allowed and does nothing. */
GFIR_API void gfir_plan_destroy(gfir_plan *plan);

/*
 * Plans over several devices: more channels of long filters than one GPU
 * runs within a period (live auralization: 512 channels of 480,000 taps
 * at 64 frames over two GPUs). With gfir_config.devices listing ndevices
 * > 1 CUDA devices (AUTO means CUDA then; the CPU backend gives
 * GFIR_ERR_ARG, a build or machine without CUDA GFIR_ERR_UNAVAILABLE), the
 * plan's output channels are divided into contiguous ranges of about equal
 * work (the paths into them, or one per channel), one range per listed
 * device in order. Each device runs a plan of its own for its range, made as
 * gfir_plan_create() makes any (the policy picks its engine within the
 * latency budget), holding a copy of every input its paths read and the tap
 * sets they use. Each output is computed whole on one device, so its
 * samples are those one device makes for it.
 *
 * gfir_plan_execute() and gfir_plan_flush() hand every device its share
 * before they wait for any, so the devices run at the same time and a call
 * takes about as long as the slowest share: one deadline for the whole
 * call, with no threads (the delay-line engine that live calls use works
 * so; others run their shares one after another). The plan is then as any
 * other: any chunking, in == out, gfir_plan_reset() (every device's plan),
 * gfir_plan_latency() (the devices' plans must agree, or create gives
 * GFIR_ERR_UNSUPPORTED: with the default budget of 0 they do),
 * gfir_plan_backend(), gfir_plan_kernel() (the first device's), and failures
 * name the device. It takes no new filter (gfir_filter_create() gives
 * GFIR_ERR_UNSUPPORTED: make a plan for it and crossfade with
 * gfir_crossfade_weight()) and no device-memory calls (GFIR_ERR_UNSUPPORTED:
 * make a plan per device). A range no path reaches is silence and holds no
 * device; a device listed twice gets two ranges (tests on one GPU use
 * {0, 0}). ndevices = 1 is a plan on devices[0], as `device` would give.
 */

/*
 * Changing the filter while the plan runs: a room preset, a head tracker's
 * new direction, a new room correction, without a click and without
 * restarting the stream (zita-convolver's and JUCE's split). The expensive
 * part, gfir_filter_create(), runs on any thread; gfir_plan_swap(), which
 * allocates nothing, takes no lock and never waits (CPU backend, threads =
 * 1), runs between two calls on the thread that executes.
 *
 *   gfir_filter *f;                                  // a worker thread:
 *   gfir_filter_create(&f, plan, new_taps, n);       //   design, transform
 *   ... hand f to the audio thread ...
 *   if (gfir_plan_swap(plan, f, 2400) == GFIR_ERR_BUSY) ... // audio thread:
 *   ... later, on any thread: ...                            //   retry later
 *   while ((old = gfir_plan_retired(plan)))
 *       gfir_filter_destroy(old);
 *
 * From the fade's first output frame, output k of the fade (k = 0, 1,
 * ...) is exactly (1 - w_k) y_old + w_k y_new, where y_old
 * and y_new are what the old and the new filter make of the same input
 * history (the new one as if it had always been there), and w_k = 0.5 -
 * 0.5 cos(pi (k + 0.5) / crossfade_frames) for k < crossfade_frames, then
 * 1: y_new alone. Both filters run during the fade (twice the work), and
 * for an engine with latency the weights apply to its output frames. The
 * weights of old and new always sum to 1, so two filters whose outputs
 * agree give that output unchanged (an equal-power fade would gain up to
 * 3 dB there). Since w depends on the frame only, output k is also the
 * convolution with the taps (1 - w_k) h_old + w_k h_new: interpolating
 * the filters' complex spectra, which some convolvers do per block,
 * gives these outputs exactly, so it is not a mode of its own.
 *
 * Every engine of every backend swaps this way, routed plans included, at
 * any filter length. The fade's first frame is the first of the call after
 * the swap, where that call makes the new filter's share of the work in
 * flight: the uniform FFT engine remakes one block of its partition, the
 * CUDA delay line one block's tail, the direct engines and CUDA's lanes
 * nothing extra, the CPU's zero-latency FFT engine its first level's block.
 * Its larger levels' share would be too much for one call (at 2^20 taps, a
 * thousand 64-frame calls' work), so where it has them (from 4097 taps in
 * calls under 256 frames, from longer filters in larger ones) it makes the new filter's
 * blocks in the calls' own time instead and begins the fade once they are
 * the ones being read, one block of its head later (off the call that
 * starts every level's block): up to twice its longest partition and that
 * block (at most 135168 frames) after the swap, the old filter's output
 * alone until then, and the calls of the wait and of the fade within about
 * twice a call with no swap (tools/cpu_nupc_bench --swaps measures it).
 * Until the fade has ended, another swap answers GFIR_ERR_BUSY.
 */
typedef struct gfir_filter gfir_filter;

/*
 * Prepares taps for a later gfir_plan_swap() on plan: the same number of
 * tap sets as the plan was made with (gfir_config.filter_channels, one after
 * another), ntaps each, 1 <= ntaps <= gfir_plan_ntaps(plan); shorter sets
 * are padded with zeros, and a routed plan keeps its paths and their
 * gains. The taps are copied. The work (transforms, device uploads,
 * allocation) all happens here, in the form the plan's engine runs.
 *
 * It reads only what the plan fixed at create, so it may run on any thread,
 * also while another thread executes the plan (the plan must outlive the
 * call). Several threads may each make filters for one plan at a time.
 *
 * On success *filter is set and GFIR_OK returned; on failure *filter is
 * NULL and GFIR_ERR_NULL, GFIR_ERR_TAPS (ntaps 0 or above the plan's, a tap
 * not finite), GFIR_ERR_NOMEM or GFIR_ERR_DEVICE returned, and
 * gfir_plan_error_detail(NULL) says why on this thread. After
 * GFIR_ERR_TAPS for a longer filter, the filter cannot be swapped into
 * this plan: a host that wants it makes a new plan for it (and may
 * crossfade between the two plans with gfir_crossfade_weight()). The
 * caller owns the
 * filter until it swaps it in: every filter is either swapped in or freed
 * with gfir_filter_destroy().
 */
GFIR_API gfir_status gfir_filter_create(gfir_filter **filter, const gfir_plan *plan,
                                        const float *taps, size_t ntaps);

/*
 * Makes the plan fade from its filter to `filter` over the first
 * crossfade_frames output frames of the calls that follow (0: switch at the
 * next frame), as the section above defines. Real-time safe: it only
 * records the filter and the fade; the work starts in the next call. Call
 * it between calls, on the thread that executes the plan.
 *
 * The plan takes the filter: it runs it from then on, and when the fade is
 * over the old filter is retired (gfir_plan_retired()). While a fade has not
 * finished, another swap returns GFIR_ERR_BUSY and changes nothing: retry
 * after a later call. gfir_plan_reset() finishes a fade at once (the new
 * filter stays, the history is cleared), as do gfir_plan_convolve_device()
 * and gfir_plan_set_taps_device(), which clear it too.
 *
 * Errors: GFIR_ERR_NULL; GFIR_ERR_ARG for a filter made for another plan or
 * one a plan holds already (swapped in and not handed back); GFIR_ERR_BUSY.
 */
GFIR_API gfir_status gfir_plan_swap(gfir_plan *plan, gfir_filter *filter,
                                    size_t crossfade_frames);

/*
 * The incoming filter's weight w_k at output frame k of a crossfade of
 * crossfade_frames frames, as the section above defines it: 0.5 - 0.5
 * cos(pi (k + 0.5) / crossfade_frames) for k < crossfade_frames, else 1.
 * For a host that crossfades between two plans (a filter its plan refused)
 * exactly as a swap would.
 */
GFIR_API double gfir_crossfade_weight(size_t k, size_t crossfade_frames);

/*
 * Hands back one filter that the plan no longer uses (replaced by a swap),
 * or NULL when there is none: the caller owns it again, to destroy or to
 * swap in later (a set of presets can be prepared once and swapped to and
 * fro). Lock-free; it may run on any thread, also while another executes
 * the plan, but on one thread at a time. Filters not collected are freed by
 * gfir_plan_destroy().
 */
GFIR_API gfir_filter *gfir_plan_retired(gfir_plan *plan);

/* Frees a filter the caller owns: one never swapped in, or one handed back
 * by gfir_plan_retired(). It may wait for a device still reading it, so not
 * in an audio callback; it works after its plan is destroyed too. NULL, and
 * a filter a plan holds (which that plan frees), are ignored. */
GFIR_API void gfir_filter_destroy(gfir_filter *filter);

/*
 * Device memory (CUDA). These calls filter samples that already lie on the
 * GPU, in memory of the plan's device (gfir_config.device) from any
 * allocator (cudaMalloc, CuPy, PyTorch), with no copy to or from the host.
 * stream is the caller's cudaStream_t, passed as a void * so that this
 * header needs no CUDA header; NULL is the legacy default stream. A call
 * queues its work after everything queued on stream before it, and
 * everything queued on stream after it waits for that work; it returns
 * without waiting for the device, so the results are there once the
 * stream gets there, and a device fault inside the work shows at a later
 * call or at the caller's own synchronisation. The caller keeps its buffers
 * alive until then.
 *
 * A buffer is described as FFTW's advanced interface describes one: sample
 * (frame i, channel c) lies at p[i * stride + c * dist], counted in floats.
 * Interleaved frames have stride = channels and dist = 1; planar rows of
 * pitch P (channel c from p + c * P) have stride = 1 and dist = P. Input
 * with stride 1 whose rows do not overlap is read where it lies by the
 * whole-signal engines (apart from each call's first ntaps - 1 frames, and
 * by the direct kernels only when the output has stride 1 too); the
 * delay-line engine, other layouts, and silence are
 * staged planar through the plan's own buffers (one more pass over the
 * samples). The output must not overlap the input, nor its channels and
 * frames each other.
 *
 * Everything else is gfir_plan_execute()'s: the history carries from call to
 * call, host and device calls may be mixed on one plan (in the order the
 * caller makes them), any frame count is allowed and calls above
 * max_block_frames are split. A plan for device calls is made as any other,
 * with backend GFIR_BACKEND_CUDA (AUTO may pick the CPU).
 *
 * Errors: GFIR_ERR_UNAVAILABLE when the plan's backend cannot read device
 * memory (the CPU backend, so every plan of a build without CUDA);
 * GFIR_ERR_UNSUPPORTED for a plan with paths; GFIR_ERR_ARG for an output
 * whose samples collide or that overlaps the input; GFIR_ERR_DEVICE when
 * queueing the work fails (gfir_plan_error_detail() says how). As after a
 * host call's failure, reset the plan before using it again.
 */
GFIR_API gfir_status gfir_plan_execute_device(gfir_plan *plan, const float *in, size_t in_stride,
                                              size_t in_dist, float *out, size_t out_stride,
                                              size_t out_dist, size_t frames, void *stream);

/* As gfir_plan_execute_device() with frames frames of silence as input:
 * the device form of gfir_plan_flush(). */
GFIR_API gfir_status gfir_plan_flush_device(gfir_plan *plan, float *out, size_t out_stride,
                                            size_t out_dist, size_t frames, void *stream);

/*
 * One whole signal on the device, as a new plan filters it: writes frames
 * start .. start + length - 1 of the full convolution y = h * x of the
 * signal in (frames frames, zeros before and after it, so y has frames +
 * ntaps - 1 frames and frames beyond those are zeros) to out, which holds
 * length frames. NumPy's and SciPy's modes are windows of it: "full" start
 * 0, length frames + ntaps - 1; "same" start (ntaps - 1) / 2, length
 * frames; "valid" start ntaps - 1, length frames - ntaps + 1. The history is
 * neither read nor kept: it is clear when the call returns. On the
 * whole-signal FFT engines planar input with stride 1 is read where it lies,
 * the zeros before and after the signal are the engine's own, and no pass is
 * spent on the modes' windows, so one call costs what the kernel does; the
 * delay-line engine (plans of small calls) streams the signal through from
 * its start. Layouts, streams and errors as for gfir_plan_execute_device().
 */
GFIR_API gfir_status gfir_plan_convolve_device(gfir_plan *plan, const float *in, size_t in_stride,
                                               size_t in_dist, size_t frames, float *out,
                                               size_t out_stride, size_t out_dist, size_t start,
                                               size_t length, void *stream);

/*
 * Replaces the plan's taps with new ones in device memory: filter_channels
 * sets of the plan's ntaps floats, one after another, as gfir_plan_create()
 * takes them (a shorter filter padded with zeros), and clears the history
 * as gfir_plan_reset() does: new taps start a new signal (and a crossfade
 * in progress ends: the taps replace the filter it faded to). Queued on stream
 * as the calls above are; taps must stay valid until the stream gets
 * there. The values are not checked: NaN or infinite taps give such output.
 * Errors as for gfir_plan_execute_device().
 *
 * Batches. B signals, each through its own filter, are one plan with
 * channels = filter_channels = B (at most GFIR_MAX_CHANNELS; more are
 * several plans): with the signals, filters and outputs as planar rows on
 * the device (stride 1, dist the row's length), gfir_plan_set_taps_device()
 * and gfir_plan_convolve_device() (or the streaming calls) each filter the
 * whole batch in one launch sequence, without waiting. Every filter has the
 * plan's ntaps taps (pad shorter ones with zeros), and one plan, made once
 * with max_block_frames at least the output's length, serves every later
 * batch of the same shape:
 *
 *   cfg.channels = cfg.filter_channels = B; cfg.backend = GFIR_BACKEND_CUDA;
 *   cfg.max_block_frames = T + M - 1;
 *   gfir_plan_create(&plan, h_any, M, &cfg);            // B x M host taps, once
 *   for each batch:                                     // d_x: B x T, d_h: B x M
 *       gfir_plan_set_taps_device(plan, d_h, stream);   // the batch's filters
 *       gfir_plan_convolve_device(plan, d_x, 1, T, T, d_y, 1, T + M - 1,
 *                                 0, T + M - 1, stream); // d_y: B x (T + M - 1)
 */
GFIR_API gfir_status gfir_plan_set_taps_device(gfir_plan *plan, const float *taps, void *stream);

/*
 * Filter design: Kaiser-window windowed sinc, as scipy.signal.firwin with
 * window=('kaiser', beta) and scale=True, with the length and beta of
 * scipy.signal.kaiserord. These are pure functions of their arguments.
 *
 * Frequencies are in Hz at sample rate rate_hz (> 0). A cutoff is the
 * half-amplitude (-6 dB) point, in the middle of its transition band of width
 * transition_hz (> 0). attenuation_db is the stopband attenuation, 8..1000
 * (SciPy refuses Kaiser's formulas below 8 dB).
 * Lowpass and highpass use cutoff1_hz only; bandpass and bandstop pass or stop
 * cutoff1_hz < f < cutoff2_hz. Every cutoff must lie in (0, rate_hz / 2).
 */
typedef enum gfir_filter_type {
    GFIR_LOWPASS = 0,
    GFIR_HIGHPASS = 1,
    GFIR_BANDPASS = 2,
    GFIR_BANDSTOP = 3
} gfir_filter_type;

/*
 * Kaiser window parameters for a stopband attenuation and a transition width,
 * as scipy.signal.kaiserord(attenuation_db, transition_hz / (rate_hz / 2)):
 * *ntaps = ceil((A - 7.95) / 2.285 / (pi * width) + 1), evaluated in that
 * order as SciPy does (another order can round to a length one off), and
 * the matching beta.
 * Returns GFIR_ERR_ARG for values out of range and GFIR_ERR_TAPS when the
 * length would exceed GFIR_MAX_TAPS.
 */
GFIR_API gfir_status gfir_kaiserord(double attenuation_db, double transition_hz, double rate_hz,
                           size_t *ntaps, double *beta);

/*
 * The tap count gfir_design_kaiser() needs: kaiserord's, plus one where the
 * type must have odd length to have gain at Nyquist (highpass, bandstop).
 */
GFIR_API gfir_status gfir_design_length(gfir_filter_type type, double rate_hz, double transition_hz,
                               double attenuation_db, size_t *ntaps);

/*
 * Writes the ntaps coefficients of a Kaiser windowed-sinc filter to taps.
 * ntaps must be the value from gfir_design_length() for the same arguments
 * (GFIR_ERR_ARG otherwise). Linear phase: its delay is (ntaps - 1) / 2 frames.
 */
GFIR_API gfir_status gfir_design_kaiser(gfir_filter_type type, double rate_hz, double cutoff1_hz,
                               double cutoff2_hz, double transition_hz, double attenuation_db,
                               float *taps, size_t ntaps);

/*
 * Folds two stages into one: out = a * b (full convolution, accumulated in
 * double), na + nb - 1 taps. out must not overlap a or b.
 * GFIR_ERR_NULL for a NULL pointer; GFIR_ERR_TAPS when na or nb is 0 or the
 * result would exceed GFIR_MAX_TAPS.
 */
GFIR_API gfir_status gfir_fold(const float *a, size_t na, const float *b, size_t nb, float *out);

/*
 * Magnitude of the filter's frequency response at freq_hz, |H(e^{j 2 pi f / rate})|,
 * evaluated in double. For bad arguments it returns a negative gfir_status as
 * a double: GFIR_ERR_NULL, GFIR_ERR_TAPS (ntaps 0 or above GFIR_MAX_TAPS), or
 * GFIR_ERR_ARG (rate_hz not positive and finite, freq_hz not finite).
 */
GFIR_API double gfir_response_magnitude(const float *taps, size_t ntaps, double freq_hz, double rate_hz);

/*
 * The largest magnitude of the filter's frequency response over all
 * frequencies, in double from one real FFT in float of M points, M the
 * smallest 2^a 3^b 5^c at least twice the length (and 8192): what a peak
 * normalisation divides by. On that grid the true peak can lie above the
 * grid's largest value by up to a factor 1 / cos(pi (ntaps - 1) / (2 M))
 * (at most 1 / cos(pi / 4), 3 dB, for long filters), so the grid is only
 * where the search starts: around every grid point that could be the one
 * nearest the peak, the response is interpolated from the grid (exactly,
 * to 1e-7 of the largest bin) at points twice, four times, ... as close,
 * until the bound above for the finest spacing reached says the true peak
 * is within 1e-6 of the largest value found, or the search has evaluated
 * 16384 + M / 64 points. The value returned is one the response reaches
 * (to the float transform's rounding, about 1e-6 of it). Only a response
 * nearly flat over most of the band (a pure delay, a long all-pass) spends
 * that budget; there the peak found is still a value the response reaches,
 * and the bound is that of the finest spacing reached. A negative
 * gfir_status as a double for bad arguments (GFIR_ERR_NULL, GFIR_ERR_TAPS)
 * or GFIR_ERR_NOMEM (about 12 bytes per tap; time: about that of two FFTs
 * of twice the length).
 */
GFIR_API double gfir_response_peak(const float *taps, size_t ntaps);

/* The measures of gfir_filter_loudness. */
typedef enum gfir_normalize {
    GFIR_NORMALIZE_NONE = 0,    /* none: the loudness is 1 */
    GFIR_NORMALIZE_PEAK = 1,    /* the largest gain over frequency (gfir_response_peak) */
    GFIR_NORMALIZE_ENERGY = 2   /* the gain for white noise: the root of the sum of squares */
} gfir_normalize;

/*
 * How loud a filter of nsets tap sets of ntaps taps each (one after another
 * in taps) is: what a normalisation divides its taps by. paths as
 * gfir_config's (npaths of them), or NULL (npaths 0): set c alone makes
 * output c. The largest over the outputs of the output's
 *   GFIR_NORMALIZE_PEAK: largest over frequency of the sum of its paths'
 *     |gain| x magnitude (what one signal in every input, in phase, could
 *     reach; for one path its peak), found as gfir_response_peak finds one,
 *     from one transform of each set;
 *   GFIR_NORMALIZE_ENERGY: root of the sum of its paths' gain^2 x the sum of
 *     their squared taps (its gain for white noise in every input);
 *   GFIR_NORMALIZE_NONE: 1.
 * 0 for a filter silent at every output. A negative gfir_status as a double:
 * GFIR_ERR_NULL, GFIR_ERR_TAPS (ntaps 0 or above GFIR_MAX_TAPS, nsets 0 or
 * above GFIR_MAX_PATHS), GFIR_ERR_ARG (a path's set, output or gain out of
 * range, npaths without paths, a measure not listed), GFIR_ERR_NOMEM
 * (peak: about 8 bytes per tap of each set, and 4 per tap for each output
 * measured at once). Beyond 16384 taps the sets' transforms and the outputs
 * are measured on as many threads as the process has processors.
 */
GFIR_API double gfir_filter_loudness(const float *taps, size_t ntaps, unsigned nsets,
                                     const gfir_path *paths, size_t npaths, gfir_normalize how);

/*
 * Where an impulse response's sound begins: the first frame at which any of
 * nsets sets of ntaps taps comes within level_db (<= 0) of the largest tap of
 * all, what a trim of its leading silence cuts before (one cut for every
 * set keeps their timing against each other). ntaps when every tap is zero,
 * taps is NULL or level_db is above 0 or NaN.
 */
GFIR_API size_t gfir_filter_onset(const float *taps, size_t ntaps, unsigned nsets,
                                  double level_db);

/*
 * The magnitude response on a grid: mag[k] = |H(e^{j pi k / (nfreqs - 1))}|
 * for k = 0 .. nfreqs - 1, from 0 to half the sample rate inclusive, in
 * double through one FFT (scipy.signal.freqz(taps, worN=nfreqs,
 * include_nyquist=True)). nfreqs - 1 must be a power of two, up to
 * GFIR_MAX_TAPS; a grid coarser than the filter is long is still exact at
 * its points. GFIR_ERR_NULL, GFIR_ERR_TAPS (ntaps 0 or above GFIR_MAX_TAPS),
 * GFIR_ERR_ARG (nfreqs), GFIR_ERR_NOMEM (about 24 bytes per point).
 */
GFIR_API gfir_status gfir_response_magnitudes(const float *taps, size_t ntaps, double *mag,
                                              size_t nfreqs);

/*
 * Minimum phase: writes to out the ntaps taps of the minimum-phase filter
 * whose magnitude response is that of taps (the filter with the least delay
 * among all with that magnitude: its energy comes as early as it can), by
 * the real cepstrum in double. out may be taps. The sign is chosen so that
 * out[0] >= 0.
 *
 * The result's magnitude differs from the original's by at most *error_db
 * decibels (written when error_db is not NULL) wherever the original is
 * within 80 dB of its peak, measured on the FFT grid the method used (a
 * power of two of at least 16 times ntaps, so on every coarser power-of-two
 * grid too). The grid is refined until that is 0.05 dB or less, up to 2^24
 * points (or 16 times ntaps, when larger): filters whose zeros lie very near
 * the unit circle (long reverberant tails, deep notches) may end above it;
 * the caller decides what is good enough. Zeros exactly at Nyquist or DC
 * (every even-length symmetric filter has one at Nyquist) are divided out
 * before the cepstrum and multiplied back after, so they cost no accuracy;
 * other magnitudes more than 200 dB below the peak are raised to that (a
 * zero has no logarithm). Memory: about 48
 * bytes per grid point; time: a few FFTs of the grid per refinement.
 * A filter of zeros gives zeros. GFIR_ERR_NULL, GFIR_ERR_TAPS (ntaps 0 or
 * above GFIR_MAX_TAPS, or a tap not finite), GFIR_ERR_NOMEM.
 */
GFIR_API gfir_status gfir_design_minimum_phase(const float *taps, size_t ntaps, float *out,
                                               double *error_db);

#ifdef __cplusplus
}
#endif

#endif /* GFIR_H */
