/* require.h - requirements on a result document (`--require EXPR`).
 *
 * An expression names a figure, a comparison and a value with an optional
 * unit: `speedup>=3`, `size_ratio<=0.5`, `top1_delta>=-0.01`,
 * `metric.cache_hit_rate>=80%`, `psnr_delta>-1`, `rss_peak<2GiB`,
 * `p99<=12ms`, `leak=no`, optionally scoped to the variants matching a
 * glob: `int8*:speedup>=2`.  Output agreement figures of a compare
 * (`rel_l2`, `cosine`, `max_abs`, ... and `gates=pass`) are judged on
 * every output, or on the outputs an `OUTPUT:` prefix names
 * (`pooler_output:rel_l2<=0.01`, `int8:logits:cosine>=0.999`); `gates`
 * and `verdict` are pass/fail.  mb__require_parse checks the text alone (the
 * figure's name against the vocabulary, the unit against the figure's
 * kind), so a typo stops a command before it measures anything.
 *
 * mb__require_judge reads every figure the document holds, per variant
 * (runs, the comparison's entries, exec phases, loops, counters and
 * metrics), and judges each requirement on each variant.  Where a figure
 * has a 95% CI, a requirement passes only when the whole CI satisfies it
 * (`>=`: the lower bound; `<=`: the upper bound); the verdict says so.
 * docs/EXEC.md ("Requirements") is the reference. */
#ifndef MB_REGRESS_REQUIRE_H
#define MB_REGRESS_REQUIRE_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

typedef enum {
    MB_REQ_GE,
    MB_REQ_GT,
    MB_REQ_LE,
    MB_REQ_LT,
    MB_REQ_EQ,
    MB_REQ_NE
} mb__req_op;

/* What a figure measures, which decides the units it accepts. */
typedef enum {
    MB_RK_PLAIN,
    MB_RK_TIME,
    MB_RK_BYTES,
    MB_RK_BOOL,
    MB_RK_PASS /* a verdict: pass or fail (stored as 1 or 0) */
} mb__req_kind;

typedef struct mb__require {
    char *text;   /* the expression as given (owned) */
    char *scope;  /* variant glob, or NULL for every variant (owned) */
    char *figure; /* "speedup", "metric.cache_hit_rate" (owned) */
    mb__req_op op;
    mb__req_kind kind;
    double value; /* in the figure's unit: ns, bytes, 1; bool: 0 or 1 */
} mb__require;

/* Parses text into *out (caller frees with mb__require_free).  MB_EINVAL
 * with a one-line message naming the problem and the fix. */
mb_status mb__require_parse(const char *text, mb__require *out, mb_err *err);
void mb__require_free(mb__require *r);

/* Judges r[0..n) over doc (borrowed).  *out is a new array, one object
 * per requirement: {requirement, figure, op, value, scope, passed,
 * results: [{variant, value, value_text, ci95: [lo, hi] | null, passed,
 * verdict}]}.
 * *unmet counts the requirements that did not pass.  MB_EINVAL when a
 * figure is in no variant of the document (the message lists those it
 * has); *out is then NULL. */
mb_status mb__require_judge(const json_t *doc, const mb__require *r, size_t n,
                            json_t **out, size_t *unmet, mb_err *err);

/* The figures of doc, {variant: {figure: {value, lo, hi, kind}}} (lo and
 * hi only with a CI).  New reference; NULL when memory runs out. */
json_t *mb__require_figures(const json_t *doc);

#endif
