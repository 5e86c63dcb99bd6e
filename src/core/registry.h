/*
 * registry.h - the engines compiled into this build (registry.c).
 */
#ifndef GF_CORE_REGISTRY_H
#define GF_CORE_REGISTRY_H

#include "core/engine.h"

/* NULL-terminated: each backend's engines together, the backends in AUTO's
 * order of preference, and within a backend from the most specialised to
 * the plainest (the order a named kernel's engines are tried in, and the
 * order that breaks a tie in cost). */
extern const gf_engine *const gf_engines[];

/* The backend with this id, or NULL when no engine of it was built. */
const gf_backend *gf_find_backend(gfir_backend id);

#endif
