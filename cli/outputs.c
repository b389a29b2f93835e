/* outputs.c - the output flags on the command line (outputs.h); the
 * library's output manager (report/output.h) checks and writes. */
#include "outputs.h"

#include "cli.h"
#include "opt.h"
#include "core/fileio.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { O_JSON, O_CSV, O_MD, O_HTML, O_DB, O_GITDIR, O_OUTDIR };

#define OUTFILE(name, id, help)                                                \
    {                                                                          \
        name, 0, MB_OPT_OUTFILE, "FILE", help, NULL, NULL, 0, 0,               \
            MB_OPT_STDOUT, id                                                  \
    }

static const mb__opt output_opts[MB_CLI_N_OUTPUT_OPTIONS] = {
    OUTFILE("json", O_JSON,
            "the result document (docs/FORMATS.md); FILE '-' is stdout (the "
            "table goes to stderr)"),
    OUTFILE("csv", O_CSV, "append one row per run (header once)"),
    OUTFILE("md", O_MD, "Markdown report (tables, verdict, warnings)"),
    OUTFILE("html", O_HTML, "self-contained HTML report with charts"),
    {"db", 0, MB_OPT_STRING, "FILE|postgresql://...",
     "append the results to a store (SQLite file or sqlite:FILE, postgresql:// "
     "URL, libpq 'host=... dbname=...')",
     "a store file, a postgresql:// URL or a libpq keyword string", NULL, 0, 0,
     0, O_DB},
    {"git-dir", 0, MB_OPT_DIR, "DIR",
     "project whose commit is stored (default .)", NULL, NULL, 0, 0, 0,
     O_GITDIR},
    {"outdir", 0, MB_OPT_DIR, "DIR",
     "also write json, csv, md and html as DIR/mbench-CMD-YYYYmmddTHHMMSSZ.EXT "
     "(UTC; -2, -3... never overwrite)",
     NULL, NULL, 0, 0, 0, O_OUTDIR},
};

const mb__opt *const mb_cli_output_opt_table = output_opts;

/* A destination the library refused, as one line naming the flag. */
static int refused(const char *flag, mb_status st, const mb_err *e)
{
    if (st == MB_OK)
        return 0;
    return mb_cli_error(MB_EXIT_RUNTIME, "%s: %s", flag,
                        e->msg[0] ? e->msg : "cannot write there");
}

int mb_cli_output_check(const char *flag, const char *path)
{
    mb_err e = {0};
    return refused(flag, mb__output_check(path, &e), &e);
}

int mb_cli_output_dir_check(const char *flag, const char *dir)
{
    mb_err e = {0};
    return refused(flag, mb__output_dir_check(dir, &e), &e);
}

int mb_cli_output_arg(const char *flag, const char *arg, const char **path)
{
    /* the descriptor of the real stdout once a document has it; stdout is
     * process-wide, so is this */
    static char doc_path[32];
    static const char *doc_flag;
    *path = arg;
    if (strcmp(arg, "-") != 0)
        return mb_cli_output_check(flag, arg);
    *path = NULL;
    if (doc_flag)
        return mb_cli_error(MB_EXIT_USAGE,
                            "%s - and %s - both write to stdout; send one of "
                            "them to a file",
                            doc_flag, flag);
    fflush(stdout);
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 || dup2(2, 1) < 0)
        return mb_cli_error(MB_EXIT_RUNTIME, "%s -: stdout is not open", flag);
    doc_flag = flag;
    snprintf(doc_path, sizeof doc_path, "/dev/fd/%d", fd);
    *path = doc_path;
    return 0;
}

int mb_cli_outputs_set(mb__cli_outputs *o, const mb__opt *opt, const char *arg)
{
    mb_err e = {0};
    const char **field[MB_CLI_N_OUTPUT_OPTIONS] = {
        [O_JSON] = &o->json,    [O_CSV] = &o->csv, [O_MD] = &o->md,
        [O_HTML] = &o->html,    [O_DB] = &o->db,   [O_GITDIR] = &o->git_dir,
        [O_OUTDIR] = &o->outdir};
    int rc = opt->id == O_DB
                 ? refused("--db", mb__output_store_check(arg, &e), &e)
             : opt->id == O_OUTDIR ? mb_cli_output_dir_check("--outdir", arg)
                                   : 0;
    if (!rc)
        *field[opt->id] = arg;
    return rc;
}

int mb_cli_outdir_reserve(const char *dir, const char *cmd, char *paths[4])
{
    mb_err e = {0};
    return refused("--outdir", mb__output_reserve(dir, cmd, paths, &e), &e);
}

static void print_failure(void *user, const mb_err *e)
{
    (void)user;
    mb_cli_fail(e);
}

int mb_cli_outputs_write(const mb__cli_outputs *o, json_t *doc)
{
    return mb__output_all(o, doc, print_failure, NULL) ? MB_EXIT_RUNTIME : 0;
}

int mb_cli_write_buf(const char *path, mb__buf *b)
{
    mb_err e = {0};
    return mb__output_buf(path, b, &e) ? mb_cli_fail(&e) : 0;
}

int mb_cli_write_json(const char *path, const json_t *doc, size_t flags)
{
    mb_err e = {0};
    return mb__output_json_as(path, doc, flags, &e) ? mb_cli_fail(&e) : 0;
}
