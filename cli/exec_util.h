/* exec_util.h - what `mbench exec` and `suite` (and `compare`, `load`,
 * `profile`, `run`) share on the CLI side: Ctrl-C handling, the rounds
 * progress line, the options exec and suite have in common, where exec's
 * program begins in argv, printing a rendered report.  Nothing here
 * measures (src/exec/) or renders a document (src/report/). */
#ifndef MB_CLI_EXEC_UTIL_H
#define MB_CLI_EXEC_UTIL_H

#include "exec/exec.h"
#include "reqopt.h"

#include <stdint.h>

struct mb__buf;
struct mb__cmd;
struct mb__opt;
struct mb__optval;

/* The progress line of runs over K fresh processes (run, compare), on
 * stderr, redrawn at most ten times a second after delay_ns: "WHAT: round
 * R of K (a fresh process per arm), T s".  Callers show it on terminals
 * only and clear the line when shown is set. */
typedef struct mb__cli_rounds {
    int64_t start, last, delay_ns;
    int shown;
} mb__cli_rounds;
void mb_cli_rounds_progress(mb__cli_rounds *ps, const char *what, size_t round,
                            size_t rounds, int64_t elapsed_ns);

/* Writes b (a rendered report) to stdout, flushes, and frees b. */
void mb_cli_put(struct mb__buf *b);

/* What exec and suite share among their options: the measurement options
 * (into *eo), --seed and --require. */
typedef struct mb__cli_execset {
    mb__exec_opts *eo; /* borrowed */
    int64_t seed;      /* 42 unless --seed */
    mb__cli_reqs reqs;
} mb__cli_execset;
/* Stores opt when it is one of --warmup, --runs, --seed, --prepare,
 * --cleanup, --shell, --gpu-memory, --timeout, --require (else does
 * nothing).  0, or an exit code after printing. */
int mb_cli_execset_opt(mb__cli_execset *s, const struct mb__opt *opt,
                       const struct mb__optval *v);
/* With --gpu-memory, opens NVML into eo->nvml and says on stderr whether
 * GPU memory is sampled (a warning with the reason when it is not). */
void mb_cli_execset_gpu(mb__cli_execset *s);
/* Frees the requirements and closes NVML (eo->nvml). */
void mb_cli_execset_free(mb__cli_execset *s);

/* The index in argv of the first word that is neither an option of cmd
 * (opt.h) nor an option's value: the program of `mbench exec CMD ARGS`,
 * whose own options are not mbench's ("--" when given; argc when none). */
int mb_cli_first_operand(const struct mb__cmd *cmd, int argc, char **argv);

#endif
