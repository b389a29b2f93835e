/* synthetic.c - seeded synthetic inputs for every numeric element type. */
#include "data/synthetic.h"

#include "core/err.h"

#include <math.h>
#include <string.h>

static int is_float(mb_dtype t)
{
    return t == MB_DTYPE_FLOAT32 || t == MB_DTYPE_FLOAT64 ||
           t == MB_DTYPE_FLOAT16 || t == MB_DTYPE_BFLOAT16;
}

int mb__input_range(const mb_plan *plan, const char *name, mb_dtype t,
                    double *lo, double *hi)
{
    for (size_t i = 0; i < plan->n_ranges; i++) {
        if (strcmp(plan->ranges[i].name, name) == 0) {
            *lo = plan->ranges[i].lo;
            *hi = plan->ranges[i].hi;
            if (t == MB_DTYPE_BOOL) { /* a bool is 0 or 1, whatever asked */
                *lo = *lo < 0 ? 0 : *lo > 1 ? 1 : *lo;
                *hi = *hi < 0 ? 0 : *hi > 1 ? 1 : *hi;
            }
            return 1;
        }
    }
    if (t == MB_DTYPE_BOOL) {
        *lo = 0;
        *hi = 1;
    } else if (is_float(t)) {
        *lo = 0;
        *hi = 1;
    } else {
        *lo = 0;
        *hi = 9;
    }
    return 0;
}

mb_status mb__resolve_shape(const mb_io_desc *d, int64_t batch,
                            const mb_plan *plan, int64_t *dims, mb_err *err)
{
    if (d->rank < 0)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "input '%s' has no tensor shape (a sequence, map or "
                        "unknown rank); mbench feeds tensor inputs only",
                        d->name);
    for (size_t k = 0; k < plan->n_shapes; k++) {
        const mb_shape_override *o = &plan->shapes[k];
        if (strcmp(o->name, d->name) != 0)
            continue;
        char want[256], got[256];
        mb_shape_str(d->dims, d->rank, want, sizeof want);
        mb_shape_str(o->dims, o->rank, got, sizeof got);
        if (o->rank != d->rank)
            return mb__fail(err, MB_EINVAL,
                            "--shape %s=%s has rank %d, but the model's "
                            "input '%s' has rank %d (%s, -1 = dynamic)",
                            d->name, got, o->rank, d->name, d->rank, want);
        for (int i = 0; i < d->rank; i++) {
            if (d->dims[i] >= 0 && d->dims[i] != o->dims[i])
                return mb__fail(err, MB_EINVAL,
                                "--shape %s=%s changes fixed dimension %d "
                                "of input '%s' (%s, -1 = dynamic)",
                                d->name, got, i, d->name, want);
            dims[i] = o->dims[i];
        }
        return MB_OK;
    }
    for (int i = 0; i < d->rank; i++) {
        const char *sym = d->dim_names[i] ? d->dim_names[i] : "";
        dims[i] = d->dims[i];
        if (dims[i] >= 0)
            continue;
        int found = 0;
        for (size_t k = 0; *sym && k < plan->n_dims; k++) {
            if (strcmp(plan->dims[k].name, sym) == 0) {
                dims[i] = plan->dims[k].value;
                found = 1;
            }
        }
        if (found)
            continue;
        if (i == 0) {
            dims[i] = batch;
            continue;
        }
        if (*sym)
            return mb__fail(err, MB_EMODEL,
                            "input '%s' has an unresolved symbolic dimension "
                            "'%s' (axis %d); set it with --dim %s=VALUE",
                            d->name, sym, i, sym);
        return mb__fail(err, MB_EMODEL,
                        "input '%s' has an unnamed dynamic dimension at axis "
                        "%d; give its whole shape with --shape %s=D0,D1,...",
                        d->name, i, d->name);
    }
    if (d->rank > 0 && d->dims[0] >= 0 && batch != 1 && d->dims[0] != batch)
        return mb__fail(err, MB_EMODEL,
                        "input '%s' has a fixed first dimension %lld, so "
                        "--batch %lld cannot be applied; use --batch %lld or "
                        "a model with a dynamic batch dimension",
                        d->name, (long long)d->dims[0], (long long)batch,
                        (long long)d->dims[0]);
    return MB_OK;
}

mb_status mb__synthetic_input(const mb_io_desc *d, int64_t batch,
                              const mb_plan *plan, mb_rng *rng, mb_tensor *out,
                              mb_err *err)
{
    int64_t dims[MB_MAX_RANK];
    mb_status s = mb__resolve_shape(d, batch, plan, dims, err);
    if (s)
        return s;
    if (mb_dtype_size(d->dtype) == 0 || d->dtype == MB_DTYPE_COMPLEX64 ||
        d->dtype == MB_DTYPE_COMPLEX128)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "input '%s' has element type %s, which mbench cannot "
                        "synthesise; feed it with --data",
                        d->name, mb_dtype_name(d->dtype));
    s = mb_tensor_alloc(out, d->dtype, d->rank, dims, d->name, err);
    if (s)
        return s;
    double lo, hi;
    mb__input_range(plan, d->name, d->dtype, &lo, &hi);
    size_t n = mb_tensor_count(out);
    void *p = out->data;
    for (size_t i = 0; i < n; i++) {
        double u = mb__rng_uniform(rng);
        double f = lo + (hi - lo) * u;
        /* integers: uniform over the inclusive range [lo, hi] */
        double k = floor(lo) + floor(u * (floor(hi) - floor(lo) + 1));
        switch (d->dtype) {
        case MB_DTYPE_FLOAT32: ((float *)p)[i] = (float)f; break;
        case MB_DTYPE_FLOAT64: ((double *)p)[i] = f; break;
        case MB_DTYPE_FLOAT16: ((uint16_t *)p)[i] = mb_f32_to_f16((float)f); break;
        case MB_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = mb_f32_to_bf16((float)f); break;
        case MB_DTYPE_BOOL: ((uint8_t *)p)[i] = k != 0; break;
        case MB_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)k; break;
        case MB_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)k; break;
        case MB_DTYPE_UINT16: ((uint16_t *)p)[i] = (uint16_t)k; break;
        case MB_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)k; break;
        case MB_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)k; break;
        case MB_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)k; break;
        case MB_DTYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)k; break;
        case MB_DTYPE_UINT64: ((uint64_t *)p)[i] = (uint64_t)k; break;
        default: break;
        }
    }
    return MB_OK;
}
