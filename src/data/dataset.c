/* dataset.c - loading --data paths into per-input sample stacks, checking
 * them against the model, and cutting batches (see dataset.h). */
#include "data/dataset.h"
#include "data/imagedir.h"

#include "core/parse.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "data/npy.h"
#include "data/npz.h"
#include "model/onnx.h"

#include <stdbool.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One tensor read from a file, before it is split into samples. */
typedef struct piece {
    mb_tensor t;
    char *origin; /* for messages: "digits.npy", "sample_3/x.npy" */
} piece;

typedef struct ds_input {
    char *name;
    mb_dtype dtype;
    int rank; /* model rank, -1 unknown */
    int64_t dims[MB_MAX_RANK];
    char *dim_names[MB_MAX_RANK];
    int batched;   /* axis 0 is the batch axis (symbolic or fixed 1) */
    int fixed_one; /* ... and it is fixed at 1 */
    piece *pieces; /* while loading */
    size_t n_pieces, cap_pieces;
    mb_tensor stack;         /* [N, sample dims...] */
    mb_dtype converted_from; /* file dtype when converted, else UNDEFINED */
    int s_rank;              /* sample rank */
    int64_t s_dims[MB_MAX_RANK];
    size_t s_bytes;
} ds_input;

struct mb__dataset {
    ds_input *in;
    size_t n_in;
    mb__tlimit lim; /* applied to every file read */
    size_t count;
    char desc[512];
    const mb__image_prep *prep; /* borrowed for the load */
};

/* ---- small helpers --------------------------------------------------- */

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = mb__malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* Natural order: digit runs compare as numbers ("sample_2" < "sample_10"). */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int natural_qsort(const void *x, const void *y)
{
    return natural_cmp(*(char *const *)x, *(char *const *)y);
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Entries of dir whose names start with prefix (and, when suffix is
 * non-NULL, end with it), naturally sorted.  want_dir selects directories
 * (1) or regular files (0). */
static mb_status list_dir(const char *dir, const char *prefix,
                          const char *suffix, int want_dir, char ***out,
                          size_t *n, mb_err *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return mb__fail(err, MB_EIO, "cannot read data directory %s: %s", dir,
                        strerror(errno));
    char **v = NULL;
    size_t cap = 0, k = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' ||
            strncmp(e->d_name, prefix, strlen(prefix)) != 0 ||
            (suffix && !mb__ends_with(e->d_name, suffix)))
            continue;
        char *full = join(dir, e->d_name);
        if (!full) {
            closedir(d);
            free_names(v, k);
            return mb__fail(err, MB_ENOMEM, "out of memory listing %s", dir);
        }
        int keep = want_dir ? is_dir(full) : is_file(full);
        free(full);
        if (!keep)
            continue;
        if (!mb__grow((void **)&v, &cap, k + 1, sizeof *v) ||
            !(v[k] = mb__strdup(e->d_name))) {
            closedir(d);
            free_names(v, k);
            return mb__fail(err, MB_ENOMEM, "out of memory listing %s", dir);
        }
        k++;
    }
    closedir(d);
    if (k)
        qsort(v, k, sizeof *v, natural_qsort);
    *out = v;
    *n = k;
    return MB_OK;
}

/* "a, b, c" of the model's input names into buf. */
static const char *input_names(const ds_input *in, size_t n, char *buf,
                               size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
                                in[i].name);
    return buf;
}

static ds_input *find_input(mb__dataset *d, const char *name)
{
    for (size_t i = 0; i < d->n_in; i++)
        if (strcmp(d->in[i].name, name) == 0)
            return &d->in[i];
    return NULL;
}

/* The model's shape with symbolic dims as their names: "[N,1,8,8]". */
static const char *model_shape_str(const ds_input *in, char *buf, size_t len)
{
    if (in->rank < 0) {
        snprintf(buf, len, "(any shape)");
        return buf;
    }
    size_t off = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < in->rank && off < len; i++) {
        const char *sep = i ? "," : "";
        if (in->dims[i] >= 0)
            off += (size_t)snprintf(buf + off, len - off, "%s%" PRId64, sep,
                                    in->dims[i]);
        else if (in->dim_names[i] && in->dim_names[i][0])
            off += (size_t)snprintf(buf + off, len - off, "%s%s", sep,
                                    in->dim_names[i]);
        else
            off += (size_t)snprintf(buf + off, len - off, "%s%s", sep,
                                    i == 0 ? "N" : "?");
    }
    if (off < len)
        snprintf(buf + off, len - off, "]");
    return buf;
}

static mb_status mismatch(const ds_input *in, const piece *p, mb_err *err)
{
    char want[320], got[320];
    return mb__fail(
        err, MB_EDATA, "input '%s': expected %s %s, found %s %s in %s",
        in->name, mb_dtype_name(in->dtype),
        model_shape_str(in, want, sizeof want), mb_dtype_name(p->t.dtype),
        mb_shape_str(p->t.dims, p->t.rank, got, sizeof got), p->origin);
}

/* Reads one tensor file, choosing the reader by content (npy magic) or
 * extension (.pb). */
static mb_status read_tensor_file(const char *path, const mb__tlimit *lim,
                                  mb_tensor *t, mb_err *err)
{
    if (mb__ends_with(path, ".npy"))
        return mb__npy_read_lim(path, lim, t, err);
    if (mb__ends_with(path, ".pb"))
        return mb__onnx_tensor_read_file_lim(path, lim, t, err);
    FILE *f = fopen(path, "rb");
    if (!f)
        return mb__fail(err, MB_EIO, "cannot open %s: %s", path,
                        strerror(errno));
    char magic[6] = {0};
    size_t r = fread(magic, 1, sizeof magic, f);
    fclose(f);
    if (r == 6 && memcmp(magic, "\x93NUMPY", 6) == 0)
        return mb__npy_read_lim(path, lim, t, err);
    return mb__onnx_tensor_read_file_lim(path, lim, t, err);
}

/* Takes ownership of *t (zeroed afterwards). */
static mb_status add_piece(ds_input *in, mb_tensor *t, const char *origin,
                           mb_err *err)
{
    if (!mb__grow((void **)&in->pieces, &in->cap_pieces, in->n_pieces + 1,
                  sizeof *in->pieces))
        return mb__fail(err, MB_ENOMEM, "out of memory loading data");
    piece *p = &in->pieces[in->n_pieces];
    p->origin = mb__strdup(origin);
    if (!p->origin)
        return mb__fail(err, MB_ENOMEM, "out of memory loading data");
    p->t = *t;
    memset(t, 0, sizeof *t);
    in->n_pieces++;
    return MB_OK;
}

static mb_status add_file(ds_input *in, const char *path, const char *origin,
                          const mb__tlimit *lim, mb_err *err)
{
    mb_tensor t;
    mb_status s = read_tensor_file(path, lim, &t, err);
    if (s)
        return s;
    s = add_piece(in, &t, origin, err);
    mb_tensor_clear(&t);
    return s;
}

/* ---- layouts ---------------------------------------------------------- */

static mb_status need_one_input(mb__dataset *d, const char *path,
                                const char *what, mb_err *err)
{
    if (d->n_in == 1)
        return MB_OK;
    char names[400];
    return mb__fail(err, MB_EDATA,
                    "%s holds one %s but the model has %zu inputs (%s): pass "
                    "an .npz with members named after them, a directory, or "
                    "--data %s=FILE,...",
                    path, what, d->n_in,
                    input_names(d->in, d->n_in, names, sizeof names),
                    d->in[0].name);
}

static mb_status load_npz(mb__dataset *d, const char *path, mb_err *err)
{
    mb_tensor *ts;
    size_t n;
    mb_status s = mb__npz_read_lim(path, &d->lim, &ts, &n, err);
    if (s)
        return s;
    const char *base = mb__basename(path);
    char ignored[256] = "";
    size_t used = 0;
    if (d->n_in == 1 && n == 1) {
        char origin[512];
        snprintf(origin, sizeof origin, "%s member %s.npy", base, ts[0].name);
        s = add_piece(&d->in[0], &ts[0], origin, err);
        mb__npz_free(ts, n);
        return s;
    }
    for (size_t i = 0; i < d->n_in && !s; i++) {
        size_t j = 0;
        while (j < n && !(ts[j].name && strcmp(ts[j].name, d->in[i].name) == 0))
            j++;
        if (j == n) {
            char names[400];
            size_t off = 0;
            names[0] = '\0';
            for (size_t k = 0; k < n && off < sizeof names; k++)
                off += (size_t)snprintf(names + off, sizeof names - off, "%s%s",
                                        k ? ", " : "",
                                        ts[k].name ? ts[k].name : "");
            s = mb__fail(err, MB_EDATA,
                         "input '%s' has no member in %s (its members are: "
                         "%s); name the members after the model's inputs",
                         d->in[i].name, path, names);
            break;
        }
        char origin[512];
        snprintf(origin, sizeof origin, "%s member %s.npy", base, ts[j].name);
        s = add_piece(&d->in[i], &ts[j], origin, err);
        used++;
    }
    if (!s && used < n) {
        size_t off = 0;
        for (size_t k = 0; k < n && off < sizeof ignored; k++)
            if (ts[k].name) /* add_piece zeroed the used ones */
                off += (size_t)snprintf(ignored + off, sizeof ignored - off,
                                        "%s%s", off ? ", " : "", ts[k].name);
        snprintf(d->desc, sizeof d->desc, " (ignored members: %s)", ignored);
    }
    mb__npz_free(ts, n);
    return s;
}

static mb_status load_list(mb__dataset *d, const char *list, mb_err *err)
{
    char *copy = mb__strdup(list);
    if (!copy)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status s = MB_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && !s;
         tok = strtok_r(NULL, ",", &save)) {
        const char *file = mb__assignment_value(tok);
        if (!file) {
            s = mb__fail(err, MB_EINVAL,
                         "--data list item '%s' is not NAME=FILE (example: "
                         "--data x=x.npy,mask=mask.npy)",
                         tok);
            break;
        }
        tok[file - 1 - tok] = '\0'; /* tok is now the input's name */
        ds_input *in = find_input(d, tok);
        if (!in) {
            char names[400];
            s = mb__fail(err, MB_EDATA,
                         "--data names input '%s' but the model's inputs "
                         "are: %s",
                         tok, input_names(d->in, d->n_in, names, sizeof names));
            break;
        }
        if (in->n_pieces) {
            s = mb__fail(err, MB_EINVAL, "--data names input '%s' twice", tok);
            break;
        }
        s = add_file(in, file, mb__basename(file), &d->lim, err);
    }
    free(copy);
    return s;
}

/* One sample directory: <input>.npy or <input>.pb for every input. */
static mb_status load_sample_dir(mb__dataset *d, const char *dir,
                                 const char *rel, mb_err *err)
{
    for (size_t i = 0; i < d->n_in; i++) {
        const char *exts[] = {".npy", ".pb"};
        mb_status s = MB_OK;
        int found = 0;
        for (size_t e = 0; e < 2 && !found; e++) {
            size_t n = strlen(d->in[i].name) + 8;
            char *fname = mb__malloc(n);
            if (!fname)
                return mb__fail(err, MB_ENOMEM, "out of memory");
            snprintf(fname, n, "%s%s", d->in[i].name, exts[e]);
            char *full = join(dir, fname), *origin = join(rel, fname);
            if (full && origin && is_file(full)) {
                found = 1;
                s = add_file(&d->in[i], full, origin, &d->lim, err);
            } else if (!full || !origin) {
                s = mb__fail(err, MB_ENOMEM, "out of memory");
            }
            free(fname);
            free(full);
            free(origin);
            if (s)
                return s;
        }
        if (!found)
            return mb__fail(err, MB_EDATA,
                            "sample directory %s has no %s.npy or %s.pb for "
                            "input '%s'",
                            dir, d->in[i].name, d->in[i].name, d->in[i].name);
    }
    return MB_OK;
}

/* One ONNX test data set: input_<i>.pb, matched by TensorProto name, else
 * by position i. */
static mb_status load_onnx_set(mb__dataset *d, const char *dir, const char *rel,
                               mb_err *err)
{
    char **files;
    size_t nf;
    mb_status s = list_dir(dir, "input_", ".pb", 0, &files, &nf, err);
    if (s)
        return s;
    if (nf < d->n_in) {
        char names[400];
        s = mb__fail(err, MB_EDATA,
                     "%s holds %zu input_*.pb files but the model has %zu "
                     "inputs (%s)",
                     dir, nf, d->n_in,
                     input_names(d->in, d->n_in, names, sizeof names));
        free_names(files, nf);
        return s;
    }
    mb_tensor *ts = mb__calloc(nf, sizeof *ts);
    char *taken = mb__calloc(d->n_in ? d->n_in : 1, 1);
    size_t *target = mb__calloc(nf, sizeof *target);
    if (!ts || !taken || !target)
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t k = 0; k < nf && !s; k++) {
        char *full = join(dir, files[k]);
        if (!full) {
            s = mb__fail(err, MB_ENOMEM, "out of memory");
            break;
        }
        s = read_tensor_file(full, &d->lim, &ts[k], err);
        free(full);
        target[k] = (size_t)-1;
        for (size_t i = 0; !s && ts[k].name && i < d->n_in; i++)
            if (!taken[i] && strcmp(ts[k].name, d->in[i].name) == 0) {
                taken[i] = 1;
                target[k] = i;
            }
    }
    /* unnamed (or unknown-named) files take the inputs left, by position */
    for (size_t k = 0; k < nf && !s; k++) {
        if (target[k] != (size_t)-1)
            continue;
        const char *num = files[k] + strlen("input_");
        char *end;
        unsigned long pos = strtoul(num, &end, 10);
        if (end == num || strcmp(end, ".pb") != 0 || pos >= d->n_in) {
            if (end != num && strcmp(end, ".pb") == 0 && pos >= d->n_in)
                continue; /* more files than inputs: surplus ignored */
            s = mb__fail(err, MB_EDATA,
                         "%s/%s: cannot tell which input it feeds (name it "
                         "input_<position>.pb or set the TensorProto name)",
                         dir, files[k]);
            break;
        }
        if (taken[pos])
            continue; /* its slot was claimed by name; leave it unused */
        taken[pos] = 1;
        target[k] = pos;
    }
    for (size_t i = 0; i < d->n_in && !s; i++)
        if (!taken[i])
            s = mb__fail(err, MB_EDATA,
                         "%s: no input_*.pb file feeds input '%s' (by "
                         "TensorProto name or position %zu)",
                         dir, d->in[i].name, i);
    for (size_t k = 0; k < nf && !s; k++) {
        if (target[k] == (size_t)-1)
            continue;
        char *origin = join(rel, files[k]);
        if (!origin) {
            s = mb__fail(err, MB_ENOMEM, "out of memory");
            break;
        }
        s = add_piece(&d->in[target[k]], &ts[k], origin, err);
        free(origin);
    }
    for (size_t k = 0; ts && k < nf; k++)
        mb_tensor_clear(&ts[k]);
    free(ts);
    free(taken);
    free(target);
    free_names(files, nf);
    return s;
}

/* Images (imagedir.h) decoded and preprocessed for the one input. */
static mb_status load_images(mb__dataset *d, const char *path,
                             const mb__image_list *l, mb_err *err)
{
    mb_status s = need_one_input(d, path, "image set", err);
    if (s)
        return s;
    ds_input *in = &d->in[0];
    int64_t dims[MB_MAX_RANK];
    for (int k = 0; k < in->rank && k < MB_MAX_RANK; k++)
        dims[k] = in->dims[k];
    mb_tensor t;
    if ((s = mb__image_list_tensor(l, in->name, in->rank, dims, in->dtype,
                                   d->prep, &d->lim, &t, err)))
        return s;
    if (in->rank == 3) /* [C, H, W], no batch axis: one image a sample */
        in->batched = in->fixed_one = 0;
    s = add_piece(in, &t, mb__basename(path), err);
    mb_tensor_clear(&t);
    if (!s && l->labels)
        snprintf(d->desc, sizeof d->desc,
                 " (images in %zu class folders, labels by sorted folder "
                 "name)",
                 l->n_classes);
    else if (!s)
        snprintf(d->desc, sizeof d->desc, " (images)");
    return s;
}

static mb_status load_dir(mb__dataset *d, const char *path, mb_err *err)
{
    char **subs;
    size_t n;
    mb_status s = list_dir(path, "sample_", NULL, 1, &subs, &n, err);
    if (s)
        return s;
    int onnx = 0;
    if (n == 0) {
        free(subs);
        if ((s = list_dir(path, "test_data_set_", NULL, 1, &subs, &n, err)))
            return s;
        onnx = 1;
    }
    if (n > 0) {
        for (size_t i = 0; i < n && !s; i++) {
            char *full = join(path, subs[i]);
            if (!full) {
                s = mb__fail(err, MB_ENOMEM, "out of memory");
                break;
            }
            s = onnx ? load_onnx_set(d, full, subs[i], err)
                     : load_sample_dir(d, full, subs[i], err);
            free(full);
        }
        snprintf(d->desc, sizeof d->desc, " from %zu %s directories", n,
                 onnx ? "test_data_set_*" : "sample_*");
        free_names(subs, n);
        return s;
    }
    free(subs);
    /* The directory itself may be one sample set. */
    char **files;
    size_t nf;
    if ((s = list_dir(path, "input_", ".pb", 0, &files, &nf, err)))
        return s;
    free_names(files, nf);
    if (nf > 0)
        return load_onnx_set(d, path, ".", err);
    int all = 1;
    for (size_t i = 0; i < d->n_in && all; i++) {
        char npy[600], pb[600];
        snprintf(npy, sizeof npy, "%s/%s.npy", path, d->in[i].name);
        snprintf(pb, sizeof pb, "%s/%s.pb", path, d->in[i].name);
        all = is_file(npy) || is_file(pb);
    }
    if (all)
        return load_sample_dir(d, path, ".", err);
    mb__image_list il;
    if ((s = mb__image_dir_list(path, &il, err)))
        return s;
    if (il.n) {
        s = load_images(d, path, &il, err);
        mb__image_list_free(&il);
        return s;
    }
    char names[400];
    return mb__fail(err, MB_EDATA,
                    "data directory %s holds no sample_*/ or "
                    "test_data_set_*/ directories, no input_*.pb or "
                    "<input>.npy files for the model's inputs (%s) and no "
                    "PNG or JPEG images; see docs/DATA.md",
                    path, input_names(d->in, d->n_in, names, sizeof names));
}

/* ---- checking and stacking ------------------------------------------- */

/* The 16- and 32-bit float types, which --data converts into each other
 * (float64 and integers must match exactly). */
static bool small_float(mb_dtype t)
{
    return t == MB_DTYPE_FLOAT32 || t == MB_DTYPE_FLOAT16 ||
           t == MB_DTYPE_BFLOAT16;
}

static float load_small(const void *data, mb_dtype t, size_t i)
{
    if (t == MB_DTYPE_FLOAT32)
        return ((const float *)data)[i];
    uint16_t h = ((const uint16_t *)data)[i];
    return t == MB_DTYPE_FLOAT16 ? mb_f16_to_f32(h) : mb_bf16_to_f32(h);
}

/* Converts piece p to dtype `to` (both small floats; round to nearest
 * even).  p->t is replaced. */
static mb_status convert_piece(piece *p, mb_dtype to, const char *input,
                               mb_err *err)
{
    mb_tensor c;
    mb_status s = mb_tensor_alloc(&c, to, p->t.rank, p->t.dims, p->t.name, err);
    if (s) {
        mb__fail_prefix(err, "input '%s': converting %s", input, p->origin);
        return s;
    }
    size_t n = mb_tensor_count(&p->t);
    for (size_t i = 0; i < n; i++) {
        float v = load_small(p->t.data, p->t.dtype, i);
        if (to == MB_DTYPE_FLOAT32)
            ((float *)c.data)[i] = v;
        else if (to == MB_DTYPE_FLOAT16)
            ((uint16_t *)c.data)[i] = mb_f32_to_f16(v);
        else
            ((uint16_t *)c.data)[i] = mb_f32_to_bf16(v);
    }
    mb_tensor_clear(&p->t);
    p->t = c;
    return MB_OK;
}

/* Splits every piece of `in` into samples, checks them against the model
 * and copies them into in->stack.  *count receives the sample count. */
/* Checks piece p against the model's sample shape (s_rank dims s_model;
 * s_rank -1: unknown) and the pieces before it (the first sets
 * in->s_rank and s_dims), converts it to the input's type and counts its
 * samples into *n.  MB_EDATA saying what does not fit. */
static mb_status check_piece(ds_input *in, piece *p, int s_rank,
                             const int64_t *s_model, int first, size_t *n,
                             mb_err *err)
{
    if (p->t.dtype != in->dtype &&
        !(small_float(p->t.dtype) && small_float(in->dtype)))
        return mismatch(in, p, err);
    /* unknown rank (a TorchScript or Python argument without --shape):
     * axis 0 of the file is the batch axis */
    int r = s_rank >= 0 ? s_rank : p->t.rank > 0 ? p->t.rank - 1 : 0;
    int stacked;
    if (p->t.rank == r)
        stacked = 0;
    else if (p->t.rank == r + 1 && r + 1 <= MB_MAX_RANK)
        stacked = 1;
    else
        return mismatch(in, p, err);
    const int64_t *sd = p->t.dims + stacked;
    for (int i = 0; s_model && i < r; i++)
        if (s_model[i] >= 0 && sd[i] != s_model[i])
            return mismatch(in, p, err);
    if (first) {
        in->s_rank = r;
        memcpy(in->s_dims, sd, (size_t)r * sizeof *sd);
    } else if (r != in->s_rank ||
               memcmp(in->s_dims, sd, (size_t)r * sizeof *sd) != 0) {
        char a[320], b[320];
        return mb__fail(err, MB_EDATA,
                        "input '%s': samples in %s have shape %s but "
                        "earlier ones have %s; samples of one input "
                        "must share a shape to be batched",
                        in->name, p->origin, mb_shape_str(sd, r, a, sizeof a),
                        mb_shape_str(in->s_dims, in->s_rank, b, sizeof b));
    }
    if (p->t.dtype != in->dtype) {
        in->converted_from = p->t.dtype;
        mb_status cs = convert_piece(p, in->dtype, in->name, err);
        if (cs)
            return cs;
    }
    *n = stacked ? (size_t)p->t.dims[0] : 1;
    if (*n == 0) {
        char a[320];
        return mb__fail(err, MB_EDATA,
                        "input '%s': %s holds no samples (shape %s)", in->name,
                        p->origin,
                        mb_shape_str(p->t.dims, p->t.rank, a, sizeof a));
    }
    return MB_OK;
}

/* The total samples stacked into in->stack (one file keeps its buffer);
 * the pieces are freed. */
static mb_status stack_pieces(ds_input *in, size_t total, mb_err *err)
{
    int64_t dims[MB_MAX_RANK + 1];
    dims[0] = (int64_t)total;
    memcpy(dims + 1, in->s_dims, (size_t)in->s_rank * sizeof *dims);
    if (in->s_rank + 1 > MB_MAX_RANK)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "input '%s': samples of rank %d cannot be stacked "
                        "(at most %d dimensions)",
                        in->name, in->s_rank, MB_MAX_RANK);
    if (in->n_pieces == 1) {
        /* one file: keep its buffer, only the shape and name change */
        mb_tensor *t = &in->pieces[0].t;
        char *name = mb__strdup(in->name);
        if (!name)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        free(t->name);
        t->name = name;
        t->rank = in->s_rank + 1;
        memcpy(t->dims, dims, (size_t)t->rank * sizeof *dims);
        in->stack = *t;
        memset(t, 0, sizeof *t);
    } else {
        mb_status s = mb_tensor_alloc(&in->stack, in->dtype, in->s_rank + 1,
                                      dims, in->name, err);
        if (s) {
            mb__fail_prefix(err, "input '%s'", in->name);
            return s;
        }
    }
    in->s_bytes = total ? in->stack.nbytes / total : 0;
    size_t off = 0;
    for (size_t k = 0; k < in->n_pieces; k++) {
        piece *p = &in->pieces[k];
        if (p->t.nbytes)
            memcpy((uint8_t *)in->stack.data + off, p->t.data, p->t.nbytes);
        off += p->t.nbytes;
        mb_tensor_clear(&p->t);
        free(p->origin);
        p->origin = NULL;
    }
    free(in->pieces);
    in->pieces = NULL;
    in->n_pieces = in->cap_pieces = 0;
    return MB_OK;
}

static mb_status finish_input(ds_input *in, size_t *count, mb_err *err)
{
    /* sample shape template from the model */
    int s_rank = -1; /* -1: taken from the first piece (unknown rank) */
    const int64_t *s_model = NULL;
    if (in->rank >= 0) {
        s_rank = in->batched ? in->rank - 1 : in->rank;
        s_model = in->batched ? in->dims + 1 : in->dims;
    }
    size_t total = 0;
    for (size_t k = 0; k < in->n_pieces; k++) {
        size_t n = 0;
        mb_status s =
            check_piece(in, &in->pieces[k], s_rank, s_model, k == 0, &n, err);
        if (s)
            return s;
        total += n;
    }
    mb_status s = stack_pieces(in, total, err);
    if (s)
        return s;
    *count = total;
    return MB_OK;
}

/* ---- the interface ---------------------------------------------------- */

void mb__dataset_free(mb__dataset *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_in; i++) {
        ds_input *in = &d->in[i];
        free(in->name);
        for (int k = 0; k < MB_MAX_RANK; k++)
            free(in->dim_names[k]);
        for (size_t k = 0; k < in->n_pieces; k++) {
            mb_tensor_clear(&in->pieces[k].t);
            free(in->pieces[k].origin);
        }
        free(in->pieces);
        mb_tensor_clear(&in->stack);
    }
    free(d->in);
    free(d);
}

static mb_status init_inputs(mb__dataset *d, const mb_io_desc *inputs, size_t n,
                             mb_err *err)
{
    d->in = mb__calloc(n, sizeof *d->in);
    if (!d->in)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    d->n_in = n;
    for (size_t i = 0; i < n; i++) {
        ds_input *in = &d->in[i];
        const mb_io_desc *m = &inputs[i];
        if (m->rank > MB_MAX_RANK)
            return mb__fail(err, MB_EUNSUPPORTED,
                            "input '%s' has rank %d (at most %d supported)",
                            m->name ? m->name : "", m->rank, MB_MAX_RANK);
        in->name = mb__strdup(m->name ? m->name : "");
        if (!in->name)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        in->dtype = m->dtype;
        in->rank = m->rank < 0 ? -1 : m->rank;
        for (int k = 0; k < in->rank; k++) {
            in->dims[k] = m->dims[k];
            if (m->dim_names[k] &&
                !(in->dim_names[k] = mb__strdup(m->dim_names[k])))
                return mb__fail(err, MB_ENOMEM, "out of memory");
        }
        in->batched = in->rank < 0 ||
                      (in->rank >= 1 && (in->dims[0] < 0 || in->dims[0] == 1));
        in->fixed_one = in->batched && in->dims[0] == 1;
    }
    return MB_OK;
}

/* The path for the description: its basename, or for a NAME=FILE list
 * each item with the file's basename ("x=x.npy,mask=m.npy"). */
static void describe_path(const char *path, char *buf, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 || !strchr(path, '=')) {
        snprintf(buf, len, "%s", mb__basename(path));
        return;
    }
    size_t off = 0;
    buf[0] = '\0';
    for (const char *p = path; *p && off < len;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        size_t nlen = eq ? (size_t)(eq - p) : 0;
        const char *file = eq ? eq + 1 : p, *base = file;
        for (const char *q = file; q < p + n; q++)
            if (*q == '/')
                base = q + 1;
        off += (size_t)snprintf(buf + off, len - off, "%s%.*s%s%.*s",
                                off ? "," : "", (int)nlen, p, eq ? "=" : "",
                                (int)(p + n - base), base);
        p += n + (comma ? 1 : 0);
    }
}

mb_status mb__dataset_load(const char *path, const mb_io_desc *inputs,
                           size_t n_inputs, const mb__tlimit *lim,
                           mb__dataset **out, mb_err *err)
{
    return mb__dataset_load_prep(path, inputs, n_inputs, lim, NULL, out, err);
}

mb_status mb__dataset_load_prep(const char *path, const mb_io_desc *inputs,
                                size_t n_inputs, const mb__tlimit *lim,
                                const mb__image_prep *prep, mb__dataset **out,
                                mb_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return mb__fail(err, MB_EINVAL, "--data needs a path");
    if (n_inputs == 0)
        return mb__fail(err, MB_EDATA,
                        "the model has no inputs, so --data %s cannot feed "
                        "it",
                        path);
    mb__dataset *d = mb__calloc(1, sizeof *d);
    if (!d)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    if (lim)
        d->lim = *lim;
    d->prep = prep;
    mb_status s = init_inputs(d, inputs, n_inputs, err);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (s) {
        /* fall through to cleanup */
    } else if (!exists && strchr(path, '=')) {
        s = load_list(d, path, err);
    } else if (!exists) {
        s = mb__fail(err, MB_EIO, "cannot open data path %s: %s", path,
                     strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        s = load_dir(d, path, err);
    } else {
        char magic[4] = {0};
        FILE *f = fopen(path, "rb");
        size_t r = f ? fread(magic, 1, 4, f) : 0;
        if (f)
            fclose(f);
        int zip = r == 4 && magic[0] == 'P' && magic[1] == 'K' &&
                  ((magic[2] == 3 && magic[3] == 4) ||
                   (magic[2] == 5 && magic[3] == 6));
        if (mb__image_name(path)) { /* one image, one sample */
            char *one = mb__strdup(path);
            mb__image_list il = {&one, NULL, 1, NULL, 0};
            s = one ? load_images(d, path, &il, err)
                    : mb__fail(err, MB_ENOMEM, "out of memory");
            free(one);
        } else if (zip || mb__ends_with(path, ".npz")) {
            s = load_npz(d, path, err);
        } else if (mb__ends_with(path, ".npy") || mb__ends_with(path, ".pb") ||
                   (r == 4 && memcmp(magic, "\x93NUM", 4) == 0)) {
            s = need_one_input(
                d, path, mb__ends_with(path, ".pb") ? "TensorProto" : "array",
                err);
            if (!s)
                s = add_file(&d->in[0], path, mb__basename(path), &d->lim, err);
        } else {
            s = mb__fail(err, MB_EINVAL,
                         "--data %s: unrecognised file (expected .npy, "
                         ".npz, .pb, a directory or NAME=FILE,...)",
                         path);
        }
    }
    for (size_t i = 0; !s && i < d->n_in; i++)
        if (d->in[i].n_pieces == 0) {
            char names[400];
            s = mb__fail(err, MB_EDATA,
                         "--data %s gives nothing for input '%s' (the "
                         "model's inputs are: %s)",
                         path, d->in[i].name,
                         input_names(d->in, d->n_in, names, sizeof names));
        }
    for (size_t i = 0; !s && i < d->n_in; i++) {
        size_t c = 0;
        s = finish_input(&d->in[i], &c, err);
        if (!s && i == 0)
            d->count = c;
        else if (!s && c != d->count)
            s = mb__fail(err, MB_EDATA,
                         "input '%s' has %zu samples but input '%s' has %zu; "
                         "every input needs the same number",
                         d->in[i].name, c, d->in[0].name, d->count);
    }
    if (s) {
        mb__dataset_free(d);
        return s;
    }
    char extra[sizeof d->desc], label[256];
    memcpy(extra, d->desc, sizeof extra);
    for (size_t i = 0; i < d->n_in; i++) {
        size_t off = strlen(extra);
        if (d->in[i].converted_from != MB_DTYPE_UNDEFINED && off < sizeof extra)
            snprintf(extra + off, sizeof extra - off,
                     " (input '%s': %s data converted to %s)", d->in[i].name,
                     mb_dtype_name(d->in[i].converted_from),
                     mb_dtype_name(d->in[i].dtype));
    }
    describe_path(path, label, sizeof label);
    snprintf(d->desc, sizeof d->desc, "%s: %zu sample%s%s", label, d->count,
             d->count == 1 ? "" : "s", extra);
    *out = d;
    return MB_OK;
}

size_t mb__dataset_count(const mb__dataset *d)
{
    return d ? d->count : 0;
}

size_t mb__dataset_inputs(const mb__dataset *d)
{
    return d ? d->n_in : 0;
}

const char *mb__dataset_describe(const mb__dataset *d)
{
    return d ? d->desc : "";
}

mb_status mb__dataset_batch(const mb__dataset *d, size_t first, int64_t batch,
                            mb_tensor *out, mb_err *err)
{
    for (size_t i = 0; i < d->n_in; i++)
        memset(&out[i], 0, sizeof out[i]);
    if (batch < 1)
        return mb__fail(err, MB_EINVAL, "batch size %" PRId64 " is not >= 1",
                        batch);
    for (size_t i = 0; i < d->n_in; i++) {
        const ds_input *in = &d->in[i];
        char shp[320];
        if (batch != 1 && (!in->batched || in->fixed_one)) {
            for (size_t k = 0; k < i; k++)
                mb_tensor_clear(&out[k]);
            return mb__fail(err, MB_EDATA,
                            "input '%s' has %s (shape %s), so it takes one "
                            "sample at a time; use --batch 1, not %" PRId64,
                            in->name,
                            in->fixed_one ? "a fixed batch size of 1"
                                          : "no batch dimension",
                            model_shape_str(in, shp, sizeof shp), batch);
        }
        int64_t dims[MB_MAX_RANK];
        int rank;
        if (in->batched) {
            dims[0] = batch;
            memcpy(dims + 1, in->s_dims, (size_t)in->s_rank * sizeof *dims);
            rank = in->s_rank + 1;
        } else {
            memcpy(dims, in->s_dims, (size_t)in->s_rank * sizeof *dims);
            rank = in->s_rank;
        }
        mb_status s =
            mb_tensor_alloc(&out[i], in->dtype, rank, dims, in->name, err);
        if (s) {
            for (size_t k = 0; k < i; k++)
                mb_tensor_clear(&out[k]);
            return s;
        }
        uint8_t *dst = out[i].data;
        const uint8_t *src = in->stack.data;
        for (int64_t j = 0; j < batch; j++) {
            size_t idx = (first + (size_t)j) % d->count;
            memcpy(dst + (size_t)j * in->s_bytes, src + idx * in->s_bytes,
                   in->s_bytes);
        }
    }
    return MB_OK;
}
