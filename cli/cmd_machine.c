/* cmd_machine.c - mbench machine: this machine's practical peaks (sgemm
 * GFLOP/s, triad GB/s, counters), measured once and cached. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "profile/machine.h"
#include "report/rutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(
    machine, cmd_machine,
    "measure (once, then cached) this machine's GEMM and memory peaks")
MBENCH_OPTIONS(machine, mb_cmd_machine)

enum { O_REFRESH, O_JSON };

static const mb_opt machine_opts[] = {
    {"refresh", 0, MB_OPT_SWITCH, NULL,
     "measure again even when a cache exists", NULL, NULL, 0, 0, 0, O_REFRESH},
    {"json", 0, MB_OPT_OUTFILE, "FILE",
     "also write the record as JSON to FILE ('-' for stdout)", NULL, NULL, 0, 0,
     MB_OPT_STDOUT, O_JSON},
};

const mb_cmd mb_cmd_machine = {
    "machine",
    NULL,
    "measure (once, then cached) this machine's GEMM and memory peaks",
    "Measures this machine's practical peaks once and caches them in "
    "$XDG_CACHE_HOME/mbench/machine.json (else ~/.cache/mbench/): "
    "single-precision GEMM through OpenBLAS (one core, all cores), memory "
    "bandwidth with a STREAM-like triad (one core, all cores) and whether "
    "hardware counters can be read.  `mbench profile' reports share of "
    "peak against these figures.",
    machine_opts,
    sizeof machine_opts / sizeof machine_opts[0],
    0,
    0,
    0,
    NULL};

typedef struct {
    int refresh;
    const char *json_path;
} machine_args;

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    machine_args *a = user;
    if (o->id == O_REFRESH)
        a->refresh = 1;
    else
        a->json_path = v->str; /* checked before the peaks are measured */
    return 0;
}

/* Prints the record (also used by `mbench profile --verbose`). */
static void print_machine(const json_t *m, int from_cache)
{
    const char *when = json_string_value(json_object_get(m, "measured_utc"));
    const char *path = json_string_value(json_object_get(m, "cache_path"));
    const json_t *key = json_object_get(m, "key");
    printf("Machine peaks (%s %s%s%s)\n",
           from_cache ? "cached, measured" : "measured", when ? when : "?",
           path ? (from_cache ? "; " : "; saved to ") : "; not cached",
           path ? path : "");
    printf("  %-18s %s, %.0f logical cores\n", "cpu",
           json_string_value(json_object_get(key, "cpu_model"))
               ? json_string_value(json_object_get(key, "cpu_model"))
               : "unknown",
           mb__jnum(m, "key.logical_cores"));
    printf("  %-18s %8.1f GFLOP/s   (OpenBLAS cblas_sgemm, n=%.0f)\n",
           "sgemm one core", mb__jnum(m, "sgemm.one_core_gflops"),
           mb__jnum(m, "sgemm.n"));
    printf("  %-18s %8.1f GFLOP/s   (%.0f threads)\n", "sgemm all cores",
           mb__jnum(m, "sgemm.all_cores_gflops"), mb__jnum(m, "sgemm.threads"));
    printf("  %-18s %8.1f GB/s      (triad, 3 arrays of %.0f MiB)\n",
           "triad one core", mb__jnum(m, "triad.one_core_gbps"),
           mb__jnum(m, "triad.bytes_per_array") / 1048576.0);
    printf("  %-18s %8.1f GB/s      (%.0f threads)\n", "triad all cores",
           mb__jnum(m, "triad.all_cores_gbps"), mb__jnum(m, "triad.threads"));
    const json_t *load = json_object_get(m, "loadavg_1min");
    if (json_is_number(load) &&
        json_number_value(load) > 0.5 * mb__jnum(m, "key.logical_cores"))
        printf("  %-18s load average was %.1f while measuring: the peaks may "
               "be low; re-run with --refresh on an idle machine\n",
               "note", json_number_value(load));
    const json_t *c = json_object_get(m, "counters");
    if (json_is_true(json_object_get(c, "available")))
        printf("  %-18s available (test loop: IPC %.2f)\n", "hw counters",
               json_number_value(json_object_get(c, "ipc")));
    else
        printf("  %-18s not available: %s\n", "hw counters",
               json_string_value(json_object_get(c, "reason"))
                   ? json_string_value(json_object_get(c, "reason"))
                   : "unknown");
}

int cmd_machine(int argc, char **argv)
{
    machine_args a = {0, NULL};
    mb_opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int c = mb_opt_parse(&mb_cmd_machine, argc, argv, &ctx);
    if (c)
        return c == MB_OPT_HELP ? MB_EXIT_OK : c;
    int refresh = a.refresh;
    const char *json_path = a.json_path;
    mb_err err = {0};
    json_t *m;
    int from_cache;
    if (mb__machine_get(refresh, &m, &from_cache, &err))
        return mb_cli_fail(&err);
    if (!ctx.quiet)
        print_machine(m, from_cache);
    int rc = MB_EXIT_OK;
    if (json_path) {
        char *text = json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (!text || mb__write_file_atomic(json_path, text, strlen(text), &err))
            rc = text ? mb_cli_fail(&err)
                      : mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        free(text);
    }
    json_decref(m);
    return rc;
}
