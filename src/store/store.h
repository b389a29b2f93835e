/* store.h - the results store: result documents appended to a database
 * (SQLite file by default, PostgreSQL through libpq for a shared team
 * history) and read back as history rows or as baseline documents.
 *
 * One schema serves both engines (docs/STORE.md): `schema_version`,
 * `documents` (one row per stored result document, the whole document as
 * JSON without its raw samples, the git facts of the measured project and
 * every environment field), `runs` (one row per run: model, variant, batch,
 * configuration and summary statistics) and `run_samples` (the raw samples
 * of a run as a JSON array of integer nanoseconds).  Storing is idempotent:
 * a document already stored (same sha256 of its canonical JSON) is not
 * stored twice.  A document with "attempt": {key, number} (a Slurm task's)
 * supersedes the stored ones of its key with a lower number: they are
 * kept (documents.superseded_by) but history, baselines and
 * mb__store_each read only the latest attempt.  Every write is one transaction;
 * SQLite runs in WAL mode with a busy timeout, so parallel writers on one
 * machine wait rather than fail, and no row is lost.
 *
 * A handle is used by one thread at a time. */
#ifndef MB_STORE_STORE_H
#define MB_STORE_STORE_H

#include "mbench.h"

#include <jansson.h>
#include <stdint.h>

/* The schema version this build writes (docs/STORE.md lists them all). */
#define MB_STORE_SCHEMA_VERSION 3

typedef struct mb__store mb__store;

/* Opens (creating or migrating as needed) the store at url_or_path, a
 * store address (store/addr.h: a SQLite path or sqlite:PATH, a
 * postgresql:// URL or a libpq keyword/value string).  A corrupt file, a
 * database of a newer schema, a database that is not mbench's, or an
 * unreachable server fail with a one- line message; nothing is overwritten.
 * Caller frees with mb__store_close. */
mb_status mb__store_open(const char *url_or_path, mb__store **out, mb_err *err);
/* The same for reading only what is there: a SQLite path that does not
 * exist is an error (MB_EIO naming it) instead of a new, empty store. */
mb_status mb__store_open_existing(const char *url_or_path, mb__store **out,
                                  mb_err *err);
/* Opens an existing store for reading only (history, db info, db export):
 * a SQLite file is opened read-only, so a store the user may only read
 * (mode 444, a read-only directory or mount) works; nothing is created or
 * switched to WAL.  A store of an older schema is migrated through a
 * writable open as mb__store_open does (and fails, saying so, when it is
 * read-only); a database without a store is an error. */
mb_status mb__store_open_ro(const char *url_or_path, mb__store **out,
                            mb_err *err);
/* mb__store_open (read_only 0) or mb__store_open_ro without the check
 * that a SQLite file exists (read_only 1). */
mb_status mb__store_open_mode(const char *url_or_path, int read_only,
                              mb__store **out, mb_err *err);
/* Closes the store; NULL is a no-op. */
void mb__store_close(mb__store *s);
/* "sqlite" or "postgresql" (static). */
const char *mb__store_kind(const mb__store *s);

/* Appends a result document (borrowed) with the git facts of the measured
 * project (borrowed; {commit, branch, dirty, commit_date} as from
 * mb__git_info, or NULL) in one transaction.  Storing a document that is
 * already there is a no-op; *added (may be NULL) says which happened. */
mb_status mb__store_put2(mb__store *s, const json_t *doc, const json_t *git,
                         int *added, mb_err *err);
mb_status mb__store_put(mb__store *s, const json_t *doc, const json_t *git,
                        mb_err *err);

/* A filter for history; NULL/0 members match everything. */
typedef struct mb__store_filter {
    const char *model; /* model name, path, or sha256 prefix */
    const char *variant;
    const char *ref;    /* git branch, or commit prefix (>= 4 hex digits) */
    int64_t batch_size; /* 0: any */
    int64_t limit;      /* 0: no limit; else the newest `limit` runs */
} mb__store_filter;

/* History rows, oldest first (by commit date, then storing order): a new
 * JSON array (caller json_decref) of objects {run_id, document_id,
 * created_utc, git_commit, git_branch, git_dirty, git_commit_date,
 * model_name, model_sha256, variant, backend, batch_size, status,
 * iterations, p50, p90, p95, p99, mean, std, min, max, throughput,
 * samples_per_s, memory, file_bytes, hostname, cpu_model} with nanosecond,
 * per-second and byte figures (null when unknown). */
mb_status mb__store_history(mb__store *s, const mb__store_filter *f,
                            json_t **rows, mb_err *err);

/* The baseline for `ref` (a branch name, or a commit prefix of at least 4
 * hex digits): the newest commit stored for it other than
 * `exclude_commit` (may be NULL: the commit being gated, so that a result
 * already stored by `run --db` is not its own baseline) that has an ok run
 * of a benchmark of `current` (the document being gated: the same model by
 * sha256 or name, or for runs without a model the same variant; NULL: any
 * run), and a result document
 * (new reference) whose "runs" hold, for every (model, variant, batch
 * size), the newest run stored for that commit, raw samples restored.  The
 * document also gets "store": {ref, commit, branch, dirty, document_ids}.
 * MB_EINVAL with a clear message when nothing matches. */
mb_status mb__store_baseline(mb__store *s, const char *ref,
                             const char *exclude_commit, const json_t *current,
                             json_t **doc, mb_err *err);

/* Calls fn for every stored document, oldest first, with the document
 * (samples restored; borrowed for the call) and its git object (borrowed).
 * A non-zero status from fn stops the walk and is returned. */
typedef mb_status (*mb__store_each_fn)(void *user, const json_t *doc,
                                       const json_t *git, mb_err *err);
mb_status mb__store_each(mb__store *s, mb__store_each_fn fn, void *user,
                         mb_err *err);

/* Number of rows in "documents", "runs" or "run_samples"; "superseded":
 * the documents a later attempt replaced. */
mb_status mb__store_count(mb__store *s, const char *table, int64_t *n,
                          mb_err *err);

/* Git facts of the repository holding `dir` (NULL: the current directory),
 * read with `git -C dir ...` (fork/exec, no shell): a new object
 * {commit, branch, dirty, commit_date}.  Outside a repository, or without
 * git, every field is null.  On a detached HEAD the branch comes from CI
 * variables (GITHUB_HEAD_REF, GITHUB_REF_NAME, CI_COMMIT_REF_NAME) when set.
 * Returns NULL only when memory runs out. */
json_t *mb__git_info(const char *dir);

/* Runs one read statement ($1..$n placeholders, every parameter text) and
 * hands back its rows as a new array of arrays of strings or nulls (caller
 * json_decref).  For the read-only queries of other store files
 * (siteq.h); nothing here writes. */
mb_status mb__store_select(mb__store *s, const char *sql, size_t n,
                           const char *const *params, json_t **rows,
                           mb_err *err);

/* The first-parent history of commit `tip` (4 to 64 hex digits) in the
 * repository holding dir: a new object {commit: depth} with depth 0 for
 * the root, from `git -C dir rev-list --first-parent --reverse tip`
 * (fork/exec, no shell).  NULL when git, the repository or the commit is
 * missing, or memory runs out. */
json_t *mb__git_first_parent(const char *dir, const char *tip);

#endif
