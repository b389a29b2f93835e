/* siterun.c - the request of `mbench site` (siterun.h). */
#include "report/siterun.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "regress/site.h"
#include "report/sitewr.h"
#include "store/siteq.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST ".mbench-site.json"
#define MANIFEST_MAX (64u << 20)

mb_status mb__site_check(const mb__site_req *rq, mb_err *err)
{
    if (!rq->db || !*rq->db)
        return mb__fail(err, MB_EINVAL,
                        "site needs --db FILE or --db URL (the results store)");
    if (!rq->out_dir || !*rq->out_dir)
        return mb__fail(
            err, MB_EINVAL,
            "site needs --out DIR (the directory the site is written to)");
    const char *u = rq->commit_url;
    if (!u)
        return MB_OK;
    const char *colon = strchr(u, ':'), *slash = strchr(u, '/');
    int scheme_ok = !colon || (slash && slash < colon) ||
                    strncmp(u, "https://", 8) == 0 ||
                    strncmp(u, "http://", 7) == 0;
    if (!strstr(u, "{sha}") || !scheme_ok)
        return mb__fail(
            err, MB_EINVAL,
            "--commit-url '%s' must be an http(s) or relative URL "
            "holding {sha}, e.g. https://github.com/ORG/REPO/commit/{sha}",
            u);
    return MB_OK;
}

/* ---- reading ---------------------------------------------------------------
 */

static mb_status read_store(const char *db, json_t **rows, json_t **docs,
                            mb_err *err)
{
    mb__store *s = NULL;
    mb_status st = mb__store_open_ro(db, &s, err);
    if (!st)
        st = mb__store_site_runs(s, rows, err);
    if (!st)
        st = mb__store_site_docs(s, docs, err);
    mb__store_close(s);
    return st;
}

/* {commit: depth} over the first-parent histories of every branch tip
 * (the smallest depth when two disagree); NULL when none is known. */
static json_t *commit_order(const json_t *rows, const char *git_dir)
{
    if (!git_dir)
        return NULL;
    json_t *tips = mb__site_branch_tips(rows), *order = json_object();
    const char *br;
    json_t *tip;
    json_object_foreach(tips, br, tip)
    {
        json_t *fp = mb__git_first_parent(git_dir, json_string_value(tip));
        const char *c;
        json_t *d;
        json_object_foreach(fp, c, d)
        {
            const json_t *old = json_object_get(order, c);
            if (!old || json_integer_value(old) > json_integer_value(d))
                json_object_set(order, c, d);
        }
        json_decref(fp);
    }
    json_decref(tips);
    if (order && !json_object_size(order)) {
        json_decref(order);
        order = NULL;
    }
    return order;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct site_out {
    const char *dir;
    json_t *old, *now; /* manifests: {file: input sha256} */
    mb__site_result *res;
} site_out;

static char *path_of(const char *dir, const char *rel)
{
    mb__buf p = MB_BUF_INIT;
    mb__buf_printf(&p, "%s/%s", dir, rel);
    return mb__buf_take(&p, NULL);
}

/* Replaces path with data through a temporary file and rename (the site
 * is regenerated output: no fsync). */
static mb_status write_page(const char *path, const char *data, size_t len,
                            mb_err *err)
{
    char *tmp = NULL;
    mb__buf t = MB_BUF_INIT;
    mb__buf_printf(&t, "%s.tmp%ld", path, (long)getpid());
    tmp = mb__buf_take(&t, NULL);
    int fd =
        tmp ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int e = errno;
    mb_status st = MB_OK;
    if (fd < 0 || done < len || close(fd) != 0 || rename(tmp, path) != 0) {
        st = mb__fail(err, MB_EIO,
                      "cannot write %s: %s; check the directory's "
                      "permissions and free space",
                      path, strerror(e ? e : errno));
        if (tmp)
            unlink(tmp);
    }
    free(tmp);
    return st;
}

/* True when the file the manifest knows is there with the same input. */
static int unchanged(const site_out *o, const char *rel, const char *sha)
{
    const char *old = json_string_value(json_object_get(o->old, rel));
    if (!old || strcmp(old, sha) != 0)
        return 0;
    char *p = path_of(o->dir, rel);
    int there = p && access(p, F_OK) == 0;
    free(p);
    return there;
}

/* Records rel with the input sha and writes content unless unchanged. */
static mb_status emit(site_out *o, const char *rel, const char *sha,
                      const mb__buf *content, mb_err *err)
{
    json_object_set_new(o->now, rel, json_string(sha));
    if (unchanged(o, rel, sha)) {
        o->res->unchanged++;
        return MB_OK;
    }
    if (content->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    char *p = path_of(o->dir, rel);
    mb_status st =
        p ? write_page(p, content->data ? content->data : "", content->len, err)
          : mb__fail(err, MB_ENOMEM, "out of memory");
    free(p);
    if (!st)
        o->res->written++;
    return st;
}

static void sha_of(const mb__buf *b, char hex[65])
{
    mb__sha256_hex(b->data ? b->data : "", b->len, hex);
}

/* A page rendered in full every time (a summary of every series): written
 * only when its bytes changed. */
static mb_status emit_whole(site_out *o, const char *rel,
                            const mb__buf *content, mb_err *err)
{
    char sha[65];
    sha_of(content, sha);
    return emit(o, rel, sha, content, err);
}

static const json_t *machine_of(const json_t *site, const char *id)
{
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(site, "machines"), i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "id")), id) == 0)
            return m;
    }
    return NULL;
}

/* Appends a binary form of v to b: a type tag, then the value (strings
 * and keys with their length, numbers as their bytes), objects in their
 * (deterministic) insertion order.  What a page's input hash is taken
 * over: cheaper than printing the JSON, and as exact. */
static void feed(mb__buf *b, const json_t *v)
{
    char tag = (char)('0' + json_typeof(v));
    mb__buf_putc(b, tag);
    if (json_is_string(v)) {
        size_t n = json_string_length(v);
        mb__buf_append(b, &n, sizeof n);
        mb__buf_append(b, json_string_value(v), n);
    } else if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        mb__buf_append(b, &i, sizeof i);
    } else if (json_is_real(v)) {
        double x = json_real_value(v);
        mb__buf_append(b, &x, sizeof x);
    } else if (json_is_array(v)) {
        size_t i, n = json_array_size(v);
        const json_t *e;
        mb__buf_append(b, &n, sizeof n);
        json_array_foreach(v, i, e)
        {
            feed(b, e);
        }
    } else if (json_is_object(v)) {
        const char *k;
        const json_t *e;
        size_t n = json_object_size(v);
        mb__buf_append(b, &n, sizeof n);
        json_object_foreach((json_t *)v, k, e)
        {
            size_t kn = strlen(k);
            mb__buf_append(b, &kn, sizeof kn);
            mb__buf_append(b, k, kn);
            feed(b, e);
        }
    }
}

/* The input hash of a series page: the series, its machine, the commit
 * link template and the mbench build. */
static int series_input(const mb__site_ctx *c, const json_t *s, char sha[65])
{
    json_t *in = json_pack(
        "{s:O?,s:s?,s:s,s:s}", "machine",
        machine_of(c->site, json_string_value(json_object_get(s, "machine"))),
        "commit_url", c->commit_url, "version", mb_version(), "build",
        mb_build_commit());
    mb__buf b = MB_BUF_INIT;
    feed(&b, in);
    feed(&b, s);
    json_decref(in);
    int ok = in && !b.oom;
    if (ok)
        sha_of(&b, sha);
    mb__buf_free(&b);
    return ok;
}

/* Series pages: rendered only when their input changed. */
static mb_status emit_series(site_out *o, const mb__site_ctx *c, mb_err *err)
{
    size_t i;
    const json_t *s;
    mb_status st = MB_OK;
    json_array_foreach(json_object_get(c->site, "series"), i, s)
    {
        char sha[65], rel[64];
        if (!series_input(c, s, sha))
            return mb__fail(err, MB_ENOMEM, "out of memory");
        snprintf(rel, sizeof rel, "s/%s.html",
                 json_string_value(json_object_get(s, "id")));
        mb__buf b = MB_BUF_INIT;
        if (!unchanged(o, rel, sha))
            mb__site_series_html(c, s, &b);
        st = emit(o, rel, sha, &b, err);
        mb__buf_free(&b);
        if (st)
            break;
    }
    return st;
}

static mb_status emit_summaries(site_out *o, const mb__site_ctx *c, mb_err *err)
{
    mb__buf b = MB_BUF_INIT;
    mb__site_index_html(c, &b);
    mb_status st = emit_whole(o, "index.html", &b, err);
    mb__buf_free(&b);
    if (!st) {
        mb__site_regressions_html(c, &b);
        st = emit_whole(o, "regressions.html", &b, err);
        mb__buf_free(&b);
    }
    if (!st) {
        mb__site_branches_html(c, &b);
        st = emit_whole(o, "branches.html", &b, err);
        mb__buf_free(&b);
    }
    json_t *reg = st ? NULL : mb__site_regressions_json(c->site);
    char *text = reg ? json_dumps(reg, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
    json_decref(reg);
    if (!st && !text)
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!st) {
        mb__buf_puts(&b, text);
        mb__buf_putc(&b, '\n');
        st = emit_whole(o, "regressions.json", &b, err);
        mb__buf_free(&b);
    }
    free(text);
    return st;
}

/* A page name the manifest may list: s/<12 hex>.html or a summary page. */
static int managed_name(const char *rel)
{
    static const char *const fixed[] = {"index.html", "regressions.html",
                                        "branches.html", "regressions.json"};
    for (size_t i = 0; i < 4; i++)
        if (strcmp(rel, fixed[i]) == 0)
            return 1;
    if (strlen(rel) != 19 || strncmp(rel, "s/", 2) != 0 ||
        strcmp(rel + 14, ".html") != 0)
        return 0;
    for (size_t i = 2; i < 14; i++)
        if (!strchr("0123456789abcdef", rel[i]))
            return 0;
    return 1;
}

/* Removes the pages of the old manifest that the new one lacks. */
static void remove_stale(site_out *o)
{
    const char *rel;
    json_t *v;
    json_object_foreach(o->old, rel, v)
    {
        if (json_object_get(o->now, rel) || !managed_name(rel))
            continue;
        char *p = path_of(o->dir, rel);
        if (p && unlink(p) == 0)
            o->res->removed++;
        free(p);
    }
}

static json_t *read_manifest(const char *dir)
{
    char *p = path_of(dir, MANIFEST);
    struct stat sb;
    json_t *m = NULL, *files = NULL;
    if (p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (size_t)sb.st_size < MANIFEST_MAX) {
        json_error_t je;
        m = json_load_file(p, 0, &je);
    }
    free(p);
    files = json_object_get(m, "files");
    files = json_is_object(files) ? json_incref(files) : json_object();
    json_decref(m);
    return files;
}

static mb_status write_site(const mb__site_req *rq, const json_t *site,
                            mb__site_result *res, mb_err *err)
{
    site_out o = {rq->out_dir, NULL, json_object(), res};
    mb__site_ctx c = {site, rq->commit_url};
    char *sdir = path_of(rq->out_dir, "s");
    mb_status st = mb__output_dir_check(rq->out_dir, err);
    if (!st)
        st = sdir ? mb__mkdirs(sdir, err)
                  : mb__fail(err, MB_ENOMEM, "out of memory");
    free(sdir);
    if (!st) {
        o.old = read_manifest(rq->out_dir);
        st = emit_series(&o, &c, err);
    }
    if (!st)
        st = emit_summaries(&o, &c, err);
    if (!st) {
        remove_stale(&o);
        json_t *m = json_pack("{s:s,s:O}", "schema", "mbench.site-manifest/1",
                              "files", o.now);
        char *text = m ? json_dumps(m, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
        char *p = path_of(rq->out_dir, MANIFEST);
        st = text && p ? write_page(p, text, strlen(text), err)
                       : mb__fail(err, MB_ENOMEM, "out of memory");
        free(text);
        free(p);
        json_decref(m);
    }
    json_decref(o.old);
    json_decref(o.now);
    return st;
}

mb_status mb__site_request(const mb__site_req *rq, mb__site_result *res,
                           mb_err *err)
{
    mb__site_result local = {0};
    res = res ? res : &local;
    memset(res, 0, sizeof *res);
    json_t *rows = NULL, *docs = NULL, *order = NULL, *site = NULL;
    mb_status st = mb__site_check(rq, err);
    if (!st)
        st = read_store(rq->db, &rows, &docs, err);
    if (!st) {
        order = commit_order(rows, rq->git_dir);
        mb__site_opts o = {rq->branch, rq->compare, rq->baseline, order};
        st = mb__site_build(rows, docs, &o, &site, err);
    }
    if (!st)
        st = write_site(rq, site, res, err);
    if (!st) {
        const json_t *n = json_object_get(site, "counts");
        res->runs = (size_t)json_integer_value(json_object_get(n, "runs"));
        res->series = (size_t)json_integer_value(json_object_get(n, "series"));
        res->regressions =
            (size_t)json_integer_value(json_object_get(n, "regressions"));
        res->machines = json_array_size(json_object_get(site, "machines"));
        res->first_parent = order != NULL;
    }
    json_decref(rows);
    json_decref(docs);
    json_decref(order);
    json_decref(site);
    return st;
}
