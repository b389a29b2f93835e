/* store.c - the engine-independent part of the results store: the schema
 * and its migrations, storing a document, and reading history and
 * baselines back (docs/STORE.md). */
#include "store/store.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/redact.h"
#include "doc/fields.h"
#include "store/addr.h"
#include "store/db.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mb__store {
    const mb__db_ops *ops;
    void *h;
    char *where;   /* path or redacted URL, for messages */
    int read_only; /* opened by mb__store_open_ro: never written */
};

/* ---- schema ----------------------------------------------------------- */

/* Version 1: the first layout.  %s is the engine's auto-increment key. */
/* dst = src (at most 64 bytes of it) as a LIKE prefix: '%', '_' and '\'
 * escaped with '\' (the queries say ESCAPE '\'), then '%'.  Without it
 * `history --model %` matched every model. */
static void like_prefix(char *dst, size_t cap, const char *src)
{
    size_t o = 0;
    for (size_t i = 0; src[i] && i < 64 && o + 3 < cap; i++) {
        if (strchr("%_\\", src[i]))
            dst[o++] = '\\';
        dst[o++] = src[i];
    }
    dst[o++] = '%';
    dst[o] = '\0';
}

static const char *const schema_v1[] = {
    "CREATE TABLE schema_version (version INTEGER NOT NULL, "
    "updated_utc TEXT NOT NULL)",
    "CREATE TABLE documents (id %s, doc_sha256 TEXT NOT NULL UNIQUE, "
    "stored_utc TEXT NOT NULL, created_utc TEXT, kind TEXT, doc_schema TEXT, "
    "command_line TEXT, git_commit TEXT, git_branch TEXT, git_dirty INTEGER, "
    "mbench_version TEXT, mbench_commit TEXT, env_cpu_model TEXT, "
    "env_cpu_mhz DOUBLE PRECISION, env_logical_cores INTEGER, "
    "env_physical_cores INTEGER, env_governor TEXT, env_memory_bytes BIGINT, "
    "env_kernel TEXT, env_arch TEXT, env_hostname TEXT, env_libc TEXT, "
    "env_compiler TEXT, env_timestamp_utc TEXT, environment TEXT, "
    "doc TEXT NOT NULL)",
    "CREATE TABLE runs (id %s, document_id BIGINT NOT NULL REFERENCES "
    "documents(id) ON DELETE CASCADE, run_index INTEGER NOT NULL, "
    "created_utc TEXT, git_commit TEXT, git_branch TEXT, git_dirty INTEGER, "
    "status TEXT, error TEXT, model_name TEXT, model_path TEXT, "
    "model_sha256 TEXT, model_file_bytes BIGINT, variant TEXT, backend TEXT, "
    "device TEXT, batch_size BIGINT, config TEXT, iterations BIGINT, "
    "stop_rule TEXT, latency_count BIGINT, p50_ns DOUBLE PRECISION, "
    "p90_ns DOUBLE PRECISION, p95_ns DOUBLE PRECISION, "
    "p99_ns DOUBLE PRECISION, mean_ns DOUBLE PRECISION, "
    "std_ns DOUBLE PRECISION, min_ns DOUBLE PRECISION, "
    "max_ns DOUBLE PRECISION, ci_lo_ns DOUBLE PRECISION, "
    "ci_hi_ns DOUBLE PRECISION, throughput_ips DOUBLE PRECISION, "
    "throughput_sps DOUBLE PRECISION, memory_peak_bytes BIGINT, "
    "memory_peak_method TEXT)",
    "CREATE TABLE run_samples (run_id BIGINT PRIMARY KEY REFERENCES runs(id) "
    "ON DELETE CASCADE, n BIGINT NOT NULL, samples_ns TEXT NOT NULL)",
    "CREATE INDEX runs_by_document ON runs(document_id)",
    "CREATE INDEX documents_by_branch ON documents(git_branch)",
    NULL};

/* Version 2: commit dates (history is ordered by them) and lookups by
 * commit and by model. */
static const char *const migrate_v2[] = {
    "ALTER TABLE documents ADD COLUMN git_commit_date TEXT",
    "ALTER TABLE runs ADD COLUMN git_commit_date TEXT",
    "CREATE INDEX documents_by_commit ON documents(git_commit)",
    "CREATE INDEX runs_by_model ON runs(model_name, variant, batch_size)",
    NULL};

/* Version 3: attempts.  A document with "attempt": {key, number} (a Slurm
 * task's document) supersedes the stored documents of the same key with a
 * lower number; they stay, with superseded_by, and readers skip them. */
static const char *const migrate_v3[] = {
    "ALTER TABLE documents ADD COLUMN attempt_key TEXT",
    "ALTER TABLE documents ADD COLUMN attempt BIGINT",
    "ALTER TABLE documents ADD COLUMN superseded_by BIGINT",
    "CREATE INDEX documents_by_attempt ON documents(attempt_key)", NULL};

/* migrations[v] takes a database from version v to v + 1. */
static const char *const *const migrations[MB_STORE_SCHEMA_VERSION] = {
    schema_v1, migrate_v2, migrate_v3};

static mb_status q(mb__store *s, const char *sql, size_t n,
                   const char *const *p, json_t **rows, mb_err *err)
{
    return s->ops->query(s->h, sql, n, p, rows, err);
}

/* The single cell of a one-row result as a string (borrowed from rows). */
static const char *cell(const json_t *rows, size_t r, size_t c)
{
    return json_string_value(json_array_get(json_array_get(rows, r), c));
}

static mb_status table_exists(mb__store *s, const char *name, int *yes,
                              mb_err *err)
{
    json_t *rows;
    const char *p[1] = {name};
    mb_status st = q(s, s->ops->table_exists_sql, 1, p, &rows, err);
    if (st)
        return st;
    const char *c = cell(rows, 0, 0);
    *yes = c && atoll(c) > 0;
    json_decref(rows);
    return MB_OK;
}

/* Current schema version into *v (0: no schema_version table). */
static mb_status read_version(mb__store *s, int *v, mb_err *err)
{
    int yes;
    *v = 0;
    mb_status st = table_exists(s, "schema_version", &yes, err);
    if (st || !yes)
        return st;
    json_t *rows;
    st = q(s, "SELECT max(version) FROM schema_version", 0, NULL, &rows, err);
    if (st)
        return st;
    const char *c = cell(rows, 0, 0);
    *v = c ? atoi(c) : 0;
    json_decref(rows);
    if (*v <= 0)
        return mb__fail(err, MB_EFORMAT,
                        "%s has an empty schema_version table: it is not a "
                        "usable mbench results store (left untouched)",
                        s->where);
    return MB_OK;
}

static mb_status run_script(mb__store *s, const char *const *stmts, mb_err *err)
{
    char sql[2048];
    for (size_t i = 0; stmts[i]; i++) {
        snprintf(sql, sizeof sql, stmts[i], s->ops->pk);
        mb_status st = q(s, sql, 0, NULL, NULL, err);
        if (st)
            return st;
    }
    return MB_OK;
}

static void rollback(mb__store *s)
{
    mb_err ignored;
    q(s, "ROLLBACK", 0, NULL, NULL, &ignored);
}

static mb_status refuse_newer(mb__store *s, int v, mb_err *err)
{
    return mb__fail(err, MB_EFORMAT,
                    "%s uses results-store schema version %d, newer than "
                    "the version %d this mbench %s understands; upgrade "
                    "mbench (the database was left untouched)",
                    s->where, v, MB_STORE_SCHEMA_VERSION, MB_VERSION_STRING);
}

/* Fails with MB_EFORMAT when a database without schema_version already
 * holds tables (ours or anybody's): it is not ours to write into. */
static mb_status refuse_foreign(mb__store *s, mb_err *err)
{
    mb_status st;
    /* Only an empty database (or, for PostgreSQL, one without our
     * tables) may receive the schema. */
    static const char *const ours[] = {"documents", "runs", "run_samples"};
    for (size_t i = 0; i < 3; i++) {
        int yes;
        if ((st = table_exists(s, ours[i], &yes, err)))
            return st;
        if (yes)
            return mb__fail(err, MB_EFORMAT,
                            "%s has a '%s' table but no schema_version: "
                            "it is not an mbench results store (left "
                            "untouched); point --db elsewhere",
                            s->where, ours[i]);
    }
    if (strcmp(s->ops->kind, "sqlite") == 0) {
        json_t *rows;
        if ((st = q(s,
                    "SELECT count(*) FROM sqlite_master WHERE type = "
                    "'table'",
                    0, NULL, &rows, err)))
            return st;
        long long n = cell(rows, 0, 0) ? atoll(cell(rows, 0, 0)) : 0;
        json_decref(rows);
        if (n > 0)
            return mb__fail(err, MB_EFORMAT,
                            "%s is a SQLite database of something else "
                            "(%lld tables, no schema_version): left "
                            "untouched; point --db at a new file",
                            s->where, n);
    }
    return MB_OK;
}

/* Brings the schema to MB_STORE_SCHEMA_VERSION inside one write
 * transaction, re-reading the version under the lock so that concurrent
 * openers migrate once. */
static mb_status ensure_schema(mb__store *s, mb_err *err)
{
    int v;
    mb_status st = read_version(s, &v, err);
    if (st)
        return st;
    if (v > MB_STORE_SCHEMA_VERSION)
        return refuse_newer(s, v, err);
    if (v == MB_STORE_SCHEMA_VERSION)
        return s->ops->ready(s->h, err);
    if (v == 0 && (st = refuse_foreign(s, err))) {
        /* Another opener may have created the whole schema (in one
         * transaction) between our two looks: then it is ours. */
        mb_err again;
        int v2;
        if (st == MB_EFORMAT && !read_version(s, &v2, &again) &&
            v2 == MB_STORE_SCHEMA_VERSION)
            return s->ops->ready(s->h, err);
        return st;
    }
    if ((st = s->ops->ready(s->h, err)) ||
        (st = q(s, s->ops->begin_write, 0, NULL, NULL, err)))
        return st;
    if ((st = s->ops->lock_schema(s->h, err)) ||
        (st = read_version(s, &v, err)))
        goto fail;
    if (v > MB_STORE_SCHEMA_VERSION) {
        st = refuse_newer(s, v, err);
        goto fail;
    }
    char now[32];
    mb__utc_iso8601(now, sizeof now);
    for (int from = v; from < MB_STORE_SCHEMA_VERSION; from++) {
        if ((st = run_script(s, migrations[from], err))) {
            mb__fail_prefix(err, "migrating %s from schema version %d to %d",
                            s->where, from, from + 1);
            goto fail;
        }
    }
    if (v < MB_STORE_SCHEMA_VERSION) {
        char ver[16];
        snprintf(ver, sizeof ver, "%d", MB_STORE_SCHEMA_VERSION);
        const char *p[2] = {ver, now};
        if ((st = q(s, "DELETE FROM schema_version", 0, NULL, NULL, err)) ||
            (st = q(s,
                    "INSERT INTO schema_version (version, updated_utc) "
                    "VALUES ($1, $2)",
                    2, p, NULL, err)))
            goto fail;
    }
    if ((st = q(s, "COMMIT", 0, NULL, NULL, err)))
        goto fail;
    return MB_OK;
fail:
    rollback(s);
    return st;
}

/* For a store opened read-only: the schema must be there and current.
 * *older is set when it is an older version (the caller migrates it
 * through a writable open, as reading always did). */
static mb_status check_schema_ro(mb__store *s, int *older, mb_err *err)
{
    int v;
    *older = 0;
    mb_status st = read_version(s, &v, err);
    if (st)
        return st;
    if (v > MB_STORE_SCHEMA_VERSION)
        return refuse_newer(s, v, err);
    if (v == 0) {
        if ((st = refuse_foreign(s, err)))
            return st;
        return mb__fail(err, MB_EIO,
                        "%s holds no mbench results yet (no schema_version "
                        "table); store results there first (run or compare "
                        "with --db)",
                        s->where);
    }
    *older = v < MB_STORE_SCHEMA_VERSION;
    return MB_OK;
}

mb_status mb__store_open(const char *url_or_path, mb__store **out, mb_err *err)
{
    return mb__store_open_mode(url_or_path, 0, out, err);
}

mb_status mb__store_open_mode(const char *addr_text, int read_only,
                              mb__store **out, mb_err *err)
{
    *out = NULL;
    mb__store_addr addr;
    mb_status st = mb__store_addr_parse(addr_text, &addr, err);
    if (st)
        return st;
    mb__store *s = mb__calloc(1, sizeof *s);
    if (!s)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    s->read_only = read_only;
    if (addr.engine == MB__STORE_POSTGRES) {
        s->ops = &mb__pg_ops;
        s->where = mb__store_addr_shown(addr.target);
        st = mb__pg_open(addr.target, &s->h, err);
        /* a reading command cannot write, whatever it runs */
        if (!st && read_only)
            st = q(s, "SET default_transaction_read_only = on", 0, NULL, NULL,
                   err);
    } else {
        s->ops = &mb__sqlite_ops;
        s->where = mb__strdup(addr.target);
        st = mb__sqlite_open(addr.target, read_only, &s->h, err);
    }
    if (!st && !s->where)
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    int older = 0;
    if (!st)
        st =
            read_only ? check_schema_ro(s, &older, err) : ensure_schema(s, err);
    if (st || older) {
        mb__store_close(s);
        if (older) /* migrated by a writable open, as before */
            return mb__store_open_mode(addr_text, 0, out, err);
        return st;
    }
    *out = s;
    return MB_OK;
}

void mb__store_close(mb__store *s)
{
    if (!s)
        return;
    if (s->h)
        s->ops->close(s->h);
    free(s->where);
    free(s);
}

const char *mb__store_kind(const mb__store *s)
{
    return s->ops->kind;
}

/* ---- parameters ------------------------------------------------------- */

#define MAX_PARAMS 48

typedef struct {
    char *v[MAX_PARAMS];
    size_t n;
    int oom;
} params;

static void p_add(params *p, char *owned_or_null, int was_null)
{
    if (p->n >= MAX_PARAMS) {
        free(owned_or_null);
        p->oom = 1;
        return;
    }
    if (!owned_or_null && !was_null)
        p->oom = 1;
    p->v[p->n++] = owned_or_null;
}

static void p_str(params *p, const char *s)
{
    p_add(p, s ? mb__strdup(s) : NULL, s == NULL);
}

/* A JSON value as the text of an integer column (reals rounded). */
static void p_int(params *p, const json_t *j)
{
    char b[32];
    if (json_is_integer(j))
        snprintf(b, sizeof b, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
    else if (json_is_real(j))
        snprintf(b, sizeof b, "%.0f", json_real_value(j));
    else if (json_is_boolean(j))
        snprintf(b, sizeof b, "%d", json_is_true(j) ? 1 : 0);
    else {
        p_add(p, NULL, 1);
        return;
    }
    p_str(p, b);
}

static void p_real(params *p, const json_t *j)
{
    char b[40];
    if (!json_is_number(j)) {
        p_add(p, NULL, 1);
        return;
    }
    snprintf(b, sizeof b, "%.17g", json_number_value(j));
    p_str(p, b);
}

static void p_text(params *p, const json_t *j)
{
    if (json_is_string(j)) {
        p_str(p, json_string_value(j));
        return;
    }
    p_add(p, NULL, 1);
}

/* The columns git_commit, git_branch, git_dirty, git_commit_date. */
static void p_git(params *p, const json_t *git)
{
    p_text(p, json_object_get(git, "commit"));
    p_text(p, json_object_get(git, "branch"));
    p_int(p, json_object_get(git, "dirty"));
    p_text(p, json_object_get(git, "commit_date"));
}

/* Any JSON as compact text with sorted keys (objects, arrays), or NULL. */
static void p_json(params *p, const json_t *j)
{
    if (!j || json_is_null(j)) {
        p_add(p, NULL, 1);
        return;
    }
    p_add(p, json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY), 0);
}

static void p_free(params *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    p->n = 0;
}

/* doc["a"]["b"]... for a dotted path; NULL when absent. */
static const json_t *jget(const json_t *j, const char *path)
{
    char key[64];
    while (j && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        j = json_object_get(j, key);
        path += n + (dot ? 1 : 0);
    }
    return j;
}

/* ---- put -------------------------------------------------------------- */

static mb_status insert_run(mb__store *s, const char *doc_id, size_t index,
                            const json_t *run, const json_t *doc,
                            const json_t *git, mb_err *err)
{
    params p = {0};
    char idx[24];
    snprintf(idx, sizeof idx, "%zu", index);
    p_str(&p, doc_id);
    p_str(&p, idx);
    p_text(&p, json_object_get(doc, "created_utc"));
    p_git(&p, git);
    /* The run's own columns: the fields of doc/fields.h that are
     * stored, in list order. */
    mb__buf sql = MB_BUF_INIT;
    mb__buf_puts(&sql, "INSERT INTO runs (document_id, run_index, "
                       "created_utc, git_commit, git_branch, git_dirty, "
                       "git_commit_date");
    mb__rrun r;
    mb__rrun_fill(&r, doc, 0, run);
    size_t nf;
    const mb__field *f = mb__fields(&nf);
    for (size_t i = 0; i < nf; i++) {
        if (!(f[i].where & MB_FO_STORE))
            continue;
        int oom = 0;
        char *v = mb__field_sql(&f[i], &r, &oom);
        p_add(&p, v, !oom);
        mb__buf_printf(&sql, ", %s", f[i].column);
    }
    mb__buf_puts(&sql, ") VALUES (");
    for (size_t i = 1; i <= p.n; i++)
        mb__buf_printf(&sql, "%s$%zu", i > 1 ? ", " : "", i);
    mb__buf_puts(&sql, ") RETURNING id");
    if (p.oom || sql.oom) {
        p_free(&p);
        mb__buf_free(&sql);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    json_t *rows = NULL;
    mb_status st = q(s, sql.data, p.n, (const char *const *)p.v, &rows, err);
    p_free(&p);
    mb__buf_free(&sql);
    if (st)
        return st;
    const char *run_id = cell(rows, 0, 0);
    const json_t *samples = json_object_get(run, "samples_ns");
    if (run_id && json_is_array(samples)) {
        char n[24];
        snprintf(n, sizeof n, "%zu", json_array_size(samples));
        p_str(&p, run_id);
        p_str(&p, n);
        p_json(&p, samples);
        st = p.oom ? mb__fail(err, MB_ENOMEM, "out of memory")
                   : q(s,
                       "INSERT INTO run_samples (run_id, n, samples_ns) "
                       "VALUES ($1, $2, $3)",
                       p.n, (const char *const *)p.v, NULL, err);
        p_free(&p);
    }
    json_decref(rows);
    return st;
}

static mb_status check_doc(const json_t *doc, mb_err *err)
{
    if (!json_is_object(doc))
        return mb__fail(err, MB_EINVAL,
                        "a result document must be a JSON "
                        "object");
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strncmp(schema, "mbench.result/", 14) != 0)
        return mb__fail(err, MB_EFORMAT,
                        "not an mbench result document (schema '%s', "
                        "expected 'mbench.result/1')",
                        schema ? schema : "missing");
    if (strcmp(schema, "mbench.result/1") != 0)
        return mb__fail(err, MB_EFORMAT,
                        "result document of schema '%s': this mbench stores "
                        "'mbench.result/1' documents",
                        schema);
    if (!json_is_array(json_object_get(doc, "runs")))
        return mb__fail(err, MB_EFORMAT,
                        "result document has no \"runs\" array");
    return MB_OK;
}

/* The document as stored: a copy with the command line redacted (a
 * document saved by an older mbench may carry a password; the sha is of
 * what is stored, so its redacted export imports as the same) and
 * without samples_ns (they go to run_samples).  *slim is new; sha is
 * its sha256 before the samples are dropped. */
static mb_status slim_doc(const json_t *doc, json_t **slim, char sha[65],
                          mb_err *err)
{
    *slim = json_deep_copy(doc);
    const char *cl = json_string_value(json_object_get(*slim, "command_line"));
    if (cl) {
        char *r = mb__redact(cl);
        json_object_set_new(*slim, "command_line", json_string(r ? r : ""));
        free(r);
    }
    char *full =
        *slim ? json_dumps(*slim, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    if (!full || !*slim) {
        free(full);
        json_decref(*slim);
        *slim = NULL;
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    mb__sha256_hex(full, strlen(full), sha);
    free(full);
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(*slim, "runs"), i, run)
        json_object_del(run, "samples_ns");
    return MB_OK;
}

/* The values of a documents row, $1..$26 in the order of the INSERT. */
static void document_params(params *p, const json_t *doc, const json_t *slim,
                            const char *sha, const json_t *git)
{
    char now[32];
    mb__utc_iso8601(now, sizeof now);
    const json_t *env = json_object_get(doc, "environment");
    p_str(p, sha);
    p_str(p, now);
    p_text(p, json_object_get(doc, "created_utc"));
    p_text(p, json_object_get(doc, "kind"));
    p_text(p, json_object_get(doc, "schema"));
    p_text(p, json_object_get(slim, "command_line"));
    p_git(p, git);
    p_text(p, jget(doc, "mbench.version"));
    p_text(p, jget(doc, "mbench.commit"));
    p_text(p, json_object_get(env, "cpu_model"));
    p_real(p, json_object_get(env, "cpu_mhz"));
    p_int(p, json_object_get(env, "logical_cores"));
    p_int(p, json_object_get(env, "physical_cores"));
    p_text(p, json_object_get(env, "governor"));
    p_int(p, json_object_get(env, "memory_bytes"));
    p_text(p, json_object_get(env, "kernel"));
    p_text(p, json_object_get(env, "arch"));
    p_text(p, json_object_get(env, "hostname"));
    p_text(p, json_object_get(env, "libc"));
    p_text(p, json_object_get(env, "compiler"));
    p_text(p, json_object_get(env, "timestamp_utc"));
    p_json(p, env);
    p_json(p, slim);
}

/* The just stored document doc_id and the others of its attempt key: the
 * highest attempt number (then the newest) stays current, every other one
 * gets superseded_by it.  A document without "attempt" is left alone. */
static mb_status supersede(mb__store *s, const char *doc_id, const json_t *doc,
                           mb_err *err)
{
    const json_t *a = json_object_get(doc, "attempt");
    const char *key = json_string_value(json_object_get(a, "key"));
    if (!key)
        return MB_OK;
    char num[24];
    snprintf(num, sizeof num, "%lld",
             (long long)json_integer_value(json_object_get(a, "number")));
    const char *p[3] = {key, num, doc_id};
    json_t *rows = NULL;
    mb_status st = q(s,
                     "UPDATE documents SET attempt_key = $1, attempt = $2 "
                     "WHERE id = $3",
                     3, p, NULL, err);
    if (!st)
        st = q(s,
               "SELECT id FROM documents WHERE attempt_key = $1 ORDER BY "
               "attempt DESC, id DESC LIMIT 1",
               1, p, &rows, err);
    const char *win = st ? NULL : cell(rows, 0, 0);
    if (win) {
        const char *p2[2] = {key, win};
        st = q(s,
               "UPDATE documents SET superseded_by = $2 WHERE attempt_key = "
               "$1 AND id <> $2",
               2, p2, NULL, err);
    }
    json_decref(rows);
    return st;
}

mb_status mb__store_put2(mb__store *s, const json_t *doc, const json_t *git,
                         int *added, mb_err *err)
{
    if (added)
        *added = 0;
    if (s->read_only)
        return mb__fail(err, MB_EINVAL,
                        "%s was opened for reading only; nothing stored",
                        s->where);
    mb_status st = check_doc(doc, err);
    if (st)
        return st;
    json_t *slim = NULL;
    char sha[65];
    if ((st = slim_doc(doc, &slim, sha, err)))
        return st;
    params p = {0};
    document_params(&p, doc, slim, sha, git);
    json_decref(slim);
    if (p.oom) {
        p_free(&p);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    json_t *rows = NULL;
    if ((st = q(s, s->ops->begin_write, 0, NULL, NULL, err))) {
        p_free(&p);
        return mb__fail_prefix(err, "storing into %s", s->where);
    }
    st = q(s,
           "INSERT INTO documents (doc_sha256, stored_utc, created_utc, kind, "
           "doc_schema, command_line, git_commit, git_branch, git_dirty, "
           "git_commit_date, mbench_version, mbench_commit, env_cpu_model, "
           "env_cpu_mhz, env_logical_cores, env_physical_cores, env_governor, "
           "env_memory_bytes, env_kernel, env_arch, env_hostname, env_libc, "
           "env_compiler, env_timestamp_utc, environment, doc) VALUES ($1, "
           "$2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, "
           "$17, $18, $19, $20, $21, $22, $23, $24, $25, $26) ON CONFLICT "
           "(doc_sha256) DO NOTHING RETURNING id",
           p.n, (const char *const *)p.v, &rows, err);
    p_free(&p);
    if (st)
        goto fail;
    const char *doc_id = cell(rows, 0, 0);
    size_t i;
    json_t *run;
    if (doc_id) {
        json_array_foreach(json_object_get(doc, "runs"), i, run)
        {
            if ((st = insert_run(s, doc_id, i, run, doc, git, err)))
                goto fail;
        }
        if ((st = supersede(s, doc_id, doc, err)))
            goto fail;
    }
    if ((st = q(s, "COMMIT", 0, NULL, NULL, err)))
        goto fail;
    if (added)
        *added = doc_id != NULL;
    json_decref(rows);
    return MB_OK;
fail:
    json_decref(rows);
    rollback(s);
    return mb__fail_prefix(err, "storing into %s (nothing was written)",
                           s->where);
}

mb_status mb__store_put(mb__store *s, const json_t *doc, const json_t *git,
                        mb_err *err)
{
    return mb__store_put2(s, doc, git, NULL, err);
}

/* ---- reading ---------------------------------------------------------- */

/* Restores "samples_ns" into the runs of doc from run_samples. */
static mb_status restore_samples(mb__store *s, const char *doc_id, json_t *doc,
                                 mb_err *err)
{
    json_t *rows;
    const char *p[1] = {doc_id};
    mb_status st = q(s,
                     "SELECT r.run_index, x.samples_ns FROM runs r JOIN "
                     "run_samples x ON x.run_id = r.id WHERE r.document_id "
                     "= $1",
                     1, p, &rows, err);
    if (st)
        return st;
    json_t *runs = json_object_get(doc, "runs");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const char *idx = cell(rows, i, 0), *txt = cell(rows, i, 1);
        json_t *run = idx ? json_array_get(runs, (size_t)atoll(idx)) : NULL;
        json_t *samples = txt ? json_loads(txt, 0, NULL) : NULL;
        if (run && samples)
            json_object_set_new(run, "samples_ns", samples);
        else
            json_decref(samples);
    }
    json_decref(rows);
    return MB_OK;
}

static json_t *git_from_cells(const json_t *rows, size_t r, size_t c0)
{
    const char *dirty = cell(rows, r, c0 + 2);
    return json_pack(
        "{s:o,s:o,s:o,s:o}", "commit",
        cell(rows, r, c0) ? json_string(cell(rows, r, c0)) : json_null(),
        "branch",
        cell(rows, r, c0 + 1) ? json_string(cell(rows, r, c0 + 1))
                              : json_null(),
        "dirty", dirty ? json_boolean(atoi(dirty)) : json_null(), "commit_date",
        cell(rows, r, c0 + 3) ? json_string(cell(rows, r, c0 + 3))
                              : json_null());
}

static json_t *load_doc(const char *text, const char *where, mb_err *err)
{
    json_error_t je;
    json_t *doc = text ? json_loads(text, 0, &je) : NULL;
    if (!doc)
        mb__fail(err, MB_EFORMAT,
                 "%s holds a stored document that is not valid JSON; the "
                 "store is damaged",
                 where);
    return doc;
}

mb_status mb__store_each(mb__store *s, mb__store_each_fn fn, void *user,
                         mb_err *err)
{
    json_t *ids;
    mb_status st =
        q(s, "SELECT id FROM documents WHERE superseded_by IS NULL ORDER BY id",
          0, NULL, &ids, err);
    if (st)
        return st;
    for (size_t i = 0; !st && i < json_array_size(ids); i++) {
        json_t *rows;
        const char *p[1] = {cell(ids, i, 0)};
        if ((st = q(s,
                    "SELECT doc, git_commit, git_branch, git_dirty, "
                    "git_commit_date FROM documents WHERE id = $1",
                    1, p, &rows, err)))
            break;
        json_t *doc = load_doc(cell(rows, 0, 0), s->where, err);
        json_t *git = git_from_cells(rows, 0, 1);
        json_decref(rows);
        if (!doc)
            st = MB_EFORMAT;
        if (!st)
            st = restore_samples(s, p[0], doc, err);
        if (!st)
            st = fn(user, doc, git, err);
        json_decref(doc);
        json_decref(git);
    }
    json_decref(ids);
    return st;
}

mb_status mb__store_count(mb__store *s, const char *table, int64_t *n,
                          mb_err *err)
{
    const char *sql;
    if (strcmp(table, "documents") == 0)
        sql = "SELECT count(*) FROM documents";
    else if (strcmp(table, "runs") == 0)
        sql = "SELECT count(*) FROM runs";
    else if (strcmp(table, "run_samples") == 0)
        sql = "SELECT count(*) FROM run_samples";
    else if (strcmp(table, "superseded") == 0)
        sql = "SELECT count(*) FROM documents WHERE superseded_by IS NOT NULL";
    else
        return mb__fail(err, MB_EINVAL, "no table '%s' in the results store",
                        table);
    json_t *rows;
    mb_status st = q(s, sql, 0, NULL, &rows, err);
    if (st)
        return st;
    *n = cell(rows, 0, 0) ? atoll(cell(rows, 0, 0)) : 0;
    json_decref(rows);
    return MB_OK;
}

static int is_hex_ref(const char *r)
{
    size_t n = strlen(r);
    if (n < 4 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)r[i]))
            return 0;
    return 1;
}

/* Key of a run for baseline merging: model identity, variant, batch. */
static char *run_key(const json_t *run)
{
    const json_t *m = json_object_get(run, "model");
    const char *id = json_string_value(json_object_get(m, "sha256"));
    if (!id)
        id = json_string_value(json_object_get(m, "name"));
    if (!id)
        id = json_string_value(json_object_get(m, "path"));
    mb__buf b = MB_BUF_INIT;
    mb__buf_printf(&b, "%s|%s|%" JSON_INTEGER_FORMAT, id ? id : "",
                   json_string_value(json_object_get(run, "variant"))
                       ? json_string_value(json_object_get(run, "variant"))
                       : "",
                   json_integer_value(json_object_get(run, "batch_size")));
    return mb__buf_take(&b, NULL);
}

/* The model name a run is paired by (as the gate does): model.name, else
 * the file name of model.path; NULL for a run without a model (exec). */
static const char *bench_name(const char *name, const char *path)
{
    if (name && *name)
        return name;
    if (path && *path) {
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
    }
    return NULL;
}

/* 1 when a stored run (its model name, path, sha256 and variant) is a run
 * of one of the benchmarks in cur's runs: the same model by sha256 or by
 * name (the gate's pairing), or, for runs without a model (exec), the
 * same variant (the command's name). */
static int same_benchmark(const json_t *cur, const char *name, const char *path,
                          const char *sha, const char *variant)
{
    const char *sn = bench_name(name, path);
    size_t i;
    const json_t *run;
    json_array_foreach(json_object_get(cur, "runs"), i, run)
    {
        const json_t *m = json_object_get(run, "model");
        const char *csha = json_string_value(json_object_get(m, "sha256"));
        const char *cn =
            bench_name(json_string_value(json_object_get(m, "name")),
                       json_string_value(json_object_get(m, "path")));
        if (cn) {
            if ((csha && sha && strcmp(csha, sha) == 0) ||
                (sn && strcmp(cn, sn) == 0))
                return 1;
        } else if (!sn) {
            const char *cv = json_string_value(json_object_get(run, "variant"));
            if (cv && variant && strcmp(cv, variant) == 0)
                return 1;
        }
    }
    return 0;
}

/* The benchmarks of cur, for messages: "model a.onnx, model b.onnx". */
static void describe_benchmarks(const json_t *cur, char *buf, size_t len)
{
    size_t off = 0, i;
    const json_t *run;
    buf[0] = '\0';
    json_array_foreach(json_object_get(cur, "runs"), i, run)
    {
        const json_t *m = json_object_get(run, "model");
        const char *cn =
            bench_name(json_string_value(json_object_get(m, "name")),
                       json_string_value(json_object_get(m, "path")));
        const char *v = json_string_value(json_object_get(run, "variant"));
        char one[300];
        snprintf(one, sizeof one, "%s %s", cn ? "model" : "command",
                 cn  ? cn
                 : v ? v
                     : "?");
        if (strstr(buf, one))
            continue;
        if (off + strlen(one) + 8 >= len) {
            snprintf(buf + off, len - off, ", ...");
            return;
        }
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
                                one);
    }
}

/* Every ok run stored for the branch ref (else the commit ref names),
 * newest document first, leaving out exclude_commit: the baseline is the
 * newest commit with a run of the benchmark being gated, not merely the
 * newest commit.  *how: "branch" or "commit".  MB_EINVAL when there is
 * none. */
static mb_status candidate_runs(mb__store *s, const char *ref,
                                const char *exclude_commit, json_t **rows,
                                const char **how, mb_err *err)
{
    /* An empty string never equals a stored commit (NULL or hex). */
    const char *p[2] = {ref, exclude_commit ? exclude_commit : ""};
    static const char cols[] =
        "SELECT d.git_commit, d.id, r.model_name, r.model_path, "
        "r.model_sha256, r.variant FROM documents d JOIN runs r ON "
        "r.document_id = d.id WHERE d.superseded_by IS NULL AND ";
    static const char tail[] =
        " AND (r.status IS NULL OR r.status = 'ok') ORDER BY d.id DESC, "
        "r.run_index LIMIT 100000";
    char sql[512];
    snprintf(sql, sizeof sql,
             "%sd.git_branch = $1 AND (d.git_commit IS NULL "
             "OR d.git_commit <> $2)%s",
             cols, tail);
    mb_status st = q(s, sql, 2, p, rows, err);
    if (st)
        return st;
    char pattern[80];
    *how = "branch";
    if (json_array_size(*rows) == 0 && is_hex_ref(ref)) {
        json_decref(*rows);
        *rows = NULL;
        size_t k = 0;
        for (; ref[k] && k < 64; k++)
            pattern[k] = (char)tolower((unsigned char)ref[k]);
        pattern[k++] = '%';
        pattern[k] = '\0';
        p[0] = pattern;
        *how = "commit";
        snprintf(sql, sizeof sql,
                 "%sd.git_commit LIKE $1 AND d.git_commit <> $2%s", cols, tail);
        if ((st = q(s, sql, 2, p, rows, err)))
            return st;
    }
    if (json_array_size(*rows) == 0) {
        json_decref(*rows);
        *rows = NULL;
        return mb__fail(err, MB_EINVAL,
                        "no stored results for branch or commit '%s' in %s "
                        "(other than the commit being gated); "
                        "store a baseline first (mbench run --db ... on that "
                        "branch) or check the name with 'mbench history'",
                        ref, s->where);
    }
    return MB_OK;
}

/* The first candidate row that runs the benchmark of current (row 0
 * without current) into *pick; MB_EINVAL naming it when none does. */
static mb_status pick_benchmark(const mb__store *s, const json_t *rows,
                                const json_t *current, const char *ref,
                                const char *how, size_t *pick, mb_err *err)
{
    *pick = 0;
    if (!current)
        return MB_OK;
    size_t n = json_array_size(rows);
    for (*pick = 0; *pick < n; (*pick)++)
        if (same_benchmark(current, cell(rows, *pick, 2), cell(rows, *pick, 3),
                           cell(rows, *pick, 4), cell(rows, *pick, 5)))
            return MB_OK;
    char what[512], newest[16];
    describe_benchmarks(current, what, sizeof what);
    snprintf(newest, sizeof newest, "%.12s",
             cell(rows, 0, 0) ? cell(rows, 0, 0) : "none");
    return mb__fail(err, MB_EINVAL,
                    "no stored run of this benchmark (%s) for %s '%s' "
                    "in %s (its newest commit, %s, has runs of other "
                    "models only); store a baseline of it first "
                    "(mbench run --db ... on that %s) or check with "
                    "'mbench history'",
                    what, how, ref, s->where, newest, how);
}

/* Every document of commit, newest first, or the one document id when
 * results were stored outside a repository (commit NULL). */
static mb_status commit_documents(mb__store *s, const char *commit,
                                  const char *id, json_t **rows, mb_err *err)
{
    const char *p[1] = {commit ? commit : id};
    if (commit)
        return q(s,
                 "SELECT id, doc, git_commit, git_branch, git_dirty, "
                 "git_commit_date FROM documents WHERE git_commit = $1 AND "
                 "superseded_by IS NULL ORDER BY id DESC",
                 1, p, rows, err);
    return q(s,
             "SELECT id, doc, git_commit, git_branch, git_dirty, "
             "git_commit_date FROM documents WHERE id = $1",
             1, p, rows, err);
}

/* Appends the ok runs of doc not yet seen (by run_key) to runs. */
static void add_new_runs(const json_t *doc, json_t *seen, json_t *runs)
{
    size_t k;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), k, run)
    {
        const char *status = json_string_value(json_object_get(run, "status"));
        if (status && strcmp(status, "ok") != 0)
            continue;
        char *key = run_key(run);
        if (key && !json_object_get(seen, key)) {
            json_object_set_new(seen, key, json_true());
            json_array_append(runs, run);
        }
        free(key);
    }
}

/* The documents of rows as one baseline: the newest, stamped with where
 * it came from (store.ref, matched_by, git, document_ids), holding the
 * ok runs of all of them, each (model, variant, batch) once, newest
 * first. */
static mb_status merge_documents(mb__store *s, const json_t *rows,
                                 const char *ref, const char *how, json_t **out,
                                 mb_err *err)
{
    mb_status st = MB_OK;
    json_t *result = NULL, *runs = json_array(), *seen = json_object(),
           *ids = json_array();
    for (size_t i = 0; !st && i < json_array_size(rows); i++) {
        json_t *doc = load_doc(cell(rows, i, 1), s->where, err);
        if (!doc || (st = restore_samples(s, cell(rows, i, 0), doc, err))) {
            st = st ? st : MB_EFORMAT;
            json_decref(doc);
            break;
        }
        json_array_append_new(ids, json_integer(atoll(cell(rows, i, 0))));
        add_new_runs(doc, seen, runs);
        if (!result) {
            result = doc;
            json_t *store = json_pack("{s:s,s:s,s:o}", "ref", ref, "matched_by",
                                      how, "git", git_from_cells(rows, i, 2));
            json_object_set_new(result, "store", store);
        } else {
            json_decref(doc);
        }
    }
    json_decref(seen);
    if (st || !result) {
        json_decref(result);
        json_decref(runs);
        json_decref(ids);
        return st ? st : mb__fail(err, MB_EFORMAT, "no baseline documents");
    }
    json_object_set_new(json_object_get(result, "store"), "document_ids", ids);
    json_object_set_new(result, "runs", runs);
    *out = result;
    return MB_OK;
}

mb_status mb__store_baseline(mb__store *s, const char *ref,
                             const char *exclude_commit, const json_t *current,
                             json_t **out, mb_err *err)
{
    *out = NULL;
    if (!ref || !*ref)
        return mb__fail(err, MB_EINVAL,
                        "--against needs a branch name or a commit");
    json_t *rows = NULL;
    const char *how;
    size_t pick;
    mb_status st = candidate_runs(s, ref, exclude_commit, &rows, &how, err);
    if (st)
        return st;
    if ((st = pick_benchmark(s, rows, current, ref, how, &pick, err))) {
        json_decref(rows);
        return st;
    }
    char *commit = cell(rows, pick, 0) ? mb__strdup(cell(rows, pick, 0)) : NULL;
    char *newest = mb__strdup(cell(rows, pick, 1));
    json_decref(rows);
    rows = NULL;
    st = commit_documents(s, commit, newest, &rows, err);
    free(newest);
    if (!st)
        st = merge_documents(s, rows, ref, how, out, err);
    json_decref(rows);
    free(commit);
    return st;
}

/* The columns of a history row: the run's place (ids, git facts), the
 * stored fields of doc/fields.h that have a history key, and the
 * machine.  Types as in mb__ftype. */
typedef struct hist_col {
    const char *sql, *key;
    mb__ftype type;
    int is_bool;
} hist_col;

static const hist_col hist_head[] = {
    {"r.id", "run_id", MB_FT_INT, 0},
    {"r.document_id", "document_id", MB_FT_INT, 0},
    {"r.created_utc", "created_utc", MB_FT_TEXT, 0},
    {"r.git_commit", "git_commit", MB_FT_TEXT, 0},
    {"r.git_branch", "git_branch", MB_FT_TEXT, 0},
    {"r.git_dirty", "git_dirty", MB_FT_INT, 1},
    {"r.git_commit_date", "git_commit_date", MB_FT_TEXT, 0},
};
static const hist_col hist_tail[] = {
    {"d.env_hostname", "hostname", MB_FT_TEXT, 0},
    {"d.env_cpu_model", "cpu_model", MB_FT_TEXT, 0},
};

/* Every history column in SELECT order into cols (room for 64); count. */
static size_t hist_columns(hist_col *cols, char sql_names[][48])
{
    size_t n = 0, nf;
    for (size_t i = 0; i < sizeof hist_head / sizeof *hist_head; i++)
        cols[n++] = hist_head[i];
    const mb__field *f = mb__fields(&nf);
    for (size_t i = 0; i < nf && n < 62; i++) {
        if (!(f[i].where & MB_FO_HISTORY) || !f[i].column)
            continue;
        snprintf(sql_names[n], 48, "r.%s", f[i].column);
        cols[n] = (hist_col){sql_names[n], f[i].key, f[i].type, 0};
        n++;
    }
    for (size_t i = 0; i < sizeof hist_tail / sizeof *hist_tail; i++)
        cols[n++] = hist_tail[i];
    return n;
}

/* One history cell as JSON. */
static json_t *hist_value(const hist_col *c, const char *v)
{
    if (!v)
        return json_null();
    if (c->is_bool)
        return json_boolean(strcmp(v, "0") != 0 && strcmp(v, "f") != 0);
    if (c->type == MB_FT_INT)
        return json_integer(strtoll(v, NULL, 10));
    if (c->type == MB_FT_REAL)
        return json_real(strtod(v, NULL));
    return json_string(v);
}

mb_status mb__store_history(mb__store *s, const mb__store_filter *f,
                            json_t **out, mb_err *err)
{
    *out = NULL;
    mb__buf sql = MB_BUF_INIT;
    const char *p[8];
    char batch[24], like[160], model_like[160];
    size_t n = 0;
    hist_col cols[64];
    char names[64][48];
    size_t n_cols = hist_columns(cols, names);
    mb__buf_puts(&sql, "SELECT ");
    for (size_t c = 0; c < n_cols; c++)
        mb__buf_printf(&sql, "%s%s", c ? ", " : "", cols[c].sql);
    mb__buf_puts(&sql, " FROM runs r JOIN documents d ON d.id = "
                       "r.document_id WHERE d.superseded_by IS NULL");
    if (f && f->model && *f->model) {
        like_prefix(model_like, sizeof model_like, f->model);
        p[n++] = f->model;
        p[n++] = model_like;
        mb__buf_printf(&sql,
                       " AND (r.model_name = $%zu OR r.model_path = $%zu OR "
                       "r.model_sha256 LIKE $%zu ESCAPE '\\')",
                       n - 1, n - 1, n);
    }
    if (f && f->variant && *f->variant) {
        p[n++] = f->variant;
        mb__buf_printf(&sql, " AND r.variant = $%zu", n);
    }
    if (f && f->ref && *f->ref) {
        like_prefix(like, sizeof like, f->ref);
        p[n++] = f->ref;
        p[n++] = like;
        mb__buf_printf(&sql,
                       " AND (r.git_branch = $%zu OR r.git_commit LIKE $%zu "
                       "ESCAPE '\\')",
                       n - 1, n);
    }
    if (f && f->batch_size > 0) {
        snprintf(batch, sizeof batch, "%" PRId64, f->batch_size);
        p[n++] = batch;
        mb__buf_printf(&sql, " AND r.batch_size = $%zu", n);
    }
    mb__buf_puts(&sql, " ORDER BY COALESCE(r.git_commit_date, r.created_utc), "
                       "r.id");
    if (sql.oom) {
        mb__buf_free(&sql);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    json_t *rows;
    mb_status st = q(s, sql.data, n, p, &rows, err);
    mb__buf_free(&sql);
    if (st)
        return st;
    size_t total = json_array_size(rows), first = 0;
    if (f && f->limit > 0 && (size_t)f->limit < total)
        first = total - (size_t)f->limit;
    json_t *res = json_array();
    for (size_t r = first; res && r < total; r++) {
        json_t *o = json_object();
        for (size_t c = 0; c < n_cols; c++)
            json_object_set_new(o, cols[c].key,
                                hist_value(&cols[c], cell(rows, r, c)));
        json_array_append_new(res, o);
    }
    json_decref(rows);
    if (!res)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    *out = res;
    return MB_OK;
}

static mb_status must_exist(const char *addr_text, mb_err *err)
{
    mb__store_addr a;
    mb_status st = mb__store_addr_parse(addr_text, &a, err);
    if (st || a.engine != MB__STORE_SQLITE || access(a.target, F_OK) == 0)
        return st;
    char *shown = mb__store_addr_shown(addr_text);
    st = mb__fail(err, MB_EIO,
                  "results store %s does not exist; store results there "
                  "first (run or compare with --db %s)",
                  shown ? shown : "(hidden)", shown ? shown : "(hidden)");
    free(shown);
    return st;
}

mb_status mb__store_open_existing(const char *url_or_path, mb__store **out,
                                  mb_err *err)
{
    *out = NULL;
    mb_status st = must_exist(url_or_path, err);
    return st ? st : mb__store_open(url_or_path, out, err);
}

mb_status mb__store_open_ro(const char *url_or_path, mb__store **out,
                            mb_err *err)
{
    *out = NULL;
    mb_status st = must_exist(url_or_path, err);
    return st ? st : mb__store_open_mode(url_or_path, 1, out, err);
}

mb_status mb__store_select(mb__store *s, const char *sql, size_t n,
                           const char *const *p, json_t **rows, mb_err *err)
{
    *rows = NULL;
    return q(s, sql, n, p, rows, err);
}
