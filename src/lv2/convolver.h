/*
 * convolver.h - the convolver's parameters, as its Turtle declares them and
 * hosts (and the tests) send them.
 */
#ifndef GFIR_LV2_CONVOLVER_H
#define GFIR_LV2_CONVOLVER_H

#include "features.h"

/* patch:writable, an atom:Path: the impulse-response file */
#define GL_CONVOLVER_IR_URI GFIR_LV2_URI ":ir"
/* patch:readable, an atom:String: why a file did not load, or a note */
#define GL_CONVOLVER_STATUS_URI GFIR_LV2_URI ":status"

#endif
