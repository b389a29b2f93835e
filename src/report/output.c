/* output.c - rendering a document in every format asked for, writing
 * each atomically, the --outdir set and the store (report/output.h). */
#include "report/output.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/writers.h"
#include "store/addr.h"
#include "store/store.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

mb_status mb__output_buf(const char *path, mb__buf *b, mb_err *err)
{
    mb_status st;
    if (b->oom)
        st = mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    else
        st = mb__write_file_atomic(path, b->data ? b->data : "", b->len, err);
    mb__buf_free(b);
    return st;
}

mb_status mb__output_json_as(const char *path, const json_t *doc, size_t flags,
                             mb_err *err)
{
    return mb__write_json_atomic(path, doc, flags, err);
}

mb_status mb__output_json(const char *path, const json_t *doc, mb_err *err)
{
    /* a gate verdict's figures are summaries: 10 digits are plenty */
    int digits = mb__writers_for(&doc, 1, 0)->json_digits;
    return mb__output_json_as(
        path, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(digits), err);
}

mb_status mb__output_store_check(const char *url, mb_err *err)
{
    mb__store *st = NULL;
    mb__store_addr a;
    mb_status s = mb__store_addr_parse(url, &a, err);
    if (!s && a.engine == MB__STORE_SQLITE)
        s = mb__output_check(a.target, err);
    if (!s)
        s = mb__store_open(url, &st, err);
    mb__store_close(st);
    return s;
}

static mb_status store_put(const char *url, const char *git_dir,
                           const json_t *doc, mb_err *err)
{
    mb__store *st = NULL;
    json_t *git = mb__git_info(git_dir ? git_dir : ".");
    mb_status s = mb__store_open(url, &st, err);
    if (!s)
        s = mb__store_put(st, doc, git, err);
    mb__store_close(st);
    json_decref(git);
    return s;
}

static const char *const set_ext[4] = {"json", "csv", "md", "html"};

/* Creates (empty, exclusively) DIR/BASE.EXT for the four extensions into
 * paths[]; when one existed, those made are removed and paths[] are NULL
 * (MB_OK: try another BASE).  MB_EIO when a file cannot be made. */
static mb_status reserve_set(const char *dir, const char *base, char *paths[4],
                             mb_err *err)
{
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(dir) + strlen(base) + 8;
        paths[i] = malloc(n);
        if (paths[i])
            snprintf(paths[i], n, "%s/%s.%s", dir, base, set_ext[i]);
        int fd = paths[i] ? open(paths[i],
                                 O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)
                          : -1;
        if (fd >= 0) {
            close(fd);
            continue;
        }
        int e = paths[i] ? errno : ENOMEM;
        for (int j = 0; j <= i; j++) {
            if (j < i)
                unlink(paths[j]);
            free(paths[j]);
            paths[j] = NULL;
        }
        if (e != EEXIST)
            return mb__fail(err, MB_EIO,
                            "cannot create %s/%s.*: %s (check that the "
                            "directory is still there and writable)",
                            dir, base, strerror(e));
        break;
    }
    return MB_OK;
}

mb_status mb__output_reserve(const char *dir, const char *cmd, char *paths[4],
                             mb_err *err)
{
    char kind[32] = "result", stamp[32], base[96];
    size_t k = 0;
    for (const char *c = cmd ? cmd : ""; *c && k < sizeof kind - 1; c++)
        if (strchr("abcdefghijklmnopqrstuvwxyz0123456789-_", *c))
            kind[k++] = *c;
    if (k)
        kind[k] = '\0';
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) ||
        !strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm))
        snprintf(stamp, sizeof stamp, "%lld", (long long)now);
    for (int n = 1; n < 10000; n++) {
        int at = snprintf(base, sizeof base, "mbench-%s-%s", kind, stamp);
        if (n > 1)
            snprintf(base + at, sizeof base - (size_t)at, "-%d", n);
        mb_status st = reserve_set(dir, base, paths, err);
        if (st || paths[0])
            return st;
    }
    return mb__fail(err, MB_EIO,
                    "%s already holds 9999 result sets for this second; "
                    "choose another directory",
                    dir);
}

/* Checks that the CSV file at path starts with the header line that b
 * starts with, then drops that line from b (the rows are appended under
 * the file's header).  MB_EINVAL, naming the file, when the columns
 * differ (a CSV of an older mbench, or of another kind of document). */
static mb_status same_header(const char *path, mb__buf *b, mb_err *err)
{
    const char *nl = b->data ? memchr(b->data, '\n', b->len) : NULL;
    size_t hl = nl ? (size_t)(nl - b->data) + 1 : b->len;
    char *have = mb__malloc(hl + 1);
    FILE *f = have ? fopen(path, "rb") : NULL;
    size_t got = f ? fread(have, 1, hl, f) : 0;
    if (f)
        fclose(f);
    int same = have && got == hl && !memcmp(have, b->data, hl);
    free(have);
    if (!same)
        return mb__fail(err, MB_EINVAL,
                        "%s holds CSV with other columns (an older mbench's, "
                        "or another kind of result): rows would not line up; "
                        "write --csv to a new file",
                        path);
    memmove(b->data, b->data + hl, b->len - hl + 1);
    b->len -= hl;
    return MB_OK;
}

static mb_status write_csv(const char *path, const json_t *doc, mb_err *err)
{
    const mb__writers *w = mb__writers_for(&doc, 1, 0);
    mb__buf b = MB_BUF_INIT;
    if (!w->csv_appends) { /* a verdict or a diff is written whole */
        mb_status ws = w->csv(doc, 1, &b, err);
        if (ws) {
            mb__buf_free(&b);
            return ws;
        }
        return mb__output_buf(path, &b, err);
    }
    int fresh = access(path, F_OK) != 0 || mb__file_size(path) == 0;
    mb_status st = w->csv(doc, 1, &b, err);
    if (!st && !fresh) /* rows go under the file's header: it must be ours */
        st = same_header(path, &b, err);
    if (st) {
        mb__buf_free(&b);
        return st;
    }
    if (b.oom)
        st = mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    else
        st = mb__append_file_atomic(path, b.data ? b.data : "", b.len, err);
    mb__buf_free(&b);
    return st;
}

static mb_status write_report(const char *path, const json_t *doc, int html,
                              mb_err *err)
{
    mb__buf b = MB_BUF_INIT;
    const json_t *docs[1] = {doc};
    mb_status st = html ? mb__report_html(docs, 1, &b, err)
                        : mb__report_md(docs, 1, &b, err);
    if (st) {
        mb__buf_free(&b);
        return st;
    }
    return mb__output_buf(path, &b, err);
}

/* Records the first failure and tells the caller of each. */
static void failed(mb_status st, mb_status *first, const mb_err *e,
                   mb__out_fail_fn fail, void *user)
{
    if (!st)
        return;
    if (!*first)
        *first = st;
    if (fail)
        fail(user, e);
}

/* The four files of o (json, csv, md, html). */
static mb_status write_files(const char *const f[4], const json_t *doc,
                             mb_status *first, mb__out_fail_fn fail, void *user)
{
    mb_err e = {0};
    if (f[0])
        failed(mb__output_json(f[0], doc, &e), first, &e, fail, user);
    if (f[1])
        failed(write_csv(f[1], doc, &e), first, &e, fail, user);
    if (f[2])
        failed(write_report(f[2], doc, 0, &e), first, &e, fail, user);
    if (f[3])
        failed(write_report(f[3], doc, 1, &e), first, &e, fail, user);
    return *first;
}

mb_status mb__output_all(const mb__outset *o, const json_t *doc,
                         mb__out_fail_fn fail, void *user)
{
    mb_status first = MB_OK;
    mb_err e = {0};
    const char *files[4] = {o->json, o->csv, o->md, o->html};
    write_files(files, doc, &first, fail, user);
    if (o->outdir) {
        char *p[4] = {0};
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        failed(mb__output_reserve(o->outdir, kind, p, &e), &first, &e, fail,
               user);
        if (p[0])
            write_files((const char *const *)p, doc, &first, fail, user);
        for (int i = 0; i < 4; i++)
            free(p[i]);
    }
    if (o->db)
        failed(store_put(o->db, o->git_dir, doc, &e), &first, &e, fail, user);
    return first;
}
