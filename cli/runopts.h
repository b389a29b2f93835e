/* runopts.h - the options every measuring command shares (run, compare,
 * validate, profile, suite): runtime, inputs, warmup and stopping rules.
 * They are declared once, in the library (runner/planopt.h), which the
 * public API mb_runner_set uses too; docs/CLI.md ("Run options").
 *
 * Commands on the table parser (opt.h) take them with MB_OPTSET_RUN.
 * Commands still on getopt_long build their table with
 * mb_cli_runopts_merge(own, n_own) and pass every option code to
 * mb_cli_runopts_handle() first (the compatibility path). */
#ifndef MB_CLI_RUNOPTS_H
#define MB_CLI_RUNOPTS_H

#include "runner/plan.h"

#include <getopt.h>
#include <stdio.h>

struct mb_opt;

/* The run options as CLI options (opt.h): count, and option i with its
 * help section in *group (NULL past the last).  Static storage. */
size_t mb_cli_runopts_count(void);
const struct mb_opt *mb_cli_runopt(size_t i, const char **group);
/* Sets run option o (from mb_cli_runopt) to arg in p; flag names it in
 * messages.  0, or an exit code after printing (2 for a bad value, 3 for
 * an output path that cannot be written). */
int mb_cli_runopts_set(mb_plan *p, const struct mb_opt *o, const char *flag,
                       const char *arg);

/* Codes of the shared options start here; commands use codes below it. */
#define MB_RUNOPT_BASE 1000

/* A new table: own options followed by the shared ones, {0}-terminated.
 * Caller frees it with free(). */
struct option *mb_cli_runopts_merge(const struct option *own, size_t n_own);
/* The same, followed by the output options of outputs.h (--json, --csv,
 * --md, --html, --db, --git-dir). */
struct option *mb_cli_runopts_merge_outputs(const struct option *own,
                                            size_t n_own);
/* Returns 1 when c was a shared option and was applied, 0 when it is not a
 * shared option, -1 after printing a usage error (exit code 2). */
int mb_cli_runopts_handle(mb_plan *p, int c, const char *arg);
/* Applies one `key=value` in the spelling of the long option without
 * dashes (threads=2, opt-level=all, batch=1,4, ...): used by variant
 * specifications.  Returns 0 or -1 after printing a usage error. */
int mb_cli_runopts_apply_kv(mb_plan *p, const char *key, const char *value);
/* Prints the shared options' help. */
void mb_cli_runopts_usage(FILE *f);
/* Checks cross-option consistency after parsing; -1 after printing. */
int mb_cli_runopts_finish(mb_plan *p);

#endif
