/* slurmopt.h - `suite|compare|run --slurm`: the options a command adds to
 * its table to submit its work to Slurm, and the driver that submits, follows
 * and collects it (cli/cmd_slurm.c, docs/SCALE.md). */
#ifndef MB_CLI_SLURMOPT_H
#define MB_CLI_SLURMOPT_H

#include "opt.h"

#include "exec/slurm.h"
#include "exec/suiterun.h"
#include "plan/plan.h"

#include <jansson.h>

/* The ids of the Slurm options, from MB_SLURM_OPT_BASE up (above every
 * command's own ids). */
#define MB_SLURM_OPT_BASE 900
typedef enum mb__slurm_opt_id {
    MB_SO_SLURM = MB_SLURM_OPT_BASE,
    MB_SO_NO_WAIT,
    MB_SO_DIR,
    MB_SO_RESUME,
    MB_SO_PARTITION,
    MB_SO_ACCOUNT,
    MB_SO_TIME,
    MB_SO_CPUS,
    MB_SO_MEM,
    MB_SO_EXCLUSIVE,
    MB_SO_SBATCH,
    MB_SO_THROTTLE,
    MB_SO_CONSTRAINT,
    MB_SO_JOB_NAME,
    MB_SO_LOG_DIR,
    MB_SO_SHARE,
    MB_SO_POLL,
    MB_SO_END
} mb__slurm_opt_id;

#define MB_SO_ROW(n, t, m, h, i)                                               \
    {                                                                          \
        .name = n, .type = t, .metavar = m, .help = h, .id = i                 \
    }
/* The rows of a command's option table (mb__opt initialisers). */
#define MB_SLURM_OPTS                                                          \
    MB_SO_ROW("slurm", MB_OPT_SWITCH, NULL,                                    \
              "submit to Slurm as a job array (suite: one array task per "     \
              "task; compare, run: per batch size), follow and collect "       \
              "(docs/SCALE.md)",                                               \
              MB_SO_SLURM),                                                    \
        MB_SO_ROW("no-wait", MB_OPT_SWITCH, NULL,                              \
                  "--slurm: return once submitted; 'mbench slurm "             \
                  "status|collect|resume|cancel DIR' go on",                   \
                  MB_SO_NO_WAIT),                                              \
        MB_SO_ROW(                                                             \
            "slurm-dir", MB_OPT_STRING, "DIR",                                 \
            "--slurm: the job directory on a file system the nodes share "     \
            "(default ./mbench-slurm-UTCTIME)",                                \
            MB_SO_DIR),                                                        \
        MB_SO_ROW(                                                             \
            "resume", MB_OPT_SWITCH, NULL,                                     \
            "--slurm: resubmit only the tasks of --slurm-dir that did not "    \
            "finish, and follow them",                                         \
            MB_SO_RESUME),                                                     \
        MB_SO_ROW("partition", MB_OPT_STRING, "NAME",                          \
                  "--slurm: sbatch --partition", MB_SO_PARTITION),             \
        MB_SO_ROW("account", MB_OPT_STRING, "NAME",                            \
                  "--slurm: sbatch --account", MB_SO_ACCOUNT),                 \
        {.name = "time-limit",                                                 \
         .type = MB_OPT_DURATION,                                              \
         .metavar = "D",                                                       \
         .help =                                                               \
             "--slurm: each array task's time limit (sbatch --time, whole "    \
             "minutes, rounded up)",                                           \
         .expect = "a duration like 30m",                                      \
         .id = MB_SO_TIME},                                                    \
        {.name = "cpus-per-task",                                              \
         .type = MB_OPT_INT,                                                   \
         .metavar = "N",                                                       \
         .help = "--slurm: sbatch --cpus-per-task",                            \
         .expect = "a count >= 1",                                             \
         .lo = 1,                                                              \
         .hi = 1000000,                                                        \
         .id = MB_SO_CPUS},                                                    \
        MB_SO_ROW("mem", MB_OPT_STRING, "SIZE",                                \
                  "--slurm: sbatch --mem (e.g. 4G)", MB_SO_MEM),               \
        MB_SO_ROW(                                                             \
            "exclusive", MB_OPT_SWITCH, NULL,                                  \
            "--slurm: each task alone on its node (sbatch --exclusive; the "   \
            "default)",                                                        \
            MB_SO_EXCLUSIVE),                                                  \
        {.name = "sbatch",                                                     \
         .type = MB_OPT_STRING,                                                \
         .metavar = "ARG",                                                     \
         .help = "--slurm: another sbatch option, as one word "                \
                 "(--sbatch=--gres=gpu:1; repeatable; not --array, --output, " \
                 "--job-name or --parsable: mbench sets those)",               \
         .flags = MB_OPT_REPEAT,                                               \
         .id = MB_SO_SBATCH},                                                  \
        {.name = "throttle",                                                   \
         .type = MB_OPT_INT,                                                   \
         .metavar = "N",                                                       \
         .help = "--slurm: at most N tasks at once (the array's %N; kept by "  \
                 "resume)",                                                    \
         .expect = "a count >= 1",                                             \
         .lo = 1,                                                              \
         .hi = 1000000,                                                        \
         .id = MB_SO_THROTTLE},                                                \
        MB_SO_ROW("constraint", MB_OPT_STRING, "FEATURES",                     \
                  "--slurm: sbatch --constraint (nodes with these features)",  \
                  MB_SO_CONSTRAINT),                                           \
        MB_SO_ROW("job-name", MB_OPT_STRING, "NAME",                           \
                  "--slurm: the Slurm job's name (default mbench)",            \
                  MB_SO_JOB_NAME),                                             \
        MB_SO_ROW(                                                             \
            "slurm-output", MB_OPT_DIR, "DIR",                                 \
            "--slurm: where the tasks' logs go (sbatch --output; default "     \
            "the job directory's logs/)",                                      \
            MB_SO_LOG_DIR),                                                    \
        MB_SO_ROW("share-nodes", MB_OPT_SWITCH, NULL,                          \
                  "--slurm: let tasks share a node (sbatch --oversubscribe): " \
                  "their timings may disturb each other",                      \
                  MB_SO_SHARE),                                                \
    {                                                                          \
        .name = "slurm-poll", .type = MB_OPT_DURATION, .metavar = "D",         \
        .help = "--slurm: the longest wait between two looks at the queue "    \
                "(default 30s; the first after 1 s, then 1.5 times longer)",   \
        .id = MB_SO_POLL                                                       \
    }

typedef struct mb__cli_slurm {
    int on, no_wait, resume;
    const char *dir;
    double poll_max_s;
    mb__slurm_opts opts;
    json_t *sbatch; /* opts.sbatch: the --sbatch words */
} mb__cli_slurm;

/* An option of MB_SLURM_OPTS into s: 0, or 1 when o is not one of them. */
int mb_cli_slurm_opt(mb__cli_slurm *s, const mb__opt *o, const mb__optval *v);
void mb_cli_slurm_free(mb__cli_slurm *s);

/* `suite --slurm`: argv is the suite's command line as given (argv[0] =
 * "suite"; before mb_opt_parse reordered it).  Submits (or resumes) the
 * job, follows it and merges the tasks' documents into *doc, storing each
 * task in so->store as it is collected; res as mb__suite_run fills it.
 * Returns 0 (*doc set: the caller prints and writes it as a suite's, or
 * NULL after --no-wait), else an exit code after printing. */
int mb_cli_suite_slurm(mb__cli_slurm *s, const mb__cmd *cmd, int argc,
                       char **argv, const mb__suite_opts *so, int quiet,
                       json_t **doc, mb__suite_result *res);

/* `compare --slurm`, `run --slurm`: one array task per batch size of
 * plan (one task when there is one), each running the command with
 * --json into the job directory; the interleaving of a compare stays in
 * its task.  *doc is the tasks' documents as one of the command's kind,
 * each run with its "slurm" (the caller prints, judges and writes it as
 * its own).  Returns 0 when every task finished (or after --no-wait, *doc
 * NULL), else an exit code after printing (3 when a task did not finish:
 * *doc may still hold the others). */
int mb_cli_batch_slurm(mb__cli_slurm *s, const mb__cmd *cmd, int argc,
                       char **argv, const mb__plan *plan, int quiet,
                       json_t **doc);

struct mb__store;

/* Follows the job j (no_wait: one look), storing each suite task that
 * ends in store (may be NULL), printing each task as it ends and a
 * progress line on a terminal; Ctrl-C offers to cancel the job.  0, or
 * an exit code after printing. */
int mb_cli_slurm_follow(mb__slurm_job *j, struct mb__store *store, int quiet,
                        int no_wait, double poll_max_s);
/* Prints what did not finish and how to resume it: 3 when a task did
 * not, else 0. */
int mb_cli_slurm_unfinished(const mb__slurm_job *j);

#endif
