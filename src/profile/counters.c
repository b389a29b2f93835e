/* counters.c - perf_event_open counters over all threads (counters.h). */
#include "profile/counters.h"

#include "core/alloc.h"
#include "core/err.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N_EV 3

static const struct {
    const char *name;
    uint64_t config;
} EVENTS[N_EV] = {
    {"cycles", PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
    {"cache_misses", PERF_COUNT_HW_CACHE_MISSES},
};

struct mb__counters {
    int *fd; /* n_threads * N_EV, -1 when that event is missing */
    size_t n_threads;
};

static int perf_open(pid_t tid, uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format =
        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
}

static void reason(int e, const char *event, mb_err *err)
{
    int paranoid = -99;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = -99;
        fclose(f);
    }
    const char *hint = "";
    if (e == EACCES || e == EPERM)
        hint = "; lower /proc/sys/kernel/perf_event_paranoid or grant "
               "CAP_PERFMON";
    else if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
        hint = "; no hardware PMU is exposed here (virtual machine or "
               "container?)";
    else if (e == ENOSYS)
        hint = "; the kernel was built without perf events";
    if (paranoid != -99)
        mb__fail(err, MB_EUNSUPPORTED,
                 "perf_event_open(%s): %s (perf_event_paranoid is %d)%s", event,
                 strerror(e), paranoid, hint);
    else
        mb__fail(err, MB_EUNSUPPORTED, "perf_event_open(%s): %s%s", event,
                 strerror(e), hint);
}

/* Thread ids of this process (from /proc/self/task). */
static size_t list_threads(pid_t *tids, size_t max)
{
    DIR *d = opendir("/proc/self/task");
    size_t n = 0;
    if (!d) {
        tids[0] = 0;
        return 1;
    }
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] == '.')
            continue;
        tids[n++] = (pid_t)atoi(e->d_name);
    }
    closedir(d);
    return n;
}

mb_status mb__counters_open(mb__counters **out, mb_err *err)
{
    *out = NULL;
    pid_t tids[256];
    size_t nt = list_threads(tids, 256);
    mb__counters *c = mb__calloc(1, sizeof *c);
    int *fd = mb__calloc(nt * N_EV, sizeof *fd);
    if (!c || !fd) {
        free(c);
        free(fd);
        return mb__fail(err, MB_ENOMEM, "out of memory opening counters");
    }
    c->fd = fd;
    c->n_threads = nt;
    for (size_t i = 0; i < nt * N_EV; i++)
        fd[i] = -1;
    int any = 0;
    for (size_t t = 0; t < nt; t++) {
        for (size_t e = 0; e < N_EV; e++) {
            int f = perf_open(tids[t], EVENTS[e].config);
            if (f < 0) {
                int er = errno;
                if (e == 0 && t == 0) { /* cycles on the main thread */
                    reason(er, EVENTS[e].name, err);
                    mb__counters_close(c);
                    return MB_EUNSUPPORTED;
                }
                continue; /* a thread that exited, or a missing event */
            }
            fd[t * N_EV + e] = f;
            any = 1;
        }
    }
    if (!any) {
        mb__counters_close(c);
        return mb__fail(err, MB_EUNSUPPORTED,
                        "perf_event_open: no counter could be opened");
    }
    *out = c;
    return MB_OK;
}

void mb__counters_start(mb__counters *c)
{
    for (size_t i = 0; c && i < c->n_threads * N_EV; i++)
        if (c->fd[i] >= 0) {
            ioctl(c->fd[i], PERF_EVENT_IOC_RESET, 0);
            ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0);
        }
}

void mb__counters_stop(mb__counters *c)
{
    for (size_t i = 0; c && i < c->n_threads * N_EV; i++)
        if (c->fd[i] >= 0)
            ioctl(c->fd[i], PERF_EVENT_IOC_DISABLE, 0);
}

/* Sum of one event over threads, scaled for multiplexing; -1 if none. */
static double event_total(const mb__counters *c, size_t e)
{
    double sum = 0;
    int seen = 0;
    for (size_t t = 0; t < c->n_threads; t++) {
        int f = c->fd[t * N_EV + e];
        uint64_t v[3];
        if (f < 0 || read(f, v, sizeof v) != (ssize_t)sizeof v)
            continue;
        seen = 1;
        if (v[2] > 0 && v[2] < v[1])
            sum += (double)v[0] * (double)v[1] / (double)v[2];
        else
            sum += (double)v[0];
    }
    return seen ? sum : -1;
}

json_t *mb__counters_json(const mb__counters *c, int64_t inferences)
{
    double n = inferences > 0 ? (double)inferences : 1;
    json_t *per = json_object();
    double v[N_EV];
    for (size_t e = 0; e < N_EV; e++) {
        v[e] = event_total(c, e);
        json_object_set_new(per, EVENTS[e].name,
                            v[e] >= 0 ? json_real(v[e] / n) : json_null());
    }
    json_t *o = json_object();
    json_object_set_new(o, "available", json_true());
    json_object_set_new(o, "per_inference", per);
    json_object_set_new(
        o, "ipc", v[0] > 0 && v[1] >= 0 ? json_real(v[1] / v[0]) : json_null());
    json_object_set_new(o, "threads", json_integer((json_int_t)c->n_threads));
    json_object_set_new(o, "inferences", json_integer(inferences));
    json_object_set_new(o, "scope",
                        json_string("user space, every thread of the process "
                                    "(including thread-pool spinning), "
                                    "separate pass"));
    return o;
}

void mb__counters_close(mb__counters *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_threads * N_EV; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
    free(c->fd);
    free(c);
}

json_t *mb__counters_unavailable(const char *why)
{
    return json_pack("{s:b, s:s}", "available", 0, "reason",
                     why ? why : "unknown");
}

json_t *mb__counters_probe(void)
{
    mb_err err;
    mb__counters *c;
    if (mb__counters_open(&c, &err))
        return mb__counters_unavailable(err.msg);
    volatile double x = 1.0;
    mb__counters_start(c);
    for (int i = 0; i < 1000000; i++)
        x = x * 1.0000001 + 1e-9;
    mb__counters_stop(c);
    json_t *o = mb__counters_json(c, 1);
    mb__counters_close(c);
    json_object_set_new(o, "scope",
                        json_string("a 1e6-iteration loop on one thread"));
    return o;
}
