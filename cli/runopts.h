/* runopts.h - the options every measuring command shares (run, compare,
 * validate, profile, suite, load): runtime, inputs, warmup and stopping
 * rules.  They are declared once, in the library (plan/planopt.h), which
 * the public API mb_runner_set and compare's variant specifications
 * (compare/variant.h) use too; commands take them with MB_OPTSET_RUN (opt.h);
 * docs/CLI.md ("Run options"). */
#ifndef MB_CLI_RUNOPTS_H
#define MB_CLI_RUNOPTS_H

#include "plan/plan.h"

struct mb__opt;

/* The run options as CLI options (opt.h): count, and option i with its
 * help section in *group (NULL past the last).  Static storage. */
size_t mb_cli_runopts_count(void);
const struct mb__opt *mb_cli_runopt(size_t i, const char **group);
/* Sets run option o (from mb_cli_runopt) to arg in p; flag names it in
 * messages.  0, or an exit code after printing (2 for a bad value, 3 for
 * an output path that cannot be written). */
int mb_cli_runopts_set(mb__plan *p, const struct mb__opt *o, const char *flag,
                       const char *arg);
/* Checks cross-option consistency after parsing: 0 or 2 after printing. */
int mb_cli_runopts_finish(mb__plan *p);

#endif
