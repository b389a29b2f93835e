/* exec_util.c - console helpers shared by exec and suite (exec_util.h). */
#include "exec_util.h"

#include "cli.h"
#include "opt.h"

#include "core/buf.h"
#include "core/clock.h"
#include "exec/nvml.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int cancel_flag;
static volatile int hard_second;
static volatile sig_atomic_t last_signal;

/* What a model call that outlasts the grace (a Python model inside one
 * long call in this very process: --processes 1) would hold up. */
#define CANCEL_GRACE_S 5

static void on_grace_over(int sig)
{
    (void)sig;
    static const char msg[] = "mbench: interrupted: the current call did not "
                              "end within 5 s of the signal; stopped without "
                              "a report\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(128 + (last_signal ? last_signal : SIGTERM));
}

static void on_signal(int sig)
{
    last_signal = sig;
    if (cancel_flag && hard_second)
        _exit(128 + sig);
    cancel_flag = 1;
    if (hard_second) { /* one signal ends the run, at the latest after the grace */
        signal(SIGALRM, on_grace_over);
        alarm(CANCEL_GRACE_S);
    }
}

int mb_cli_interrupted_exit(void)
{
    return last_signal ? 128 + last_signal : MB_EXIT_INTERRUPTED;
}

volatile int *mb_cli_cancel_flag(int second_exits)
{
    hard_second = second_exits;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: poll() returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &cancel_flag;
}

void mb_cli_put(mb_buf *b)
{
    fwrite(b->data ? b->data : "", 1, b->len, stdout);
    fflush(stdout);
    mb__buf_free(b);
}

int mb_cli_execset_opt(mb_cli_execset *s, const mb_opt *opt, const mb_optval *v)
{
    mb_exec_opts *o = s->eo;
    const char *n = opt->name;
    if (!strcmp(n, "warmup"))
        o->warmup = v->i;
    else if (!strcmp(n, "runs"))
        o->fixed_runs = v->i;
    else if (!strcmp(n, "seed"))
        s->seed = v->i;
    else if (!strcmp(n, "prepare"))
        o->prepare = v->text;
    else if (!strcmp(n, "cleanup"))
        o->cleanup = v->text;
    else if (!strcmp(n, "shell"))
        o->shell = 1;
    else if (!strcmp(n, "gpu-memory"))
        o->gpu_memory = 1;
    else if (!strcmp(n, "timeout") && v->i <= 0)
        return mb_cli_bad_value("--timeout", v->text, opt->expect);
    else if (!strcmp(n, "timeout"))
        o->timeout_ns = v->i;
    else if (!strcmp(n, "require"))
        return mb_cli_reqs_add(&s->reqs, v->text);
    return 0;
}

void mb_cli_execset_gpu(mb_cli_execset *s)
{
    mb_err e = {0};
    if (s->eo->gpu_memory && mb__nvml_open(&s->eo->nvml, &e) != MB_OK)
        mb_cli_warn("%s", e.msg);
    else if (s->eo->gpu_memory)
        fprintf(stderr, "GPU memory: sampled through NVML (untested path)\n");
}

void mb_cli_execset_free(mb_cli_execset *s)
{
    mb_cli_reqs_free(&s->reqs);
    mb__nvml_close(s->eo->nvml);
    s->eo->nvml = NULL;
}

/* The option of cmd named name[0..len) (exactly, else by a unique
 * prefix), or with short name c when len is 0; NULL when none is. */
static const mb_opt *find_opt(const mb_cmd *cmd, const char *name, size_t len,
                              char c)
{
    const mb_opt *o, *hit = NULL;
    const char *group;
    int n = 0;
    for (size_t i = 0; (o = mb_opt_each(cmd, i, &group)); i++) {
        if (len == 0 ? o->short_name == c : strncmp(o->name, name, len) == 0) {
            if (len == 0 || strlen(o->name) == len)
                return o;
            hit = o;
            n++;
        }
    }
    return n == 1 ? hit : NULL;
}

int mb_cli_first_operand(const mb_cmd *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || strcmp(a, "--") == 0)
            return i;
        if (a[1] == '-') { /* --name takes the next word when it has a value */
            const mb_opt *o =
                strchr(a, '=') ? NULL : find_opt(cmd, a + 2, strlen(a + 2), 0);
            i += o && o->type != MB_OPT_SWITCH;
            continue;
        }
        for (const char *s = a + 1; *s; s++) { /* -qw 3, -w3 */
            const mb_opt *o = find_opt(cmd, NULL, 0, *s);
            if (o && o->type != MB_OPT_SWITCH) {
                i += s[1] == '\0';
                break;
            }
        }
    }
    return argc;
}

void mb_cli_rounds_progress(mb_cli_rounds *ps, const char *what, size_t round,
                            size_t rounds, int64_t elapsed_ns)
{
    int64_t now = mb_now_ns();
    if (now - ps->start < ps->delay_ns || now - ps->last < 100000000LL)
        return;
    ps->last = now;
    ps->shown = 1;
    fprintf(stderr,
            "\r%s: round %zu of %zu (a fresh runtime and session per "
            "arm), %.1f s\033[K",
            what, round + 1, rounds, (double)elapsed_ns / 1e9);
    fflush(stderr);
}
