/* outputs.c - writing a result document where the user asked. */
#include "outputs.h"

#include "cli.h"
#include "opt.h"
#include "core/buf.h"
#include "core/fileio.h"
#include "report/output.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { O_JSON = MB_OUTOPT_BASE, O_CSV, O_MD, O_HTML, O_DB, O_GITDIR, O_OUTDIR };

/* The output options, declared once: the table parser's entries (opt.h)
 * and the getopt_long table of the commands not yet converted. */
#define OUTPUT_OPTIONS(X)                                                      \
    X("json", MB_OPT_OUTFILE, "FILE", MB_OPT_STDOUT, NULL, O_JSON,             \
      "the result document (docs/FORMATS.md); FILE '-' is stdout (the "        \
      "table goes to stderr)")                                                 \
    X("csv", MB_OPT_OUTFILE, "FILE", MB_OPT_STDOUT, NULL, O_CSV,               \
      "append one row per run (header once)")                                  \
    X("md", MB_OPT_OUTFILE, "FILE", MB_OPT_STDOUT, NULL, O_MD,                 \
      "Markdown report (tables, verdict, warnings)")                           \
    X("html", MB_OPT_OUTFILE, "FILE", MB_OPT_STDOUT, NULL, O_HTML,             \
      "self-contained HTML report with charts")                                \
    X("db", MB_OPT_STRING, "FILE|postgresql://...", 0,                         \
      "a store file or a postgresql:// URL", O_DB,                             \
      "append the results to a store")                                         \
    X("git-dir", MB_OPT_DIR, "DIR", 0, NULL, O_GITDIR,                         \
      "project whose commit is stored (default .)")                            \
    X("outdir", MB_OPT_DIR, "DIR", 0, NULL, O_OUTDIR,                          \
      "also write json, csv, md and html as "                                 \
      "DIR/mbench-CMD-YYYYmmddTHHMMSSZ.EXT (UTC; -2, -3... never overwrite)")

#define AS_OPT(name, type, meta, flags, expect, id, help)                      \
    {name, 0, type, meta, help, expect, NULL, 0, 0, flags, id},
#define AS_GETOPT(name, type, meta, flags, expect, id, help)                   \
    {name, required_argument, NULL, id},

static const mb_opt output_opts[MB_CLI_N_OUTPUT_OPTIONS] = {
    OUTPUT_OPTIONS(AS_OPT)};

const mb_opt *const mb_cli_output_opt_table = output_opts;

const struct option mb_cli_output_options[] = {
    OUTPUT_OPTIONS(AS_GETOPT){NULL, 0, NULL, 0}};

const char *mb_cli_outputs_help_text(void)
{
    static char text[3072];
    if (text[0])
        return text;
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    if (!f)
        return "";
    fputs("Outputs:\n", f);
    for (size_t i = 0; i < MB_CLI_N_OUTPUT_OPTIONS; i++)
        mb_opt_help_line(&output_opts[i], f);
    fclose(f);
    return text;
}

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
 * password or a file that is not a store fails before the run.  0 or an
 * exit code after printing. */
static int check_store(const char *url)
{
    mb_err e = {0};
    mb__store *st = NULL;
    int pg = strncmp(url, "postgresql://", 13) == 0 ||
             strncmp(url, "postgres://", 11) == 0;
    if (!pg && mb_cli_output_check("--db", url))
        return MB_EXIT_RUNTIME;
    if (mb__store_open(url, &st, &e))
        return mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", e.msg);
    mb__store_close(st);
    return 0;
}

int mb_cli_outputs_set(mb_cli_outputs *o, const mb_opt *opt, const char *arg)
{
    int rc;
    switch (opt->id) {
    case O_JSON:
        o->json = arg;
        return 0;
    case O_CSV:
        o->csv = arg;
        return 0;
    case O_MD:
        o->md = arg;
        return 0;
    case O_HTML:
        o->html = arg;
        return 0;
    case O_DB:
        if ((rc = check_store(arg)))
            return rc;
        o->db = arg;
        return 0;
    case O_GITDIR:
        o->git_dir = arg;
        return 0;
    case O_OUTDIR:
        if ((rc = mb_cli_output_dir_check("--outdir", arg)))
            return rc;
        o->outdir = arg;
        return 0;
    }
    return mb_cli_error(MB_EXIT_USAGE, "--%s is not an output option",
                        opt->name);
}

int mb_cli_outputs_handle(mb_cli_outputs *o, int c, const char *arg)
{
    switch (c) {
    case O_JSON:
        o->json = checked("--json", arg);
        return 1;
    case O_CSV:
        o->csv = checked("--csv", arg);
        return 1;
    case O_MD:
        o->md = checked("--md", arg);
        return 1;
    case O_HTML:
        o->html = checked("--html", arg);
        return 1;
    case O_DB:
        if (check_store(arg))
            exit(MB_EXIT_RUNTIME);
        o->db = arg;
        return 1;
    case O_GITDIR:
        o->git_dir = arg;
        return 1;
    case O_OUTDIR:
        if (mb_cli_output_dir_check("--outdir", arg))
            exit(MB_EXIT_RUNTIME);
        o->outdir = arg;
        return 1;
    }
    return 0;
}

int mb_cli_write_buf(const char *path, mb_buf *b)
{
    mb_err e = {0};
    if (b->oom) {
        mb__buf_free(b);
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory writing %s", path);
    }
    mb_status s =
        mb__write_file_atomic(path, b->data ? b->data : "", b->len, &e);
    mb__buf_free(b);
    return s ? mb_cli_fail(&e) : 0;
}

static void print_failure(void *user, const mb_err *e)
{
    (void)user;
    mb_cli_fail(e);
}

int mb_cli_write_json(const char *path, const json_t *doc, size_t flags)
{
    char *s = doc ? json_dumps(doc, flags) : NULL;
    mb_buf b = MB_BUF_INIT;
    if (!s)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory writing %s", path);
    mb__buf_puts(&b, s);
    mb__buf_putc(&b, '\n');
    free(s);
    return mb_cli_write_buf(path, &b);
}

static const char *const outdir_ext[4] = {"json", "csv", "md", "html"};

/* Creates (empty, exclusively) DIR/BASE.EXT for the four extensions;
 * 1 when all four were new, 0 when one existed (those made are removed),
 * -1 on another error (errno kept). */
static int reserve_set(const char *dir, const char *base, char *paths[4])
{
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(dir) + strlen(base) + 8;
        paths[i] = malloc(n);
        if (paths[i])
            snprintf(paths[i], n, "%s/%s.%s", dir, base, outdir_ext[i]);
        int fd = paths[i] ? open(paths[i], O_WRONLY | O_CREAT | O_EXCL |
                                               O_CLOEXEC, 0666)
                          : -1;
        if (fd >= 0) {
            close(fd);
            continue;
        }
        int e = paths[i] ? errno : ENOMEM;
        free(paths[i]);
        paths[i] = NULL;
        for (int j = 0; j < i; j++) {
            unlink(paths[j]);
            free(paths[j]);
            paths[j] = NULL;
        }
        errno = e;
        return e == EEXIST ? 0 : -1;
    }
    return 1;
}

int mb_cli_outdir_reserve(const char *dir, const char *cmd, char *paths[4])
{
    char kind[32], stamp[32], base[96];
    size_t k = 0;
    for (const char *c = cmd ? cmd : ""; *c && k < sizeof kind - 1; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
            *c == '-' || *c == '_')
            kind[k++] = *c;
    kind[k] = '\0';
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) ||
        !strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm))
        snprintf(stamp, sizeof stamp, "%lld", (long long)now);
    for (int n = 1; n < 10000; n++) {
        if (n == 1)
            snprintf(base, sizeof base, "mbench-%s-%s", k ? kind : "result",
                     stamp);
        else
            snprintf(base, sizeof base, "mbench-%s-%s-%d",
                     k ? kind : "result", stamp, n);
        int r = reserve_set(dir, base, paths);
        if (r == 1)
            return 0;
        if (r < 0)
            return mb_cli_error(MB_EXIT_RUNTIME,
                                "--outdir: cannot create %s/%s.*: %s "
                                "(check that the directory is still there "
                                "and writable)",
                                dir, base, strerror(errno));
    }
    return mb_cli_error(MB_EXIT_RUNTIME,
                        "--outdir: %s already holds 9999 result sets "
                        "for this second; choose another directory",
                        dir);
}

/* The files are written by the output manager (src/report/output.h);
 * the store is appended here. */
int mb_cli_outputs_write(const mb_cli_outputs *o, json_t *doc)
{
    mb__outset files = {o->json, o->csv, o->md, o->html};
    int rc = mb__output_all(&files, doc, print_failure, NULL) != MB_OK;
    if (o->outdir) {
        char *p[4] = {0};
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        if (mb_cli_outdir_reserve(o->outdir, kind, p))
            rc = 1;
        else {
            mb__outset dirset = {p[0], p[1], p[2], p[3]};
            rc |= mb__output_all(&dirset, doc, print_failure, NULL) != MB_OK;
        }
        for (int i = 0; i < 4; i++)
            free(p[i]);
    }
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
