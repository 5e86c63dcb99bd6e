/*
 * why.c - the library's one way to record why a call failed: a sentence in
 * the plan (gfir_plan_error_detail) or, before a plan exists, in the calling
 * thread's buffer (gfir_plan_error_detail(NULL)), or a caller's buffer.
 * Every layer, engines and kernels' host code included, writes through
 * gf_fail (a plan's) or gf_detail (any buffer); nothing here calls upward.
 */
#include "core/plan.h"
#include "core/why.h"

#include <stdio.h>

/* Why the last create on this thread failed (sf_strerror(NULL)'s idea). */
static _Thread_local char thread_detail[GF_DETAIL_LEN];

char *gf_thread_detail(void)
{
    return thread_detail;
}

gfir_status gf_detail(char *why, size_t why_len, gfir_status status, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return status;
}

gfir_status gf_fail(gfir_plan *plan, gfir_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->detail, sizeof plan->detail, fmt, ap);
    va_end(ap);
    return status;
}
