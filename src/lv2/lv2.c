/*
 * lv2.c - the bundle's entry point: its plugins by index, the one symbol the
 * module exports.
 */
#include "plugins.h"

#include <stddef.h>

LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t index)
{
    static const LV2_Descriptor *const all[] = {&gl_filter_mono, &gl_filter_stereo,
                                                &gl_convolver_mono, &gl_convolver_mono_stereo,
                                                &gl_convolver_stereo, &gl_convolver_64};
    return index < sizeof all / sizeof *all ? all[index] : NULL;
}
