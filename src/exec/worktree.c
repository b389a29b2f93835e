/* worktree.c - temporary git worktrees per branch (see worktree.h). */
#include "exec/worktree.h"

#include "core/alloc.h"
#include "core/err.h"
#include "exec/proc.h"
#include "exec/wtstale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct entry {
    char *branch, *path, *commit, *date, *ref;
} entry;

struct mb__worktrees {
    char *repo;
    char *tmp;
    entry *e;
    size_t n, cap;
    int fetch;
};

/* git commands get ten minutes each. */
#define GIT_TIMEOUT_NS 600000000000LL

static mb_status git(char *const *argv, char **out, mb_err *err)
{
    return mb__proc_capture(argv, NULL, GIT_TIMEOUT_NS, out, err);
}

mb_status mb__worktrees_open(const char *dir, mb__worktrees **out, int *dirty,
                             mb_err *err)
{
    *out = NULL;
    *dirty = 0;
    const char *d = dir ? dir : ".";
    char *top = NULL, *status = NULL;
    char *a1[] = {"git", "-C", (char *)d, "rev-parse", "--show-toplevel", NULL};
    mb_status st = git(a1, &top, err);
    if (st != MB_OK)
        return mb__fail(err, MB_EINVAL,
                        "'%s' is not inside a git repository (%s); pass "
                        "--repo DIR to name the repository holding the "
                        "branches",
                        d, err ? err->msg : "");
    char *a2[] = {"git",    "-C",          top,
                  "status", "--porcelain", "--untracked-files=no",
                  NULL};
    if (git(a2, &status, NULL) == MB_OK && status[0])
        *dirty = 1;
    free(status);
    mb__worktrees *w = mb__calloc(1, sizeof *w);
    const char *tmpdir = getenv("TMPDIR");
    char tmpl[4096];
    /* the pid in the name tells a later run whose they are (wtstale.h) */
    snprintf(tmpl, sizeof tmpl, "%s/mbench-worktrees.%ld.XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp", (long)getpid());
    if (!w || !mkdtemp(tmpl) || !(w->tmp = mb__strdup(tmpl))) {
        free(top);
        free(w);
        return mb__fail(err, MB_EIO,
                        "cannot create a temporary directory "
                        "for worktrees under %s; set TMPDIR",
                        tmpdir && *tmpdir ? tmpdir : "/tmp");
    }
    w->repo = top;
    mb__worktrees_clean_stale(top); /* those of a killed mbench */
    *out = w;
    return MB_OK;
}

const char *mb__worktrees_repo(const mb__worktrees *w)
{
    return w->repo;
}

void mb__worktrees_set_fetch(mb__worktrees *w, int fetch)
{
    w->fetch = fetch;
}

/* The commit of rev, or NULL. */
static char *commit_of(const mb__worktrees *w, const char *rev)
{
    char r[1100];
    snprintf(r, sizeof r, "%s^{commit}", rev);
    char *commit = NULL;
    char *a[] = {"git",      "-C",      w->repo, "rev-parse",
                 "--verify", "--quiet", r,       NULL};
    if (git(a, &commit, NULL) != MB_OK || !commit[0]) {
        free(commit);
        return NULL;
    }
    return commit;
}

/* The remote names of the repository, newline-separated (caller frees). */
static char *remotes(const mb__worktrees *w)
{
    char *out = NULL;
    char *a[] = {"git", "-C", w->repo, "remote", NULL};
    if (git(a, &out, NULL) != MB_OK) {
        free(out);
        return NULL;
    }
    return out;
}

/* Resolves branch: itself, else refs/remotes/R/branch for each remote R
 * (origin first).  *ref gets what it resolved to.  NULL when none. */
static char *resolve(const mb__worktrees *w, const char *branch, char **ref)
{
    char *c = commit_of(w, branch);
    if (c) {
        *ref = mb__strdup(branch);
        return c;
    }
    char *rs = remotes(w);
    char r[1100];
    snprintf(r, sizeof r, "refs/remotes/origin/%s", branch);
    if ((c = commit_of(w, r)) == NULL && rs) {
        char *save = NULL;
        for (char *t = strtok_r(rs, "\n", &save); t && !c;
             t = strtok_r(NULL, "\n", &save)) {
            snprintf(r, sizeof r, "refs/remotes/%s/%s", t, branch);
            c = commit_of(w, r);
        }
    }
    free(rs);
    if (c)
        *ref = mb__strdup(r);
    return c;
}

/* git fetch of branch ("origin/x": x from origin; "x": x from origin, or
 * from the only remote) into its remote-tracking ref. */
static mb_status fetch_branch(const mb__worktrees *w, const char *branch,
                              mb_err *err)
{
    char *rs = remotes(w);
    char remote[256] = "", name[1024], *save = NULL;
    snprintf(name, sizeof name, "%s", branch);
    for (char *t = rs ? strtok_r(rs, "\n", &save) : NULL; t;
         t = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(t);
        if (!strncmp(branch, t, n) && branch[n] == '/' && branch[n + 1]) {
            snprintf(remote, sizeof remote, "%s", t);
            snprintf(name, sizeof name, "%s", branch + n + 1);
            break;
        }
        if (!remote[0] || !strcmp(t, "origin"))
            snprintf(remote, sizeof remote, "%s", t);
    }
    free(rs);
    if (!remote[0])
        return mb__fail(err, MB_EINVAL,
                        "--fetch: %s has no remote to fetch "
                        "'%s' from (git remote add origin URL)",
                        w->repo, branch);
    char spec[2400];
    snprintf(spec, sizeof spec, "+refs/heads/%s:refs/remotes/%s/%s", name,
             remote, name);
    char *a[] = {"git", "-C", w->repo, "fetch", "--quiet", remote, spec, NULL};
    if (git(a, NULL, err) != MB_OK)
        return mb__fail_prefix(err, "git fetch %s %s", remote, name);
    return MB_OK;
}

mb_status mb__worktrees_get(mb__worktrees *w, const char *branch,
                            mb__worktree_info *info, mb_err *err)
{
    memset(info, 0, sizeof *info);
    entry *e = NULL;
    for (size_t i = 0; i < w->n && !e; i++)
        if (!strcmp(w->e[i].branch, branch))
            e = &w->e[i];
    if (!e) {
        if (!branch[0] || branch[0] == '-')
            return mb__fail(err, MB_EINVAL, "invalid branch name '%s'", branch);
        char *ref = NULL, *date = NULL;
        char *commit = resolve(w, branch, &ref);
        if (!commit && w->fetch) {
            mb_status fs = fetch_branch(w, branch, err);
            if (fs != MB_OK)
                return fs;
            commit = resolve(w, branch, &ref);
        }
        if (!commit)
            return mb__fail(err, MB_EINVAL,
                            "branch '%s' not found in %s: not a local branch, "
                            "commit or remote-tracking branch "
                            "(refs/remotes/*/%s)%s",
                            branch, w->repo, branch,
                            w->fetch ? ", and not on the remote either; "
                                       "check the name in the tasks file"
                                     : "; pass --fetch to fetch it from the "
                                       "remote (a shallow or single-branch "
                                       "clone has no other branches)");
        char *a2[] = {"git", "-C",           w->repo, "log",
                      "-1",  "--format=%ct", commit,  NULL};
        git(a2, &date, NULL);
        if (date && *date) { /* seconds -> ISO 8601 UTC, as the store has */
            time_t t = (time_t)strtoll(date, NULL, 10);
            struct tm tm;
            char iso[32];
            if (gmtime_r(&t, &tm) &&
                strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0) {
                free(date);
                date = mb__strdup(iso);
            }
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/wt%zu", w->tmp, w->n);
        char *a3[] = {"git",      "-C",      w->repo, "worktree", "add",
                      "--detach", "--quiet", path,    commit,     NULL};
        /* Shards of one suite may add worktrees to the same repository at
         * once; git then fails on its lock files: try again a few times. */
        mb_status st = git(a3, NULL, err);
        for (int tries = 1; st != MB_OK && tries < 6; tries++) {
            usleep(100000u * (unsigned)tries);
            st = git(a3, NULL, err);
        }
        if (st != MB_OK) {
            free(commit);
            free(date);
            free(ref);
            return mb__fail_prefix(err, "git worktree add for branch '%s'",
                                   branch);
        }
        if (!mb__grow((void **)&w->e, &w->cap, w->n + 1, sizeof *w->e)) {
            free(commit);
            free(date);
            free(ref);
            return mb__fail(err, MB_ENOMEM, "out of memory");
        }
        e = &w->e[w->n++];
        e->branch = mb__strdup(branch);
        e->path = mb__strdup(path);
        e->commit = commit;
        e->date = date ? date : mb__strdup("");
        e->ref = ref;
    }
    info->ref = e->ref;
    info->branch = e->branch;
    info->path = e->path;
    info->commit = e->commit;
    info->commit_date = e->date;
    return MB_OK;
}

void mb__worktrees_close(mb__worktrees *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++) {
        char *a[] = {"git",    "-C",      w->repo,      "worktree",
                     "remove", "--force", w->e[i].path, NULL};
        git(a, NULL, NULL);
        free(w->e[i].branch);
        free(w->e[i].path);
        free(w->e[i].commit);
        free(w->e[i].date);
        free(w->e[i].ref);
    }
    char *rmargv[] = {"rm", "-rf", w->tmp, NULL};
    git(rmargv, NULL, NULL);
    char *prune[] = {"git", "-C", w->repo, "worktree", "prune", NULL};
    git(prune, NULL, NULL);
    free(w->e);
    free(w->repo);
    free(w->tmp);
    free(w);
}
