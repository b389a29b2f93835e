/* exec_util.h - what `mbench exec`, `suite` (and `compare`, `load`,
 * `profile`) share on the CLI side: Ctrl-C handling, human-readable
 * durations and sizes, printing measured commands and suite tasks, where
 * exec's program begins in argv, writing a document.  Nothing here
 * measures: the engines are in src/exec/. */
#ifndef MB_CLI_EXEC_UTIL_H
#define MB_CLI_EXEC_UTIL_H

#include "exec/exec.h"
#include "exec/suiterun.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* The progress line of runs over K fresh processes (run, compare), on
 * stderr, redrawn at most ten times a second after delay_ns: "WHAT: round
 * R of K (a fresh process per arm), T s".  Callers show it on terminals
 * only and clear the line when shown is set. */
typedef struct mb_cli_rounds {
    int64_t start, last, delay_ns;
    int shown;
} mb_cli_rounds;
void mb_cli_rounds_progress(mb_cli_rounds *ps, const char *what, size_t round,
                            size_t rounds, int64_t elapsed_ns);

/* Installs SIGINT/SIGTERM handlers (no SA_RESTART) that set the returned
 * flag; with second_exits, a second signal ends mbench at once (exit 130).
 * exec and suite pass 0: their children must still be killed. */
volatile int *mb_cli_cancel_flag(int second_exits);

/* "51.2 ms", "1.53 s", "812 us" (ns in) into buf. */
const char *mb_cli_fmt_ns(double ns, char *buf, size_t len);
/* "12.4 MiB" into buf; "-" for negative. */
const char *mb_cli_fmt_bytes(double b, char *buf, size_t len);

/* Prints one RUN object of kind exec (console form). */
void mb_cli_print_exec_run(FILE *f, const json_t *run);
/* Prints a "comparison" object. */
void mb_cli_print_comparison(FILE *f, const json_t *cmp);

/* Prints a document of kind exec: every run, then the comparison. */
void mb_cli_print_exec_doc(FILE *f, const json_t *doc);

/* Prints a suite's "comparison" (mb__suite_comparison) on stdout: the
 * speedup of each branch against the first, per experiment. */
void mb_cli_print_suite_comparison(const json_t *cmp);

/* Prints "[K/N] " and one finished suite task (its run and git commit)
 * on stdout. */
void mb_cli_print_suite_run(size_t k, size_t selected, const json_t *r);

/* The index in argv of the first word that is neither an option of cmd
 * (opt.h) nor an option's value: the program of `mbench exec CMD ARGS`,
 * whose own options are not mbench's ("--" when given; argc when none). */
struct mb_cmd;
int mb_cli_first_operand(const struct mb_cmd *cmd, int argc, char **argv);

/* exec's progress line on stderr (mb_exec_opts.progress). */
void mb_cli_exec_progress(void *user, const mb_exec_cmd *c, int warmup,
                          size_t run, const mb_proc_result *r);
/* With o->gpu_memory, opens NVML into o->nvml and says on stderr whether
 * GPU memory is sampled. */
void mb_cli_exec_gpu_open(mb_exec_opts *o);
/* Sets so's callbacks to print each task as it starts and ends (not while
 * *quiet) and warnings, on the console. */
void mb_cli_suite_console(mb_suite_opts *so, const int *quiet);

/* Writes doc as indented JSON atomically; prints the error and returns
 * MB_EXIT_RUNTIME on failure, 0 on success. */
int mb_cli_write_doc(const char *path, const json_t *doc);

#endif
