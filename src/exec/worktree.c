/* worktree.c - temporary git worktrees per branch (see worktree.h). */
#include "exec/worktree.h"

#include "core/alloc.h"
#include "core/err.h"
#include "exec/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct entry {
    char *branch, *path, *commit, *date;
} entry;

struct mb_worktrees {
    char *repo;
    char *tmp;
    entry *e;
    size_t n, cap;
};

/* git commands get ten minutes each. */
#define GIT_TIMEOUT_NS 600000000000LL

static mb_status git(char *const *argv, char **out, mb_err *err)
{
    return mb__proc_capture(argv, NULL, GIT_TIMEOUT_NS, out, err);
}

mb_status mb__worktrees_open(const char *dir, mb_worktrees **out, int *dirty,
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
    char *a2[] = {"git", "-C", top, "status", "--porcelain",
                  "--untracked-files=no", NULL};
    if (git(a2, &status, NULL) == MB_OK && status[0])
        *dirty = 1;
    free(status);
    mb_worktrees *w = mb__calloc(1, sizeof *w);
    const char *tmpdir = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/mbench-worktrees.XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!w || !mkdtemp(tmpl) || !(w->tmp = mb__strdup(tmpl))) {
        free(top);
        free(w);
        return mb__fail(err, MB_EIO, "cannot create a temporary directory "
                                     "for worktrees under %s; set TMPDIR",
                        tmpdir && *tmpdir ? tmpdir : "/tmp");
    }
    w->repo = top;
    *out = w;
    return MB_OK;
}

const char *mb__worktrees_repo(const mb_worktrees *w) { return w->repo; }

mb_status mb__worktrees_get(mb_worktrees *w, const char *branch,
                            mb_worktree_info *info, mb_err *err)
{
    memset(info, 0, sizeof *info);
    entry *e = NULL;
    for (size_t i = 0; i < w->n && !e; i++)
        if (!strcmp(w->e[i].branch, branch))
            e = &w->e[i];
    if (!e) {
        if (!branch[0] || branch[0] == '-')
            return mb__fail(err, MB_EINVAL, "invalid branch name '%s'", branch);
        char rev[1024];
        snprintf(rev, sizeof rev, "%s^{commit}", branch);
        char *commit = NULL, *date = NULL;
        char *a1[] = {"git", "-C", w->repo, "rev-parse", "--verify", "--quiet",
                      rev, NULL};
        if (git(a1, &commit, NULL) != MB_OK || !commit[0]) {
            free(commit);
            return mb__fail(err, MB_EINVAL,
                            "branch '%s' not found in %s (git branch -a "
                            "lists the branches; fetch it or fix the tasks "
                            "file)",
                            branch, w->repo);
        }
        char *a2[] = {"git", "-C", w->repo, "log", "-1", "--format=%ct",
                      commit, NULL};
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
        char *a3[] = {"git", "-C", w->repo, "worktree", "add", "--detach",
                      "--quiet", path, commit, NULL};
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
            return mb__fail_prefix(err, "git worktree add for branch '%s'",
                                   branch);
        }
        if (!mb__grow((void **)&w->e, &w->cap, w->n + 1, sizeof *w->e)) {
            free(commit);
            free(date);
            return mb__fail(err, MB_ENOMEM, "out of memory");
        }
        e = &w->e[w->n++];
        e->branch = mb__strdup(branch);
        e->path = mb__strdup(path);
        e->commit = commit;
        e->date = date ? date : mb__strdup("");
    }
    info->branch = e->branch;
    info->path = e->path;
    info->commit = e->commit;
    info->commit_date = e->date;
    return MB_OK;
}

void mb__worktrees_close(mb_worktrees *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++) {
        char *a[] = {"git", "-C", w->repo, "worktree", "remove", "--force",
                     w->e[i].path, NULL};
        git(a, NULL, NULL);
        free(w->e[i].branch);
        free(w->e[i].path);
        free(w->e[i].commit);
        free(w->e[i].date);
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
