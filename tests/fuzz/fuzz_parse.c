/* fuzz_parse.c - libFuzzer harness for option values: every parser of
 * src/core/parse.c (integers, numbers, durations, integer lists,
 * fractions, byte sizes, NAME=VALUE) and every entry of the plan's option
 * table through mb__planopt_set (src/plan/planopt.c: the run options of
 * the command line and of mb_runner_set), plus compare's variant
 * specifications (src/compare/variant.c).  The first byte picks the plan
 * option; the rest, up to a NUL, is the value.  Invariants: a parsed
 * duration is not negative, a byte size is within 2^62, a list has every
 * item in range.  Built by `make fuzz`. */
#include "core/parse.h"
#include "plan/plan.h"
#include "plan/planopt.h"
#include "compare/variant.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parsers(const char *v)
{
    int64_t i;
    double d;
    uint64_t b;
    int64_t *list = NULL;
    size_t n = 0;
    (void)mb__parse_i64(v, -1000, 1000, &i);
    if (mb__parse_double(v, -1e300, 1e300, &d) && !(d >= -1e300 && d <= 1e300))
        abort();
    if (mb__parse_duration_ns(v, &i) && i < 0)
        abort();
    if (mb__parse_bytes(v, &b) && b > ((uint64_t)1 << 62))
        abort();
    if (mb__parse_i64_list(v, 1, 1 << 20, &list, &n)) {
        for (size_t k = 0; k < n; k++)
            if (list[k] < 1 || list[k] > (1 << 20))
                abort();
    }
    free(list);
    if (mb__parse_fraction(v, 1, &d) && !(d >= 0 && d <= 1))
        abort();
    (void)mb__assignment_value(v);
    (void)mb__ends_with(v, ".npz");
    (void)mb__edit_distance(v, "threads");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t nopts;
    const mb__planopt *t = mb__planopt_table(&nopts);
    const mb__planopt *o = &t[data[0] % nopts];
    const uint8_t *nul = memchr(data + 1, '\0', size - 1);
    size_t n = nul ? (size_t)(nul - data - 1) : size - 1;
    char *v = malloc(n + 1);
    if (!v)
        return 0;
    memcpy(v, data + 1, n);
    v[n] = '\0';
    parsers(v);
    mb__plan p;
    mb__plan_defaults(&p);
    mb_err err;
    /* the same value twice: a repeated option replaces or appends */
    if (mb__planopt_set(&p, o, NULL, v, &err) == MB_OK)
        (void)mb__planopt_set(&p, o, NULL, v, &err);
    (void)mb__planopt_finish(&p, "--", &err);
    mb__plan_free(&p);
    /* the value as a compare variant, NAME=MODEL,option=value,...; not
     * with save-optimized, whose path is checked by creating a file */
    if (!strstr(v, "save-optimized")) {
        mb__plan base;
        mb__plan_defaults(&base);
        mb__variant vs[1];
        memset(vs, 0, sizeof vs);
        size_t nv = 0;
        char *specs[1] = {v};
        (void)mb__variants_parse(specs, 1, &base, vs, &nv, &err);
        for (size_t k = 0; k < nv; k++)
            mb__variant_free(&vs[k]);
        mb__plan_free(&base);
    }
    free(v);
    return 0;
}
