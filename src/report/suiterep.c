/* suiterep.c - the console table of a suite comparison (suiterep.h). */
#include "report/suiterep.h"

#include "report/execprint.h"
#include "report/rutil.h"

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static void entry(mb__buf *b, const json_t *e)
{
    char a[32];
    const char *br = str(e, "branch");
    mb__buf_printf(b, "    %-32s ", br ? br : str(e, "variant"));
    if (!json_is_number(json_object_get(e, "speedup"))) {
        mb__buf_puts(b, "FAILED or not comparable\n");
        return;
    }
    mb__buf_printf(b, "total %6.3fx", mb__jnum(e, "speedup"));
    if (json_is_object(json_object_get(e, "ratio_ci95")))
        mb__buf_printf(b, " [%.3f .. %.3f]", 1 / mb__jnum(e, "ratio_ci95.hi"),
                       1 / mb__jnum(e, "ratio_ci95.lo"));
    if (json_is_number(json_object_get(e, "p_value")))
        mb__buf_printf(b, " p=%.3g", mb__jnum(e, "p_value"));
    if (json_is_object(json_object_get(e, "paired")))
        mb__buf_printf(b, "  paired by round %.3fx [%.3f .. %.3f] p=%.3g",
                       mb__jnum(e, "paired.speedup"),
                       mb__jnum(e, "paired.speedup_ci95.lo"),
                       mb__jnum(e, "paired.speedup_ci95.hi"),
                       mb__jnum(e, "paired.p_value"));
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(e, "phases"), k, v)
    {
        mb__buf_printf(b, "  %s %.3fx (%s)", k, mb__jnum(v, "speedup"),
                       mb__fmt_ns(mb__jnum(v, "median_ns"), a, sizeof a));
    }
    mb__buf_putc(b, '\n');
}

void mb__suite_comparison_console(mb__buf *b, const json_t *cmp)
{
    mb__buf_puts(b, "\nSpeedup of each branch against the first, per "
                    "experiment (ratio of medians):\n");
    size_t gi, ei;
    json_t *g, *e;
    json_array_foreach(json_object_get(cmp, "groups"), gi, g)
    {
        const char *base = str(g, "baseline_branch");
        base = base ? base : str(g, "baseline");
        mb__buf_printf(b, "  %s  (baseline: %s)\n", str(g, "group"),
                       base ? base : "none succeeded");
        if (str(g, "warning"))
            mb__buf_printf(b, "    warning: %s\n", str(g, "warning"));
        json_array_foreach(json_object_get(g, "entries"), ei, e) entry(b, e);
    }
    mb__buf_puts(b, "  (speedup > 1: faster than the baseline)\n");
}
