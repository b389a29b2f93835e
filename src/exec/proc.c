/* proc.c - one run of a command: posix_spawn, process group, pipes
 * drained by poll, the child's end seen through a pidfd, wait4 rusage,
 * timeout and cancellation (see proc.h). */
#include "exec/proc.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/sysinfo.h"
#include "exec/guard.h"
#include "exec/nvml.h"
#include "exec/pgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_CAPTURE (64 * 1024)
#define DEFAULT_GRACE_NS 2000000000LL
#define DRAIN_IDLE_MS 200
/* Event bytes parsed per wake-up, between reads of the pipes (a few ms). */
#define EVENTS_PIPE_BYTES (1 << 20)
#define EVENTS_SLICE (16 * 1024)

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The program a shell would run for `name` (no '/' in it), searched in
 * $PATH ("/bin:/usr/bin" when unset; an empty entry is the working
 * directory, cwd when given) into buf.  Like a shell, and unlike
 * posix_spawnp (which stops with EACCES at a directory it may not search),
 * a directory that cannot be read or searched is skipped.  Returns 0 with
 * the first executable regular file; EACCES with the first file found that
 * is not executable when there is no executable one (a shell's
 * "Permission denied"); ENOENT when there is none (its "command not
 * found"); ENAMETOOLONG. */
static int search_path(const char *name, const char *cwd, char *buf, size_t len,
                       size_t *skip)
{
    /* A relative entry is looked up under cwd here, but the child runs
     * it after its chdir: *skip is where the path to exec starts in buf. */
    size_t pre = cwd ? strlen(cwd) + 1 : 0, denied_skip = 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    int found = ENOENT;
    char first_denied[4096] = "";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t dl = end ? (size_t)(end - p) : strlen(p);
        int n;
        *skip = 0;
        if (dl == 0)
            n = cwd ? snprintf(buf, len, "%s/./%s", cwd, name)
                    : snprintf(buf, len, "./%s", name);
        else if (p[0] != '/' && cwd)
            n = snprintf(buf, len, "%s/%.*s/%s", cwd, (int)dl, p, name);
        else
            n = snprintf(buf, len, "%.*s/%s", (int)dl, p, name);
        if (p[0] != '/' && cwd)
            *skip = pre;
        struct stat st;
        if (n > 0 && (size_t)n < len && stat(buf, &st) == 0 &&
            S_ISREG(st.st_mode)) {
            if (access(buf, X_OK) == 0 && (st.st_mode & 0111))
                return 0;
            if (!first_denied[0] && (size_t)n < sizeof first_denied) {
                memcpy(first_denied, buf, (size_t)n + 1);
                denied_skip = *skip;
                found = EACCES;
            }
        }
        if (!end)
            break;
        p = end;
    }
    if (found == EACCES) {
        snprintf(buf, len, "%s", first_denied);
        *skip = denied_skip;
    }
    return found;
}

/* A copy of environ with the "NAME=VALUE" strings of add set (replacing
 * an existing NAME).  The strings stay borrowed; free() the array only. */
static char **make_env(char *const *add)
{
    size_t n = 0, k = 0, na = 0;
    while (environ && environ[n])
        n++;
    while (add && add[na])
        na++;
    char **env = mb__calloc(n + na + 1, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (size_t j = 0; j < na && !replaced; j++) {
            const char *eq = strchr(add[j], '=');
            size_t len = eq ? (size_t)(eq - add[j]) + 1 : strlen(add[j]);
            replaced = strncmp(environ[i], add[j], len) == 0;
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < na; j++)
        env[k++] = add[j];
    env[k] = NULL;
    return env;
}

static void keep_tail(mb__buf *b, size_t limit)
{
    if (b->len > limit) {
        memmove(b->data, b->data + b->len - limit, limit);
        b->len = limit;
        b->data[limit] = '\0';
    }
}

/* Reads what fd has now, at most DRAIN_MAX_READS chunks, so that a
 * stream that never pauses still lets the caller watch the clock and
 * Ctrl-C.  Events go to their backlog unparsed (it is parsed between
 * reads, mb__events_work): the program never waits on mbench's parsing
 * until the backlog is full.  Returns 0 at EOF or error (fd then closed),
 * 1 when more may come. */
#define DRAIN_MAX_READS 16
static int drain(int *fd, mb__buf *keep, size_t *total, size_t limit,
                 mb__events *ev, int64_t t0)
{
    char chunk[65536];
    for (int reads = 0; reads < DRAIN_MAX_READS; reads++) {
        if (ev && mb__events_pending(ev) >= MB_EVENTS_MAX_BACKLOG)
            return 1; /* parse first: the program waits meanwhile */
        ssize_t r = read(*fd, chunk, sizeof chunk);
        if (r > 0) {
            if (total)
                *total += (size_t)r;
            if (ev) {
                mb__events_push(ev, chunk, (size_t)r, mb_now_ns() - t0);
            } else if (keep) {
                mb__buf_append(keep, chunk, (size_t)r);
                if (keep->len > 2 * limit)
                    keep_tail(keep, limit);
            }
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        close_fd(fd);
        return 0;
    }
    return 1;
}

/* Starts the child with posix_spawnp: glibc clones with CLONE_VM |
 * CLONE_VFORK, so mbench's address space is not copied and no atfork
 * handler runs (fork() in a process that links large libraries costs a
 * fraction of a millisecond per run, which `true` shows).  The child gets
 * its own process group, an empty signal mask, SIGPIPE at its default,
 * stdin from /dev/null, stdout/stderr as asked and the events pipe's write
 * end (cleared of FD_CLOEXEC by dup2 onto itself).  *t0 is read right
 * before the spawn.  Returns 0 or an errno value. */
static int spawn(const mb__proc_spec *s, int devnull, int outw, int errw,
                 int evw, char **env, pid_t *pid, int64_t *t0)
{
    posix_spawnattr_t at;
    posix_spawn_file_actions_t fa;
    int e = posix_spawnattr_init(&at);
    if (e)
        return e;
    e = posix_spawn_file_actions_init(&fa);
    if (e) {
        posix_spawnattr_destroy(&at);
        return e;
    }
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    short flags =
        POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (!e)
        e = posix_spawnattr_setflags(&at, flags);
    if (!e)
        e = posix_spawnattr_setpgroup(&at, 0);
    if (!e)
        e = posix_spawnattr_setsigmask(&at, &none);
    if (!e)
        e = posix_spawnattr_setsigdefault(&at, &def);
    if (!e)
        e = posix_spawn_file_actions_adddup2(&fa, devnull, 0);
    if (!e && s->out_mode != MB_OUT_INHERIT)
        e = posix_spawn_file_actions_adddup2(
            &fa, s->out_mode == MB_OUT_PIPE ? outw : devnull, 1);
    if (!e && s->err_mode != MB_OUT_INHERIT)
        e = posix_spawn_file_actions_adddup2(
            &fa, s->err_mode == MB_OUT_PIPE ? errw : devnull, 2);
    if (!e && evw >= 0) /* same fd: glibc clears FD_CLOEXEC */
        e = posix_spawn_file_actions_adddup2(&fa, evw, evw);
    if (!e && s->cwd)
        e = posix_spawn_file_actions_addchdir_np(&fa, s->cwd);
    /* The PATH search is ours (search_path); a name with a '/' is run as
     * it is. */
    char prog[4096];
    const char *run = s->argv[0];
    if (!e && !strchr(run, '/')) {
        size_t skip = 0;
        int se = search_path(run, s->cwd, prog, sizeof prog, &skip);
        if (se == ENOENT || se == ENAMETOOLONG)
            e = se;
        run = prog + skip; /* found, or not executable: exec says EACCES */
    }
    if (!e) {
        *t0 = mb_now_ns();
        e = posix_spawn(pid, run, &fa, &at, s->argv, env);
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return e;
}

/* Without pidfd_open (Linux < 5.3) the end of the child interrupts ppoll
 * through SIGCHLD, blocked outside ppoll so that it cannot be missed. */
static void on_sigchld(int sig)
{
    (void)sig;
}

static int64_t ms_until(int64_t deadline, int64_t now)
{
    if (deadline <= now)
        return 0;
    return (deadline - now + 999999) / 1000000;
}

static mb_status spawn_error(const mb__proc_spec *s, int e, mb_err *err)
{
    if (s->cwd && (e == ENOENT || e == ENOTDIR || e == EACCES)) {
        int d = open(s->cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d < 0)
            return mb__fail(err, MB_EINVAL,
                            "cannot enter directory '%s' to run '%s': %s",
                            s->cwd, s->argv[0], strerror(errno));
        close(d);
    }
    if (e == ENOENT)
        return mb__fail(err, MB_EINVAL,
                        "command not found: '%s' (not in PATH; check the "
                        "spelling, or use --shell for shell syntax)",
                        s->argv[0]);
    if (e == ENOEXEC)
        return mb__fail(err, MB_EINVAL,
                        "cannot execute '%s': not a binary and no '#!' line "
                        "(add one, or use --shell)",
                        s->argv[0]);
    if (e == ENOMEM || e == EAGAIN)
        return mb__fail(err, MB_EIO, "cannot start '%s': %s", s->argv[0],
                        strerror(e));
    return mb__fail(err, MB_EINVAL, "cannot execute '%s': %s", s->argv[0],
                    strerror(e));
}

/* What mb__proc_run's phases share: the request, the result being
 * filled, the pipes (read ends nonblocking), the child and its clocks. */
typedef struct proc_ctx {
    const mb__proc_spec *s;
    mb__proc_result *res;
    size_t limit;  /* bytes of stdout and stderr kept */
    int64_t grace; /* SIGTERM to SIGKILL */
    int devnull;
    int outp[2], errp[2], evp[2]; /* stdout, stderr, events; -1 unused */
    char evvar[64];               /* MBENCH_EVENTS_FD=N, in env */
    char **env;
    int pidfd, chld_hooked, masked;
    sigset_t oldmask;
    struct sigaction oldact;
    pid_t pid;
    int64_t t0, t1;            /* started, reaped */
    int64_t gpu_base, gpu_max; /* device memory in use (-1 unknown) */
    int64_t deadline, kill_at; /* 0: none */
    int status;
    struct rusage ru;
} proc_ctx;

/* /dev/null and the pipes the spawn asks for; MB_EIO when they cannot be
 * had. */
static mb_status open_pipes(proc_ctx *c, mb_err *err)
{
    const mb__proc_spec *s = c->s;
    c->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (c->devnull < 0 ||
        (s->out_mode == MB_OUT_PIPE && pipe2(c->outp, O_CLOEXEC) != 0) ||
        (s->err_mode == MB_OUT_PIPE && pipe2(c->errp, O_CLOEXEC) != 0) ||
        (s->events && pipe2(c->evp, O_CLOEXEC) != 0))
        return mb__fail(err, MB_EIO, "cannot create pipes for '%s': %s",
                        s->argv[0], strerror(errno));
    /* A larger events pipe lets the program run on while mbench parses
     * (1 MiB, the default limit for users; not fatal when refused). */
    if (c->evp[0] >= 0)
        (void)fcntl(c->evp[0], F_SETPIPE_SZ, EVENTS_PIPE_BYTES);
    for (int i = 0; i < 3; i++) {
        int fd = i == 0 ? c->outp[0] : i == 1 ? c->errp[0] : c->evp[0];
        if (fd >= 0)
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    return MB_OK;
}

/* Our environment with the spec's additions and, with events, the fd of
 * the events pipe. */
static mb_status build_env(proc_ctx *c, mb_err *err)
{
    const mb__proc_spec *s = c->s;
    char *add[64];
    size_t nadd = 0;
    for (size_t i = 0; s->env_add && s->env_add[i] && nadd < 62; i++)
        add[nadd++] = s->env_add[i];
    if (s->events) {
        snprintf(c->evvar, sizeof c->evvar, "MBENCH_EVENTS_FD=%d", c->evp[1]);
        add[nadd++] = c->evvar;
    }
    add[nadd] = NULL;
    c->env = make_env(add);
    if (!c->env)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    return MB_OK;
}

/* Spawns the child and arranges to see its end: a pidfd, or else SIGCHLD
 * (blocked outside ppoll); our write ends of the pipes are closed. */
static mb_status start_child(proc_ctx *c, mb_err *err)
{
    const mb__proc_spec *s = c->s;
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    c->gpu_base = s->nvml ? mb__nvml_used_bytes(s->nvml) : -1;
    c->gpu_max = c->gpu_base;
    /* posix_spawn's child starts in our address space, and exec charges
     * that space's peak RSS to it: bring our peak down to our current
     * size first (the peak since then is read as the floor, below). */
    mb__rss_peak_reset();
    /* SIGCHLD stays blocked until we know whether a pidfd will do. */
    c->masked = pthread_sigmask(SIG_BLOCK, &chld, &c->oldmask) == 0;
    int e = spawn(s, c->devnull, c->outp[1], c->errp[1], c->evp[1], c->env,
                  &c->pid, &c->t0);
    if (e == 0)
        c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
    if (e == 0 && c->pidfd < 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigchld;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_NOCLDSTOP;
        c->chld_hooked = sigaction(SIGCHLD, &sa, &c->oldact) == 0;
    } else if (c->masked) {
        pthread_sigmask(SIG_SETMASK, &c->oldmask, NULL);
        c->masked = 0;
    }
    if (e)
        return spawn_error(s, e, err);
    close_fd(&c->outp[1]);
    close_fd(&c->errp[1]);
    close_fd(&c->evp[1]);
    c->deadline = s->timeout_ns > 0 ? c->t0 + s->timeout_ns : 0;
    return MB_OK;
}

/* The read end of stream i (0 stdout, 1 stderr, 2 events). */
static int *stream_fd(proc_ctx *c, int i)
{
    return i == 0 ? &c->outp[0] : i == 1 ? &c->errp[0] : &c->evp[0];
}

/* Reads what stream i has into the result. */
static void drain_stream(proc_ctx *c, int i)
{
    mb__proc_result *res = c->res;
    if (i == 0)
        drain(&c->outp[0], &res->out, &res->out_total, c->limit, NULL, c->t0);
    else if (i == 1)
        drain(&c->errp[0], &res->err, &res->err_total, c->limit, NULL, c->t0);
    else
        drain(&c->evp[0], NULL, NULL, c->limit, &res->events, c->t0);
}

/* Adds a pollfd for every open stream, which[] saying which stream it
 * is; returns how many.  The events pipe is read again only once what was
 * read from it is parsed: meanwhile the program writes into the pipe's
 * buffer without waking mbench for every line (a wake-up per write made
 * each write several times dearer). */
static int stream_pollfds(proc_ctx *c, struct pollfd *pf, int *which)
{
    int nf = 0;
    for (int i = 0; i < 3; i++)
        if (*stream_fd(c, i) >= 0 &&
            (i < 2 || !mb__events_pending(&c->res->events))) {
            which[nf] = i;
            pf[nf++] = (struct pollfd){*stream_fd(c, i), POLLIN, 0};
        }
    return nf;
}

/* How long the next poll may block (-1: until something happens): to the
 * deadline or the kill, and briefly when the GPU is sampled, a cancel is
 * watched or no pidfd tells of the child's end. */
static int64_t poll_ms(const proc_ctx *c, int64_t now)
{
    const mb__proc_spec *s = c->s;
    int64_t wait_ms = -1;
    if (c->deadline && !c->kill_at)
        wait_ms = ms_until(c->deadline, now);
    if (c->kill_at) {
        int64_t k = ms_until(c->kill_at, now);
        wait_ms = wait_ms < 0 || k < wait_ms ? k : wait_ms;
    }
    if (s->nvml)
        wait_ms = wait_ms < 0 || wait_ms > 100 ? 100 : wait_ms;
    if (s->cancel && !*s->cancel && (wait_ms < 0 || wait_ms > 200))
        wait_ms = 200;
    if (c->pidfd < 0 && (wait_ms < 0 || wait_ms > 1000))
        wait_ms = 1000; /* a SIGCHLD taken by another thread */
    if (mb__events_pending(&c->res->events))
        wait_ms = 0; /* look at the pipes, then parse on */
    return wait_ms;
}

/* After each wake-up: samples the GPU, and sends SIGTERM on a cancel or
 * the deadline, SIGKILL once the grace is over. */
static void watch_child(proc_ctx *c, int64_t now)
{
    const mb__proc_spec *s = c->s;
    if (s->nvml) {
        int64_t g = mb__nvml_used_bytes(s->nvml);
        if (g > c->gpu_max)
            c->gpu_max = g;
    }
    if (!c->kill_at && s->cancel && *s->cancel) {
        c->res->interrupted = 1;
        kill(-c->pid, SIGTERM);
        c->kill_at = now + c->grace;
    }
    if (!c->kill_at && c->deadline && now >= c->deadline) {
        c->res->timed_out = 1;
        kill(-c->pid, SIGTERM);
        c->kill_at = now + c->grace;
    }
    if (c->kill_at && now >= c->kill_at) {
        kill(-c->pid, SIGKILL);
        c->kill_at = now + 3600000000000LL; /* once */
    }
}

/* Drains the pipes until the child is reaped (c->t1, status, ru); MB_EIO
 * when poll fails (the child is killed then). */
static mb_status wait_child(proc_ctx *c, mb_err *err)
{
    mb_status st = MB_OK;
    /* The mask ppoll waits with when there is no pidfd: SIGCHLD open. */
    sigset_t waitmask = c->oldmask;
    sigdelset(&waitmask, SIGCHLD);
    for (;;) {
        struct pollfd pf[4];
        int which[4], nf = 0, ipid = -1;
        if (c->pidfd >= 0) {
            ipid = nf;
            pf[nf++] = (struct pollfd){c->pidfd, POLLIN, 0};
        } else if (wait4(c->pid, &c->status, WNOHANG, &c->ru) == c->pid) {
            c->t1 = mb_now_ns();
            return st;
        }
        nf += stream_pollfds(c, pf + nf, which + nf);
        int64_t wait_ms = poll_ms(c, mb_now_ns());
        int r;
        if (c->pidfd >= 0) {
            r = poll(pf, (nfds_t)nf, (int)wait_ms);
        } else {
            struct timespec ts = {(time_t)(wait_ms / 1000),
                                  (long)(wait_ms % 1000) * 1000000L};
            r = ppoll(pf, (nfds_t)nf, &ts, &waitmask);
        }
        if (r < 0 && errno != EINTR) {
            st = mb__fail(err, MB_EIO, "poll failed: %s", strerror(errno));
            kill(-c->pid, SIGKILL);
            c->kill_at = mb_now_ns();
        }
        /* The child's end first, so that the clock stops right there. */
        if (ipid >= 0 && r > 0 && pf[ipid].revents &&
            wait4(c->pid, &c->status, 0, &c->ru) == c->pid) {
            c->t1 = mb_now_ns();
            return st;
        }
        for (int j = 0; r > 0 && j < nf; j++)
            if (j != ipid && pf[j].revents)
                drain_stream(c, which[j]);
        mb__events_work(&c->res->events, EVENTS_SLICE);
        watch_child(c, mb_now_ns());
    }
}

/* The child's clocks, memory, exit status and GPU peak into the result. */
static void record_usage(proc_ctx *c)
{
    mb__proc_result *res = c->res;
    res->wall_ns = c->t1 - c->t0;
    /* Our peak since the reset covers what exec charged to the child
     * (spawning itself touches a few pages), so it bounds the reading. */
    res->rss_floor_bytes = mb__rss_peak_bytes();
    res->user_ns = (int64_t)c->ru.ru_utime.tv_sec * 1000000000LL +
                   (int64_t)c->ru.ru_utime.tv_usec * 1000;
    res->sys_ns = (int64_t)c->ru.ru_stime.tv_sec * 1000000000LL +
                  (int64_t)c->ru.ru_stime.tv_usec * 1000;
    res->peak_rss_bytes = (int64_t)c->ru.ru_maxrss * 1024;
    if (WIFEXITED(c->status))
        res->exit_code = WEXITSTATUS(c->status);
    else if (WIFSIGNALED(c->status))
        res->term_signal = WTERMSIG(c->status);
    if (c->s->nvml && c->gpu_base >= 0 && c->gpu_max >= c->gpu_base)
        res->gpu_peak_bytes = c->gpu_max - c->gpu_base;
}

/* What the command left running in its group would run on into the next
 * run: counted, and ended unless the caller keeps it.  After a timeout or
 * Ctrl-C the whole group is killed instead. */
static void settle_group(proc_ctx *c)
{
    mb__proc_result *res = c->res;
    if (res->timed_out || res->interrupted)
        return;
    res->leftovers = mb__pgroup_members(c->pid, res->leftover_desc,
                                        sizeof res->leftover_desc);
    if (res->leftovers && !c->s->keep_leftovers) {
        mb__pgroup_end(c->pid, c->grace);
        res->leftovers_ended = 1;
    }
}

/* Descendants may still hold the pipes: read until EOF, or until they
 * stay quiet for a moment, parsing the events' backlog meanwhile.  A
 * cancel ends it at once (the backlog of an interrupted run is
 * dropped). */
static void drain_rest(proc_ctx *c)
{
    mb__events *ev = &c->res->events;
    for (;;) {
        if (c->s->cancel && *c->s->cancel) {
            mb__events_discard(ev);
            break;
        }
        if (c->outp[0] < 0 && c->errp[0] < 0 && c->evp[0] < 0)
            break;
        struct pollfd pf[3];
        int which[3];
        int nf = stream_pollfds(c, pf, which);
        int r =
            poll(pf, (nfds_t)nf, mb__events_pending(ev) ? 0 : DRAIN_IDLE_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (r == 0 && !mb__events_pending(ev)))
            break;
        for (int j = 0; r > 0 && j < nf; j++)
            if (pf[j].revents)
                drain_stream(c, which[j]);
        mb__events_work(ev, EVENTS_SLICE);
    }
    if (c->res->interrupted)
        mb__events_discard(ev);
}

static void proc_ctx_close(proc_ctx *c)
{
    close_fd(&c->pidfd);
    if (c->chld_hooked)
        sigaction(SIGCHLD, &c->oldact, NULL);
    if (c->masked)
        pthread_sigmask(SIG_SETMASK, &c->oldmask, NULL);
    close_fd(&c->outp[0]);
    close_fd(&c->outp[1]);
    close_fd(&c->errp[0]);
    close_fd(&c->errp[1]);
    close_fd(&c->evp[0]);
    close_fd(&c->evp[1]);
    close_fd(&c->devnull);
    free(c->env);
}

mb_status mb__proc_run(const mb__proc_spec *s, mb__proc_result *res,
                       mb_err *err)
{
    memset(res, 0, sizeof *res);
    res->gpu_peak_bytes = -1;
    res->exit_code = -1;
    mb__events_init(&res->events);
    if (!s->argv || !s->argv[0] || !s->argv[0][0])
        return mb__fail(err, MB_EINVAL, "empty command: give a program to run");
    proc_ctx c = {
        .s = s,
        .res = res,
        .limit = s->capture_limit ? s->capture_limit : DEFAULT_CAPTURE,
        .grace = s->kill_grace_ns > 0 ? s->kill_grace_ns : DEFAULT_GRACE_NS,
        .devnull = -1,
        .outp = {-1, -1},
        .errp = {-1, -1},
        .evp = {-1, -1},
        .pidfd = -1,
        .pid = -1,
    };
    mb_status st;
    if ((st = open_pipes(&c, err)) || (st = build_env(&c, err)) ||
        (st = start_child(&c, err)))
        goto out;
    /* Should mbench die now, even by SIGKILL, the guardian ends the group
     * (guard.h). */
    mb__guard_add(c.pid);
    st = wait_child(&c, err);
    /* Whatever the group left behind after a timeout or Ctrl-C goes too. */
    if (res->timed_out || res->interrupted)
        kill(-c.pid, SIGKILL);
    record_usage(&c);
    settle_group(&c);
    drain_rest(&c);
    mb__events_finish(&res->events, mb_now_ns() - c.t0);
    keep_tail(&res->out, c.limit);
    keep_tail(&res->err, c.limit);
    if (st == MB_OK && res->interrupted)
        st = mb__fail(err, MB_EINTERRUPTED, "interrupted while running '%s'",
                      s->argv[0]);
    mb__guard_remove(c.pid); /* ended, or left running on purpose */
out:
    proc_ctx_close(&c);
    return st;
}

mb_status mb__proc_capture(char *const *argv, const char *cwd,
                           int64_t timeout_ns, char **out, mb_err *err)
{
    if (out)
        *out = NULL;
    mb__proc_spec s;
    memset(&s, 0, sizeof s);
    s.argv = argv;
    s.cwd = cwd;
    s.out_mode = MB_OUT_PIPE;
    s.err_mode = MB_OUT_PIPE;
    s.capture_limit = 1 << 20;
    s.timeout_ns = timeout_ns;
    mb__proc_result r;
    mb_status st = mb__proc_run(&s, &r, err);
    if (st == MB_OK && (r.exit_code != 0 || r.term_signal || r.timed_out)) {
        char how[80], line[400];
        mb__proc_status_str(&r, how, sizeof how);
        mb__proc_last_line(&r, line, sizeof line);
        st = mb__fail(err, MB_ECHILD, "%s%s%s", how, line[0] ? ": " : "", line);
    }
    if (st == MB_OK && out) {
        size_t n = r.out.len;
        while (n && (r.out.data[n - 1] == '\n' || r.out.data[n - 1] == ' ' ||
                     r.out.data[n - 1] == '\r'))
            n--;
        *out = mb__strndup(r.out.data ? r.out.data : "", n);
        if (!*out)
            st = mb__fail(err, MB_ENOMEM, "out of memory");
    }
    mb__proc_result_free(&r);
    return st;
}

void mb__proc_result_free(mb__proc_result *res)
{
    if (!res)
        return;
    mb__buf_free(&res->out);
    mb__buf_free(&res->err);
    mb__events_free(&res->events);
}

const char *mb__proc_status_str(const mb__proc_result *r, char *buf, size_t len)
{
    if (r->timed_out)
        snprintf(buf, len, "timed out (process group killed)");
    else if (r->interrupted)
        snprintf(buf, len, "interrupted");
    else if (r->term_signal)
        snprintf(buf, len, "killed by signal %d (%s)", r->term_signal,
                 strsignal(r->term_signal));
    else
        snprintf(buf, len, "exit %d", r->exit_code);
    return buf;
}

static int last_line(const mb__buf *b, char *buf, size_t len)
{
    if (!b->data || !b->len)
        return 0;
    size_t end = b->len;
    while (end && (b->data[end - 1] == '\n' || b->data[end - 1] == '\r' ||
                   b->data[end - 1] == ' '))
        end--;
    if (!end)
        return 0;
    size_t start = end;
    while (start && b->data[start - 1] != '\n')
        start--;
    size_t n = end - start;
    if (n >= len)
        n = len - 1;
    memcpy(buf, b->data + start, n);
    buf[n] = '\0';
    return 1;
}

void mb__proc_last_line(const mb__proc_result *r, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    if (!last_line(&r->err, buf, len))
        last_line(&r->out, buf, len);
}
