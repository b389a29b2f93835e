/* tensordump.c - the tensors and labels `mbench tensor-dump` shows
 * (tensordump.h). */
#include "report/tensordump.h"

#include "core/err.h"
#include "data/dataset.h"
#include "data/labels.h"
#include "report/tensorrep.h"

#include <stdlib.h>

/* Describes ts[0..n) (named after inputs when given), then moves them to
 * o->keep or frees them; the first failure to keep one is returned. */
static mb_status show(const mb__dump_opts *o, mb_tensor *ts, size_t n,
                      const mb_io_desc *inputs, mb__buf *out, mb_err *err)
{
    mb_status st = MB_OK;
    for (size_t i = 0; i < n; i++)
        mb__tensor_describe(out, &ts[i], inputs ? inputs[i].name : "tensor",
                            o->values, o->limit);
    for (size_t i = 0; i < n; i++) {
        if (o->keep && !st)
            st = mb__tensor_list_take(o->keep, &ts[i],
                                      inputs ? inputs[i].name : NULL, err);
        mb_tensor_clear(&ts[i]);
    }
    return st;
}

mb_status mb__dump_file(const char *path, const mb__dump_opts *o, mb__buf *out,
                        mb_err *err)
{
    mb_tensor *ts = NULL;
    size_t n = 0;
    mb_status st = mb__tensor_file_read_lim(path, &o->tlimit, &ts, &n, err);
    if (!st)
        st = show(o, ts, n, NULL, out, err);
    free(ts);
    return st;
}

mb_status mb__dump_data(const char *path, const mb_io_desc *inputs, size_t n,
                        size_t first, int64_t batch, const mb__dump_opts *o,
                        mb__buf *out, mb_err *err)
{
    mb__dataset *ds;
    mb_tensor *ts = calloc(n ? n : 1, sizeof *ts);
    mb_status st = ts ? mb__dataset_load(path, inputs, n, &o->tlimit, &ds, err)
                      : mb__fail(err, MB_ENOMEM, "out of memory");
    if (st) {
        free(ts);
        return st;
    }
    mb__buf_printf(out, "# %s\n", mb__dataset_describe(ds));
    st = mb__dataset_batch(ds, first, batch, ts, err);
    if (!st)
        st = show(o, ts, n, inputs, out, err);
    mb__dataset_free(ds);
    free(ts);
    return st;
}

mb_status mb__dump_labels(const char *path, mb__buf *out, mb_err *err)
{
    int64_t *v;
    size_t n;
    mb_status st = mb__labels_load(path, &v, &n, err);
    if (st)
        return st;
    mb__labels_describe(out, v, n);
    free(v);
    return MB_OK;
}
