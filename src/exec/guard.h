/* guard.h - nothing mbench starts outlives it, even after kill -9.
 *
 * The first time mbench starts a command it forks a guardian: a small
 * process that holds the other end of a socket and a list of the process
 * groups mbench has running.  Every command runs in a process group of
 * its own (proc.c); mb__guard_add registers it at the spawn and
 * mb__guard_remove once the group is ended or reaped.  When mbench ends
 * in any way (exit, a crash, SIGKILL) the kernel closes its end; the
 * guardian reads end-of-file and ends the groups still registered
 * (SIGTERM, SIGKILL 200 ms later), then exits.  It ignores SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT so that a signal sent to mbench's whole
 * process group does not take it first; it closes every other descriptor
 * and calls only async-signal-safe functions (it is forked from a
 * process that may have threads).  Processes that left their group
 * (setsid, setpgid: real daemons) are not seen.  docs/EXEC.md. */
#ifndef MB_EXEC_GUARD_H
#define MB_EXEC_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

/* The most groups the guardian keeps at once (more are not guarded). */
#define MB_GUARD_MAX_GROUPS 4096

/* Registers process group pgid, starting the guardian at the first call;
 * false when it cannot be started (the command still runs, unguarded). */
bool mb__guard_add(pid_t pgid);
/* Forgets pgid (its processes are gone, or are left running on purpose). */
void mb__guard_remove(pid_t pgid);
/* The guardian's pid, or -1 when none was started (tests). */
pid_t mb__guard_pid(void);

#endif
