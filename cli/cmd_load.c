/* cmd_load.c - mbench load: serving load on one model (closed loop,
 * Poisson arrivals, offline, or the highest rate under a latency bound).
 * Parse (the table below, the run options and the outputs), call
 * mb__load_run (src/load), print. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "load/load.h"
#include "report/loadrep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(load, cmd_load,
               "serving load: concurrency, Poisson arrivals, highest QPS "
               "under a latency bound")
MBENCH_OPTIONS(load, mb_cmd_load)

/* Every option is handed to mb__load_req_set by its name, which checks it
 * again (the API takes the same names). */
/* clang-format off */
#define O(n, t, m, h, e, lo, hi) {n, 0, t, m, h, e, NULL, lo, hi, 0, 0}
static const mb__opt load_opts[] = {
    O("concurrency", MB_OPT_INTLIST, "N[,N..]", "closed loop: N requests always in flight (default 1); with the other scenarios: serving threads (default: CPUs)", "thread counts from 1 to 4096 (1,2,4)", 1, 4096),
    O("qps", MB_OPT_STRING, "R[,R..]", "open loop: Poisson arrivals at R requests/s", NULL, 0, 0),
    O("offline", MB_OPT_SWITCH, NULL, "every request arrives at once (throughput)", NULL, 0, 0),
    O("slo", MB_OPT_STRING, "pQ=DURATION", "highest Poisson rate whose pQ latency stays under the bound (p99=20ms): calibrate, bracket, bisect", NULL, 0, 0),
    O("sessions", MB_OPT_INT, "N", "sessions the threads use (default 1: one shared session)", "a positive count", 1, 4096),
    O("cpus", MB_OPT_STRING, "LIST", "run on these CPUs only (0-3,6)", NULL, 0, 0),
    O("requests", MB_OPT_INT, "N", "offline: requests (default: --min-time's worth)", "a positive count", 1, 1000000000),
    O("repeat", MB_OPT_INT, "K", "--slo: K independent searches, the answer's replicates (default 5; 1 gives no interval)", "a positive count", 1, 4096),
    O("confidence", MB_OPT_DOUBLE, "C", "early-stopping confidence (default 0.99)", "a fraction between 0 and 1 (0.99)", 0, 1),
    O("tolerance", MB_OPT_DOUBLE, "F", "--slo: stop bisecting at (hi-lo)/hi <= F (default 0.05)", "a fraction between 0 and 1 (0.99)", 0, 1),
    O("max-steps", MB_OPT_INT, "N", "--slo: steps per search after calibration (default 12)", "a positive count", 1, 4096),
    O("queued", MB_OPT_DURATION, "DURATION", "count requests that waited longer (default 1ms)", "a duration from 0 to 1s, such as 1ms", 0, 0),
    O("records", MB_OPT_INT, "N", "keep per-request records up to N per step (default 200000)", "a positive count", 0, 1000000000),
    O("spin", MB_OPT_STRING, "DURATION|auto", "open loop: wake this early and spin to the arrival (default auto: follows the wake-up lateness, at most 200us)", NULL, 0, 0),
    {.name = "realtime", .type = MB_OPT_ENUM, .metavar = "MODE", .help = "serving threads at real-time priority where permitted: while waiting for an arrival (wait), throughout, requests included (serve), never (none), or auto (the default: with --qps or --slo, serve when fewer serving threads than CPUs and --threads 1 or the null backend, else wait)", .choices = "auto|none|wait|serve"},
    {.name = "slo-basis", .type = MB_OPT_ENUM, .metavar = "BASIS", .help = "--slo: judge the latency without the harness's dispatch delays (model, the default: the requests replayed as if started on time) or as measured (measured)", .choices = "model|measured"},
    {.name = "early-stopping", .type = MB_OPT_ENUM, .metavar = "RULE", .help = "tail bounds and the SLO test: the exact binomial rule (exact, the default) or MLPerf LoadGen's (loadgen)", .choices = "exact|loadgen"},
};
/* clang-format on */

const mb__cmd mb_cmd_load = {
    .name = "load",
    .args = "MODEL",
    .summary = "serving load: concurrency, Poisson arrivals, highest QPS "
               "under a latency bound",
    .description =
        "Serves MODEL to many requests at once and reports throughput and "
        "latency measured from each request's scheduled arrival (queueing "
        "counted); docs/LOAD.md explains it.  One scenario: --concurrency "
        "(closed loop, the default), --qps, --offline or --slo.  Per step: "
        "--warmup N per thread before every step, --min-time (default 1s) "
        "and --min-iterations of requests, --max-time cap; --iterations N "
        "fixes the count.",
    .opts = load_opts,
    .n_opts = sizeof load_opts / sizeof load_opts[0],
    .sets = MB_OPTSET_RUN | MB_OPTSET_OUTPUT,
    .min_args = 1,
    .max_args = 1,
    .footer = "Exit codes: 0 success, 2 usage error, 3 runtime error, 130 "
              "interrupted."};

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    mb_err e = {0};
    if (mb__load_req_set(user, o->name, v->text ? v->text : "1", &e))
        return mb_cli_error(MB_EXIT_USAGE, "%s", e.msg);
    return 0;
}

int cmd_load(int argc, char **argv)
{
    mb__plan plan;
    mb__plan_defaults(&plan);
    mb__load_req rq;
    mb__load_req_defaults(&rq);
    mb__cli_outputs out = {0};
    mb__opt_ctx ctx = {&plan, &out, on_opt, &rq, 0, NULL, 0};
    json_t *doc = NULL;
    mb_err err = {0};
    int rc = mb_opt_parse(&mb_cmd_load, argc, argv, &ctx);
    if (rc == 0) {
        plan.model_path = strdup(ctx.args[0]);
        plan.cancel = mb_cli_cancel_flag(1); /* a second Ctrl-C ends at once */
        rc = mb__load_run(&plan, &rq, &doc, &err) ? mb_cli_fail(&err) : 0;
    }
    if (rc == 0 && doc) {
        json_object_set_new(doc, "command_line",
                            json_string(mb_cli_command_line()));
        mb__buf b = MB_BUF_INIT;
        if (!ctx.quiet)
            mb__report_load_console(doc, mb_cli_term_width(1), &b);
        mb_cli_put(&b);
        rc = mb_cli_outputs_write(&out, doc);
        mb_status st = rc ? MB_OK : mb__load_doc_outcome(doc, &err);
        if (st == MB_EINTERRUPTED) /* not an error: what finished is shown */
            fprintf(stderr, "mbench: %s\n", err.msg);
        rc = st == MB_EINTERRUPTED ? mb_cli_interrupted_exit()
             : st                  ? mb_cli_fail(&err)
                                   : rc;
    }
    json_decref(doc);
    mb__plan_free(&plan);
    return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
}
