/* pgroup.h - the processes a measured command leaves behind in its
 * process group: background children (`cmd &`), daemons that did not
 * call setsid, helpers of a test harness.  mbench exec finds them after
 * each run (they would run on into later runs and skew them) and ends
 * them unless told to keep them.  Processes that left the group (setsid,
 * setpgid) are not seen. */
#ifndef MB_EXEC_PGROUP_H
#define MB_EXEC_PGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Live (not zombie) processes whose process group is pgid, read from
 * /proc; the first few are described into desc ("sleep (pid 123), ...",
 * may be NULL).  0 when there are none or /proc cannot be read. */
int mb__pgroup_members(pid_t pgid, char *desc, size_t len);

/* Ends the group: SIGTERM, then SIGKILL to what is still there after
 * grace_ns.  Returns how many live members remained after SIGKILL had a
 * moment (normally 0). */
int mb__pgroup_end(pid_t pgid, int64_t grace_ns);

#endif
