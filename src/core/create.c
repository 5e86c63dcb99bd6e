/*
 * create.c - gfir_plan_create, the public entry: the caller's config read
 * (of any version's size) and checked, then one plan on one device
 * (plan.c), or a plan over several devices (split.c), whose parts are
 * plans of plan.c's.
 */
#include "core/config.h"
#include "core/plan.h"
#include "core/split.h"
#include "core/why.h"

gfir_status gfir_plan_create(gfir_plan **out, const float *taps, size_t ntaps,
                             const gfir_config *cfg)
{
    char *why = gf_thread_detail();
    gfir_config full;
    gfir_status st;

    why[0] = '\0';
    if (out)
        *out = NULL;
    if (!out || !taps || !cfg)
        return gf_detail(why, GF_DETAIL_LEN, GFIR_ERR_NULL, "plan, taps or cfg is NULL");
    st = gf_config_read(cfg, &full, why, GF_DETAIL_LEN);
    if (st == GFIR_OK)
        st = gf_config_check(taps, ntaps, &full, why, GF_DETAIL_LEN);
    if (st != GFIR_OK)
        return st;
    if (full.ndevices > 1)
        return gf_split_devices(out, taps, ntaps, &full);
    if (full.ndevices == 1)
        full.device = full.devices[0];
    return gf_plan_create_one(out, taps, ntaps, &full);
}
