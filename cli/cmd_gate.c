/* cmd_gate.c - mbench gate: a regression verdict for CI that does not cry
 * wolf.  Judges a current result document against a baseline (a file, or
 * the newest results of a branch or commit in the store): parses the
 * options, calls the gate engine (src/regress/gaterun.c), prints its table
 * and writes the verdict as JSON ("mbench.gate/1"), Markdown for a
 * pull-request comment or HTML (src/report/gaterep.c).  Exit codes: 0 pass, 1 regression, 5 accuracy gate
 * failed, 4 inconclusive, 3 error, 2 usage (docs/GATE.md). */
#include "cli.h"
#include "outputs.h"
#include "reqopt.h"

#include "core/buf.h"
#include "core/err.h"
#include "regress/gaterun.h"
#include "report/gaterep.h"
#include "report/output.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(gate, cmd_gate,
               "pass/fail a result against a baseline, with statistics")

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: mbench gate --current CUR.json (--baseline BASE.json | --db DB "
        "--against REF)\n"
        "       mbench gate --current COMPARE.json   (its variants against "
        "its baseline)\n"
        "                   [--max-regression "
        "p50=5%%,memory=10%%,size=1%%,p99=off,throughput=off]\n"
        "                   [--gate 'METRIC>=X']... [--md FILE] [--json FILE]\n"
        "                   [--html FILE]\n"
        "                   [--db DB [--git-dir DIR] [--no-store]]\n\n"
        "Compares every run of CUR with the baseline run of the same model "
        "(sha256),\n"
        "variant and batch size.  The unit of replication is the process: "
        "each side's\nper-process figures (mbench run --processes, default "
        "10).  A latency change\nis a regression only when it is larger than "
        "its threshold AND significant:\nWelch t (alpha 0.01) on the log "
        "per-process figures, and the lower bound of\nthe 95%% CI of "
        "current/baseline above 1 + threshold; a pass when the upper\nbound "
        "is within it.  One process on a side, or a CI that straddles the\n"
        "threshold, gives 'inconclusive' with what would decide it.  With "
        "--db, the\nrun-to-run spread of the stored history widens the "
        "latency thresholds.\n\n"
        "  --baseline FILE        baseline result document (JSON)\n"
        "  --current FILE         current result document (JSON); required\n"
        "  --db FILE|URL          results store (SQLite file or postgresql:// "
        "URL);\n"
        "                         the current document is appended to it\n"
        "  --against REF          take the baseline from --db: newest results "
        "of\n"
        "                         branch REF or commit prefix REF with a run "
        "of\n"
        "                         the models being gated\n"
        "  --git-dir DIR          repository of the measured project (default "
        ".)\n"
        "  --no-store             with --db: do not append the current "
        "document\n"
        "  --max-regression LIST  thresholds per metric: p50 p90 p95 p99 mean\n"
        "                         throughput memory size, as N%% or 'off' (p99,\n"
        "                         p90, p95, mean, throughput are off by default)\n"
        "  --gate 'M OP X'        accuracy gate on the current results (OP: >= "
        "<= > < ==)\n"
        "  --require EXPR         a target on the current results, e.g. "
        "'p50<=12ms'\n"
        "                         (repeatable; exit 6 when unmet)\n"
        "  --md FILE              write the verdict as Markdown (a PR "
        "comment)\n"
        "  --json FILE            write the verdict as JSON (schema "
        "mbench.gate/1)\n"
        "  --html FILE            write the verdict as a self-contained HTML "
        "page\n"
        "                         (FILE '-' is stdout for any of the three)\n"
        "  -q, --quiet            no table on stdout\n\n"
        "Exit: 0 pass, 1 regression, 5 accuracy gate failed, 4 inconclusive,\n"
        "3 error, 2 usage.\n");
}

/* Prints the verdict table on stdout. */
static int print_console(const json_t *result)
{
    mb_buf b = MB_BUF_INIT;
    mb_err err = {0};
    if (mb__report_gate_console(result, &b, &err)) {
        mb__buf_free(&b);
        return mb_cli_fail(&err);
    }
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    mb__buf_free(&b);
    return 0;
}

static void print_failure(void *user, const mb_err *e)
{
    (void)user;
    mb_cli_fail(e);
}

int cmd_gate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"baseline", required_argument, NULL, 'b'},
        {"current", required_argument, NULL, 'c'},
        {"db", required_argument, NULL, 'd'},
        {"against", required_argument, NULL, 'a'},
        {"git-dir", required_argument, NULL, 'G'},
        {"no-store", no_argument, NULL, 'N'},
        {"max-regression", required_argument, NULL, 'r'},
        {"gate", required_argument, NULL, 'g'},
        {"seed", required_argument, NULL, 's'},
        {"md", required_argument, NULL, 'm'},
        {"json", required_argument, NULL, 'j'},
        {"html", required_argument, NULL, 'H'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"require", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0}};
    const char *base_path = NULL, *cur_path = NULL, *db = NULL, *against = NULL,
               *git_dir = NULL;
    mb__outset out = {0};
    int no_store = 0, quiet = 0;
    mb__regress_opts o;
    mb__regress_defaults(&o);
    const char **gates = calloc((size_t)argc + 1, sizeof *gates);
    size_t n_gates = 0;
    mb_err err = {0};
    int rc = MB_EXIT_OK, opt;
    mb_cli_reqs reqs = {0};
    if (!gates)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
        switch (opt) {
        case 'b':
            base_path = optarg;
            break;
        case 'c':
            cur_path = optarg;
            break;
        case 'd':
            db = optarg;
            break;
        case 'a':
            against = optarg;
            break;
        case 'G':
            git_dir = optarg;
            break;
        case 'N':
            no_store = 1;
            break;
        case 'm': /* outputs are checked before any work; "-" is stdout */
        case 'j':
        case 'H':
            if ((rc = mb_cli_output_arg(opt == 'm'   ? "--md"
                                        : opt == 'j' ? "--json"
                                                     : "--html",
                                        optarg,
                                        opt == 'm'   ? &out.md
                                        : opt == 'j' ? &out.json
                                                     : &out.html))) {
                free(gates);
                return rc;
            }
            break;
        case 'q':
            quiet = 1;
            break;
        case 'g':
            gates[n_gates++] = optarg;
            break;
        case 'R':
            if ((rc = mb_cli_reqs_add(&reqs, optarg))) {
                free(gates);
                mb_cli_reqs_free(&reqs);
                return rc;
            }
            break;
        case 'r':
            if (mb__regress_parse_thresholds(optarg, &o, &err)) {
                free(gates);
                return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
            }
            break;
        case 's': {
            int64_t v;
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &v)) {
                free(gates);
                return mb_cli_bad_value("--seed", optarg,
                                        "a non-negative integer");
            }
            o.seed = (uint64_t)v;
            break;
        }
        case 'h':
            usage(stdout);
            free(gates);
            return MB_EXIT_OK;
        case ':':
            free(gates);
            return mb_cli_error(MB_EXIT_USAGE,
                                "%s needs a value (see mbench gate --help)",
                                argv[optind - 1]);
        default:
            free(gates);
            return mb_cli_error(
                MB_EXIT_USAGE,
                "unknown option '%s' for gate (see mbench gate --help)",
                argv[optind - 1]);
        }
    }
    if (optind < argc)
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "unexpected argument '%s': gate takes --baseline and "
                          "--current files",
                          argv[optind]);
    else if (!cur_path)
        rc = mb_cli_error(
            MB_EXIT_USAGE,
            "gate needs --current CUR.json (the results to judge)");
    else if (!base_path && !against && !mb__gate_is_compare_doc(cur_path))
        rc =
            mb_cli_error(MB_EXIT_USAGE,
                         "gate needs a baseline: --baseline BASE.json, or --db "
                         "DB --against BRANCH_OR_COMMIT (or a compare "
                         "document as --current: its variants are gated "
                         "against its baseline)");
    else if (base_path && against)
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "give either --baseline or --against, not both");
    else if (against && !db)
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "--against %s needs --db (the store to take the "
                          "baseline from)",
                          against);
    if (rc) {
        free(gates);
        mb_cli_reqs_free(&reqs);
        return rc;
    }
    o.accuracy = gates;
    o.n_accuracy = n_gates;
    mb__gate_req rq = {cur_path, base_path, db, against, git_dir, no_store, o};
    json_t *result = NULL;
    int code = 0;
    if (mb__gate_run(&rq, &result, &code, &err)) {
        rc = mb_cli_fail(&err);
        goto out;
    }
    if (!quiet && (rc = print_console(result)))
        goto out;
    int req_rc = 0;
    if (reqs.n) { /* targets on the current results, recorded in the verdict */
        json_error_t je;
        json_t *cur = json_load_file(cur_path, 0, &je);
        if (!cur) {
            rc = mb_cli_error(MB_EXIT_RUNTIME, "%s: %s", cur_path, je.text);
            goto out;
        }
        req_rc = mb_cli_reqs_judge(&reqs, cur, result, stdout);
        json_decref(cur);
    }
    if (mb__output_all(&out, result, print_failure, NULL)) {
        rc = MB_EXIT_RUNTIME;
        goto out;
    }
    rc = mb_cli_reqs_exit(code, req_rc);
out:
    mb_cli_reqs_free(&reqs);
    json_decref(result);
    free(gates);
    return rc;
}
