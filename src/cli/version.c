/*
 * version.c - gfir --version (version.h). Compiled-in parts come from the
 * build (GFIR_CLI_*), the libraries' versions from the libraries themselves
 * at run time, since that is what the program actually runs with.
 */
#include "version.h"
#include "gfir.h"

#include <sndfile.h>
#include <soxr.h>
#include <stdio.h>
#include <string.h>
#ifdef GFIR_HAVE_LIVE
#include <portaudio.h>
#endif

/* The codecs this libsndfile can write, of those people ask about. */
static void print_codecs(void)
{
    static const struct {
        int format;
        const char *name;
    } codecs[] = {
        {SF_FORMAT_FLAC | SF_FORMAT_PCM_24, "FLAC"},
        {SF_FORMAT_OGG | SF_FORMAT_VORBIS, "Ogg Vorbis"},
        {SF_FORMAT_OGG | SF_FORMAT_OPUS, "Opus"},
        {SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, "MP3"},
    };
    SF_INFO info;
    int n = 0;
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        memset(&info, 0, sizeof info);
        info.samplerate = 48000;
        info.channels = 2;
        info.format = codecs[i].format;
        if (sf_format_check(&info))
            printf("%s%s", n++ ? ", " : " (WAV, AIFF, CAF, ", codecs[i].name);
    }
    printf("%s\n", n ? ", ...)" : "");
}

void cli_print_version(void)
{
    char sndfile[64];
    sf_command(NULL, SFC_GET_LIB_VERSION, sndfile, sizeof sndfile);
    printf("gfir %s\n", gfir_version_string());
    printf("backends:      cpu (FFTW %s)", GFIR_CLI_FFTW_VERSION);
#ifdef GFIR_CLI_CUDA_VERSION
    printf(", cuda (CUDA %s)\n", GFIR_CLI_CUDA_VERSION);
#else
    printf("; cuda not built in\n");
#endif
#ifdef GFIR_HAVE_LIVE
    printf("live audio:    %s\n", Pa_GetVersionInfo()->versionText);
#else
    printf("live audio:    not built in (no PortAudio)\n");
#endif
    printf("files:         %s", sndfile);
    print_codecs();
    printf("IR resampling: %s\n", soxr_version());
}
