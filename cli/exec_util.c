/* exec_util.c - console helpers shared by exec and suite (exec_util.h). */
#include "exec_util.h"

#include "cli.h"
#include "opt.h"

#include "core/buf.h"
#include "core/clock.h"
#include "exec/nvml.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mb_cli_put(mb__buf *b)
{
    fwrite(b->data ? b->data : "", 1, b->len, stdout);
    fflush(stdout);
    mb__buf_free(b);
}

int mb_cli_execset_opt(mb__cli_execset *s, const mb__opt *opt,
                       const mb__optval *v)
{
    mb__exec_opts *o = s->eo;
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

void mb_cli_execset_gpu(mb__cli_execset *s)
{
    mb_err e = {0};
    if (s->eo->gpu_memory && mb__nvml_open(&s->eo->nvml, &e) != MB_OK)
        mb_cli_warn("%s", e.msg);
    else if (s->eo->gpu_memory)
        fprintf(stderr, "GPU memory: sampled through NVML (untested path)\n");
}

void mb_cli_execset_free(mb__cli_execset *s)
{
    mb_cli_reqs_free(&s->reqs);
    mb__nvml_close(s->eo->nvml);
    s->eo->nvml = NULL;
}

/* The option of cmd named name[0..len) (exactly, else by a unique
 * prefix), or with short name c when len is 0; NULL when none is. */
static const mb__opt *find_opt(const mb__cmd *cmd, const char *name, size_t len,
                               char c)
{
    const mb__opt *o, *hit = NULL;
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

int mb_cli_first_operand(const mb__cmd *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || strcmp(a, "--") == 0)
            return i;
        if (a[1] == '-') { /* --name takes the next word when it has a value */
            const mb__opt *o =
                strchr(a, '=') ? NULL : find_opt(cmd, a + 2, strlen(a + 2), 0);
            i += o && o->type != MB_OPT_SWITCH;
            continue;
        }
        for (const char *s = a + 1; *s; s++) { /* -qw 3, -w3 */
            const mb__opt *o = find_opt(cmd, NULL, 0, *s);
            if (o && o->type != MB_OPT_SWITCH) {
                i += s[1] == '\0';
                break;
            }
        }
    }
    return argc;
}

void mb_cli_rounds_progress(mb__cli_rounds *ps, const char *what, size_t round,
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
