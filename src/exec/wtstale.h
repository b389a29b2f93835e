/* wtstale.h - the worktrees a killed mbench left registered (issue 37).
 * A suite's worktrees live under $TMPDIR/mbench-worktrees.PID.XXXXXX
 * (worktree.c), PID the mbench that made them.  When a suite opens a
 * repository, the worktrees git lists under such a directory whose mbench
 * is no longer running (kill(PID, 0) fails with ESRCH) are removed (`git
 * worktree remove --force`, the directory deleted, `git worktree prune`).
 * A live mbench's worktrees, and any other worktree, are left alone. */
#ifndef MB_EXEC_WTSTALE_H
#define MB_EXEC_WTSTALE_H

#include <stddef.h>

/* Removes the stale worktrees of repo; returns how many. */
size_t mb__worktrees_clean_stale(const char *repo);

/* The pid in a worktree path ".../mbench-worktrees.PID.XXXXXX/wtN", or
 * 0 when path is not one of mbench's. */
long mb__worktree_owner(const char *path);

#endif
