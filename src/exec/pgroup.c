/* pgroup.c - processes left in a command's process group (pgroup.h). */
#include "exec/pgroup.h"

#include "mbench.h"

#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Reads /proc/PID/stat: the name, state and process group of pid; 0 on
 * success.  The name is in parentheses and may hold spaces or ')'. */
static int read_stat(const char *pid, char *name, size_t len, char *state,
                     long *pgrp)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close < open)
        return -1;
    snprintf(name, len, "%.*s", (int)(close - open - 1), open + 1);
    long ppid;
    if (sscanf(close + 1, " %c %ld %ld", state, &ppid, pgrp) != 3)
        return -1;
    return 0;
}

int mb__pgroup_members(pid_t pgid, char *desc, size_t len)
{
    if (desc && len)
        desc[0] = '\0';
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int count = 0;
    size_t off = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char name[64], state;
        long pgrp;
        if (read_stat(e->d_name, name, sizeof name, &state, &pgrp) ||
            pgrp != (long)pgid || state == 'Z' || state == 'X')
            continue;
        if (desc && off < len && count < 3) {
            /* the name as the kernel keeps it: printable only */
            for (char *p = name; *p; p++)
                if (!isprint((unsigned char)*p))
                    *p = '?';
            int w = snprintf(desc + off, len - off, "%s%s (pid %s)",
                             count ? ", " : "", name, e->d_name);
            off += w > 0 ? (size_t)w : 0;
        }
        count++;
    }
    closedir(d);
    if (desc && count > 3 && off < len)
        snprintf(desc + off, len - off, ", ...");
    return count;
}

int mb__pgroup_end(pid_t pgid, int64_t grace_ns)
{
    if (kill(-pgid, SIGTERM) != 0)
        return mb__pgroup_members(pgid, NULL, 0);
    struct timespec step = {0, 5 * 1000 * 1000};
    int64_t until = mb_now_ns() + grace_ns;
    while (mb__pgroup_members(pgid, NULL, 0) > 0 && mb_now_ns() < until)
        nanosleep(&step, NULL);
    if (mb__pgroup_members(pgid, NULL, 0) == 0)
        return 0;
    kill(-pgid, SIGKILL);
    /* SIGKILL is delivered at once; the exit takes a moment */
    until = mb_now_ns() + 1000000000LL;
    int left;
    while ((left = mb__pgroup_members(pgid, NULL, 0)) > 0 &&
           mb_now_ns() < until)
        nanosleep(&step, NULL);
    return left;
}
