/* merge.c - merging result files (merge.h). */
#include "exec/merge.h"

#include "core/alloc.h"
#include "core/err.h"
#include "exec/slurm.h"
#include "exec/suite.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

mb_status mb__merge_docs(json_t *const *docs, const char *const *names,
                         size_t n, json_t **out, mb_err *err)
{
    *out = NULL;
    for (size_t i = 0; i < n; i++)
        if (!json_is_object(docs[i]) ||
            !json_is_array(json_object_get(docs[i], "runs")))
            return mb__fail(err, MB_EINVAL,
                            "%s: not a result document (no \"runs\" array)",
                            names[i]);
    return mb__suite_merge(docs, names, n, out, err);
}

mb_status mb__merge_files(const char *const *paths, size_t n, json_t **out,
                          mb_err *err)
{
    json_t **docs = mb__calloc(n ? n : 1, sizeof *docs);
    mb_status st = docs ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
    *out = NULL;
    for (size_t i = 0; !st && i < n; i++) {
        json_error_t je;
        docs[i] = json_load_file(paths[i], 0, &je);
        if (!docs[i])
            st = mb__fail(err, MB_EIO, "%s: %s", paths[i], je.text);
    }
    if (!st)
        st = mb__merge_docs(docs, paths, n, out, err);
    for (size_t i = 0; docs && i < n; i++)
        json_decref(docs[i]);
    free(docs);
    return st;
}

/* ---- a Slurm job's documents ---- */

/* Task k's document, or NULL when it wrote none. */
static json_t *task_doc(const mb__slurm_job *j, size_t k)
{
    mb_err e = {0};
    char *p = mb__slurm_doc_path(j, k);
    json_t *d = p && access(p, F_OK) == 0 ? mb__slurm_task_doc(j, k, &e) : NULL;
    free(p);
    return d;
}

static json_t *slurm_of(const mb__slurm_job *j)
{
    return json_pack("{s:s, s:O}", "dir", j->dir, "jobs",
                     json_object_get(j->manifest, "jobs"));
}

mb_status mb__slurm_merge_suite(const mb__slurm_job *j, json_t **out,
                                size_t *ran, mb_err *err)
{
    json_t **docs = mb__calloc(j->n, sizeof *docs);
    char **names = mb__calloc(j->n, sizeof *names);
    size_t m = 0;
    mb_status st =
        docs && names ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
    *out = NULL;
    for (size_t k = 0; !st && k < j->n; k++)
        if ((docs[m] = task_doc(j, k)))
            names[m++] = mb__slurm_doc_path(j, k);
    *ran = m;
    if (!st && !m)
        st = mb__fail(err, MB_EIO, "%s: no task wrote a result document",
                      j->dir);
    if (!st)
        st = mb__suite_merge(docs, (const char *const *)names, m, out, err);
    for (size_t i = 0; i < m; i++) {
        json_decref(docs[i]);
        free(names[i]);
    }
    free(docs);
    free(names);
    if (*out)
        json_object_set_new(*out, "slurm", slurm_of(j));
    return st;
}

/* Whether the string w is in the array a. */
static int has_string(const json_t *a, const char *w)
{
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) if (!strcmp(json_string_value(v), w)) return 1;
    return 0;
}

/* Task k's warnings into merged's, once each; with several tasks a
 * warning of some batch sizes only says which. */
static void merge_warnings(const mb__slurm_job *j, size_t k, json_t *merged,
                           const json_t *d, const json_t *all_docs)
{
    json_t *to = json_object_get(merged, "warnings");
    const json_t *ta =
        json_array_get(json_object_get(j->manifest, "task_args"), k);
    const char *b = json_string_value(json_array_get(ta, 1));
    size_t i, m;
    const json_t *w, *o;
    json_array_foreach(json_object_get(d, "warnings"), i, w)
    {
        const char *s = json_string_value(w);
        int everywhere = 1;
        json_array_foreach(all_docs, m, o) everywhere &=
            has_string(json_object_get(o, "warnings"), s ? s : "");
        if (!s || !json_is_array(to))
            continue;
        if (b && !everywhere) {
            json_t *t = json_sprintf("%s (batch %s)", s, b);
            if (t && !has_string(to, json_string_value(t)))
                json_array_append(to, t);
            json_decref(t);
        } else if (!has_string(to, s))
            json_array_append_new(to, json_string(s));
    }
}

/* d's runs and comparisons after merged's. */
static void append_lists(json_t *merged, const json_t *d)
{
    static const char *const lists[] = {"runs", "comparisons", NULL};
    for (int l = 0; lists[l]; l++) {
        json_t *to = json_object_get(merged, lists[l]);
        json_t *from = json_object_get(d, lists[l]);
        if (json_is_array(to) && json_is_array(from))
            json_array_extend(to, from);
    }
    if (json_is_true(json_object_get(d, "interrupted")))
        json_object_set_new(merged, "interrupted", json_true());
}

mb_status mb__slurm_merge_batches(const mb__slurm_job *j, json_t **out,
                                  mb_err *err)
{
    json_t *docs = json_array(), *merged = NULL, *d;
    size_t *of = mb__calloc(j->n, sizeof *of), i;
    for (size_t k = 0; of && k < j->n; k++)
        if ((d = task_doc(j, k))) {
            of[json_array_size(docs)] = k;
            json_array_append_new(docs, d);
        }
    json_array_foreach(docs, i, d)
    {
        if (!merged) {
            merged = json_deep_copy(d);
            json_object_set_new(merged, "warnings", json_array());
        } else
            append_lists(merged, d);
        merge_warnings(j, of[i], merged, d, docs);
    }
    json_decref(docs);
    free(of);
    *out = merged;
    if (!merged)
        return mb__fail(err, MB_EIO, "%s: no task wrote a result document",
                        j->dir);
    json_object_set_new(merged, "slurm", slurm_of(j));
    return MB_OK;
}
