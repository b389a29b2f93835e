/* cmd_tensor.c - mbench tensor-dump: what mbench reads from a tensor file
 * (.npy, .npz, .pb) or a --data path, one line per tensor with its dtype,
 * shape and the sha256 of its C-order little-endian bytes, so tests and
 * users can check it against numpy's view of the same file. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/alloc.h"
#include "core/fileio.h"
#include "data/dataset.h"
#include "data/labels.h"
#include "data/npy.h"
#include "data/npz.h"
#include "model/onnx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
MBENCH_COMMAND(tensor-dump, cmd_tensor_dump, "print what mbench reads from tensor files or --data")
MBENCH_OPTIONS(tensor-dump, mb_cmd_tensor_dump)
/* clang-format on */

enum { O_VALUES, O_LIMIT, O_DATA, O_INPUT, O_BATCH, O_FIRST, O_LABELS, O_SAVE };

static const mb_opt tensor_opts[] = {
    {"values", 0, MB_OPT_SWITCH, NULL,
     "also print the elements on a line 'values: ...'", NULL, NULL, 0, 0, 0,
     O_VALUES},
    {"limit", 0, MB_OPT_INT, "N", "print at most N values (default: all)",
     "a non-negative integer", NULL, 0, 9.3e18, 0, O_LIMIT},
    {"data", 0, MB_OPT_FILE, "PATH",
     "load PATH as `mbench run --data` would, for a model whose inputs are "
     "given with --input, and dump the batch of samples FIRST..FIRST+B-1",
     NULL, NULL, 0, 0, 0, O_DATA},
    {"input", 0, MB_OPT_STRING, "SPEC",
     "NAME:DTYPE:DIMS, DIMS comma-separated, a name or -1 for a symbolic "
     "dimension: x:float32:N,1,8,8 (repeatable)",
     NULL, NULL, 0, 0, MB_OPT_REPEAT, O_INPUT},
    {"batch", 0, MB_OPT_INT, "B", "with --data: samples per batch (default 1)",
     "a positive integer", NULL, 1, 9.3e18, 0, O_BATCH},
    {"first", 0, MB_OPT_INT, "I", "with --data: the first sample (default 0)",
     "a non-negative integer", NULL, 0, 9.3e18, 0, O_FIRST},
    {"labels", 0, MB_OPT_FILE, "FILE",
     "print the class ids read from FILE (.npy or text) as 'labels N: ID "
     "ID ...'",
     NULL, NULL, 0, 0, 0, O_LABELS},
    {"save", 0, MB_OPT_OUTFILE, "PATH",
     "also write what was read to PATH: .npy (one tensor) or .npz (any "
     "number), little-endian C order",
     NULL, NULL, 0, 0, 0, O_SAVE},
};

const mb_cmd mb_cmd_tensor_dump = {
    "tensor-dump",
    "[FILE...]",
    "print what mbench reads from tensor files or --data",
    "Prints one line per tensor read from .npy, .npz or .pb files: NAME "
    "dtype=DTYPE shape=[D0,D1,...] sha256=HEX, where HEX is the sha256 of "
    "the tensor's C-order little-endian bytes (numpy: "
    "np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes()). "
    "Other forms: mbench tensor-dump --data PATH --input NAME:DTYPE:DIMS "
    "[--input ...] [--batch B] [--first I] [--values]; mbench tensor-dump "
    "--labels FILE.",
    tensor_opts,
    sizeof tensor_opts / sizeof tensor_opts[0],
    0,
    0,
    -1,
    "Exit codes: 0 ok, 2 usage error, 3 unreadable or mismatched data."};

static void print_value(const mb_tensor *t, size_t i)
{
    const void *d = t->data;
    switch (t->dtype) {
    case MB_DTYPE_FLOAT32:
        printf("%.9g", (double)((const float *)d)[i]);
        break;
    case MB_DTYPE_FLOAT64:
        printf("%.17g", ((const double *)d)[i]);
        break;
    case MB_DTYPE_FLOAT16:
        printf("%.5g", (double)mb_f16_to_f32(((const uint16_t *)d)[i]));
        break;
    case MB_DTYPE_INT64:
        printf("%" PRId64, ((const int64_t *)d)[i]);
        break;
    case MB_DTYPE_UINT64:
        printf("%" PRIu64, ((const uint64_t *)d)[i]);
        break;
    case MB_DTYPE_COMPLEX64:
        printf("(%.9g,%.9g)", (double)((const float *)d)[2 * i],
               (double)((const float *)d)[2 * i + 1]);
        break;
    case MB_DTYPE_COMPLEX128:
        printf("(%.17g,%.17g)", ((const double *)d)[2 * i],
               ((const double *)d)[2 * i + 1]);
        break;
    default:
        printf("%.17g", mb_tensor_get_f64(t, i));
        break;
    }
}

/* sha256 of the C-order little-endian bytes. */
static void tensor_sha(const mb_tensor *t, char hex[65])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    size_t unit = t->dtype == MB_DTYPE_COMPLEX64    ? 4
                  : t->dtype == MB_DTYPE_COMPLEX128 ? 8
                                                    : mb_dtype_size(t->dtype);
    uint8_t *c = mb__malloc(t->nbytes);
    if (c && unit > 1) {
        for (size_t i = 0; i + unit <= t->nbytes; i += unit)
            for (size_t b = 0; b < unit; b++)
                c[i + b] = ((const uint8_t *)t->data)[i + unit - 1 - b];
        mb__sha256_hex(c, t->nbytes, hex);
    } else {
        mb__sha256_hex(t->data, t->nbytes, hex);
    }
    free(c);
#else
    mb__sha256_hex(t->data, t->nbytes, hex);
#endif
}

static void dump(const mb_tensor *t, const char *fallback, int values,
                 int64_t limit)
{
    char shp[512], hex[65];
    tensor_sha(t, hex);
    printf("%s dtype=%s shape=%s sha256=%s\n",
           t->name && t->name[0] ? t->name : fallback, mb_dtype_name(t->dtype),
           mb_shape_str(t->dims, t->rank, shp, sizeof shp), hex);
    if (!values)
        return;
    size_t n = mb_tensor_count(t);
    if (limit >= 0 && (uint64_t)limit < n)
        n = (size_t)limit;
    printf("values:");
    for (size_t i = 0; i < n; i++) {
        putchar(' ');
        print_value(t, i);
    }
    putchar('\n');
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Tensors kept for --save (NULL list: nothing kept). */
typedef struct kept {
    mb_tensor *t;
    size_t n, cap;
} kept;

/* Dumps t and, when k is non-NULL, moves it into k (else clears it). */
static int dump_keep(mb_tensor *t, const char *fallback, int values,
                     int64_t limit, kept *k)
{
    dump(t, fallback, values, limit);
    if (!k) {
        mb_tensor_clear(t);
        return MB_EXIT_OK;
    }
    if (!t->name && !(t->name = mb__strdup(fallback))) {
        mb_tensor_clear(t);
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    }
    if (!mb__grow((void **)&k->t, &k->cap, k->n + 1, sizeof *k->t)) {
        mb_tensor_clear(t);
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    }
    k->t[k->n++] = *t;
    memset(t, 0, sizeof *t);
    return MB_EXIT_OK;
}

/* Writes the kept tensors: one to .npy, any number to .npz. */
static int save_kept(const char *path, const kept *k)
{
    mb_err err = {0};
    mb_status s;
    if (ends_with(path, ".npz"))
        s = mb__npz_write(path, k->t, k->n, &err);
    else if (k->n == 1)
        s = mb__npy_write(path, &k->t[0], &err);
    else
        return mb_cli_error(MB_EXIT_USAGE,
                            "--save %s: %zu tensors need an .npz path", path,
                            k->n);
    return s ? mb_cli_fail(&err) : MB_EXIT_OK;
}

static int dump_file(const char *path, int values, int64_t limit, kept *k)
{
    mb_err err = {0};
    char magic[6] = {0};
    FILE *f = fopen(path, "rb");
    if (f) {
        if (fread(magic, 1, sizeof magic, f) != sizeof magic)
            magic[0] = '\0';
        fclose(f);
    }
    char *base = mb__strdup(mb__basename(path));
    if (!base)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    int rc = MB_EXIT_OK;
    if (ends_with(path, ".npz") || (magic[0] == 'P' && magic[1] == 'K')) {
        mb_tensor *ts;
        size_t n;
        if (mb__npz_read(path, &ts, &n, &err))
            rc = mb_cli_fail(&err);
        else {
            for (size_t i = 0; i < n; i++)
                if (!rc)
                    rc = dump_keep(&ts[i], base, values, limit, k);
            mb__npz_free(ts, n);
        }
    } else {
        mb_tensor t;
        mb_status s =
            memcmp(magic, "\x93NUMPY", 6) == 0 || ends_with(path, ".npy")
                ? mb__npy_read(path, &t, &err)
                : mb__onnx_tensor_read_file(path, &t, &err);
        if (s)
            rc = mb_cli_fail(&err);
        else
            rc = dump_keep(&t, base, values, limit, k);
    }
    free(base);
    return rc;
}

/* NAME:DTYPE:DIMS into d (names point into spec, which must outlive d). */
static int parse_input(char *spec, mb_io_desc *d)
{
    memset(d, 0, sizeof *d);
    char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || c1 == spec)
        return -1;
    *c1 = *c2 = '\0';
    d->name = spec;
    d->dtype = mb_dtype_parse(c1 + 1);
    if (d->dtype == MB_DTYPE_UNDEFINED)
        return -1;
    d->rank = 0;
    char *save = NULL;
    if (strcmp(c2 + 1, "?") == 0) {
        d->rank = -1;
        return 0;
    }
    for (char *tok = strtok_r(c2 + 1, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (d->rank >= MB_MAX_RANK)
            return -1;
        int64_t v;
        if (mb_cli_parse_i64(tok, -1, INT64_MAX, &v) == 0) {
            d->dims[d->rank] = v;
            d->dim_names[d->rank] = "";
        } else {
            d->dims[d->rank] = -1;
            d->dim_names[d->rank] = tok;
        }
        d->rank++;
    }
    return 0;
}

typedef struct {
    int values;
    int64_t limit, batch, first;
    const char *data, *labels, *save;
    mb_io_desc inputs[64];
    size_t n_inputs;
} tensor_args;

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    tensor_args *a = user;
    switch (o->id) {
    case O_VALUES:
        a->values = 1;
        break;
    case O_LIMIT:
        a->limit = v->i;
        break;
    case O_DATA:
        a->data = v->str;
        break;
    case O_LABELS:
        a->labels = v->str;
        break;
    case O_SAVE:
        a->save = v->str;
        break;
    case O_BATCH:
        a->batch = v->i;
        break;
    case O_FIRST:
        a->first = v->i;
        break;
    case O_INPUT:
        if (a->n_inputs == sizeof a->inputs / sizeof a->inputs[0])
            return mb_cli_error(MB_EXIT_USAGE, "too many --input flags");
        if (parse_input((char *)v->str, &a->inputs[a->n_inputs]))
            return mb_cli_bad_value("--input", v->str,
                                    "NAME:DTYPE:DIMS such as "
                                    "x:float32:N,1,8,8");
        a->n_inputs++;
        break;
    }
    return 0;
}

int cmd_tensor_dump(int argc, char **argv)
{
    tensor_args a = {0};
    a.limit = -1;
    a.batch = 1;
    mb_opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_tensor_dump, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    int values = a.values;
    int64_t limit = a.limit, batch = a.batch, first = a.first;
    const char *data = a.data, *labels = a.labels, *save = a.save;
    mb_io_desc *inputs = a.inputs;
    size_t n_inputs = a.n_inputs;
    kept keep = {NULL, 0, 0};
    if (labels) {
        mb_err err = {0};
        int64_t *v;
        size_t n;
        if (mb__labels_load(labels, &v, &n, &err))
            return mb_cli_fail(&err);
        printf("labels %zu:", n);
        for (size_t i = 0; i < n; i++)
            printf(" %" PRId64, v[i]);
        putchar('\n');
        free(v);
        return MB_EXIT_OK;
    }
    if (data) {
        if (ctx.n_args > 0 || n_inputs == 0)
            return mb_cli_error(MB_EXIT_USAGE,
                                "--data needs at least one --input "
                                "NAME:DTYPE:DIMS and no file arguments");
        mb_err err = {0};
        mb_dataset *ds;
        if (mb__dataset_load(data, inputs, n_inputs, &ds, &err))
            return mb_cli_fail(&err);
        printf("# %s\n", mb__dataset_describe(ds));
        mb_tensor out[64];
        if (mb__dataset_batch(ds, (size_t)first, batch, out, &err)) {
            rc = mb_cli_fail(&err);
        } else {
            for (size_t i = 0; i < n_inputs; i++) {
                int r = dump_keep(&out[i], inputs[i].name, values, limit,
                                  save ? &keep : NULL);
                if (r && !rc)
                    rc = r;
            }
        }
        mb__dataset_free(ds);
        if (!rc && save)
            rc = save_kept(save, &keep);
        mb__npz_free(keep.t, keep.n);
        return rc;
    }
    if (ctx.n_args == 0)
        return mb_cli_error(MB_EXIT_USAGE,
                            "tensor-dump needs a FILE (.npy, .npz, .pb) or "
                            "--data; see 'mbench tensor-dump --help'");
    for (int i = 0; i < ctx.n_args; i++) {
        int r = dump_file(ctx.args[i], values, limit, save ? &keep : NULL);
        if (r && !rc)
            rc = r;
    }
    if (!rc && save)
        rc = save_kept(save, &keep);
    mb__npz_free(keep.t, keep.n);
    return rc;
}
