/*
 * ceiling.c - the most taps a filter may have (ceiling.h).
 */
#include "filter/ceiling.h"
#include "message.h"

#include <stdio.h>

void ceiling_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
    size_t u = 0;
    while (bytes >= 1000 && u + 1 < sizeof units / sizeof units[0]) {
        bytes /= 1000;
        u++;
    }
    if (bytes >= 1000)
        snprintf(buf, len, "%.3g %s", bytes, units[u]);
    else
        snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", bytes, units[u]);
}

int ceiling_check(size_t max_taps, const char *what, double ntaps, size_t units,
                  const char *unit_name)
{
    const double total = ntaps * (double)units;
    char mem[32];
    if (total <= (double)max_taps)
        return 0;
    ceiling_bytes(total * CEILING_BYTES_PER_TAP, mem, sizeof mem);
    if (units > 1)
        return cli_error("%s: %.0f taps x %zu %ss = %.0f taps, about %s of memory; the "
                         "ceiling is %zu taps (--max-taps N raises it)", what, ntaps, units,
                         unit_name, total, mem, max_taps);
    return cli_error("%s: %.0f taps, about %s of memory; the ceiling is %zu taps (--max-taps N "
                     "raises it)", what, ntaps, mem, max_taps);
}
