/* synthetic.h - seeded synthetic inputs, and resolving symbolic dims.
 *
 * Shapes: a symbolic dim takes the value of a matching --dim NAME=VALUE;
 * otherwise the first dim is batch-like and takes the batch size; any other
 * unresolved dim is an error that names it.  Values (docs/DATA.md):
 * floats uniform in [0, 1), integers uniform in [0, 9], bools 0/1, unless
 * --input-range NAME=lo:hi says otherwise (integers: inclusive). */
#ifndef MB_DATA_SYNTHETIC_H
#define MB_DATA_SYNTHETIC_H

#include "core/rng.h"
#include "runner/plan.h"

/* Resolves d's shape for `batch` into dims (rank d->rank). */
mb_status mb__resolve_shape(const mb_io_desc *d, int64_t batch,
                            const mb_plan *plan, int64_t *dims, mb_err *err);
/* Allocates and fills a synthetic tensor for input d. */
mb_status mb__synthetic_input(const mb_io_desc *d, int64_t batch,
                              const mb_plan *plan, mb_rng *rng, mb_tensor *out,
                              mb_err *err);
/* The value range used for input `name` ([lo, hi]); 1 if user-given. */
int mb__input_range(const mb_plan *plan, const char *name, mb_dtype t,
                    double *lo, double *hi);

#endif
