/* cmd_diff.c - mbench diff A B: every accuracy metric of saved tensors B
 * (candidate) against A (baseline), optional gates, a JSON document and a
 * PNG heat map of |A - B|.  A and B are .npy, .npz or .pb files, or
 * directories of .npy/.pb files matched by file name (or by the name
 * stored inside a .pb).  Definitions: docs/ACCURACY.md. */
#include "cli.h"
#include "outputs.h"

#include "accuracy/gate.h"
#include "accuracy/heatmap.h"
#include "accuracy/metrics.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "data/npy.h"
#include "data/npz.h"
#include "model/onnx.h"
#include "report/valprint.h"

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

MBENCH_COMMAND(diff, cmd_diff,
               "compare saved output tensors (.npy, .npz, .pb, directories)")

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mbench diff BASELINE CANDIDATE [options]\n"
        "\n"
        "Compares candidate tensors with baseline tensors and prints every\n"
        "accuracy metric (docs/ACCURACY.md).  BASELINE and CANDIDATE are\n"
        ".npy, .npz or ONNX TensorProto .pb files, or directories of .npy\n"
        "and .pb files matched by file name (a .pb also matches by the\n"
        "tensor name stored in it).  In a directory holding ONNX test data\n"
        "(input_N.pb and output_N.pb) only the outputs are compared.\n"
        "\n"
        "  --atol X          isclose absolute tolerance (default 1e-8)\n"
        "  --rtol Y          isclose relative tolerance (default 1e-5)\n"
        "  --data-range R    data range for PSNR and SSIM (default: the\n"
        "                    baseline's max - min)\n"
        "  --ssim-3d         SSIM over the last three dims (volumes)\n"
        "  --gate EXPR       e.g. 'cosine>=0.999', 'psnr>=40',\n"
        "                    'max_abs<=1e-3' (repeatable)\n"
        "  --precision P     add the default gates of fp32, fp16 or int8\n"
        "  --json FILE       write the result document (atomically)\n"
        "  --heatmap FILE    draw |A - B| of the first image-like tensor as\n"
        "                    a PNG (last two dims, first image)\n"
        "  --threads N       threads for large tensors (default: all CPUs)\n"
        "  --per-sample N    list per-sample metrics up to N samples in the\n"
        "                    JSON (default 1024, 0: never)\n"
        "  -q, --quiet       print only the verdict line\n"
        "\n"
        "Exit codes: 0 all gates pass (or no gates), 1 a gate failed,\n"
        "2 usage error, 3 unreadable files or mismatched shapes.\n");
}

/* A set of named tensors read from one path. */
typedef struct tset {
    mb_tensor *t;
    char **key;   /* file stem or npz member name */
    char **alt;   /* name stored inside a .pb, or NULL */
    size_t n, cap;
    int single;   /* one file holding one tensor */
} tset;

static void tset_free(tset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        mb_tensor_clear(&s->t[i]);
        free(s->key[i]);
        free(s->alt[i]);
    }
    free(s->t);
    free(s->key);
    free(s->alt);
    memset(s, 0, sizeof *s);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static char *stem(const char *path)
{
    const char *b = mb__basename(path);
    const char *dot = strrchr(b, '.');
    return mb__strndup(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

/* Takes ownership of *t. */
static mb_status tset_add(tset *s, mb_tensor *t, char *key, mb_err *err)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 8;
        mb_tensor *nt = mb__realloc_array(s->t, c, sizeof *nt);
        if (nt)
            s->t = nt;
        char **nk = mb__realloc_array(s->key, c, sizeof *nk);
        if (nk)
            s->key = nk;
        char **na = mb__realloc_array(s->alt, c, sizeof *na);
        if (na)
            s->alt = na;
        if (!nt || !nk || !na) {
            mb_tensor_clear(t);
            free(key);
            return mb__fail(err, MB_ENOMEM, "out of memory reading tensors");
        }
        s->cap = c;
    }
    if (!key) {
        mb_tensor_clear(t);
        return mb__fail(err, MB_ENOMEM, "out of memory reading tensors");
    }
    s->t[s->n] = *t;
    s->key[s->n] = key;
    s->alt[s->n] = t->name && *t->name ? mb__strdup(t->name) : NULL;
    s->n++;
    memset(t, 0, sizeof *t);
    return MB_OK;
}

static mb_status load_file(const char *path, tset *s, mb_err *err)
{
    mb_tensor t;
    mb_status st;
    if (ends_with(path, ".npz")) {
        mb_tensor *ts = NULL;
        size_t n = 0;
        st = mb__npz_read(path, &ts, &n, err);
        if (st)
            return st;
        for (size_t i = 0; i < n && st == MB_OK; i++) {
            char *k = mb__strdup(ts[i].name ? ts[i].name : "");
            free(ts[i].name);
            ts[i].name = NULL;
            st = tset_add(s, &ts[i], k, err);
        }
        mb__npz_free(ts, n);
        return st;
    }
    if (ends_with(path, ".pb"))
        st = mb__onnx_tensor_read_file(path, &t, err);
    else
        st = mb__npy_read(path, &t, err);
    if (st)
        return st;
    return tset_add(s, &t, stem(path), err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static mb_status load_path(const char *path, tset *s, mb_err *err)
{
    struct stat sb;
    memset(s, 0, sizeof *s);
    if (stat(path, &sb) != 0)
        return mb__fail(err, MB_EIO, "%s: no such file or directory", path);
    if (!S_ISDIR(sb.st_mode)) {
        if (!ends_with(path, ".npy") && !ends_with(path, ".pb") &&
            !ends_with(path, ".npz"))
            return mb__fail(err, MB_EINVAL,
                            "%s: unknown tensor file type; use .npy, .npz, "
                            ".pb or a directory of them", path);
        mb_status st = load_file(path, s, err);
        s->single = st == MB_OK && s->n == 1 && !ends_with(path, ".npz");
        return st;
    }
    DIR *d = opendir(path);
    if (!d)
        return mb__fail(err, MB_EIO, "%s: cannot open directory", path);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    mb_status st = MB_OK;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".npy") && !ends_with(e->d_name, ".pb"))
            continue;
        if (!mb__grow((void **)&names, &cap, n + 1, sizeof *names) ||
            !(names[n] = mb__strdup(e->d_name))) {
            st = mb__fail(err, MB_ENOMEM, "out of memory listing %s", path);
            break;
        }
        n++;
    }
    closedir(d);
    if (st == MB_OK && n == 0)
        st = mb__fail(err, MB_EDATA,
                      "%s: no .npy or .pb files in this directory", path);
    if (st == MB_OK)
        qsort(names, n, sizeof *names, cmp_str);
    /* An ONNX test_data_set directory: compare its outputs only. */
    int onnx_layout = 0;
    for (size_t i = 0; i < n; i++)
        onnx_layout |= strncmp(names[i], "output_", 7) == 0 &&
                       ends_with(names[i], ".pb");
    if (onnx_layout) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (strncmp(names[i], "input_", 6) == 0 &&
                ends_with(names[i], ".pb"))
                free(names[i]);
            else
                names[k++] = names[i];
        }
        n = k;
    }
    for (size_t i = 0; i < n; i++) {
        if (st == MB_OK) {
            mb_buf p = MB_BUF_INIT;
            mb__buf_printf(&p, "%s/%s", path, names[i]);
            if (p.oom)
                st = mb__fail(err, MB_ENOMEM, "out of memory");
            else
                st = load_file(p.data, s, err);
            mb__buf_free(&p);
        }
        free(names[i]);
    }
    free(names);
    if (st)
        tset_free(s);
    return st;
}

static int names_match(const tset *a, size_t i, const tset *b, size_t j,
                       int pass)
{
    const char *ka = a->key[i], *kb = b->key[j];
    const char *aa = a->alt[i], *ab = b->alt[j];
    if (pass == 0)
        return strcmp(ka, kb) == 0;
    return (aa && strcmp(aa, kb) == 0) || (ab && strcmp(ka, ab) == 0) ||
           (aa && ab && strcmp(aa, ab) == 0);
}

/* The N of an "output_N" file stem of ONNX test data whose .pb stores no
 * tensor name (old test sets), or -1. */
static long unnamed_output_index(const tset *s, size_t i)
{
    const char *k = s->key[i];
    if (s->alt[i] || strncmp(k, "output_", 7) != 0 || !k[7])
        return -1;
    char *end;
    long n = strtol(k + 7, &end, 10);
    return *end || n < 0 ? -1 : n;
}

/* Indices of s not marked in used, into idx; their count. */
static size_t unmatched(const tset *s, const char *used, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!used[i])
            idx[n++] = i;
    return n;
}

/* Sorts idx by the N of output_N (insertion sort: few outputs). */
static void sort_by_output_index(const tset *s, size_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && unnamed_output_index(s, idx[j - 1]) >
                                        unnamed_output_index(s, idx[j]);
             j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
}

/* 1 when every index in idx is an unnamed output_N. */
static int all_unnamed_outputs(const tset *s, const size_t *idx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (unnamed_output_index(s, idx[i]) < 0)
            return 0;
    return n > 0;
}

/* Old ONNX test sets store outputs without a tensor name (output_0.pb
 * holding ""), so nothing names them: the tensors left unpaired after the
 * name passes are paired by position (output_N in N order against the
 * other side's remaining tensors in order) when one side's leftovers are
 * all such outputs and both sides have as many.  Says so on stderr. */
static void pair_by_position(const tset *a, const tset *b, size_t *pair,
                             char *used_a, char *used_b)
{
    size_t *ia = mb__calloc(a->n ? a->n : 1, sizeof *ia);
    size_t *ib = mb__calloc(b->n ? b->n : 1, sizeof *ib);
    if (!ia || !ib) {
        free(ia);
        free(ib);
        return;
    }
    size_t na = unmatched(a, used_a, ia), nb = unmatched(b, used_b, ib);
    int ua = all_unnamed_outputs(a, ia, na), ub = all_unnamed_outputs(b, ib, nb);
    if (na == nb && (ua || ub)) {
        if (ua)
            sort_by_output_index(a, ia, na);
        if (ub)
            sort_by_output_index(b, ib, nb);
        for (size_t k = 0; k < na; k++) {
            pair[ia[k]] = ib[k];
            used_a[ia[k]] = used_b[ib[k]] = 1;
            fprintf(stderr,
                    "mbench: note: %s and %s: %s stores no tensor name (old "
                    "ONNX test data); paired by position\n",
                    a->key[ia[k]], b->key[ib[k]],
                    ua ? a->key[ia[k]] : b->key[ib[k]]);
        }
    }
    free(ia);
    free(ib);
}

/* Pairs every tensor of a with one of b: pair[i] = index in b. */
static mb_status pair_sets(const tset *a, const tset *b, size_t *pair,
                           const char *pa, const char *pb, mb_err *err)
{
    if (a->single && b->single) {
        pair[0] = 0;
        return MB_OK;
    }
    char *used = mb__calloc(b->n ? b->n : 1, 1);
    char *used_a = mb__calloc(a->n ? a->n : 1, 1);
    if (!used || !used_a) {
        free(used);
        free(used_a);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    mb_status st = MB_OK;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < a->n; i++) {
            if (used_a[i])
                continue;
            for (size_t j = 0; j < b->n; j++)
                if (!used[j] && names_match(a, i, b, j, pass)) {
                    pair[i] = j;
                    used[j] = used_a[i] = 1;
                    break;
                }
        }
    pair_by_position(a, b, pair, used_a, used);
    for (size_t i = 0; i < a->n && st == MB_OK; i++) {
        if (!used_a[i])
            st = mb__fail(err, MB_EDATA,
                          "%s has no tensor named '%s' (as %s has); name the "
                          "files alike", pb, a->key[i], pa);
    }
    free(used_a);
    for (size_t j = 0; j < b->n && st == MB_OK; j++)
        if (!used[j])
            st = mb__fail(err, MB_EDATA,
                          "%s has no tensor named '%s' (as %s has); name the "
                          "files alike", pa, b->key[j], pb);
    free(used);
    return st;
}

enum {
    OPT_ATOL = 1,
    OPT_RTOL,
    OPT_RANGE,
    OPT_SSIM3D,
    OPT_GATE,
    OPT_PREC,
    OPT_JSON,
    OPT_HEATMAP,
    OPT_THREADS,
    OPT_PERSAMPLE,
    OPT_HELP
};

#define MAX_GATES 64

/* Prints what a report/valprint.h writer renders. */
static void put(void (*fn)(const json_t *, mb_buf *), const json_t *x)
{
    mb_buf b = MB_BUF_INIT;
    fn(x, &b);
    fputs(b.data ? b.data : "", stdout);
    mb__buf_free(&b);
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"atol", required_argument, NULL, OPT_ATOL},
        {"rtol", required_argument, NULL, OPT_RTOL},
        {"data-range", required_argument, NULL, OPT_RANGE},
        {"ssim-3d", no_argument, NULL, OPT_SSIM3D},
        {"gate", required_argument, NULL, OPT_GATE},
        {"precision", required_argument, NULL, OPT_PREC},
        {"json", required_argument, NULL, OPT_JSON},
        {"heatmap", required_argument, NULL, OPT_HEATMAP},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"per-sample", required_argument, NULL, OPT_PERSAMPLE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0}};
    mb_metric_opts mo;
    mb__metric_opts_defaults(&mo);
    mb_gate gates[MAX_GATES];
    size_t n_gates = 0;
    const char *json_path = NULL, *heat_path = NULL;
    int write_failed = 0;
    int quiet = 0;
    mb_err err;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        int64_t iv;
        switch (c) {
        case OPT_ATOL:
            if (mb_cli_parse_double(optarg, 0, 1e300, &mo.atol))
                return mb_cli_bad_value("--atol", optarg, "a number >= 0");
            break;
        case OPT_RTOL:
            if (mb_cli_parse_double(optarg, 0, 1e300, &mo.rtol))
                return mb_cli_bad_value("--rtol", optarg, "a number >= 0");
            break;
        case OPT_RANGE:
            if (mb_cli_parse_double(optarg, 1e-300, 1e300, &mo.data_range))
                return mb_cli_bad_value("--data-range", optarg,
                                        "a number > 0");
            break;
        case OPT_SSIM3D:
            mo.ssim_3d = 1;
            break;
        case OPT_GATE:
            if (n_gates >= MAX_GATES)
                return mb_cli_error(MB_EXIT_USAGE, "at most %d gates",
                                    MAX_GATES);
            if (mb__gate_parse(optarg, &gates[n_gates], &err))
                return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
            n_gates++;
            break;
        case OPT_PREC: {
            mb_precision p;
            if (mb__precision_parse(optarg, &p))
                return mb_cli_bad_value("--precision", optarg,
                                        "fp32, fp16 or int8");
            n_gates += mb__gate_defaults(p, gates + n_gates,
                                         MAX_GATES - n_gates);
            if (n_gates > MAX_GATES)
                n_gates = MAX_GATES;
            break;
        }
        case OPT_JSON: /* outputs are checked before any work */
            if ((iv = mb_cli_output_arg("--json", optarg, &json_path)))
                return (int)iv;
            break;
        case OPT_HEATMAP:
            if ((iv = mb_cli_output_arg("--heatmap", optarg, &heat_path)))
                return (int)iv;
            break;
        case OPT_THREADS:
            if (mb_cli_parse_i64(optarg, 1, 256, &iv))
                return mb_cli_bad_value("--threads", optarg,
                                        "an integer in 1..256");
            mo.threads = (int)iv;
            break;
        case OPT_PERSAMPLE:
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &iv))
                return mb_cli_bad_value("--per-sample", optarg,
                                        "an integer >= 0");
            mo.per_sample_max = (size_t)iv;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
        case OPT_HELP:
            usage(stdout);
            return MB_EXIT_OK;
        default:
            return mb_cli_error(MB_EXIT_USAGE,
                                "unknown or incomplete option '%s'; see "
                                "mbench diff --help",
                                argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return mb_cli_error(MB_EXIT_USAGE,
                            "diff needs BASELINE and CANDIDATE paths; see "
                            "mbench diff --help");
    const char *pa = argv[optind], *pb = argv[optind + 1];
    tset A, B;
    if (load_path(pa, &A, &err))
        return mb_cli_fail(&err);
    if (load_path(pb, &B, &err)) {
        tset_free(&A);
        return mb_cli_fail(&err);
    }
    int rc = MB_EXIT_OK;
    size_t *pair = mb__calloc(A.n, sizeof *pair);
    json_t *outs = json_array();
    if (!pair || !outs) {
        err.code = MB_ENOMEM;
        snprintf(err.msg, sizeof err.msg, "out of memory");
        rc = mb_cli_fail(&err);
        goto done;
    }
    if (pair_sets(&A, &B, pair, pa, pb, &err)) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    for (size_t i = 0; i < A.n; i++) {
        mb_tensor *ta = &A.t[i], *tb = &B.t[pair[i]];
        free(ta->name);
        ta->name = mb__strdup(A.key[i]);
        json_t *m = NULL;
        if (mb__metrics_compute(ta, tb, &mo, &m, &err)) {
            rc = mb_cli_fail(&err);
            goto done;
        }
        json_array_append_new(outs, m);
        if (!quiet)
            put(mb__metrics_text, m);
    }
    json_t *gv = NULL;
    int passed = 1;
    if (n_gates > 0) {
        gv = mb__gates_eval_outputs(gates, n_gates, outs, &passed);
        if (!quiet) {
            printf("gates:\n");
            put(mb__gates_text, gv);
        }
    }
    printf("%s: %zu tensor%s compared%s\n",
           n_gates == 0 ? "DONE" : passed ? "PASS" : "FAIL", A.n,
           A.n == 1 ? "" : "s",
           n_gates == 0 ? ", no gates" : "");
    if (heat_path) {
        size_t k = 0;
        for (size_t i = 0; i < A.n; i++)
            if (A.t[i].rank >= 2) {
                k = i;
                break;
            }
        mb_buf png = MB_BUF_INIT;
        double mx = 0;
        /* a heatmap that cannot be written does not cost the JSON */
        if (mb__heatmap_png(&A.t[k], &B.t[pair[k]], &png, &mx, &err) ||
            mb__write_file_atomic(heat_path, png.data, png.len, &err)) {
            write_failed = mb_cli_fail(&err);
        } else if (!quiet) {
            printf("heatmap of %s: %s (brightest = |diff| %.6g)\n", A.key[k],
                   heat_path, mx);
        }
        mb__buf_free(&png);
    }
    if (json_path) {
        json_t *doc = json_object();
        json_object_set_new(doc, "schema", json_string("mbench.diff/1"));
        json_object_set_new(doc, "kind", json_string("diff"));
        json_object_set_new(doc, "command_line",
                            json_string(mb_cli_command_line()));
        json_object_set_new(doc, "mbench",
                            json_pack("{s:s, s:s}", "version", mb_version(),
                                      "commit", mb_build_commit()));
        json_object_set_new(doc, "baseline", json_string(pa));
        json_object_set_new(doc, "candidate", json_string(pb));
        json_object_set_new(doc, "outputs", json_incref(outs));
        json_object_set_new(doc, "gates", gv ? json_incref(gv) : json_array());
        json_object_set_new(doc, "passed", json_boolean(passed));
        char *txt = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        json_decref(doc);
        mb_status st;
        if (txt)
            st = mb__write_file_atomic(json_path, txt, strlen(txt), &err);
        else
            st = mb__fail(&err, MB_ENOMEM, "out of memory");
        free(txt);
        if (st) {
            json_decref(gv);
            rc = mb_cli_fail(&err);
            goto done;
        }
    }
    json_decref(gv);
    rc = write_failed ? write_failed : passed ? MB_EXIT_OK : MB_EXIT_FAIL;
done:
    json_decref(outs);
    free(pair);
    tset_free(&A);
    tset_free(&B);
    return rc;
}
