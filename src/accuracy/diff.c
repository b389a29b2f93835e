/* diff.c - the tensor-set diff engine (accuracy/diff.h). */
#include "accuracy/diff.h"

#include "accuracy/heatmap.h"
#include "accuracy/metrics_json.h"
#include "accuracy/outpair.h"
#include "core/parse.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "data/npy.h"
#include "data/npz.h"
#include "model/onnx.h"
#include "mbench.h"

#include <stdbool.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The mapping behind a tensor read in place. */
typedef struct tmap {
    void *p;
    size_t len;
} tmap;

/* A set of named tensors read from one path. */
typedef struct tset {
    mb_tensor *t;
    char **key; /* file stem or npz member name */
    char **alt; /* name stored inside a .pb, or NULL */
    tmap *map;  /* a .npy used in place (mb__npy_map), or {NULL, 0} */
    size_t n, cap;
    int single; /* one file holding one tensor */
} tset;

static void tset_free(tset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->map[i].p) {
            free(s->t[i].name);
            s->t[i].name = NULL;
            mb__npy_unmap(&s->t[i], s->map[i].p, s->map[i].len);
        }
        mb_tensor_clear(&s->t[i]);
        free(s->key[i]);
        free(s->alt[i]);
    }
    free(s->t);
    free(s->key);
    free(s->alt);
    free(s->map);
    memset(s, 0, sizeof *s);
}

static char *stem(const char *path)
{
    const char *b = mb__basename(path);
    const char *dot = strrchr(b, '.');
    return mb__strndup(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

/* Takes ownership of *t and of its mapping m (when m.p). */
static mb_status tset_add(tset *s, mb_tensor *t, tmap m, char *key, mb_err *err)
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
        tmap *nm = mb__realloc_array(s->map, c, sizeof *nm);
        if (nm)
            s->map = nm;
        if (!nt || !nk || !na || !nm)
            key = (free(key), NULL);
        else
            s->cap = c;
    }
    if (!key) {
        mb__npy_unmap(t, m.p, m.len);
        mb_tensor_clear(t);
        return mb__fail(err, MB_ENOMEM, "out of memory reading tensors");
    }
    s->t[s->n] = *t;
    s->key[s->n] = key;
    s->alt[s->n] = t->name && *t->name ? mb__strdup(t->name) : NULL;
    s->map[s->n] = m;
    s->n++;
    memset(t, 0, sizeof *t);
    return MB_OK;
}

static mb_status load_file(const char *path, const mb__tlimit *lim, tset *s,
                           mb_err *err)
{
    mb_tensor t;
    mb_status st;
    if (mb__ends_with(path, ".npz")) {
        mb_tensor *ts = NULL;
        size_t n = 0;
        st = mb__npz_read_lim(path, lim, &ts, &n, err);
        if (st)
            return st;
        for (size_t i = 0; i < n && st == MB_OK; i++) {
            char *k = mb__strdup(ts[i].name ? ts[i].name : "");
            free(ts[i].name);
            ts[i].name = NULL;
            st = tset_add(s, &ts[i], (tmap){NULL, 0}, k, err);
        }
        mb__npz_free(ts, n);
        return st;
    }
    /* a .npy is used in place where it can be (one pass over the page
     * cache, no copy: memory does not grow with the tensors) */
    tmap m = {NULL, 0};
    if (mb__ends_with(path, ".pb"))
        st = mb__onnx_tensor_read_file_lim(path, lim, &t, err);
    else
        st = mb__npy_map(path, &t, &m.p, &m.len, err);
    /* a .npy holds no more than its file (no decompression): the cap is
     * checked on what was mapped or read, and nothing else is allocated */
    if (!st && (st = mb__tlimit_check(lim, t.nbytes, path, err))) {
        if (m.p)
            mb__npy_unmap(&t, m.p, m.len);
        else
            mb_tensor_clear(&t);
    }
    if (st)
        return st;
    return tset_add(s, &t, m, stem(path), err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static mb_status load_path(const char *path, const mb__tlimit *lim, tset *s,
                           mb_err *err)
{
    struct stat sb;
    memset(s, 0, sizeof *s);
    if (stat(path, &sb) != 0)
        return mb__fail(err, MB_EIO, "%s: no such file or directory", path);
    if (!S_ISDIR(sb.st_mode)) {
        if (!mb__ends_with(path, ".npy") && !mb__ends_with(path, ".pb") &&
            !mb__ends_with(path, ".npz"))
            return mb__fail(err, MB_EINVAL,
                            "%s: unknown tensor file type; use .npy, .npz, "
                            ".pb or a directory of them",
                            path);
        mb_status st = load_file(path, lim, s, err);
        s->single = st == MB_OK && s->n == 1 && !mb__ends_with(path, ".npz");
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
        if (!mb__ends_with(e->d_name, ".npy") &&
            !mb__ends_with(e->d_name, ".pb"))
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
                       mb__ends_with(names[i], ".pb");
    if (onnx_layout) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (strncmp(names[i], "input_", 6) == 0 &&
                mb__ends_with(names[i], ".pb"))
                free(names[i]);
            else
                names[k++] = names[i];
        }
        n = k;
    }
    for (size_t i = 0; i < n; i++) {
        if (st == MB_OK) {
            mb__buf p = MB_BUF_INIT;
            mb__buf_printf(&p, "%s/%s", path, names[i]);
            if (p.oom)
                st = mb__fail(err, MB_ENOMEM, "out of memory");
            else
                st = load_file(p.data, lim, s, err);
            mb__buf_free(&p);
        }
        free(names[i]);
    }
    free(names);
    if (st)
        tset_free(s);
    return st;
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

/* The order in which s's tensors are offered for pairing: file-name
 * order, except that unnamed output_N take their places in N order (so
 * output_10 comes after output_9); ord has s->n entries. */
static void pair_order(const tset *s, size_t *ord)
{
    for (size_t i = 0; i < s->n; i++)
        ord[i] = i;
    for (size_t i = 0; i < s->n; i++) { /* selection over unnamed slots */
        if (unnamed_output_index(s, ord[i]) < 0)
            continue;
        size_t best = i;
        for (size_t j = i + 1; j < s->n; j++)
            if (unnamed_output_index(s, ord[j]) >= 0 &&
                unnamed_output_index(s, ord[j]) <
                    unnamed_output_index(s, ord[best]))
                best = j;
        size_t t = ord[i];
        ord[i] = ord[best];
        ord[best] = t;
    }
}

/* s's names in the order ord, as the pairing rule takes them. */
static void pair_names(const tset *s, const size_t *ord, mb__outname *o)
{
    for (size_t i = 0; i < s->n; i++)
        o[i] = (mb__outname){s->key[ord[i]], s->alt[ord[i]],
                             unnamed_output_index(s, ord[i]) >= 0};
}

/* Pairs every tensor of a with one of b: pair[i] = index in b, by the
 * one rule of validate, compare and diff (outpair.h); a pairing by
 * position is a note. */
static mb_status pair_sets(const tset *a, const tset *b, size_t *pair,
                           const mb__diff_req *rq, mb_err *err)
{
    if (a->single && b->single) {
        pair[0] = 0;
        return MB_OK;
    }
    size_t *ord = mb__calloc(a->n + b->n + 1, sizeof *ord);
    mb__outname *nms = mb__calloc(a->n + b->n + 1, sizeof *nms);
    mb_status st = MB_OK;
    if (!ord || !nms)
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!st) {
        pair_order(a, ord);
        pair_order(b, ord + a->n);
        pair_names(a, ord, nms);
        pair_names(b, ord + a->n, nms + a->n);
        mb__pair_req pr = {nms,          nms + a->n,    a->n,
                           b->n,         rq->maps,      rq->n_maps,
                           rq->baseline, rq->candidate, 0};
        mb__outpairs p;
        st = mb__outputs_pair(&pr, &p, err);
        for (size_t i = 0; !st && i < a->n; i++)
            pair[ord[i]] = ord[a->n + p.cand[i]];
        if (!st && p.note[0] && rq->note)
            rq->note(rq->user, p.note);
        if (!st)
            mb__outpairs_free(&p);
    }
    free(ord);
    free(nms);
    return st;
}

/* The document of a finished diff. */
static json_t *diff_doc(const mb__diff_req *rq, json_t *outs, json_t *gv,
                        int passed)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("mbench.diff/1"));
    json_object_set_new(doc, "kind", json_string("diff"));
    if (rq->command_line)
        json_object_set_new(doc, "command_line", json_string(rq->command_line));
    json_object_set_new(doc, "mbench",
                        json_pack("{s:s, s:s}", "version", mb_version(),
                                  "commit", mb_build_commit()));
    json_object_set_new(doc, "baseline", json_string(rq->baseline));
    json_object_set_new(doc, "candidate", json_string(rq->candidate));
    json_object_set_new(doc, "outputs", json_incref(outs));
    json_object_set_new(doc, "gates", gv ? json_incref(gv) : json_array());
    json_object_set_new(doc, "passed", json_boolean(passed));
    return doc;
}

/* The heat maps: rq->heatmap (when asked) of the pair rq->heat_output
 * names, else of the pair of rank >= 2 that differs most, at
 * rq->heat_sample, else that pair's worst sample (accuracy/heatmap.h);
 * and the small one the document embeds (*embed, NULL when it cannot be
 * drawn).  A failure is in res->heat_status (MB_EINVAL: a name no pair
 * has or a sample outside the tensor). */
static void heatmaps(const mb__diff_req *rq, const tset *A, const tset *B,
                     const size_t *pair, const json_t *outs,
                     mb__diff_result *res, json_t **embed)
{
    *embed = NULL;
    mb_tensor *bt = mb__calloc(A->n ? A->n : 1, sizeof *bt);
    if (!bt) {
        res->heat_status = mb__fail(&res->heat_err, MB_ENOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < A->n; i++)
        bt[i] = B->t[pair[i]];
    size_t k = mb__heatmap_pick(A->t, bt, A->n, outs, rq->heat_output);
    if (k == A->n && !rq->heat_output) { /* nothing to draw (scalars) */
        res->heat_status = mb__fail(&res->heat_err, MB_EDATA,
                                    "no tensor of rank >= 1 to draw");
        free(bt);
        return;
    }
    if (k == A->n) {
        res->heat_status = mb__fail(
            &res->heat_err, MB_EINVAL,
            "--output %s: no tensor of that name to draw; the tensors are "
            "%s%s",
            rq->heat_output ? rq->heat_output : "", A->n ? A->key[0] : "",
            A->n > 1 ? ", ..." : "");
        free(bt);
        return;
    }
    const json_t *m = json_array_get(outs, k);
    res->heat_worst = rq->heat_sample < 0;
    mb__heat_opts o = {res->heat_worst ? mb__heatmap_worst(m) : rq->heat_sample,
                       0, 1};
    mb__heat_info info = {0};
    snprintf(res->heat_name, sizeof res->heat_name, "%s", A->key[k]);
    if (rq->heatmap)
        res->heat_status = mb__heatmap_draw(&A->t[k], &bt[k], &o, rq->heatmap,
                                            &info, &res->heat_err);
    if (!res->heat_status)
        res->heat_status = mb__heatmap_embed(&A->t[k], &bt[k], 1, NULL, NULL,
                                             o.sample, embed, &res->heat_err);
    if (*embed && res->heat_worst)
        json_object_set_new(
            *embed, "chosen",
            json_string(json_is_null(json_object_get(*embed, "sample"))
                            ? "whole tensor"
                            : "worst sample"));
    if (*embed)
        json_object_set_new(*embed, "output", json_string(A->key[k]));
    res->heat_sample = A->t[k].rank >= 3 ? o.sample : -1;
    res->heat_samples = A->t[k].rank >= 1 ? (size_t)A->t[k].dims[0] : 1;
    res->heat_max = info.max_abs;
    free(bt);
}

mb_status mb__diff_run(const mb__diff_req *rq, mb__diff_result *res,
                       mb_err *err)
{
    memset(res, 0, sizeof *res);
    tset A, B;
    mb_status st = load_path(rq->baseline, &rq->tlimit, &A, err);
    if (st)
        return st;
    if ((st = load_path(rq->candidate, &rq->tlimit, &B, err))) {
        tset_free(&A);
        return st;
    }
    size_t *pair = mb__calloc(A.n ? A.n : 1, sizeof *pair);
    json_t *outs = json_array(), *gv = NULL;
    if (!pair || !outs)
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!st)
        st = pair_sets(&A, &B, pair, rq, err);
    for (size_t i = 0; !st && i < A.n; i++) {
        mb_tensor *ta = &A.t[i], *tb = &B.t[pair[i]];
        free(ta->name);
        ta->name = mb__strdup(A.key[i]);
        json_t *m = NULL;
        if (!(st = mb__metrics_compute(ta, tb, &rq->metrics, &m, err)))
            json_array_append_new(outs, m);
    }
    if (!st) {
        res->passed = 1;
        if (rq->n_gates > 0)
            gv = mb__gates_eval_outputs(rq->gates, rq->n_gates, outs,
                                        &res->passed);
        res->n_tensors = A.n;
        json_t *embed = NULL;
        heatmaps(rq, &A, &B, pair, outs, res, &embed);
        res->doc = diff_doc(rq, outs, gv, res->passed);
        if (res->doc && embed)
            json_object_set(res->doc, "heatmap", embed);
        json_decref(embed);
        if (!res->doc)
            st = mb__fail(err, MB_ENOMEM, "out of memory");
    }
    json_decref(gv);
    json_decref(outs);
    free(pair);
    tset_free(&A);
    tset_free(&B);
    return st;
}
