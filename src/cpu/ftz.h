/*
 * ftz.h - flush-to-zero around the CPU's arithmetic. Denormals cost hundreds
 * of cycles each on x86 and turn up in every decaying filter tail; the engines
 * set FTZ and DAZ for the length of a call and restore the caller's state.
 */
#ifndef GF_CPU_FTZ_H
#define GF_CPU_FTZ_H

/* Sets flush-to-zero and denormals-are-zero on this thread; returns the state to restore. */
unsigned gf_ftz_enter(void);
void gf_ftz_leave(unsigned saved);

#endif
