/* outputs.h - the report flags shared by commands that produce a result
 * document (run, compare, validate, profile): --json, --csv, --md, --html,
 * --db and --git-dir.  Files are written atomically. */
#ifndef MB_CLI_OUTPUTS_H
#define MB_CLI_OUTPUTS_H

#include <getopt.h>
#include <jansson.h>

#define MB_OUTOPT_BASE 1500

typedef struct mb_cli_outputs {
    const char *json, *csv, *md, *html, *db, *git_dir;
} mb_cli_outputs;

/* The long options (codes from MB_OUTOPT_BASE), {0}-terminated, to append
 * to a command's table; and their count. */
extern const struct option mb_cli_output_options[];
#define MB_CLI_N_OUTPUT_OPTIONS 6
/* 1 when c was an output option (recorded in o), 0 otherwise. */
int mb_cli_outputs_handle(mb_cli_outputs *o, int c, const char *arg);
/* Writes every requested output of doc; returns an exit code (0 ok, 3 on
 * a write or store failure, after printing one line). */
int mb_cli_outputs_write(const mb_cli_outputs *o, json_t *doc);
/* Help text for the output flags. */
extern const char mb_cli_outputs_help[];

#endif
