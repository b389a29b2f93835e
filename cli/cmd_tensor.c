/* cmd_tensor.c - mbench tensor-dump: what mbench reads from a tensor file
 * (.npy, .npz, .pb) or a --data path, one line per tensor with its dtype,
 * shape and the sha256 of its C-order little-endian bytes, so tests and
 * users can check it against numpy's view of the same file. */
#include "cli.h"
#include "outputs.h"

#include "core/alloc.h"
#include "core/fileio.h"
#include "data/dataset.h"
#include "data/labels.h"
#include "data/npy.h"
#include "data/npz.h"
#include "model/onnx.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
MBENCH_COMMAND(tensor-dump, cmd_tensor_dump, "print what mbench reads from tensor files or --data")
/* clang-format on */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mbench tensor-dump [--values] [--limit N] [--save PATH] "
            "FILE...\n"
            "       mbench tensor-dump --data PATH --input NAME:DTYPE:DIMS "
            "[--input ...]\n"
            "                          [--batch B] [--first I] [--values]\n"
            "       mbench tensor-dump --labels FILE\n"
            "\n"
            "Prints one line per tensor read from .npy, .npz or .pb files:\n"
            "  NAME dtype=DTYPE shape=[D0,D1,...] sha256=HEX\n"
            "where HEX is the sha256 of the tensor's C-order little-endian "
            "bytes\n"
            "(numpy: np.ascontiguousarray(a).astype(a.dtype.newbyteorder"
            "('<')).tobytes()).\n"
            "\n"
            "  --values      also print the elements on a line 'values: ...'\n"
            "  --limit N     print at most N values (default: all)\n"
            "  --data PATH   load PATH as `mbench run --data` would, for a "
            "model whose\n"
            "                inputs are given with --input, and dump the batch "
            "of\n"
            "                samples FIRST..FIRST+B-1 (default 0, 1)\n"
            "  --input SPEC  NAME:DTYPE:DIMS, DIMS comma-separated, a name or "
            "-1 for\n"
            "                a symbolic dimension: x:float32:N,1,8,8\n"
            "  --labels FILE print the class ids read from FILE (.npy or "
            "text) as\n"
            "                'labels N: ID ID ...'\n"
            "  --save PATH   also write what was read to PATH: .npy (one "
            "tensor) or\n"
            "                .npz (any number), little-endian C order\n"
            "\n"
            "Exit codes: 0 ok, 2 usage error, 3 unreadable or mismatched "
            "data.\n");
}

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

int cmd_tensor_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"values", no_argument, NULL, 'v'},
        {"limit", required_argument, NULL, 'l'},
        {"data", required_argument, NULL, 'd'},
        {"input", required_argument, NULL, 'i'},
        {"batch", required_argument, NULL, 'b'},
        {"first", required_argument, NULL, 'f'},
        {"labels", required_argument, NULL, 'L'},
        {"save", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int values = 0, c;
    int64_t limit = -1, batch = 1, first = 0;
    const char *data = NULL, *labels = NULL, *save = NULL;
    kept keep = {NULL, 0, 0};
    mb_io_desc inputs[64];
    size_t n_inputs = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'v':
            values = 1;
            break;
        case 'l':
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &limit))
                return mb_cli_bad_value("--limit", optarg,
                                        "a non-negative integer");
            break;
        case 'd':
            data = optarg;
            break;
        case 'L':
            labels = optarg;
            break;
        case 's': /* checked before anything is read */
            if ((c = mb_cli_output_check("--save", optarg)))
                return c;
            save = optarg;
            break;
        case 'i':
            if (n_inputs == sizeof inputs / sizeof inputs[0])
                return mb_cli_error(MB_EXIT_USAGE, "too many --input flags");
            if (parse_input(optarg, &inputs[n_inputs]))
                return mb_cli_bad_value("--input", optarg,
                                        "NAME:DTYPE:DIMS such as "
                                        "x:float32:N,1,8,8");
            n_inputs++;
            break;
        case 'b':
            if (mb_cli_parse_i64(optarg, 1, INT64_MAX, &batch))
                return mb_cli_bad_value("--batch", optarg,
                                        "a positive integer");
            break;
        case 'f':
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &first))
                return mb_cli_bad_value("--first", optarg,
                                        "a non-negative integer");
            break;
        case 'h':
            usage(stdout);
            return MB_EXIT_OK;
        default:
            return mb_cli_error(MB_EXIT_USAGE,
                                "unknown or incomplete option '%s'; see "
                                "'mbench tensor-dump --help'",
                                argv[optind - 1]);
        }
    }
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
        if (optind < argc || n_inputs == 0)
            return mb_cli_error(MB_EXIT_USAGE,
                                "--data needs at least one --input "
                                "NAME:DTYPE:DIMS and no file arguments");
        mb_err err = {0};
        mb_dataset *ds;
        if (mb__dataset_load(data, inputs, n_inputs, &ds, &err))
            return mb_cli_fail(&err);
        printf("# %s\n", mb__dataset_describe(ds));
        mb_tensor out[64];
        int rc = MB_EXIT_OK;
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
    if (optind >= argc)
        return mb_cli_error(MB_EXIT_USAGE,
                            "tensor-dump needs a FILE (.npy, .npz, .pb) or "
                            "--data; see 'mbench tensor-dump --help'");
    int rc = MB_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        int r = dump_file(argv[i], values, limit, save ? &keep : NULL);
        if (r && !rc)
            rc = r;
    }
    if (!rc && save)
        rc = save_kept(save, &keep);
    mb__npz_free(keep.t, keep.n);
    return rc;
}
