/* cmd_gate.c - mbench gate: a regression verdict for CI that does not cry
 * wolf.  Judges a current result document against a baseline (a file, or
 * the newest results of a branch or commit in the store): parses the
 * options (the table below), calls the gate engine (src/regress/gaterun.c),
 * prints its table and writes the verdict as JSON ("mbench.gate/1"),
 * Markdown for a pull-request comment, HTML or CSV (src/report/gaterep.c).
 * Statistics and exit codes: docs/GATE.md. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"
#include "reqopt.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "regress/gaterun.h"
#include "report/gaterep.h"
#include "report/output.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(gate, cmd_gate,
               "pass/fail a result against a baseline, with statistics")
MBENCH_OPTIONS(gate, mb_cmd_gate)

/* clang-format off */
enum { O_BASE, O_CUR, O_DB, O_AGAINST, O_GITDIR, O_NOSTORE, O_MAXREG, O_GATE, O_SEED, O_MD, O_JSON, O_HTML, O_CSV, O_REQ, O_MIXCPU, O_N };

static const mb__opt gate_opts[] = {
    {.name = "baseline", .type = MB_OPT_FILE, .metavar = "FILE", .help = "baseline result document (JSON)", .id = O_BASE},
    {.name = "current", .type = MB_OPT_FILE, .metavar = "FILE", .help = "current result document (JSON); required", .id = O_CUR},
    {.name = "db", .type = MB_OPT_STRING, .metavar = "FILE|URL", .help = "results store (SQLite file, postgresql:// URL or libpq 'host=... dbname=...'); the current document is appended to it", .id = O_DB},
    {.name = "against", .type = MB_OPT_STRING, .metavar = "REF", .help = "take the baseline from --db: newest results of branch REF or commit prefix REF with a run of the models being gated", .id = O_AGAINST},
    {.name = "git-dir", .type = MB_OPT_DIR, .metavar = "DIR", .help = "repository of the measured project (default .)", .id = O_GITDIR},
    {.name = "no-store", .type = MB_OPT_SWITCH, .help = "with --db: do not append the current document", .id = O_NOSTORE},
    {.name = "max-regression", .type = MB_OPT_STRING, .metavar = "LIST", .help = "thresholds per metric (p50 p90 p95 p99 mean throughput memory size) as N% or 'off', e.g. p50=5%,memory=10%,p99=off (p99, p90, p95, mean, throughput are off by default)", .id = O_MAXREG},
    {.name = "gate", .type = MB_OPT_STRING, .metavar = "'M OP X'", .help = "accuracy gate on the current results (OP: >= <= > < ==; repeatable)", .flags = MB_OPT_REPEAT, .id = O_GATE},
    {.name = "seed", .type = MB_OPT_INT, .metavar = "N", .help = "accepted for old scripts; nothing resamples", .expect = "a non-negative integer", .hi = 9.2e18, .flags = MB_OPT_HIDDEN, .id = O_SEED},
    {.name = "require", .type = MB_OPT_STRING, .metavar = "EXPR", .help = "a target on the current results, e.g. 'p50<=12ms' (repeatable; exit 6 when unmet)", .flags = MB_OPT_REPEAT, .id = O_REQ},
    {.name = "md", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write the verdict as Markdown (a PR comment; '-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_MD},
    {.name = "json", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write the verdict as JSON (schema mbench.gate/1; '-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_JSON},
    {.name = "html", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write the verdict as a self-contained HTML page ('-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_HTML},
    {.name = "allow-mixed-cpus", .type = MB_OPT_SWITCH, .help = "judge runs measured on different CPU models (refused by default: exit 3)", .id = O_MIXCPU},
    {.name = "csv", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write the verdict table as CSV, one line per model, variant, batch and metric, figures unformatted ('-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_CSV},
};

const mb__cmd mb_cmd_gate = {"gate", "--current CUR.json (--baseline BASE.json | --db DB --against REF)",
    "pass/fail a result against a baseline, with statistics",
    "Compares every run of --current CUR.json with the baseline run of the same model (sha256), variant "
    "and batch size; the baseline is --baseline BASE.json, or --db DB --against REF, or (for a compare "
    "document as --current) its own baseline variant.  The unit of replication is the process: each "
    "side's per-process figures (mbench run --processes, default 10).  A latency change is a "
    "regression only when it is larger than its threshold AND significant: Welch t (alpha 0.01) on "
    "the log per-process figures, and the lower bound of the 95% CI of current/baseline above 1 + "
    "threshold; a pass when the upper bound is within it.  One process on a side, or a CI that "
    "straddles the threshold, gives 'inconclusive' with what would decide it.  With --db, the "
    "run-to-run spread of the stored history widens the latency thresholds.  -q prints no table.",
    gate_opts, O_N, 0, 0, 0,
    "Exit codes: 0 pass, 1 regression, 5 accuracy gate failed, 4 inconclusive, 6 a --require target "
    "not met, 3 error, 2 usage."};
/* clang-format on */

typedef struct gargs {
    mb__gate_req rq;
    mb__outset out;
    const char **gates; /* --gate values, borrowed from argv */
    size_t n_gates;
    mb__cli_reqs reqs;
} gargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    gargs *a = user;
    mb_err err = {0};
    /* the options that only store their text (outputs: the path to write) */
    const char **const strs[O_N] = {[O_BASE] = &a->rq.baseline,
                                    [O_CUR] = &a->rq.current,
                                    [O_DB] = &a->rq.db,
                                    [O_AGAINST] = &a->rq.against,
                                    [O_GITDIR] = &a->rq.git_dir};
    const char **const paths[O_N] = {[O_MD] = &a->out.md,
                                     [O_JSON] = &a->out.json,
                                     [O_HTML] = &a->out.html,
                                     [O_CSV] = &a->out.csv};
    if (strs[o->id])
        *strs[o->id] = v->text;
    else if (paths[o->id])
        *paths[o->id] = v->str;
    else if (o->id == O_NOSTORE)
        a->rq.no_store = 1;
    else if (o->id == O_MIXCPU)
        a->rq.allow_mixed_cpus = 1;
    else if (o->id == O_SEED)
        a->rq.opts.seed = (uint64_t)v->i;
    else if (o->id == O_GATE)
        a->gates[a->n_gates++] = v->text;
    else if (o->id == O_REQ)
        return mb_cli_reqs_add(&a->reqs, v->text);
    else if (o->id == O_MAXREG &&
             mb__regress_parse_thresholds(v->text, &a->rq.opts, &err))
        return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
    return 0;
}

static void print_failure(void *user, const mb_err *e)
{
    (void)user;
    mb_cli_fail(e);
}

/* Judges the --require targets on the current document (read again:
 * the engine keeps none) and records them in the verdict. */
static int judge_reqs(const gargs *a, json_t *verdict)
{
    json_error_t je;
    json_t *cur = json_load_file(a->rq.current, 0, &je);
    if (!cur)
        return mb_cli_error(MB_EXIT_RUNTIME, "%s: %s", a->rq.current, je.text);
    int rc = mb_cli_reqs_judge(&a->reqs, cur, verdict, stdout);
    json_decref(cur);
    return rc;
}

int cmd_gate(int argc, char **argv)
{
    gargs a;
    memset(&a, 0, sizeof a);
    mb__regress_defaults(&a.rq.opts);
    a.gates = mb__calloc((size_t)argc + 1, sizeof *a.gates);
    json_t *result = NULL;
    mb_err err = {0};
    mb__buf b = MB_BUF_INIT;
    mb__opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int code = 0, req_rc = 0;
    int rc = a.gates ? mb_opt_parse(&mb_cmd_gate, argc, argv, &ctx)
                     : mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    a.rq.opts.accuracy = a.gates;
    a.rq.opts.n_accuracy = a.n_gates;
    if (!rc && (mb__gate_check_req(&a.rq, &err) ||
                mb__gate_run(&a.rq, &result, &code, &err) ||
                (!ctx.quiet && mb__report_gate_console(result, &b, &err))))
        rc = mb_cli_fail(&err);
    if (!rc)
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
    if (!rc && ctx.quiet)
        mb_cli_doc_warnings(result);
    if (!rc && a.reqs.n && (req_rc = judge_reqs(&a, result)) == MB_EXIT_RUNTIME)
        rc = req_rc;
    if (!rc)
        rc = mb__output_all(&a.out, result, print_failure, NULL)
                 ? MB_EXIT_RUNTIME
                 : mb_cli_reqs_exit(code, req_rc);
    mb__buf_free(&b);
    mb_cli_reqs_free(&a.reqs);
    json_decref(result);
    free(a.gates);
    return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
}
