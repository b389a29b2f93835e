/* slurm.h - a suite as a Slurm job array (docs/SCALE.md).
 *
 * A job directory holds everything about one submission: job.json (the
 * manifest: the suite's argv, the task count, the sbatch options, every
 * submitted array and each task's current job id), task.sh (the batch
 * script: `mbench slurm task DIR`), logs/K-JOB.out (each attempt's log),
 * shard-K.json (task K's result document) and done/K.json (task K's
 * completion record, written by the task itself when its suite ends).
 *
 * Accounting is off on the clusters this was checked on (sacct has
 * nothing), so a task is followed by squeue while Slurm lists it, by its
 * completion record once it ended normally, and by `scontrol show job`
 * (kept MinJobAge seconds) or its log when it ended without one (time
 * limit, scancel, node failure, a crash). */
#ifndef MB_EXEC_SLURM_H
#define MB_EXEC_SLURM_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* Tasks of one job at most (Slurm's own MaxArraySize is 1001 by
 * default). */
#define MB_SLURM_MAX_TASKS 100000

typedef enum mb__slurm_state {
    MB_SLURM_UNSUBMITTED,
    MB_SLURM_PENDING,
    MB_SLURM_RUNNING,
    MB_SLURM_DONE,      /* completion record, exit 0 */
    MB_SLURM_FAILED,    /* completion record, exit != 0 */
    MB_SLURM_TIMEOUT,   /* Slurm's time limit */
    MB_SLURM_CANCELLED, /* scancel, or Slurm cancelled it */
    MB_SLURM_NODE_FAIL, /* its node failed (JobState=NODE_FAIL) */
    MB_SLURM_LOST       /* ended without a record, for another reason */
} mb__slurm_state;

typedef struct mb__slurm_task {
    mb__slurm_state state;
    char job[64];     /* "123_4": the current attempt's job id */
    char node[128];   /* where it ran (record or squeue) */
    char reason[512]; /* why it failed / what squeue says */
    int exit_code;    /* from the record */
    double start_s;   /* record: the task's start, end (Unix seconds) */
    double end_s;
    int restarts; /* Slurm's restart count of the current job (requeues) */
} mb__slurm_task;

typedef struct mb__slurm_job {
    char *dir;        /* absolute path of the job directory */
    json_t *manifest; /* job.json */
    size_t n;         /* tasks */
    mb__slurm_task *tasks;
} mb__slurm_job;

/* The options of a submission, as `--slurm` takes them (docs/SCALE.md);
 * zero/NULL members are not given.  mbench itself sets --array (with
 * throttle), --output (log_dir), --job-name and --parsable: an `sbatch`
 * word that sets one of them is refused, naming the option to use. */
typedef struct mb__slurm_opts {
    const char *partition, *account, *mem, *constraint;
    const char *job_name; /* default "mbench" */
    const char *log_dir;  /* default DIR/logs */
    int64_t time_min;     /* --time, minutes */
    int64_t cpus;         /* --cpus-per-task */
    int64_t throttle;     /* at most this many tasks at once (--array %N) */
    int exclusive;        /* whole nodes (the default for timed tasks) */
    int shared;           /* tasks may share a node (--oversubscribe) */
    const json_t *sbatch; /* more sbatch words, as given */
} mb__slurm_opts;

/* What a submission needs: the command's argv (without the driver's
 * options), its task count, the sbatch options, the mbench binary the
 * tasks run and the directory they start in. */
typedef struct mb__slurm_spec {
    const char *dir;
    const json_t *argv; /* strings: "suite", TASKS.csv, options... */
    size_t n_tasks;
    const mb__slurm_opts *opts;
    const char *mbench; /* absolute path */
    const char *cwd;    /* --chdir of the tasks */
    /* NULL, or per task an array of more options (compare and run: one
     * task per batch size, ["--batch", "B"]) */
    const json_t *task_args;
} mb__slurm_spec;

/* Creates the job directory (refuses one that holds a job.json) with
 * its manifest and batch script; nothing is submitted yet. */
mb_status mb__slurm_create(const mb__slurm_spec *spec, mb__slurm_job **out,
                           mb_err *err);
/* The sbatch words of opts (a new array), or NULL with err naming an
 * option mbench controls itself. */
json_t *mb__slurm_sbatch_words(const mb__slurm_opts *opts, mb_err *err);

/* Opens the job directory dir (its job.json). */
mb_status mb__slurm_open(const char *dir, mb__slurm_job **out, mb_err *err);
void mb__slurm_free(mb__slurm_job *j);

/* Submits the tasks idx[0..k-1] as one array (sbatch --array=LIST),
 * moving their old records and documents aside; *jobid (64 bytes) gets
 * the array's job id.  MB_ECHILD when sbatch fails (err has its last
 * line). */
mb_status mb__slurm_submit(mb__slurm_job *j, const size_t *idx, size_t k,
                           char *jobid, mb_err *err);

/* One look at the cluster: squeue, then the completion records, then
 * `scontrol show job` for tasks that left the queue without one.
 * MB_EIO when squeue fails (slurmctld down or unreachable). */
mb_status mb__slurm_poll(mb__slurm_job *j, mb_err *err);

/* 1 when the task has ended (done or failed in any way). */
int mb__slurm_ended(const mb__slurm_task *t);
const char *mb__slurm_state_name(mb__slurm_state s);

/* Task k's path: its result document, its current log. (caller frees) */
char *mb__slurm_doc_path(const mb__slurm_job *j, size_t k);
char *mb__slurm_log_path(const mb__slurm_job *j, size_t k);

/* Task k's result document with "slurm": {job_id, array_job_id,
 * array_task_id, node, cpu_model, partition, attempt} in each run, or
 * NULL when it has none (a task killed before writing it). */
json_t *mb__slurm_task_doc(const mb__slurm_job *j, size_t k, mb_err *err);

/* scancel of every array of the job; *n gets how many (0: the job was
 * never submitted).  MB_ECHILD when scancel fails. */
mb_status mb__slurm_cancel(const mb__slurm_job *j, size_t *n, mb_err *err);

/* Inside a task, first: when Slurm runs it again (SLURM_RESTART_COUNT),
 * moves the last run's record and document aside (*.ARRAYJOB.rN), then
 * writes started/K.json (job ids, node, restart count). */
mb_status mb__slurm_task_begin(const mb__slurm_job *j, size_t k, mb_err *err);
/* Inside a task: writes done/K.json (exit code, node, job ids, Slurm's
 * restart count, start and end) atomically. */
mb_status mb__slurm_write_record(const char *dir, size_t k, int exit_code,
                                 double start_s, mb_err *err);

/* How many tasks are in each state. */
typedef struct mb__slurm_counts {
    size_t unsubmitted, pending, running, done, failed, timeout, cancelled,
        node_fail, lost;
    size_t requeued; /* of them: tasks Slurm requeued at least once */
} mb__slurm_counts;
void mb__slurm_count(const mb__slurm_job *j, mb__slurm_counts *c);
/* Tasks that ended without success (not those Slurm still holds). */
size_t mb__slurm_unfinished(const mb__slurm_job *j);

/* ---- the driver (slurmrun.c) ---- */

/* What the driver tells its caller while it follows a job.  Any member
 * may be NULL. */
typedef struct mb__slurm_hooks {
    /* after each look at the queue, while tasks are open */
    void (*on_progress)(void *user, const mb__slurm_job *j,
                        const mb__slurm_counts *c);
    /* task k ended (finished: how many have, this one included) */
    void (*on_task_end)(void *user, const mb__slurm_job *j, size_t k,
                        size_t finished);
    /* a task's document could not be stored */
    void (*on_warn)(void *user, const char *msg);
    void *user;
    volatile int *cancel; /* set (a signal): stop following */
    /* the first wait between two looks at the queue, and the longest:
     * each wait is 1.5 times the last (0: 1 s and 30 s) */
    double poll_s, poll_max_s;
} mb__slurm_hooks;

struct mb__store;

/* Creates the job directory of spec and submits every task as one array;
 * *jobid (64 bytes) gets its job id.  NULL dir, mbench and cwd are
 * ./mbench-slurm-UTCTIME, this program and the current directory.  When
 * sbatch fails the directory is left without a job (it can be used
 * again). */
mb_status mb__slurm_start(const mb__slurm_spec *spec, mb__slurm_job **out,
                          char *jobid, mb_err *err);
/* Resubmits the tasks that ended without success (after one look at the
 * queue).  *n gets their count (0: nothing to do, *jobid is then "").
 * MB_EINVAL while Slurm still holds a task of the job (pending, running
 * or requeued): err names it. */
mb_status mb__slurm_resume(mb__slurm_job *j, size_t *n, char *jobid,
                           mb_err *err);
/* Follows the job until every submitted task has ended, calling the hooks
 * and storing each task that wrote a document in store (may be NULL) as it
 * ends.  MB_EIO when squeue fails (slurmctld does not answer),
 * MB_EINTERRUPTED when *h->cancel was set. */
mb_status mb__slurm_follow(mb__slurm_job *j, struct mb__store *store,
                           const mb__slurm_hooks *h, mb_err *err);
/* One look at the queue, then the tasks that have ended stored (collect
 * --no-wait). */
mb_status mb__slurm_store_ended(mb__slurm_job *j, struct mb__store *store,
                                const mb__slurm_hooks *h, mb_err *err);
/* The command line task k runs (inside its array task): the job's argv
 * with the task's own options after the command's name.  A new array. */
json_t *mb__slurm_task_argv(const mb__slurm_job *j, size_t k);

/* Marks task k stored in a results store (DIR/stored/K), and asks. */
void mb__slurm_mark_stored(const mb__slurm_job *j, size_t k);
int mb__slurm_is_stored(const mb__slurm_job *j, size_t k);

#endif
