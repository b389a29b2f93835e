/* child.c - running one variant in a child process, driven over pipes. */
#include "runner/child.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/sysinfo.h"
#include "data/npy.h"
#include "runner/runner.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct mb__child {
    pid_t pid;
    int to_child, from_child;
    int dead;
    int paused;           /* stopped with SIGSTOP by mb__child_pause */
    int status;           /* wait status once reaped */
    volatile int *cancel; /* the plan's: a signal ends the wait at once */
};

typedef struct {
    char cmd;
    int64_t arg;
    int64_t warm; /* 'M': unrecorded iterations before the timed ones */
    uint32_t len;
} cmd_hdr;

typedef struct {
    int32_t status;
    uint64_t len;
} reply_hdr;

/* Moves all n bytes between p and fd (writing when out, else reading),
 * retrying after signals; false on an error or end of file first. */
static bool move_full(int fd, void *p, size_t n, bool out)
{
    char *c = p;
    while (n) {
        ssize_t k = out ? write(fd, c, n) : read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        c += k;
        n -= (size_t)k;
    }
    return true;
}

static bool write_full(int fd, const void *p, size_t n)
{
    return move_full(fd, (void *)p, n, true);
}

static bool read_full(int fd, void *p, size_t n)
{
    return move_full(fd, p, n, false);
}

/* ---- the child side ------------------------------------------------------ */

static void reply(int fd, int32_t status, const void *data, size_t len)
{
    reply_hdr h;
    memset(&h, 0, sizeof h); /* no uninitialised padding down the pipe */
    h.status = status;
    h.len = len;
    if (write_full(fd, &h, sizeof h) && len)
        write_full(fd, data, len);
}

static void reply_err(int fd, const mb_err *e)
{
    reply(fd, e->code ? (int32_t)e->code : (int32_t)MB_EBACKEND, e->msg,
          strlen(e->msg));
}

static mb_status write_outputs(mb__bench *b, const char *dir, size_t *nb,
                               size_t *ns, mb_err *err)
{
    size_t total = mb__bench_data_samples(b);
    int64_t batch = mb__bench_batch(b);
    size_t first = 0, i = 0;
    *nb = 0;
    *ns = total ? total : (size_t)batch;
    do {
        mb_status s;
        if (total && (s = mb__bench_bind_data(b, first, err)))
            return s;
        mb_tensor *outs;
        size_t n;
        if ((s = mb__bench_outputs_lenient(b, &outs, &n, err)))
            return s;
        for (size_t k = 0; k < n && !s; k++) {
            char path[4096];
            /* a non-tensor output leaves a marker, so indices stay aligned */
            snprintf(path, sizeof path, "%s/b%06zu_o%02zu.%s", dir, i, k,
                     outs[k].data ? "npy" : "skip");
            s = outs[k].data ? mb__npy_write(path, &outs[k], err)
                             : mb__write_file_atomic(path, "", 0, err);
        }
        for (size_t k = 0; k < n; k++)
            mb_tensor_clear(&outs[k]);
        free(outs);
        if (s)
            return s;
        i++;
        first += (size_t)batch;
    } while (total && first < total);
    *nb = i;
    return MB_OK;
}

static void child_main(const mb__plan *plan, int64_t batch, int in, int out,
                       pid_t parent)
{
    /* A child may sit stopped (SIGSTOP) between its slots; if the parent
     * dies then, nobody would continue it: die with the parent.  A parent
     * that died between fork and prctl is seen as a new parent (init, or
     * a subreaper such as a container's init or systemd --user, so not
     * necessarily pid 1). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    signal(SIGINT, SIG_IGN); /* the parent decides what Ctrl-C means */
    signal(SIGPIPE, SIG_IGN);
    int64_t rss_before = mb__rss_bytes();
    mb_err e = {0};
    mb__bench *b = NULL;
    if (mb__bench_open(plan, batch, &b, &e)) {
        reply_err(out, &e);
        _exit(0);
    }
    int64_t rss_after = mb__rss_bytes();
    reply(out, 0, NULL, 0);
    int peak_reset = 0, measured = 0;
    int64_t *samples = NULL;
    size_t cap = 0;
    for (;;) {
        cmd_hdr h;
        if (!read_full(in, &h, sizeof h))
            break;
        char *payload = NULL;
        if (h.len) {
            payload = mb__calloc(h.len + 1, 1);
            if (!payload || !read_full(in, payload, h.len))
                break;
        }
        if (h.cmd == 'M') {
            if (!measured) {
                peak_reset = mb__rss_peak_reset();
                measured = 1;
            }
            if (h.arg < 0 || !mb__grow((void **)&samples, &cap,
                                       (size_t)h.arg + 1, sizeof *samples)) {
                mb__fail(&e, MB_ENOMEM, "out of memory for samples");
                reply_err(out, &e);
            } else if ((h.warm > 0 &&
                        mb__bench_iterate(b, h.warm > h.arg ? h.arg : h.warm,
                                          samples, &e)) ||
                       mb__bench_iterate(b, h.arg, samples, &e)) {
                reply_err(out, &e);
            } else {
                reply(out, 0, samples, (size_t)h.arg * sizeof *samples);
            }
        } else if (h.cmd == 'O') {
            size_t nb, ns;
            if (write_outputs(b, payload ? payload : ".", &nb, &ns, &e)) {
                reply_err(out, &e);
            } else {
                char msg[64];
                int n = snprintf(msg, sizeof msg, "%zu %zu", nb, ns);
                reply(out, 0, msg, (size_t)n);
            }
        } else if (h.cmd == 'F') {
            json_t *model = mb__model_json(plan);
            json_t *run = mb__bench_run_skeleton(plan, b, batch, model,
                                                 rss_before, rss_after);
            json_decref(model);
            json_t *mem = json_object_get(run, "memory");
            json_object_set_new(mem, "rss_peak_bytes",
                                json_integer(mb__rss_peak_bytes()));
            json_object_set_new(
                mem, "peak_method",
                json_string(peak_reset ? "clear_refs" : "process_lifetime"));
            char *text = json_dumps(run, JSON_COMPACT);
            json_decref(run);
            reply(out, 0, text, text ? strlen(text) : 0);
            free(text);
            free(payload);
            break;
        }
        free(payload);
    }
    free(samples);
    mb__bench_close(b);
    _exit(0);
}

/* ---- the parent side ----------------------------------------------------- */

static void describe_death(mb__child *c, mb_err *err, const char *doing)
{
    if (!c->dead) {
        if (waitpid(c->pid, &c->status, 0) == c->pid)
            c->dead = 1;
    }
    if (c->dead && WIFSIGNALED(c->status))
        mb__fail(err, MB_ECHILD,
                 "the variant's process crashed while %s: "
                 "killed by signal %d (%s)",
                 doing, WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
    else if (c->dead && WIFEXITED(c->status))
        mb__fail(err, MB_ECHILD,
                 "the variant's process exited with status "
                 "%d while %s",
                 WEXITSTATUS(c->status), doing);
    else
        mb__fail(err, MB_ECHILD,
                 "lost contact with the variant's process "
                 "while %s",
                 doing);
}

static void kill_child(mb__child *c)
{
    if (!c->dead) {
        kill(c->pid, SIGKILL);
        if (waitpid(c->pid, &c->status, 0) == c->pid)
            c->dead = 1;
    }
}

/* Waits for a reply; *data (malloc'ed, NUL-terminated) holds its payload. */
static mb_status get_reply(mb__child *c, int64_t timeout_ns, const char *doing,
                           char **data, size_t *len, mb_err *err)
{
    *data = NULL;
    if (len)
        *len = 0;
    struct pollfd p = {c->from_child, POLLIN, 0};
    int ms = timeout_ns > 0 ? (int)((timeout_ns + 999999) / 1000000) : -1;
    if (timeout_ns > 0 && timeout_ns / 1000000 > 2000000000)
        ms = -1;
    /* In slices of 100 ms while the run may be cancelled: a Ctrl-C or
     * SIGTERM that arrived outside poll() (between two waits) is seen
     * within one slice, not after the worker's whole reply. */
    int r, slice = c->cancel ? 100 : ms;
    int64_t start = mb_now_ns();
    for (;;) {
        int left = ms;
        if (ms >= 0) {
            int64_t gone = (mb_now_ns() - start) / 1000000;
            left = gone >= ms ? 0 : ms - (int)gone;
        }
        int wait = slice >= 0 && (left < 0 || slice < left) ? slice : left;
        r = poll(&p, 1, wait);
        if (c->cancel && *c->cancel) {
            r = -1;
            break;
        }
        if (r > 0 || (r < 0 && errno != EINTR) || (r == 0 && wait == left))
            break;
    }
    if (r < 0 && c->cancel && *c->cancel) {
        /* Ctrl-C or SIGTERM: the variant's process may be in a long call
         * (a Python model's queued work); one signal ends the run. */
        kill_child(c);
        return mb__fail(err, MB_EINTERRUPTED, "interrupted while %s", doing);
    }
    if (r == 0) {
        kill_child(c);
        return mb__fail(err, MB_ECHILD,
                        "the variant timed out after %.1f s while %s and was "
                        "killed (raise --timeout if it is just slow)",
                        (double)timeout_ns / 1e9, doing);
    }
    int32_t status;
    char *buf;
    size_t n;
    int r2 = mb__child_read_reply(c->from_child, &status, &buf, &n);
    if (r2 == MB__REPLY_TOO_LONG || r2 == MB__REPLY_BAD_STATUS) {
        kill_child(c);
        return mb__fail(err, MB_ECHILD,
                        "bad reply from the variant's process while %s (%s); "
                        "it was killed",
                        doing,
                        r2 == MB__REPLY_TOO_LONG ? "a reply longer than 1 GiB"
                                                 : "an unknown status");
    }
    if (r2) {
        describe_death(c, err, doing);
        return MB_ECHILD;
    }
    if (status) {
        mb__fail(err, (mb_status)status, "%s", buf);
        free(buf);
        return (mb_status)status;
    }
    *data = buf;
    if (len)
        *len = n;
    return MB_OK;
}

int mb__child_read_reply(int fd, int32_t *status, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    reply_hdr h;
    if (!read_full(fd, &h, sizeof h))
        return MB__REPLY_EOF;
    /* The length comes from another process: bounded, and memory grows
     * with the bytes that arrive, not with what the header claims. */
    if (h.len > MB__CHILD_REPLY_MAX)
        return MB__REPLY_TOO_LONG;
    if (h.status < 0 || h.status > MB__STATUS_MAX)
        return MB__REPLY_BAD_STATUS;
    mb__buf b = MB_BUF_INIT;
    char chunk[65536];
    while (b.len < h.len && !b.oom) {
        size_t want = h.len - b.len < sizeof chunk ? (size_t)(h.len - b.len)
                                                   : sizeof chunk;
        if (!read_full(fd, chunk, want))
            break;
        mb__buf_append(&b, chunk, want);
    }
    mb__buf_putc(&b, '\0');
    if (b.oom || b.len != h.len + 1) {
        mb__buf_free(&b);
        return MB__REPLY_EOF;
    }
    *status = h.status;
    *data = mb__buf_take(&b, NULL);
    *len = (size_t)h.len;
    return *data ? 0 : MB__REPLY_EOF;
}

static mb_status send_cmd(mb__child *c, char cmd, int64_t arg, int64_t warm,
                          const char *payload, const char *doing, mb_err *err)
{
    cmd_hdr h;
    memset(&h, 0, sizeof h); /* no uninitialised padding down the pipe */
    h.cmd = cmd;
    h.arg = arg;
    h.warm = warm;
    h.len = payload ? (uint32_t)strlen(payload) : 0;
    mb__child_resume(c);
    if (c->dead || !write_full(c->to_child, &h, sizeof h) ||
        (h.len && !write_full(c->to_child, payload, h.len))) {
        describe_death(c, err, doing);
        return MB_ECHILD;
    }
    return MB_OK;
}

/* One round trip: sends cmd and waits at most timeout_ns for the reply,
 * *data (caller frees) of *len bytes (len may be NULL). */
static mb_status ask(mb__child *c, char cmd, int64_t arg, int64_t warm,
                     const char *payload, int64_t timeout_ns, const char *doing,
                     char **data, size_t *len, mb_err *err)
{
    mb_status s = send_cmd(c, cmd, arg, warm, payload, doing, err);
    return s ? s : get_reply(c, timeout_ns, doing, data, len, err);
}

mb_status mb__child_spawn(const mb__plan *plan, int64_t batch,
                          int64_t timeout_ns, mb__child **out, mb_err *err)
{
    *out = NULL;
    int down[2], up[2];
    if (pipe(down))
        return mb__fail(err, MB_ECHILD, "pipe: %s", strerror(errno));
    if (pipe(up)) {
        close(down[0]);
        close(down[1]);
        return mb__fail(err, MB_ECHILD, "pipe: %s", strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        return mb__fail(err, MB_ECHILD, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        child_main(plan, batch, down[0], up[1], parent);
    }
    close(down[0]);
    close(up[1]);
    mb__child *c = mb__calloc(1, sizeof *c);
    if (!c) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(down[1]);
        close(up[0]);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    c->pid = pid;
    c->cancel = plan->cancel;
    c->to_child = down[1];
    c->from_child = up[0];
    char *data;
    mb_status s =
        get_reply(c, timeout_ns, "loading the model", &data, NULL, err);
    free(data);
    if (s) {
        mb__child_free(c);
        return s;
    }
    *out = c;
    return MB_OK;
}

mb_status mb__child_measure(mb__child *c, int64_t n, int64_t warm,
                            int64_t *samples, int64_t timeout_ns, mb_err *err)
{
    char *data;
    size_t len;
    mb_status s =
        ask(c, 'M', n, warm, NULL, timeout_ns, "measuring", &data, &len, err);
    if (s)
        return s;
    if (len != (size_t)n * sizeof *samples) {
        free(data);
        return mb__fail(err, MB_ECHILD,
                        "the variant sent %zu bytes of "
                        "samples, expected %zu",
                        len, (size_t)n * sizeof *samples);
    }
    memcpy(samples, data, len);
    free(data);
    return MB_OK;
}

mb_status mb__child_outputs(mb__child *c, const char *dir, int64_t timeout_ns,
                            size_t *batches, size_t *samples, mb_err *err)
{
    char *data;
    mb_status s = ask(c, 'O', 0, 0, dir, timeout_ns, "computing outputs", &data,
                      NULL, err);
    if (s)
        return s;
    if (sscanf(data, "%zu %zu", batches, samples) != 2)
        s = mb__fail(err, MB_ECHILD, "bad reply from the variant: %s", data);
    free(data);
    return s;
}

mb_status mb__child_finish(mb__child *c, int64_t timeout_ns, json_t **run,
                           mb_err *err)
{
    *run = NULL;
    char *data;
    mb_status s =
        ask(c, 'F', 0, 0, NULL, timeout_ns, "finishing", &data, NULL, err);
    if (s)
        return s;
    json_error_t je;
    *run = json_loads(data, 0, &je);
    free(data);
    if (!*run)
        return mb__fail(err, MB_ECHILD, "bad result from the variant: %s",
                        je.text);
    return MB_OK;
}

void mb__child_pause(mb__child *c)
{
    if (c && !c->dead && !c->paused) {
        kill(c->pid, SIGSTOP);
        c->paused = 1;
    }
}

void mb__child_resume(mb__child *c)
{
    if (c && !c->dead && c->paused) {
        kill(c->pid, SIGCONT);
        c->paused = 0;
    }
}

void mb__child_free(mb__child *c)
{
    if (!c)
        return;
    mb__child_resume(c);
    close(c->to_child); /* the child's read fails and it exits */
    close(c->from_child);
    if (!c->dead) {
        /* give it a moment to exit by itself, then kill it */
        for (int i = 0; i < 50; i++) {
            if (waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
                c->dead = 1;
                break;
            }
            usleep(10000);
        }
        kill_child(c);
    }
    free(c);
}
