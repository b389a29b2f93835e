/* outputs.h - the report flags shared by commands that produce a result
 * document (run, compare, validate, exec, profile, load): --json, --csv,
 * --md, --html, --db, --git-dir and --outdir, recorded in the library's
 * output manager's destinations (report/output.h), which checks and
 * writes them.  Here: the flags, their checks at parse time (exit 3 with
 * one line naming the flag) and "-" for stdout. */
#ifndef MB_CLI_OUTPUTS_H
#define MB_CLI_OUTPUTS_H

#include "report/output.h"

#include <jansson.h>

struct mb__opt;

typedef mb__outset mb__cli_outputs;

/* The options for the table parser (opt.h, MB_OPTSET_OUTPUT). */
extern const struct mb__opt *const mb_cli_output_opt_table;
#define MB_CLI_N_OUTPUT_OPTIONS 7
/* Records option opt with a value already checked (a "-" already turned
 * into the stdout path) in o; --db and --outdir are checked here (a store
 * is opened once).  0 or an exit code after printing. */
int mb_cli_outputs_set(mb__cli_outputs *o, const struct mb__opt *opt,
                       const char *arg);
/* The output directory of mb__output_reserve for commands that write the
 * set themselves: 0 or an exit code after printing. */
int mb_cli_outdir_reserve(const char *dir, const char *cmd, char *paths[4]);
/* Writes every destination of o (mb__output_all): one that fails does not
 * stop the others.  0, or 3 after printing one line per failure. */
int mb_cli_outputs_write(const mb__cli_outputs *o, json_t *doc);
/* 0 when path (a file) or dir (a directory, created) can be written, else
 * 3 after printing "FLAG: reason (fix)". */
int mb_cli_output_check(const char *flag, const char *path);
int mb_cli_output_dir_check(const char *flag, const char *dir);
/* An output flag's value, for commands that print on stdout too: "-"
 * keeps stdout for the document alone (file descriptor 1 then points at
 * stderr, so tables and messages go there) and *path is /dev/fd/N, the
 * real stdout; a second "-" is a usage error (one document can have
 * stdout); anything else is checked as by mb_cli_output_check.  0 or an
 * exit code after printing. */
int mb_cli_output_arg(const char *flag, const char *arg, const char **path);

/* Writes b (freed here), or json_dumps(doc, flags) and a newline, to path
 * atomically (report/output.h): 0, or 3 after printing one line. */
struct mb__buf;
int mb_cli_write_buf(const char *path, struct mb__buf *b);
int mb_cli_write_json(const char *path, const json_t *doc, size_t flags);

#endif
