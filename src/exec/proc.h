/* proc.h - running a command once, as one benchmark sample.
 *
 * posix_spawnp (no shell; the caller builds {"/bin/sh","-c",cmd} when it
 * wants one), the child in its own process group with stdin from
 * /dev/null.  Measures wall time (CLOCK_MONOTONIC, from right before the
 * spawn to the return of wait4, which is called as soon as a pidfd says
 * the child has ended), user and system time and peak RSS of the child and the
 * descendants it waited for (wait4 rusage).  A vfork-style spawn makes the
 * kernel charge the spawning process's peak RSS to the child, so mbench
 * resets its own peak (clear_refs) right before each spawn and records its
 * peak since then (read after the child ended, so it covers what exec
 * charged) as rss_floor_bytes: a peak at or below the floor only says "at
 * most this".  stdout and stderr are either
 * discarded, inherited or captured: a captured stream is always drained and
 * only its last `capture_limit` bytes are kept, so a flooding child never
 * blocks nor fills memory.  With `events`, a pipe's write end is passed in
 * MBENCH_EVENTS_FD and the stream is parsed (events.h).  A timeout, or the
 * caller's cancel flag, sends SIGTERM to the whole process group, then
 * SIGKILL after the grace period.  Processes still in the group once the
 * command has exited (`cmd &`) are counted and, unless keep_leftovers,
 * ended the same way before the pipes are drained. */
#ifndef MB_EXEC_PROC_H
#define MB_EXEC_PROC_H

#include "core/buf.h"
#include "exec/events.h"
#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

typedef enum mb__out_mode {
    MB_OUT_NULL = 0, /* /dev/null */
    MB_OUT_PIPE,     /* captured (tail kept), always drained */
    MB_OUT_INHERIT   /* mbench's own stdout/stderr */
} mb__out_mode;

struct mb__nvml;

typedef struct mb__proc_spec {
    char *const *argv; /* borrowed, NULL-terminated, argv[0] searched in PATH */
    const char *cwd;   /* working directory, or NULL */
    char *const
        *env_add; /* "NAME=VALUE" set in the child; NULL-terminated or NULL */
    int64_t timeout_ns;    /* 0: none */
    int64_t kill_grace_ns; /* SIGTERM -> SIGKILL delay (default 2 s when 0) */
    mb__out_mode out_mode, err_mode;
    size_t capture_limit;  /* bytes kept per captured stream (default 64 KiB) */
    int events;            /* create the MBENCH_EVENTS_FD pipe */
    struct mb__nvml *nvml; /* sample GPU memory while running, or NULL */
    volatile int *cancel;  /* borrowed; non-zero stops the run */
    int keep_leftovers;    /* leave processes the command left in its group */
} mb__proc_spec;

typedef struct mb__proc_result {
    int64_t wall_ns, user_ns, sys_ns;
    int64_t peak_rss_bytes;
    int64_t rss_floor_bytes; /* mbench's own peak around the spawn (above) */
    int64_t gpu_peak_bytes;  /* -1 when not sampled */
    int exit_code;           /* -1 when killed by a signal */
    int term_signal;         /* 0 unless killed by a signal */
    int timed_out, interrupted;
    int leftovers;               /* live processes left in the command's group
                                    after it exited (exec/pgroup.h) */
    int leftovers_ended;         /* and mbench ended them */
    char leftover_desc[160];     /* "sleep (pid 123), ..." */
    mb__buf out, err;            /* captured tails */
    size_t out_total, err_total; /* bytes the child wrote */
    mb__events events;
} mb__proc_result;

/* Runs spec once into *res (which the caller frees with
 * mb__proc_result_free, also on failure).  Returns MB_OK whenever the
 * command ran, whatever its exit status; MB_EINVAL when the command is not
 * found or cannot be executed (err names it), MB_EIO when pipes or the
 * spawn fail for lack of resources, MB_EINTERRUPTED when cancelled. */
mb_status mb__proc_run(const mb__proc_spec *spec, mb__proc_result *res,
                       mb_err *err);
void mb__proc_result_free(mb__proc_result *res);

/* Runs argv (git, a shell command, ...) to completion with stdout and
 * stderr captured.  MB_OK when it exits 0, with *out (when out is not
 * NULL; caller frees) its stdout without trailing whitespace.  MB_ECHILD
 * when it exits non-zero, is killed or times out: err says how ("exit 3",
 * "timed out ...") and gives stderr's last line.  Errors of mb__proc_run
 * otherwise. */
mb_status mb__proc_capture(char *const *argv, const char *cwd,
                           int64_t timeout_ns, char **out, mb_err *err);

/* "exit 3", "signal 9 (Killed)", "timed out", ... into buf. */
const char *mb__proc_status_str(const mb__proc_result *res, char *buf,
                                size_t len);
/* The last non-empty line of the captured stderr (or stdout), or "". */
void mb__proc_last_line(const mb__proc_result *res, char *buf, size_t len);

#endif
