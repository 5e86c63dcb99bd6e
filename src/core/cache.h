/*
 * cache.h - small files gfir keeps in the user's cache directory
 * ($XDG_CACHE_HOME/gfir, else ~/.cache/gfir): FFTW's wisdom, and the GPU's
 * direct/FFT crossover that gfir-bench --calibrate measures. A missing or
 * unreadable file only means the built-in defaults, so nothing here reports
 * an error beyond its return value.
 */
#ifndef GF_CORE_CACHE_H
#define GF_CORE_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU's crossover table: "TAPS DEVICE NAME" lines. */
#define GF_CUDA_CROSSOVER_FILE "cuda-crossover"

/* The path of the cache file `name` into path (len bytes); 0 when neither
 * variable gives an absolute directory or the path does not fit. With
 * mkdirs, makes the directories on the way. */
int gf_cache_path(char *path, size_t len, const char *name, int mkdirs);

/*
 * Tables of numbers by key: lines "VALUE KEY", KEY the rest of the line (a
 * device name may hold spaces). gf_cache_lookup gives key's value, 0 when
 * the file or the key is missing or the value is not a positive number.
 * gf_cache_store sets key's value, keeping the other lines, through a file
 * under a private name renamed into place (another process may be writing
 * too); 0 on success, -1 on failure.
 */
size_t gf_cache_lookup(const char *name, const char *key);
int gf_cache_store(const char *name, const char *key, size_t value);

#ifdef __cplusplus
}
#endif

#endif
