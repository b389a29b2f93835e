/* synthetic.h - seeded synthetic inputs, and resolving symbolic dims.
 *
 * Shapes: a symbolic dim takes the value of a matching --dim NAME=VALUE;
 * otherwise the first dim is batch-like and takes the batch size; any other
 * unresolved dim is an error that names it.  Values (docs/DATA.md):
 * floats uniform in [0, 1), integers uniform in [0, 9], bools 0/1, unless
 * --input-range NAME=lo:hi says otherwise (integers: inclusive). */
#ifndef MB_DATA_SYNTHETIC_H
#define MB_DATA_SYNTHETIC_H

#include <stdbool.h>

#include "core/rng.h"
#include "plan/plan.h"

/* Resolves d's shape for `batch` into dims (rank d->rank). */
mb_status mb__resolve_shape(const mb_io_desc *d, int64_t batch,
                            const mb__plan *plan, int64_t *dims, mb_err *err);
/* Allocates and fills a synthetic tensor for input d. */
mb_status mb__synthetic_input(const mb_io_desc *d, int64_t batch,
                              const mb__plan *plan, mb__rng *rng,
                              mb_tensor *out, mb_err *err);
/* The name of the batch axis: the symbolic name of the first dynamic
 * axis 0 among the inputs (borrowed), or NULL.  Any dynamic axis of any
 * input with that name takes the batch size too (a recurrent state
 * [layers, batch, hidden]). */
const char *mb__batch_symbol(const mb_io_desc *in, size_t n);
/* Resolves d's shape for `batch` with the batch symbol into dims;
 * *carries (may be NULL) says whether some axis took the batch.  A
 * --shape is the shape at batch 1: its batch axis is multiplied by batch.
 * An input without a batch axis is fed as it is. */
mb_status mb__resolve_shape2(const mb_io_desc *d, int64_t batch,
                             const char *bsym, const mb__plan *plan,
                             int64_t *dims, int *carries, mb_err *err);
/* Appends name to the comma-separated list in buf (once). */
void mb__list_add(char *buf, size_t len, const char *name);
/* The name in a comma-separated list at most two edits from name (into
 * out), or NULL: for "did you mean". */
const char *mb__nearest_name(const char *list, const char *name, char *out,
                             size_t len);
/* Every input --shape and --input-range name is an input in[0..n) of
 * the model, else MB_EINVAL naming it, the nearest name and the inputs. */
mb_status mb__check_option_names(const mb_io_desc *in, size_t n,
                                 const mb__plan *plan, mb_err *err);
/* Checks the names the plan uses against the model's inputs: --shape and
 * --input-range must name an input (MB_EINVAL, with the nearest name as a
 * suggestion), and lists every unresolved
 * symbolic dimension at once with a ready-to-paste --dim line
 * (MB_EMODEL). */
mb_status mb__check_input_names(const mb_io_desc *in, size_t n,
                                const mb__plan *plan, mb_err *err);
/* Synthetic tensors for all n inputs at once (out[0..n), cleared on
 * failure), with the checks above; MB_EMODEL when batch != 1 and no input
 * has a batch axis. */
mb_status mb__synthetic_inputs(const mb_io_desc *in, size_t n, int64_t batch,
                               const mb__plan *plan, mb__rng *rng,
                               mb_tensor *out, mb_err *err);
/* The value range used for input `name` ([lo, hi]); 1 if user-given. */
bool mb__input_range(const mb__plan *plan, const char *name, mb_dtype t,
                     double *lo, double *hi);

#endif
