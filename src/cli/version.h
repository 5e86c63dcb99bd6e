/*
 * version.h - gfir --version: the version, and what this build has in it.
 */
#ifndef GFIR_CLI_VERSION_H
#define GFIR_CLI_VERSION_H

/* On stdout: "gfir X.Y.Z", then one line each for the backends, live audio,
 * file formats and IR resampling, with the libraries' versions. */
void cli_print_version(void);

#endif
