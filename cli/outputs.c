/* outputs.c - writing a result document where the user asked. */
#include "outputs.h"

#include "cli.h"
#include "core/buf.h"
#include "core/fileio.h"
#include "report/output.h"
#include "store/store.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { O_JSON = MB_OUTOPT_BASE, O_CSV, O_MD, O_HTML, O_DB, O_GITDIR };

const struct option mb_cli_output_options[] = {
    {"json", required_argument, NULL, O_JSON},
    {"csv", required_argument, NULL, O_CSV},
    {"md", required_argument, NULL, O_MD},
    {"html", required_argument, NULL, O_HTML},
    {"db", required_argument, NULL, O_DB},
    {"git-dir", required_argument, NULL, O_GITDIR},
    {NULL, 0, NULL, 0},
};

const char mb_cli_outputs_help[] =
    "Outputs:\n"
    "  --json FILE             the result document (docs/FORMATS.md);\n"
    "                          FILE '-' is stdout (the table goes to stderr)\n"
    "  --csv FILE              append one row per run (header once)\n"
    "  --md FILE               Markdown report (tables, verdict, warnings)\n"
    "  --html FILE             self-contained HTML report with charts\n"
    "  --db FILE|postgresql://...  append the results to a store\n"
    "  --git-dir DIR           project whose commit is stored (default .)\n";

int mb_cli_output_check(const char *flag, const char *path)
{
    mb_err e = {0};
    if (mb__output_check(path, &e) == MB_OK)
        return 0;
    return mb_cli_error(MB_EXIT_RUNTIME, "%s: %s", flag,
                        e.msg[0] ? e.msg : "cannot write there");
}

int mb_cli_output_dir_check(const char *flag, const char *dir)
{
    mb_err e = {0};
    if (mb__output_dir_check(dir, &e) == MB_OK)
        return 0;
    return mb_cli_error(MB_EXIT_RUNTIME, "%s: %s", flag,
                        e.msg[0] ? e.msg : "cannot write there");
}

/* The descriptor a document sent to "-" is written to, once stdout has
 * been handed to stderr; -1 before.  Process-wide, like stdout itself. */
static int doc_fd = -1;
static char doc_path[32];
static const char *doc_flag;

const char *mb_cli_stdout_document(const char *flag)
{
    if (doc_fd >= 0)
        return doc_path;
    fflush(stdout);
    doc_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (doc_fd < 0 || dup2(2, 1) < 0) {
        mb_cli_error(MB_EXIT_RUNTIME, "%s -: stdout is not open", flag);
        return NULL;
    }
    doc_flag = flag;
    snprintf(doc_path, sizeof doc_path, "/dev/fd/%d", doc_fd);
    return doc_path;
}

int mb_cli_output_arg(const char *flag, const char *arg, const char **path)
{
    if (strcmp(arg, "-") == 0) {
        if (doc_fd >= 0) {
            *path = NULL;
            return mb_cli_error(MB_EXIT_USAGE,
                                "%s - and %s - both write to stdout; send "
                                "one of them to a file",
                                doc_flag, flag);
        }
        *path = mb_cli_stdout_document(flag);
        return *path ? 0 : MB_EXIT_RUNTIME;
    }
    *path = arg;
    return mb_cli_output_check(flag, arg);
}

/* Checks one output at parse time; a bad one ends the process at once,
 * before anything is measured (the callers' loops cannot stop here). */
static const char *checked(const char *flag, const char *arg)
{
    const char *p;
    int rc = mb_cli_output_arg(flag, arg, &p);
    if (rc)
        exit(rc);
    return p;
}

/* A store is opened once while parsing: a typo in a URL, a refused
 * password or a file that is not a store fails before the run. */
static void check_store(const char *url)
{
    mb_err e = {0};
    mb__store *st = NULL;
    int pg = strncmp(url, "postgresql://", 13) == 0 ||
             strncmp(url, "postgres://", 11) == 0;
    if (!pg && mb_cli_output_check("--db", url))
        exit(MB_EXIT_RUNTIME);
    if (mb__store_open(url, &st, &e))
        exit(mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", e.msg));
    mb__store_close(st);
}

int mb_cli_outputs_handle(mb_cli_outputs *o, int c, const char *arg)
{
    switch (c) {
    case O_JSON: o->json = checked("--json", arg); return 1;
    case O_CSV: o->csv = checked("--csv", arg); return 1;
    case O_MD: o->md = checked("--md", arg); return 1;
    case O_HTML: o->html = checked("--html", arg); return 1;
    case O_DB:
        check_store(arg);
        o->db = arg;
        return 1;
    case O_GITDIR: o->git_dir = arg; return 1;
    }
    return 0;
}

static void print_failure(void *user, const mb_err *e)
{
    (void)user;
    mb_cli_fail(e);
}

/* The files are written by the output manager (src/report/output.h);
 * the store is appended here. */
int mb_cli_outputs_write(const mb_cli_outputs *o, json_t *doc)
{
    mb__outset files = {o->json, o->csv, o->md, o->html};
    int rc = mb__output_all(&files, doc, print_failure, NULL) != MB_OK;
    mb_err e = {0};
    if (o->db) {
        mb__store *st = NULL;
        json_t *git = mb__git_info(o->git_dir ? o->git_dir : ".");
        if (mb__store_open(o->db, &st, &e) || mb__store_put(st, doc, git, &e))
            rc |= mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", e.msg);
        mb__store_close(st);
        json_decref(git);
    }
    return rc ? MB_EXIT_RUNTIME : 0;
}
