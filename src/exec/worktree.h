/* worktree.h - branches checked out into temporary git worktrees, so that a
 * suite can run the code of several branches without touching the user's
 * working tree.  One worktree per branch (detached at the branch's commit),
 * reused by every task of that branch, all under one temporary directory,
 * all removed (`git worktree remove --force`, then `git worktree prune`) by
 * mb__worktrees_close.  The directory's name holds mbench's pid; opening
 * a repository removes the worktrees a killed mbench left (wtstale.h). */
#ifndef MB_EXEC_WORKTREE_H
#define MB_EXEC_WORKTREE_H

#include "mbench.h"

typedef struct mb__worktrees mb__worktrees;

typedef struct mb__worktree_info {
    const char *branch;      /* as asked */
    const char *path;        /* the worktree directory */
    const char *commit;      /* full hash */
    const char *commit_date; /* committer date, ISO 8601 UTC */
    const char *ref;         /* what it resolved to: "main",
                              * "refs/remotes/origin/x" */
} mb__worktree_info;

/* Opens the repository containing dir (or the current directory when
 * NULL).  *dirty is set when tracked files have uncommitted changes.
 * Caller frees with mb__worktrees_close. */
mb_status mb__worktrees_open(const char *dir, mb__worktrees **out, int *dirty,
                             mb_err *err);
/* The repository's top-level directory (borrowed). */
const char *mb__worktrees_repo(const mb__worktrees *w);
/* With fetch on, a branch not found is first fetched from its remote
 * ("origin/x" from origin, "x" from origin or the only remote). */
void mb__worktrees_set_fetch(mb__worktrees *w, int fetch);
/* The worktree of branch (created on first use).  A branch resolves to a
 * local branch or commit, else to the remote-tracking branch
 * refs/remotes/REMOTE/branch (origin first): a fresh clone's branches.
 * MB_EINVAL names a branch that does not exist and what would find it.
 * *info is borrowed until close. */
mb_status mb__worktrees_get(mb__worktrees *w, const char *branch,
                            mb__worktree_info *info, mb_err *err);
/* Removes every worktree and the temporary directory; NULL is a no-op. */
void mb__worktrees_close(mb__worktrees *w);

#endif
