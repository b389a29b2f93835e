/* guard.c - the guardian that ends mbench's process groups when mbench
 * dies (see guard.h). */
#include "exec/guard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_fd = -1;
static pid_t guard_pid = -1;
static int guard_failed;

/* Every descriptor but keep is closed (close_range when the kernel has
 * it, else one by one). */
static void close_others(int keep)
{
#ifdef SYS_close_range
    if (keep > 0 && syscall(SYS_close_range, 0u, (unsigned)keep - 1, 0) == 0 &&
        syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0) == 0)
        return;
#endif
    for (int fd = 0; fd < 65536; fd++)
        if (fd != keep)
            close(fd);
}

/* Ends every group in g[0..n): SIGTERM, then SIGKILL after 200 ms. */
static void end_groups(const pid_t *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kill(-g[i], SIGTERM);
    struct timespec ts = {0, 200000000L};
    while (n && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    for (size_t i = 0; i < n; i++)
        kill(-g[i], SIGKILL);
}

/* The guardian: reads +pgid / -pgid records until end-of-file, then ends
 * what is registered.  Async-signal-safe calls only. */
static void guardian(int fd)
{
    static pid_t g[MB_GUARD_MAX_GROUPS];
    size_t n = 0;
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, NULL);
    sigaction(SIGTERM, &ign, NULL);
    sigaction(SIGHUP, &ign, NULL);
    sigaction(SIGQUIT, &ign, NULL);
    sigaction(SIGPIPE, &ign, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    close_others(fd);
    prctl(PR_SET_NAME, "mbench-guard", 0, 0, 0);
    for (;;) {
        int32_t v;
        ssize_t r = read(fd, &v, sizeof v);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof v)
            break;
        if (v > 0 && n < MB_GUARD_MAX_GROUPS) {
            g[n++] = (pid_t)v;
        } else if (v < 0) {
            for (size_t i = 0; i < n; i++)
                if (g[i] == (pid_t)-v) {
                    g[i] = g[--n];
                    break;
                }
        }
    }
    end_groups(g, n);
    _exit(0);
}

/* Starts the guardian (lock held); false when it cannot be. */
static bool start(void)
{
    if (guard_fd >= 0)
        return true;
    if (guard_failed)
        return false;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        guard_failed = 1;
        return false;
    }
    pid_t pid = fork();
    if (pid == 0) {
        guardian(sv[1]);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        guard_failed = 1;
        return false;
    }
    guard_fd = sv[0];
    guard_pid = pid;
    return true;
}

static void send_record(int32_t v)
{
    const char *p = (const char *)&v;
    size_t left = sizeof v;
    while (left) {
        ssize_t w = send(guard_fd, p, left, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the guardian is gone: nothing to do about it */
        p += w;
        left -= (size_t)w;
    }
}

bool mb__guard_add(pid_t pgid)
{
    if (pgid <= 0)
        return false;
    pthread_mutex_lock(&lock);
    bool ok = start();
    if (ok)
        send_record((int32_t)pgid);
    pthread_mutex_unlock(&lock);
    return ok;
}

void mb__guard_remove(pid_t pgid)
{
    if (pgid <= 0)
        return;
    pthread_mutex_lock(&lock);
    if (guard_fd >= 0)
        send_record(-(int32_t)pgid);
    pthread_mutex_unlock(&lock);
}

pid_t mb__guard_pid(void)
{
    pthread_mutex_lock(&lock);
    pid_t p = guard_pid;
    pthread_mutex_unlock(&lock);
    return p;
}
