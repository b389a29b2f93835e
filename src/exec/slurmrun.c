/* slurmrun.c - the Slurm driver: submit, follow, store, resume
 * (slurm.h, docs/SCALE.md).  It prints nothing: what happens reaches the
 * caller through mb__slurm_hooks. */
#include "exec/slurm.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "store/store.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

mb_status mb__slurm_start(const mb__slurm_spec *given, mb__slurm_job **out,
                          char *jobid, mb_err *err)
{
    mb__slurm_spec spec = *given;
    char exe[4096], cwd[4096], dir[64];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    time_t now = time(NULL);
    struct tm tm;
    strftime(dir, sizeof dir, "mbench-slurm-%Y%m%dT%H%M%SZ",
             gmtime_r(&now, &tm));
    if (el <= 0 || !getcwd(cwd, sizeof cwd))
        return mb__fail(err, MB_EIO,
                        "cannot find mbench's own path or the "
                        "current directory");
    exe[el] = '\0';
    spec.dir = spec.dir ? spec.dir : dir;
    spec.mbench = spec.mbench ? spec.mbench : exe;
    spec.cwd = spec.cwd ? spec.cwd : cwd;
    mb_status st = mb__slurm_create(&spec, out, err);
    if (st)
        return st;
    mb__slurm_job *j = *out;
    size_t *idx = mb__calloc(j->n, sizeof *idx);
    if (!idx)
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t k = 0; idx && k < j->n; k++)
        idx[k] = k;
    if (!st)
        st = mb__slurm_submit(j, idx, j->n, jobid, err);
    free(idx);
    if (st) {
        /* nothing was submitted: the directory can be used again */
        mb__buf b = MB_BUF_INIT;
        mb__buf_printf(&b, "%s/job.json", j->dir);
        if (b.data)
            unlink(b.data);
        mb__buf_free(&b);
        mb__slurm_free(j);
        *out = NULL;
    }
    return st;
}

mb_status mb__slurm_resume(mb__slurm_job *j, size_t *n, char *jobid,
                           mb_err *err)
{
    *n = 0;
    jobid[0] = '\0';
    mb_status st = mb__slurm_poll(j, err);
    if (st)
        return st;
    size_t *idx = mb__calloc(j->n, sizeof *idx);
    if (!idx)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t k = 0; k < j->n; k++) {
        const mb__slurm_task *t = &j->tasks[k];
        if (t->job[0] && !mb__slurm_ended(t)) {
            free(idx);
            return mb__fail(err, MB_EINVAL,
                            "task %zu of %s is still %s in Slurm (job %s%s): "
                            "resume once every task has ended, or 'mbench "
                            "slurm cancel' it first",
                            k, j->dir, mb__slurm_state_name(t->state), t->job,
                            t->restarts ? ", requeued by Slurm" : "");
        }
        if (t->state != MB_SLURM_DONE)
            idx[(*n)++] = k;
    }
    st = *n ? mb__slurm_submit(j, idx, *n, jobid, err) : MB_OK;
    free(idx);
    return st;
}

static void warn(const mb__slurm_hooks *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn(const mb__slurm_hooks *h, const char *fmt, ...)
{
    if (!h || !h->on_warn)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    h->on_warn(h->user, msg);
}

/* Task k's document into store, once per attempt (DIR/stored/K). */
static void store_task(const mb__slurm_job *j, size_t k, mb__store *store,
                       const mb__slurm_hooks *h)
{
    mb_err err = {0};
    /* a task Slurm stopped has no result of its own to keep */
    if (!store || j->tasks[k].state > MB_SLURM_FAILED ||
        mb__slurm_is_stored(j, k))
        return;
    json_t *d = mb__slurm_task_doc(j, k, &err);
    if (!d)
        return;
    /* the store keeps the latest attempt of the task (store.h) */
    const json_t *sl =
        json_object_get(json_array_get(json_object_get(d, "runs"), 0), "slurm");
    json_t *key = json_sprintf("slurm:%s#%zu", j->dir, k);
    json_object_set_new(
        d, "attempt",
        json_pack("{s:o?, s:I}", "key", key, "number",
                  json_integer_value(json_object_get(sl, "attempt"))));
    const json_t *git =
        json_object_get(json_array_get(json_object_get(d, "runs"), 0), "git");
    if (mb__store_put(store, d, json_is_object(git) ? git : NULL, &err))
        warn(h, "--db: task %zu: %s", k, err.msg);
    else
        mb__slurm_mark_stored(j, k);
    json_decref(d);
}

/* Sleeps s seconds, or less when a signal comes. */
static void pause_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* The tasks that ended since the last look: reported and stored.
 * Returns how many are still open. */
static size_t take_ended(mb__slurm_job *j, unsigned char *seen,
                         size_t *finished, mb__store *store,
                         const mb__slurm_hooks *h)
{
    size_t open = 0;
    for (size_t k = 0; k < j->n; k++) {
        if (seen[k] || !mb__slurm_ended(&j->tasks[k])) {
            open += !seen[k];
            continue;
        }
        seen[k] = 1;
        ++*finished;
        if (h->on_task_end)
            h->on_task_end(h->user, j, k, *finished);
        store_task(j, k, store, h);
    }
    return open;
}

mb_status mb__slurm_follow(mb__slurm_job *j, mb__store *store,
                           const mb__slurm_hooks *h, mb_err *err)
{
    unsigned char *seen = mb__calloc(j->n, 1);
    size_t finished = 0;
    double wait = h->poll_s > 0 ? h->poll_s : 1.0;
    double most = h->poll_max_s > 0 ? h->poll_max_s : 30.0;
    if (!seen)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t k = 0; k < j->n; k++)
        seen[k] = !j->tasks[k].job[0]; /* never submitted */
    mb_status st = MB_OK;
    for (;;) {
        if ((st = mb__slurm_poll(j, err)))
            break;
        if (!take_ended(j, seen, &finished, store, h))
            break;
        if (h->on_progress) {
            mb__slurm_counts c;
            mb__slurm_count(j, &c);
            h->on_progress(h->user, j, &c);
        }
        if (h->cancel && *h->cancel) {
            st = mb__fail(err, MB_EINTERRUPTED, "interrupted");
            break;
        }
        pause_s(wait);
        wait = wait * 1.5 < most ? wait * 1.5 : most;
    }
    free(seen);
    return st;
}

mb_status mb__slurm_store_ended(mb__slurm_job *j, mb__store *store,
                                const mb__slurm_hooks *h, mb_err *err)
{
    mb_status st = mb__slurm_poll(j, err);
    for (size_t k = 0; !st && k < j->n; k++)
        if (mb__slurm_ended(&j->tasks[k]))
            store_task(j, k, store, h);
    return st;
}

json_t *mb__slurm_task_argv(const mb__slurm_job *j, size_t k)
{
    json_t *av = json_deep_copy(json_object_get(j->manifest, "argv"));
    const char *kind = json_string_value(json_array_get(av, 0));
    char shard[64];
    snprintf(shard, sizeof shard, "%zu/%zu", k, j->n);
    char *doc = mb__slurm_doc_path(j, k);
    int suite = kind && !strcmp(kind, "suite");
    /* right after the command's name, before any "--" */
    json_t *more = suite ? json_pack("[s,s,s,s,s]", "--shard", shard,
                                     "--output", doc, "-q")
                         : json_pack("[s,s,s]", "--json", doc, "-q");
    free(doc);
    json_t *ta = json_array_get(json_object_get(j->manifest, "task_args"), k);
    if (json_is_array(ta))
        json_array_extend(more, ta);
    for (size_t i = json_array_size(more); av && i-- > 0;)
        json_array_insert(av, 1, json_array_get(more, i));
    json_decref(more);
    return av;
}
