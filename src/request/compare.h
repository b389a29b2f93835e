/* compare.h - the request layer of `mbench compare` and
 * mb_runner_compare: one place turns variant specifications
 * ("NAME=MODEL[,option=value...]") into the compare engine's request.
 * The CLI and the API both fill a mb__compare_call's request with their
 * options, then call mb__compare_prepare and mb__compare_run. */
#ifndef MB_REQUEST_COMPARE_H
#define MB_REQUEST_COMPARE_H

#include "compare/cmprun.h"
#include "compare/variant.h"
#include "plan/plan.h"

#include <stddef.h>

typedef struct mb__compare_call {
    mb__compare_req rq; /* the engine's request: options set by the caller */
    mb__variant *vs;    /* the parsed variants (nv of them) */
    size_t nv;
    mb__cmp_spec *cs; /* rq.variants */
} mb__compare_call;

/* The request's defaults (mb__compare_req_defaults), no variants. */
void mb__compare_call_init(mb__compare_call *c);

/* Parses the n specifications against the run options of plan (each
 * variant's plan starts as a copy of it), finds the baseline (the
 * variant called baseline, the first when NULL; shown is how the caller
 * names that option in messages: "--baseline" or "baseline") and fills
 * c->rq.variants, n and baseline.  MB_EINVAL with one line naming what
 * is wrong: fewer than two variants, a bad specification, a baseline no
 * variant has; MB_ENOMEM.  c is freed by mb__compare_call_free in every
 * case. */
mb_status mb__compare_prepare(mb__compare_call *c, const char *const *specs,
                              size_t n, const mb__plan *plan,
                              const char *baseline, const char *shown,
                              mb_err *err);

/* Frees what mb__compare_prepare made (not the request's borrowed
 * strings). */
void mb__compare_call_free(mb__compare_call *c);

#endif
