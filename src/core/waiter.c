/* waiter.c - sleep, then spin, to an absolute time (waiter.h). */
#include "core/waiter.h"

#include "mbench.h"

#include <stdbool.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The slice asked for while asleep, and the kernel's sched_attr as far as
 * this file uses it (our own declaration: the first 48 bytes, version 1
 * of the structure, SCHED_ATTR_SIZE_VER1). */
#define SLICE_NS 100000ULL
struct attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
    uint32_t util_min, util_max;
};

/* Asks for slice ns (0: the kernel's default) for a SCHED_NORMAL or
 * SCHED_BATCH thread, keeping its nice value; best effort, as old kernels
 * ignore it. */
static void set_slice(uint64_t ns)
{
#if defined(SYS_sched_setattr) && defined(SYS_sched_getattr)
    struct attr a;
    memset(&a, 0, sizeof a);
    if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) ||
        (a.policy != 0 && a.policy != 3) || a.runtime == ns)
        return;
    a.size = sizeof a;
    a.flags = 0;
    a.runtime = ns;
    (void)syscall(SYS_sched_setattr, 0, &a, 0);
#else
    (void)ns;
#endif
}

void mb__waiter_init(mb__waiter *w, int64_t fixed_ns, int64_t cap_ns,
                     int realtime)
{
    memset(w, 0, sizeof *w);
    w->fixed_ns = fixed_ns;
    w->cap_ns = cap_ns;
    w->realtime = realtime ? 1 : 0;
}

/* Raises the calling thread to SCHED_FIFO 1 when it runs at a normal
 * policy and w may; *policy and *param receive what to restore.  True
 * when raised; a refusal turns w to short slices for good. */
static bool raise_rt(mb__waiter *w, int *policy, struct sched_param *param)
{
    if (w->realtime != 1)
        return false;
    *policy = sched_getscheduler(0);
    if (*policy < 0 || *policy == SCHED_FIFO || *policy == SCHED_RR ||
        sched_getparam(0, param))
        return false;
    struct sched_param rt = {.sched_priority = 1};
    if (sched_setscheduler(0, SCHED_FIFO, &rt)) {
        w->realtime = -1;
        return false;
    }
    return true;
}

void mb__waiter_thread_setup(void)
{
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

int64_t mb__waiter_margin(const mb__waiter *w)
{
    if (w->fixed_ns >= 0)
        return w->fixed_ns;
    int64_t m = 3 * w->late_ns + 10000;
    return m < w->cap_ns ? m : w->cap_ns;
}

static void sleep_until(int64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000), (long)(t % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

int64_t mb__waiter_until(mb__waiter *w, int64_t t)
{
    int64_t now = mb_now_ns(), margin = mb__waiter_margin(w);
    int policy = 0;
    struct sched_param param;
    bool rt = false;
    if (t - now > margin) {
        int64_t target = t - margin;
        rt = raise_rt(w, &policy, &param);
        if (!rt)
            set_slice(SLICE_NS);
        sleep_until(target);
        now = mb_now_ns();
        if (!rt)
            set_slice(0);
        w->rt_waits += rt;
        /* Up fast, down slowly: about the 97th percentile of lateness. */
        int64_t late = now - target;
        w->late_ns += late > w->late_ns ? (late - w->late_ns) / 4
                                        : -((w->late_ns - late) / 32);
        w->sleeps++;
    }
    int64_t spun = now;
    while (now < t)
        now = mb_now_ns();
    w->spin_ns += now - spun;
    if (rt) { /* back to the thread's own policy before the caller goes
                 on; a busy machine may take the CPU away right here, and
                 that delay is the caller's (the time returned is after) */
        sched_setscheduler(0, policy, &param);
        now = mb_now_ns();
    }
    return now;
}
