/* outputs.h - the report flags shared by commands that produce a result
 * document (run, compare, validate, exec, profile, load): --json, --csv,
 * --md, --html, --db, --git-dir and --outdir.  Files are written
 * atomically. */
#ifndef MB_CLI_OUTPUTS_H
#define MB_CLI_OUTPUTS_H

#include <getopt.h>
#include <jansson.h>

struct mb_opt;

#define MB_OUTOPT_BASE 1500

typedef struct mb_cli_outputs {
    const char *json, *csv, *md, *html, *db, *git_dir;
    const char *outdir; /* --outdir: every format, timestamped names */
} mb_cli_outputs;

/* The long options (codes from MB_OUTOPT_BASE), {0}-terminated, to append
 * to a command's table; and their count. */
extern const struct option mb_cli_output_options[];
#define MB_CLI_N_OUTPUT_OPTIONS 7
/* 1 when c was an output option (recorded in o), 0 otherwise.  Each path
 * is checked here, while parsing, so that nothing is measured for an
 * output that cannot be written: missing directories are created, and a
 * path that cannot be written (or a store that cannot be opened) ends the
 * process at once with one line naming the flag (exit 3).  "-" sends the
 * document to stdout (mb_cli_stdout_document). */
int mb_cli_outputs_handle(mb_cli_outputs *o, int c, const char *arg);
/* The four files --outdir writes for one document of command cmd (doc's
 * "kind"): DIR/mbench-CMD-YYYYmmddTHHMMSSZ.{json,csv,md,html} in UTC,
 * with -2, -3... before the extension when any of the four exists.  They
 * are created empty with O_EXCL (so two processes never share a name)
 * and then replaced by the writers.  paths[0..3] (json, csv, md, html):
 * caller frees each.  0, or an exit code after printing. */
int mb_cli_outdir_reserve(const char *dir, const char *cmd, char *paths[4]);
/* Writes every requested output of doc (and the --outdir set): one that
 * fails does not stop the others.  Returns an exit code (0 ok, 3 when any write or the store
 * failed, after printing one line per failure). */
int mb_cli_outputs_write(const mb_cli_outputs *o, json_t *doc);
/* The checks of mb_cli_outputs_handle, for commands with output flags of
 * their own: 0 when path (a file) or dir (a directory, created) can be
 * written, else an exit code after printing "FLAG: reason (fix)". */
int mb_cli_output_check(const char *flag, const char *path);
int mb_cli_output_dir_check(const char *flag, const char *dir);
/* For a document written to "-": keeps stdout for the document alone by
 * pointing file descriptor 1 (everything the command prints: tables,
 * messages) at stderr, and returns the path (/dev/fd/N) that writes to
 * the real stdout (NULL after printing when stdout is not open). */
const char *mb_cli_stdout_document(const char *flag);
/* An output flag's value, for commands that print on stdout too: "-"
 * becomes mb_cli_stdout_document() (a second "-" is a usage error: only
 * one document can have stdout), anything else is checked as by
 * mb_cli_output_check.  *path is what to write to; returns 0 or an exit
 * code after printing. */
int mb_cli_output_arg(const char *flag, const char *arg, const char **path);
/* The same options for the table parser (opt.h, MB_OPTSET_OUTPUT), and
 * what it calls with a value already checked (a "-" already turned into
 * the stdout path): records it in o; for --db opens the store once.  0 or
 * an exit code after printing. */
extern const struct mb_opt *const mb_cli_output_opt_table;
int mb_cli_outputs_set(mb_cli_outputs *o, const struct mb_opt *opt,
                       const char *arg);
/* Help text for the output flags (the getopt_long commands), generated
 * from the table once; static storage. */
const char *mb_cli_outputs_help_text(void);
#define mb_cli_outputs_help (mb_cli_outputs_help_text())

/* Writes b (freed here) to path atomically: 0, or MB_EXIT_RUNTIME after
 * printing one line (out of memory while b was built, or the write). */
struct mb_buf;
int mb_cli_write_buf(const char *path, struct mb_buf *b);
/* Writes json_dumps(doc, flags) and a newline to path the same way (a
 * NULL doc is out of memory). */
int mb_cli_write_json(const char *path, const json_t *doc, size_t flags);

#endif
