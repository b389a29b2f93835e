/* cmd_machine.c - mbench machine: this machine's practical peaks (sgemm
 * GFLOP/s, triad GB/s, counters), measured once and cached
 * (profile/machine.h), printed by report/machrep.h. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "profile/machine.h"
#include "report/machrep.h"

#include <stdio.h>

MBENCH_COMMAND(
    machine, cmd_machine,
    "measure (once, then cached) this machine's GEMM and memory peaks")
MBENCH_OPTIONS(machine, mb_cmd_machine)

/* clang-format off */
enum { O_REFRESH, O_JSON };

static const mb__opt machine_opts[] = {
    {.name = "refresh", .type = MB_OPT_SWITCH, .help = "measure again even when a cache exists", .id = O_REFRESH},
    {.name = "json", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "also write the record as JSON to FILE ('-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_JSON},
};

const mb__cmd mb_cmd_machine = {"machine", NULL, "measure (once, then cached) this machine's GEMM and memory peaks",
    "Measures this machine's practical peaks once and caches them in $XDG_CACHE_HOME/mbench/machine.json "
    "(else ~/.cache/mbench/): single-precision GEMM through OpenBLAS (one core, all cores), memory "
    "bandwidth with a STREAM-like triad (one core, all cores) and whether hardware counters can be "
    "read.  `mbench profile' reports share of peak against these figures.",
    machine_opts, 2, 0, 0, 0, NULL};
/* clang-format on */

typedef struct {
    int refresh;
    const char *json_path;
} machine_args;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    machine_args *a = user;
    if (o->id == O_REFRESH)
        a->refresh = 1;
    else
        a->json_path = v->str; /* checked before the peaks are measured */
    return 0;
}

int cmd_machine(int argc, char **argv)
{
    machine_args a = {0, NULL};
    mb__opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int c = mb_opt_parse(&mb_cmd_machine, argc, argv, &ctx);
    if (c)
        return c == MB_OPT_HELP ? MB_EXIT_OK : c;
    mb_err err = {0};
    json_t *m;
    int from_cache;
    if (mb__machine_get(a.refresh, &m, &from_cache, &err))
        return mb_cli_fail(&err);
    if (!ctx.quiet) {
        mb__buf b = MB_BUF_INIT;
        mb__machine_console(&b, m, from_cache);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        mb__buf_free(&b);
    }
    int rc = a.json_path ? mb_cli_write_json(a.json_path, m,
                                             JSON_INDENT(2) | JSON_SORT_KEYS)
                         : MB_EXIT_OK;
    json_decref(m);
    return rc;
}
