/* suiterun.h - running a suite: every selected task of a tasks table (a
 * command on a git branch's worktree, or a model) into one result
 * document of kind "suite", with the git facts of each branch, optional
 * storage of each task's result as it finishes, --skip-failed, sharding
 * and Ctrl-C.  `mbench suite` is option parsing around this and printing
 * through the callbacks (docs/EXEC.md). */
#ifndef MB_EXEC_SUITERUN_H
#define MB_EXEC_SUITERUN_H

#include "exec/exec.h"
#include "exec/tasks.h"
#include "exec/worktree.h"
#include "mbench.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct mb__store;

typedef struct mb__suite_opts {
    const char *tasks_path; /* the CSV table */
    const char *tmpl;       /* --command, or NULL */
    const char *repo;       /* --repo, or NULL (the current directory's) */
    int fetch;              /* fetch branches not found (--fetch) */
    int skip_failed;
    /* --compare (--interleave): the command tasks of each group (suite.h)
     * are measured together, interleaved in rounds; a shard then takes
     * whole groups (group g goes to shard g % N) */
    int interleave;
    int64_t shard_i, shard_n; /* 0/1 when not sharded */
    mb__exec_opts eo;         /* how command tasks are measured */
    struct mb__store *store;  /* borrowed; each task's result is stored */
    const char *command_line;
    /* Callbacks (any may be NULL): before a task; after it with each of its
     * runs; a warning (store failures, a dirty repository). */
    void (*on_start)(void *user, size_t k, size_t selected, const char *name);
    void (*on_run)(void *user, size_t k, size_t selected, const json_t *run);
    void (*on_warn)(void *user, const char *msg);
    void *user;
} mb__suite_opts;

typedef struct mb__suite_result {
    size_t selected, ran, failed;
    int interrupted;
    mb_status stopped; /* MB_OK, or why the suite stopped early */
} mb__suite_result;

/* The defaults of `mbench suite`: every field zero, but one measured run
 * and no warmup per command task (eo) and no sharding (shard_n 1). */
void mb__suite_opts_defaults(mb__suite_opts *o);

/* Reads a shard "I/N" (0-based, 0 <= I < N <= 1000000): 0, or -1. */
bool mb__suite_parse_shard(const char *s, int64_t *i, int64_t *n);

/* The group of every row of t into group_of (room for t's rows), numbered
 * 0, 1, ... in order of first appearance; returns the number of groups. */
size_t mb__suite_groups(const mb__tasks *t, size_t *group_of);

/* Loads the tasks (MB_EINVAL / MB_EIO for a bad table: nothing ran, *doc
 * is NULL) and runs them.  *doc (new reference) holds every finished task,
 * also when a task failed without skip_failed (res->stopped and err then
 * say which) or the suite was interrupted. */
mb_status mb__suite_run(const mb__suite_opts *o, json_t **doc,
                        mb__suite_result *res, mb_err *err);

#endif
