/* cmd_load.c - mbench load: serving load on one model (closed loop,
 * Poisson arrivals, offline, or the highest rate under a latency bound).
 * Parse, call mb__load_run (src/load), print. */
#include "cli.h"
#include "outputs.h"
#include "runopts.h"

#include "core/buf.h"
#include "load/load.h"
#include "report/loadrep.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(load, cmd_load,
               "serving load: concurrency, Poisson arrivals, highest QPS "
               "under a latency bound")

static volatile int interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted)
        _exit(MB_EXIT_INTERRUPTED);
    interrupted = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mbench load MODEL [options]\n\n"
            "Serves MODEL to many requests at once and reports throughput "
            "and latency measured\nfrom each request's scheduled arrival "
            "(queueing counted).  docs/LOAD.md explains it.\n\n"
            "Scenarios (one):\n"
            "  --concurrency N[,N..]   closed loop: N requests always in "
            "flight (default 1);\n"
            "                          with the other scenarios: serving "
            "threads (default: CPUs)\n"
            "  --qps R[,R..]           open loop: Poisson arrivals at R "
            "requests/s\n"
            "  --offline               every request arrives at once "
            "(throughput)\n"
            "  --slo pQ=DURATION       highest Poisson rate whose pQ "
            "latency stays under the\n"
            "                          bound (p99=20ms): calibrate, "
            "bracket, bisect\n"
            "Load options:\n"
            "  --sessions N            sessions the threads use (default 1: "
            "one shared session)\n"
            "  --cpus LIST             run on these CPUs only (0-3,6)\n"
            "  --requests N            offline: requests (default: "
            "--min-time's worth)\n"
            "  --repeat K              --slo: K independent searches "
            "(median and spread)\n"
            "  --confidence C          early-stopping confidence (default "
            "0.99)\n"
            "  --tolerance F           --slo: stop bisecting at (hi-lo)/hi "
            "<= F (default 0.05)\n"
            "  --max-steps N           --slo: steps per search after "
            "calibration (default 12)\n"
            "  --queued DURATION       count requests that waited longer "
            "(default 1ms)\n"
            "  --records N             keep per-request records up to N "
            "per step (default 200000)\n"
            "  --spin DURATION         open loop: wake this early and spin "
            "to the arrival (default 0)\n"
            "Per step: --warmup N per thread before every step, --min-time "
            "(default 1s) and\n--min-iterations of requests, --max-time cap; "
            "--iterations N fixes the count.\n\n");
    mb_cli_runopts_usage(f);
    fputs(mb_cli_outputs_help, f);
    fputs("Display:\n"
          "  --quiet                 no console table\n"
          "  --help                  this help\n"
          "\nExit codes: 0 success, 2 usage error, 3 runtime error, "
          "130 interrupted.\n",
          f);
}

enum { O_HELP = 'h', O_QUIET = 700, O_LOAD };

static const char *const load_keys[] = {
    "concurrency", "qps",        "offline",   "slo",    "sessions",
    "cpus",        "requests",   "repeat",    "confidence", "tolerance",
    "max-steps",   "queued",     "records",   "spin"};
#define N_LOAD_KEYS (sizeof load_keys / sizeof load_keys[0])

int cmd_load(int argc, char **argv)
{
    struct option own[2 + N_LOAD_KEYS] = {
        {"help", no_argument, NULL, O_HELP},
        {"quiet", no_argument, NULL, O_QUIET},
    };
    for (size_t i = 0; i < N_LOAD_KEYS; i++)
        own[2 + i] = (struct option){load_keys[i],
                                     strcmp(load_keys[i], "offline")
                                         ? required_argument
                                         : no_argument,
                                     NULL, O_LOAD + (int)i};
    struct option *longopts =
        mb_cli_runopts_merge_outputs(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    mb_plan plan;
    mb__plan_defaults(&plan);
    mb__load_req rq;
    mb__load_req_defaults(&rq);
    mb_cli_outputs out = {0};
    int quiet = 0, c, rc = MB_EXIT_OK, scen = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int r = mb_cli_runopts_handle(&plan, c, optarg);
        if (r < 0) {
            rc = MB_EXIT_USAGE;
            goto done;
        }
        if (r > 0 || mb_cli_outputs_handle(&out, c, optarg))
            continue;
        if (c >= O_LOAD && c < O_LOAD + (int)N_LOAD_KEYS) {
            const char *key = load_keys[c - O_LOAD];
            mb_err e = {0};
            scen += !strcmp(key, "qps") || !strcmp(key, "offline") ||
                    !strcmp(key, "slo");
            if (mb__load_req_set(&rq, key, optarg ? optarg : "1", &e)) {
                rc = mb_cli_error(MB_EXIT_USAGE, "%s", e.msg);
                goto done;
            }
            continue;
        }
        switch (c) {
        case O_HELP:
            usage(stdout);
            goto done;
        case O_QUIET: quiet = 1; break;
        case ':':
            rc = mb_cli_error(MB_EXIT_USAGE, "%s needs a value; see 'mbench "
                              "load --help'", argv[optind - 1]);
            goto done;
        default:
            rc = mb_cli_error(MB_EXIT_USAGE, "unknown option '%s'; see "
                              "'mbench load --help'", argv[optind - 1]);
            goto done;
        }
    }
    if (scen > 1) {
        rc = mb_cli_error(MB_EXIT_USAGE, "--qps, --offline and --slo are "
                          "different scenarios; give one of them");
        goto done;
    }
    if (optind != argc - 1) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          optind >= argc ? "missing MODEL; usage: mbench load "
                                           "MODEL [options]"
                                         : "expected one MODEL, got extra "
                                           "argument '%s'",
                          optind < argc - 1 ? argv[optind + 1] : "");
        goto done;
    }
    if (rq.scenario != MB_LOAD_CLOSED && rq.n_concurrency > 1) {
        rc = mb_cli_error(MB_EXIT_USAGE, "a list of --concurrency values is "
                          "a closed-loop sweep; with --qps, --offline or "
                          "--slo give one thread count");
        goto done;
    }
    if (mb_cli_runopts_finish(&plan)) {
        rc = MB_EXIT_USAGE;
        goto done;
    }
    plan.model_path = strdup(argv[optind]);
    plan.cancel = &interrupted;
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    json_t *doc = NULL;
    mb_err err = {0};
    mb_status st = mb__load_run(&plan, &rq, &doc, &err);
    if (st) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    json_object_set_new(doc, "command_line",
                        json_string(mb_cli_command_line()));
    if (!quiet) {
        mb_buf b = MB_BUF_INIT;
        mb__report_load_console(doc, mb_cli_term_width(1), &b);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        mb__buf_free(&b);
    }
    rc = mb_cli_outputs_write(&out, doc);
    size_t i;
    json_t *step;
    json_array_foreach(json_object_get(json_object_get(doc, "load"), "steps"),
                       i, step)
        if (json_object_get(step, "error") && !rc)
            rc = mb_cli_error(MB_EXIT_RUNTIME, "step %zu failed: %s", i + 1,
                              json_string_value(
                                  json_object_get(step, "error")));
    if (json_is_true(json_object_get(doc, "interrupted")) && !rc) {
        fprintf(stderr, "mbench: interrupted; the results above are what "
                        "finished\n");
        rc = MB_EXIT_INTERRUPTED;
    }
    json_decref(doc);
done:
    free(longopts);
    mb__plan_free(&plan);
    return rc;
}
