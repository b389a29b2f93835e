/* wtstale.c - removing the worktrees of a killed mbench (wtstale.h). */
#include "exec/wtstale.h"

#include "core/alloc.h"
#include "exec/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIT_TIMEOUT_NS 600000000000LL
#define PREFIX "mbench-worktrees."

long mb__worktree_owner(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0;
    const char *d = slash;
    while (d > path && d[-1] != '/')
        d--;
    size_t pl = strlen(PREFIX);
    if ((size_t)(slash - d) <= pl || strncmp(d, PREFIX, pl) != 0 ||
        strncmp(slash + 1, "wt", 2) != 0)
        return 0;
    char *end = NULL;
    long pid = strtol(d + pl, &end, 10);
    if (pid <= 0 || !end || *end != '.')
        return 0;
    return pid;
}

static int dead(long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes one stale worktree and the directory above it. */
static void remove_one(const char *repo, const char *path)
{
    char *a[] = {"git",    "-C",      (char *)repo, "worktree",
                 "remove", "--force", (char *)path, NULL};
    mb__proc_capture(a, NULL, GIT_TIMEOUT_NS, NULL, NULL);
    char *dir = mb__strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) {
        *slash = '\0';
        char *rm[] = {"rm", "-rf", dir, NULL};
        mb__proc_capture(rm, NULL, GIT_TIMEOUT_NS, NULL, NULL);
    }
    free(dir);
}

size_t mb__worktrees_clean_stale(const char *repo)
{
    char *list = NULL;
    char *a[] = {"git",  "-C",          (char *)repo, "worktree",
                 "list", "--porcelain", NULL};
    if (mb__proc_capture(a, NULL, GIT_TIMEOUT_NS, &list, NULL) != MB_OK) {
        free(list);
        return 0;
    }
    size_t n = 0;
    char *save = NULL;
    for (char *l = strtok_r(list, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "worktree ", 9) != 0)
            continue;
        long pid = mb__worktree_owner(l + 9);
        if (pid > 0 && dead(pid)) {
            remove_one(repo, l + 9);
            n++;
        }
    }
    free(list);
    if (n) {
        char *prune[] = {"git", "-C", (char *)repo, "worktree", "prune", NULL};
        mb__proc_capture(prune, NULL, GIT_TIMEOUT_NS, NULL, NULL);
    }
    return n;
}
