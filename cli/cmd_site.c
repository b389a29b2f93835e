/* cmd_site.c - mbench site: a static site of every series in the results
 * store.  Parses the options and calls report/siterun.h (the request the
 * API's mb_site also calls), then prints one line of counts. */
#include "cli.h"
#include "opt.h"

#include "report/siterun.h"

#include <stdio.h>

MBENCH_COMMAND(site, cmd_site, "a static site of every series in the store")
MBENCH_OPTIONS(site, mb_cmd_site)

enum { O_DB, O_OUT, O_URL, O_GITDIR, O_NOGIT, O_BRANCH, O_COMPARE, O_BASELINE };

/* clang-format off */
static const mb__opt site_opts[] = {
    {.name = "db", .type = MB_OPT_STRING, .metavar = "FILE|URL", .help = "the results store (SQLite file, postgresql:// URL or libpq 'host=... dbname=...')", .id = O_DB},
    {.name = "out", .short_name = 'o', .type = MB_OPT_STRING, .metavar = "DIR", .help = "the directory the site is written to (created; pages there are updated in place)", .id = O_OUT},
    {.name = "commit-url", .type = MB_OPT_STRING, .metavar = "TEMPLATE", .help = "link commits to a forge: {sha} is replaced by the commit, e.g. https://github.com/ORG/REPO/commit/{sha}", .id = O_URL},
    {.name = "git-dir", .type = MB_OPT_DIR, .metavar = "DIR", .help = "the measured repository: points follow each branch's first-parent history (default: the current directory; commit dates where git cannot say)", .id = O_GITDIR},
    {.name = "no-git", .type = MB_OPT_SWITCH, .help = "order points by commit date only, without reading a repository", .id = O_NOGIT},
    {.name = "branch", .type = MB_OPT_STRING, .metavar = "NAME", .help = "the branch the index shows (default: main, else master, else the branch with the most points)", .id = O_BRANCH},
    {.name = "compare", .type = MB_OPT_STRING, .metavar = "NAME", .help = "the second branch of the branch view (default: the other branch with the newest commit)", .id = O_COMPARE},
    {.name = "baseline", .type = MB_OPT_STRING, .metavar = "REF", .help = "the index's 'vs baseline': a branch (its latest point) or a commit prefix (default: each series' first point)", .id = O_BASELINE},
};

const mb__cmd mb_cmd_site = {"site", NULL, "a static site of every series in the store",
    "Writes a static site of every series in the results store (model, variant, batch size and "
    "metric; exec and suite tasks with their phases and counters; one series per machine): an "
    "index with sparklines, filter and sort, a page per series with its points, CIs, change points "
    "and gate verdicts, the regressions (also as regressions.json) and a branch view.  No server "
    "and no network at view time.  Regenerating re-renders only the pages whose series changed; "
    "the same store gives the same bytes.",
    site_opts, 8, 0, 0, 0,
    "Exit codes: 0 written, 2 usage (a bad option, a branch or baseline the store lacks), 3 runtime "
    "error (store unreadable or damaged, directory not writable)."};
/* clang-format on */

typedef struct {
    mb__site_req rq;
    int no_git;
} sargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    sargs *a = user;
    const char **const strs[O_BASELINE + 1] = {[O_DB] = &a->rq.db,
                                               [O_OUT] = &a->rq.out_dir,
                                               [O_URL] = &a->rq.commit_url,
                                               [O_GITDIR] = &a->rq.git_dir,
                                               [O_BRANCH] = &a->rq.branch,
                                               [O_COMPARE] = &a->rq.compare,
                                               [O_BASELINE] = &a->rq.baseline};
    if (o->id == O_NOGIT)
        a->no_git = 1;
    else
        *strs[o->id] = v->str;
    return 0;
}

int cmd_site(int argc, char **argv)
{
    sargs a = {{0}, 0};
    a.rq.git_dir = ".";
    mb__opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_site, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    if (a.no_git)
        a.rq.git_dir = NULL;
    if (!a.rq.db)
        return mb_cli_error(MB_EXIT_USAGE, "site needs --db FILE or --db URL");
    if (!a.rq.out_dir)
        return mb_cli_error(MB_EXIT_USAGE, "site needs --out DIR");
    mb_err err = {0};
    mb__site_result res;
    if (mb__site_request(&a.rq, &res, &err))
        return mb_cli_fail(&err);
    if (!ctx.quiet)
        printf("site: %zu series from %zu runs on %zu machine(s), %zu change "
               "points and failed gates; %zu file(s) written, %zu unchanged, "
               "%zu removed; points in %s order -> %s/index.html\n",
               res.series, res.runs, res.machines, res.regressions, res.written,
               res.unchanged, res.removed,
               res.first_parent ? "first-parent" : "commit-date", a.rq.out_dir);
    return MB_EXIT_OK;
}
