/* synthetic.c - seeded synthetic inputs for every numeric element type. */
#include "data/synthetic.h"

#include "core/err.h"
#include "core/parse.h"
#include "core/tlimit.h"

#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static mb_status fill_input(const mb_io_desc *d, const int64_t *dims,
                            const mb__plan *plan, mb__rng *rng, mb_tensor *out,
                            mb_err *err);

static bool is_float(mb_dtype t)
{
    return t == MB_DTYPE_FLOAT32 || t == MB_DTYPE_FLOAT64 ||
           t == MB_DTYPE_FLOAT16 || t == MB_DTYPE_BFLOAT16;
}

bool mb__input_range(const mb__plan *plan, const char *name, mb_dtype t,
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
            return true;
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
    return false;
}

const char *mb__batch_symbol(const mb_io_desc *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (in[i].rank > 0 && in[i].dims[0] < 0 && in[i].dim_names[0] &&
            in[i].dim_names[0][0])
            return in[i].dim_names[0];
    return NULL;
}

/* Does axis i of d carry the batch?  Axis 0 when dynamic (and not named
 * otherwise than the batch symbol), or any dynamic axis named like it. */
static int batch_axis(const mb_io_desc *d, int i, const char *bsym)
{
    if (d->dims[i] >= 0)
        return 0;
    const char *sym = d->dim_names[i] ? d->dim_names[i] : "";
    if (bsym && *sym)
        return strcmp(sym, bsym) == 0;
    return i == 0;
}

static bool dim_given(const mb__plan *plan, const char *sym, int64_t *v)
{
    for (size_t k = 0; sym && *sym && k < plan->n_dims; k++)
        if (strcmp(plan->dims[k].name, sym) == 0) {
            *v = plan->dims[k].value;
            return true;
        }
    return false;
}

mb_status mb__resolve_shape2(const mb_io_desc *d, int64_t batch,
                             const char *bsym, const mb__plan *plan,
                             int64_t *dims, int *carries, mb_err *err)
{
    int dummy;
    if (!carries)
        carries = &dummy;
    *carries = 0;
    if (d->rank < 0) {
        /* A tensor whose rank the runtime does not know (a TorchScript
         * argument): --shape gives it, at batch 1, axis 0 the batch. */
        for (size_t k = 0; k < plan->n_shapes; k++) {
            const mb__shape_override *o = &plan->shapes[k];
            if (strcmp(o->name, d->name) != 0)
                continue;
            for (int i = 0; i < o->rank; i++)
                dims[i] = o->dims[i] * (i == 0 ? batch : 1);
            *carries = o->rank > 0;
            return MB_OK;
        }
        return mb__fail(err, MB_EUNSUPPORTED,
                        "input '%s' has no tensor shape the model declares "
                        "(a sequence, a map, or a tensor of unknown rank); "
                        "for a tensor give its shape at batch 1 with "
                        "--shape %s=D0,D1,...",
                        d->name, d->name);
    }
    for (size_t k = 0; k < plan->n_shapes; k++) {
        const mb__shape_override *o = &plan->shapes[k];
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
                                "of input '%s' (%s, -1 = dynamic): the model "
                                "takes no other size there",
                                d->name, got, i, d->name, want);
            dims[i] = o->dims[i];
            /* --shape is the shape at batch 1: --batch B scales the batch
             * axis, so that samples/s counts what was really fed. */
            if (batch_axis(d, i, bsym)) {
                dims[i] *= batch;
                *carries = 1;
            }
        }
        return MB_OK;
    }
    for (int i = 0; i < d->rank; i++) {
        const char *sym = d->dim_names[i] ? d->dim_names[i] : "";
        dims[i] = d->dims[i];
        if (dims[i] >= 0)
            continue;
        if (dim_given(plan, sym, &dims[i]))
            continue;
        if (batch_axis(d, i, bsym)) {
            dims[i] = batch;
            *carries = 1;
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
    return MB_OK;
}

mb_status mb__resolve_shape(const mb_io_desc *d, int64_t batch,
                            const mb__plan *plan, int64_t *dims, mb_err *err)
{
    int carries;
    mb_status s = mb__resolve_shape2(d, batch, NULL, plan, dims, &carries, err);
    if (!s && !carries && d->rank > 0 && d->dims[0] >= 0 && batch != 1)
        return mb__fail(err, MB_EMODEL,
                        "input '%s' has a fixed first dimension %lld, so "
                        "--batch %lld cannot be applied; use --batch %lld or "
                        "a model with a dynamic batch dimension",
                        d->name, (long long)d->dims[0], (long long)batch,
                        (long long)d->dims[0]);
    return s;
}

/* Appends name to a comma list in buf (once). */
void mb__list_add(char *buf, size_t len, const char *name)
{
    size_t L = strlen(buf), n = strlen(name);
    for (const char *p = buf; (p = strstr(p, name)) != NULL; p += n)
        if ((p == buf || p[-2] == ',') && (p[n] == ',' || p[n] == '\0'))
            return;
    snprintf(buf + L, len - L, "%s%s", L ? ", " : "", name);
}

/* The known name nearest to `name` among the comma list, or NULL. */
const char *mb__nearest_name(const char *list, const char *name, char *out,
                             size_t len)
{
    size_t best = 3; /* at most two edits away */
    const char *found = NULL;
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(tmp, ", ", &save); t;
         t = strtok_r(NULL, ", ", &save)) {
        size_t d = mb__edit_distance(name, t);
        if (d < best) {
            best = d;
            snprintf(out, len, "%s", t);
            found = out;
        }
    }
    return found;
}

mb_status mb__check_option_names(const mb_io_desc *in, size_t n,
                                 const mb__plan *plan, mb_err *err)
{
    char inputs[1024] = "", hint[128];
    for (size_t i = 0; i < n; i++) {
        mb__list_add(inputs, sizeof inputs, in[i].name);
    }
    static const char *const flag[] = {"--shape", "--input-range"};
    for (int f = 0; f < 2; f++) {
        size_t cnt = f ? plan->n_ranges : plan->n_shapes;
        for (size_t k = 0; k < cnt; k++) {
            const char *nm = f ? plan->ranges[k].name : plan->shapes[k].name;
            int ok = 0;
            for (size_t i = 0; i < n && !ok; i++)
                ok = !strcmp(in[i].name, nm);
            if (!ok) {
                const char *near =
                    mb__nearest_name(inputs, nm, hint, sizeof hint);
                return mb__fail(
                    err, MB_EINVAL,
                    "%s %s: the model has no input named '%s'%s%s%s "
                    "(its inputs are: %s)",
                    flag[f], nm, nm, near ? "; did you mean '" : "",
                    near ? near : "", near ? "'?" : "", inputs);
            }
        }
    }
    return MB_OK;
}

mb_status mb__check_input_names(const mb_io_desc *in, size_t n,
                                const mb__plan *plan, mb_err *err)
{
    mb_status s = mb__check_option_names(in, n, plan, err);
    if (s)
        return s;
    /* Every unresolved symbolic dimension at once, ready to paste. */
    const char *bsym = mb__batch_symbol(in, n);
    char missing[1024] = "", paste[1024] = "";
    for (size_t i = 0; i < n; i++) {
        int shaped = 0;
        for (size_t k = 0; k < plan->n_shapes; k++)
            shaped |= !strcmp(plan->shapes[k].name, in[i].name);
        for (int a = 0; !shaped && a < in[i].rank; a++) {
            const char *sym = in[i].dim_names[a];
            int64_t v;
            if (in[i].dims[a] >= 0 || !sym || !*sym ||
                dim_given(plan, sym, &v) || batch_axis(&in[i], a, bsym))
                continue;
            size_t before = strlen(missing);
            mb__list_add(missing, sizeof missing, sym);
            if (strlen(missing) != before) {
                size_t L = strlen(paste);
                snprintf(paste + L, sizeof paste - L, "%s--dim %s=VALUE",
                         L ? " " : "", sym);
            }
        }
    }
    if (*missing)
        return mb__fail(err, MB_EMODEL,
                        "the model's inputs have unresolved symbolic "
                        "dimensions: %s; set them with: %s",
                        missing, paste);
    return MB_OK;
}

mb_status mb__synthetic_inputs(const mb_io_desc *in, size_t n, int64_t batch,
                               const mb__plan *plan, mb__rng *rng,
                               mb_tensor *out, mb_err *err)
{
    mb_status s = mb__check_input_names(in, n, plan, err);
    const char *bsym = mb__batch_symbol(in, n);
    int any = 0;
    for (size_t i = 0; i < n && !s; i++) {
        int64_t dims[MB_MAX_RANK];
        int carries = 0;
        s = mb__resolve_shape2(&in[i], batch, bsym, plan, dims, &carries, err);
        any |= carries;
        if (!s)
            s = fill_input(&in[i], dims, plan, rng, &out[i], err);
    }
    if (!s && n && !any && batch != 1) {
        char shp[256];
        mb_shape_str(in[0].dims, in[0].rank, shp, sizeof shp);
        s = mb__fail(err, MB_EMODEL,
                     "no input of the model has a dynamic batch axis (input "
                     "'%s' has a fixed first dimension: %s), so --batch %lld "
                     "cannot be applied; use --batch 1 or a model with a "
                     "dynamic batch dimension",
                     in[0].name, shp, (long long)batch);
    }
    if (s)
        for (size_t i = 0; i < n; i++)
            mb_tensor_clear(&out[i]);
    return s;
}

mb_status mb__synthetic_input(const mb_io_desc *d, int64_t batch,
                              const mb__plan *plan, mb__rng *rng,
                              mb_tensor *out, mb_err *err)
{
    int64_t dims[MB_MAX_RANK];
    mb_status s = mb__resolve_shape(d, batch, plan, dims, err);
    if (s)
        return s;
    return fill_input(d, dims, plan, rng, out, err);
}

static mb_status fill_input(const mb_io_desc *d, const int64_t *dims,
                            const mb__plan *plan, mb__rng *rng, mb_tensor *out,
                            mb_err *err)
{
    mb_status s;
    if (mb_dtype_size(d->dtype) == 0 || d->dtype == MB_DTYPE_COMPLEX64 ||
        d->dtype == MB_DTYPE_COMPLEX128)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "input '%s' has element type %s, which mbench cannot "
                        "synthesise; feed it with --data",
                        d->name, mb_dtype_name(d->dtype));
    int rank = d->rank;
    for (size_t k = 0; rank < 0 && k < plan->n_shapes; k++)
        if (strcmp(plan->shapes[k].name, d->name) == 0)
            rank = plan->shapes[k].rank; /* unknown rank, given by --shape */
    /* the model's declared shape is untrusted: the tensor cap first */
    uint64_t bytes = mb_dtype_size(d->dtype);
    for (int k = 0; k < rank && k < MB_MAX_RANK; k++)
        bytes = dims[k] > 0 && bytes > UINT64_MAX / (uint64_t)dims[k]
                    ? UINT64_MAX
                    : bytes * (uint64_t)(dims[k] > 0 ? dims[k] : 0);
    char what[300];
    snprintf(what, sizeof what, "synthetic input '%s'", d->name);
    if ((s = mb__tlimit_check(&plan->tlimit, bytes, what, err)))
        return s;
    s = mb_tensor_alloc(out, d->dtype, rank, dims, d->name, err);
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
        case MB_DTYPE_FLOAT32:
            ((float *)p)[i] = (float)f;
            break;
        case MB_DTYPE_FLOAT64:
            ((double *)p)[i] = f;
            break;
        case MB_DTYPE_FLOAT16:
            ((uint16_t *)p)[i] = mb_f32_to_f16((float)f);
            break;
        case MB_DTYPE_BFLOAT16:
            ((uint16_t *)p)[i] = mb_f32_to_bf16((float)f);
            break;
        case MB_DTYPE_BOOL:
            ((uint8_t *)p)[i] = k != 0;
            break;
        case MB_DTYPE_UINT8:
            ((uint8_t *)p)[i] = (uint8_t)k;
            break;
        case MB_DTYPE_INT8:
            ((int8_t *)p)[i] = (int8_t)k;
            break;
        case MB_DTYPE_UINT16:
            ((uint16_t *)p)[i] = (uint16_t)k;
            break;
        case MB_DTYPE_INT16:
            ((int16_t *)p)[i] = (int16_t)k;
            break;
        case MB_DTYPE_INT32:
            ((int32_t *)p)[i] = (int32_t)k;
            break;
        case MB_DTYPE_INT64:
            ((int64_t *)p)[i] = (int64_t)k;
            break;
        case MB_DTYPE_UINT32:
            ((uint32_t *)p)[i] = (uint32_t)k;
            break;
        case MB_DTYPE_UINT64:
            ((uint64_t *)p)[i] = (uint64_t)k;
            break;
        default:
            break;
        }
    }
    return MB_OK;
}
