/* variant.h - variant specifications NAME=MODEL[,option=value...]: each a
 * copy of a base plan with the variant's options applied, the options
 * being the plan options without dashes (plan/planopt.h), so that a
 * variant accepts and rejects exactly what the flags do:
 *   fp32=model.onnx  int8=model_int8.onnx  opt=model.onnx,opt-level=all
 * A list value keeps its commas: the digit-only items after an option
 * with a value belong to it (t=net.pt,shape=x=1,3,224,224).  An option
 * that is no plan option goes to the variant's backend when the backend
 * declares it (a Python model's factory options: weights=w.npz).
 * Used by `mbench compare` (its arguments and --variants files). */
#ifndef MB_RUNNER_VARIANT_H
#define MB_RUNNER_VARIANT_H

#include "plan/plan.h"

typedef struct mb__variant {
    char *name;    /* owned */
    mb__plan plan; /* owned; its variant is name */
} mb__variant;

/* Parses specs[0..n) into vs (room for n, zeroed); names must be
 * distinct; an option without a value is a switch turned on.  *nv counts
 * the entries to free with mb__variant_free, also after a failure.
 * MB_EINVAL for a malformed specification, an unknown option, a bad value
 * a repeated name or a variant whose options contradict each other
 * (min-time above max-time, mb__planopt_finish); MB_EIO for an output path
 * (save-optimized) that cannot be written; MB_ENOMEM. */
mb_status mb__variants_parse(char *const *specs, size_t n, const mb__plan *base,
                             mb__variant *vs, size_t *nv, mb_err *err);
void mb__variant_free(mb__variant *v);
/* The index of the baseline among vs[0..n): the variant called name, the
 * first when name is NULL.  MB_EINVAL "SHOWN NAME names no variant; name
 * one of: a, b" when none is (shown: "--baseline" or "baseline"). */
mb_status mb__variants_baseline(const mb__variant *vs, size_t n,
                                const char *name, const char *shown,
                                size_t *index, mb_err *err);

#endif
