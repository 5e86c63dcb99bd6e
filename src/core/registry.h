/*
 * registry.h - the table of backends compiled into this build.
 */
#ifndef GF_CORE_REGISTRY_H
#define GF_CORE_REGISTRY_H

#include "core/backend.h"

/* NULL-terminated, in AUTO's order of preference. */
extern const gf_backend_ops *const gf_backends[];

/* The backend with this id, or NULL when it was not built. */
const gf_backend_ops *gf_find_backend(gfir_backend id);

#endif
