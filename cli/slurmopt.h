/* slurmopt.h - `suite|compare|run --slurm`: the options a command adds to
 * its table to submit its work to Slurm, and the driver that submits, follows
 * and collects it (cli/cmd_slurm.c, docs/SCALE.md). */
#ifndef MB_CLI_SLURMOPT_H
#define MB_CLI_SLURMOPT_H

#include "opt.h"

#include "exec/suiterun.h"
#include "plan/plan.h"

#include <jansson.h>

/* Option ids from here up belong to the Slurm options. */
#define MB_SLURM_OPT_BASE 900

/* The rows of a command's option table (mb_opt initialisers). */
/* clang-format off */
#define MB_SLURM_OPTS \
    {"slurm", 0, MB_OPT_SWITCH, NULL, "submit to Slurm as a job array (suite: one array task per task; compare, run: per batch size), follow and collect (docs/SCALE.md)", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 0}, \
    {"no-wait", 0, MB_OPT_SWITCH, NULL, "--slurm: return once submitted; 'mbench slurm status|collect|resume|cancel DIR' go on", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 1}, \
    {"slurm-dir", 0, MB_OPT_STRING, "DIR", "--slurm: the job directory on a file system the nodes share (default ./mbench-slurm-UTCTIME)", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 2}, \
    {"resume", 0, MB_OPT_SWITCH, NULL, "--slurm: resubmit only the tasks of --slurm-dir that did not finish, and follow them", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 3}, \
    {"partition", 0, MB_OPT_STRING, "NAME", "--slurm: sbatch --partition", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 4}, \
    {"account", 0, MB_OPT_STRING, "NAME", "--slurm: sbatch --account", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 5}, \
    {"time-limit", 0, MB_OPT_DURATION, "D", "--slurm: each array task's time limit (sbatch --time, whole minutes, rounded up)", "a duration like 30m", NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 6}, \
    {"cpus-per-task", 0, MB_OPT_INT, "N", "--slurm: sbatch --cpus-per-task", "a count >= 1", NULL, 1, 1000000, 0, MB_SLURM_OPT_BASE + 7}, \
    {"mem", 0, MB_OPT_STRING, "SIZE", "--slurm: sbatch --mem (e.g. 4G)", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 8}, \
    {"exclusive", 0, MB_OPT_SWITCH, NULL, "--slurm: sbatch --exclusive: each task alone on its node, for quiet measurements", NULL, NULL, 0, 0, 0, MB_SLURM_OPT_BASE + 9}, \
    {"sbatch", 0, MB_OPT_STRING, "ARG", "--slurm: another sbatch option, as one word (--sbatch=--gres=gpu:1; repeatable)", NULL, NULL, 0, 0, MB_OPT_REPEAT, MB_SLURM_OPT_BASE + 10}
/* clang-format on */

typedef struct mb_cli_slurm {
    int on, no_wait, resume;
    const char *dir;
    json_t *sbatch; /* the sbatch options, as strings */
} mb_cli_slurm;

/* An option of MB_SLURM_OPTS into s: 0, or 1 when o is not one of them. */
int mb_cli_slurm_opt(mb_cli_slurm *s, const mb_opt *o, const mb_optval *v);
void mb_cli_slurm_free(mb_cli_slurm *s);

/* `suite --slurm`: argv is the suite's command line as given (argv[0] =
 * "suite"; before mb_opt_parse reordered it).  Submits (or resumes) the
 * job, follows it and merges the tasks' documents into *doc, storing each
 * task in so->store as it is collected; res as mb__suite_run fills it.
 * Returns -1 when *doc is set (the caller prints and writes it as a
 * suite's), else an exit code after printing (0 after --no-wait). */
int mb_cli_suite_slurm(mb_cli_slurm *s, const mb_cmd *cmd, int argc,
                       char **argv, const mb_suite_opts *so, int quiet,
                       json_t **doc, mb_suite_result *res);

/* `compare --slurm`, `run --slurm`: one array task per batch size of
 * plan (one task when there is one), each running the command with
 * --json into the job directory; the interleaving of a compare stays in
 * its task.  *doc is the tasks' documents as one of the command's kind,
 * each run with its "slurm" (the caller prints, judges and writes it as
 * its own).  Returns -1 when every task finished, else an exit code
 * after printing (3 when a task did not finish: *doc may still hold the
 * others; 0 after --no-wait). */
int mb_cli_batch_slurm(mb_cli_slurm *s, const mb_cmd *cmd, int argc,
                       char **argv, const mb_plan *plan, int quiet,
                       json_t **doc);

#endif
