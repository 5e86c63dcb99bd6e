/*
 * plugins.h - the bundle's plugins, as lv2.c lists them.
 */
#ifndef GFIR_LV2_PLUGINS_H
#define GFIR_LV2_PLUGINS_H

#include <lv2/core/lv2.h>

extern const LV2_Descriptor gl_filter_mono, gl_filter_stereo;
extern const LV2_Descriptor gl_convolver_mono, gl_convolver_mono_stereo, gl_convolver_stereo,
    gl_convolver_64;

#endif
