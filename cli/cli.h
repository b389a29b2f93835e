/* cli.h - what every command shares: exit codes, error printing, number
 * and list parsing, terminal detection.  Commands live in cli/cmd_*.c and
 * register themselves with one line at file scope:
 *
 *   MBENCH_COMMAND(run, cmd_run, "benchmark one model")
 *
 * (the Makefile collects those lines into the dispatch table). */
#ifndef MB_CLI_H
#define MB_CLI_H

#include "core/parse.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes, documented in docs/CLI.md. */
enum {
    MB_EXIT_OK = 0,      /* success; for verdict commands: pass */
    MB_EXIT_FAIL = 1,    /* a verdict failed (validate, gate: regression) */
    MB_EXIT_USAGE = 2,   /* bad command line */
    MB_EXIT_RUNTIME = 3, /* a runtime error: file, model, runtime, data */
    MB_EXIT_INCONCLUSIVE = 4, /* gate: not enough evidence either way */
    MB_EXIT_ACCURACY = 5,     /* gate: accuracy gate failed */
    MB_EXIT_REQUIRE = 6,      /* a --require requirement was not met */
    MB_EXIT_INTERRUPTED = 130 /* Ctrl-C (128 + SIGINT) */
};

#define MBENCH_COMMAND(name, fn, summary) int fn(int argc, char **argv);

/* Prints "mbench: error: <msg>" on stderr (one line) and returns code. */
int mb_cli_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints "mbench: warning: <msg>". */
void mb_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Every string of doc's "warnings" as "mbench: warning: ..." on stderr:
 * what -q still says when the table (which lists them) is not printed. */
void mb_cli_doc_warnings(const json_t *doc);
/* Maps a library status to an exit code and prints err->msg. */
int mb_cli_fail(const mb_err *err);
/* Usage error for a bad flag value: names the flag, the value, the fix. */
int mb_cli_bad_value(const char *flag, const char *value, const char *expect);

/* Colour on fd: --color always/never when given; else never with NO_COLOR
 * (non-empty), always with FORCE_COLOR (non-empty, not "0"), otherwise
 * when fd is a terminal. */
int mb_cli_use_color(int fd);
/* --color WHEN: "auto", "always" or "never". */
void mb_cli_set_color(const char *when);
/* The exit code of an interrupted command: 128 + the signal that stopped
 * it (130 for Ctrl-C, SIGINT; 143 for SIGTERM); 130 when none arrived. */
int mb_cli_interrupted_exit(void);

/* Installs SIGINT/SIGTERM handlers (no SA_RESTART) that set the returned
 * flag; with second_exits, a second signal ends mbench at once (exit 130),
 * and so does the first when the run has not ended 5 s after it (a call
 * that does not return: a Python model's, in this process).
 * exec and suite pass 0: their children must still be killed. */
volatile int *mb_cli_cancel_flag(int second_exits);
/* Terminal width of fd, or 100 when it is not a terminal. */
int mb_cli_term_width(int fd);

/* The command line as one string (for result documents), with
 * passwords replaced by *** (core/redact.h). */
const char *mb_cli_command_line(void);
void mb_cli_set_command_line(int argc, char **argv);

#endif
