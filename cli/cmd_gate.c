/* cmd_gate.c - mbench gate: a regression verdict for CI that does not cry
 * wolf.  Judges a current result document against a baseline (a file, or
 * the newest results of a branch or commit in the store), prints a table,
 * and writes Markdown for a pull-request comment and JSON
 * ("mbench.gate/1").  Exit codes: 0 pass, 1 regression, 5 accuracy gate
 * failed, 4 inconclusive, 3 error, 2 usage (docs/GATE.md). */
#include "cli.h"
#include "outputs.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "regress/regress.h"
#include "store/store.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(gate, cmd_gate,
               "pass/fail a result against a baseline, with statistics")

/* Is path a readable result document of kind "compare"?  (Errors are
 * reported later, when it is loaded for real.) */
static int is_compare_doc(const char *path)
{
    json_t *d = path ? json_load_file(path, 0, NULL) : NULL;
    int yes = d && json_is_string(json_object_get(d, "kind")) &&
              strcmp(json_string_value(json_object_get(d, "kind")),
                     "compare") == 0;
    json_decref(d);
    return yes;
}

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
        "  --md FILE              write the verdict as Markdown (a PR "
        "comment)\n"
        "  --json FILE            write the verdict as JSON (schema "
        "mbench.gate/1)\n"
        "  -q, --quiet            no table on stdout\n\n"
        "Exit: 0 pass, 1 regression, 5 accuracy gate failed, 4 inconclusive,\n"
        "3 error, 2 usage.\n");
}

static mb_status load_json(const char *path, const char *what, json_t **out,
                           mb_err *err)
{
    char *data;
    size_t len;
    *out = NULL;
    mb_status st = mb__read_file(path, &data, &len, err);
    if (st)
        return st;
    json_error_t je;
    *out = json_loadb(data, len, 0, &je);
    free(data);
    if (!*out)
        return mb__fail(err, MB_EFORMAT,
                        "%s %s is not valid JSON (line %d: %s)", what, path,
                        je.line, je.text);
    return MB_OK;
}

/* ---- formatting ------------------------------------------------------- */

static void fmt_value(char *b, size_t len, const char *metric, const json_t *v)
{
    if (!json_is_number(v)) {
        snprintf(b, len, "-");
        return;
    }
    double x = json_number_value(v);
    if (strcmp(metric, "throughput") == 0)
        snprintf(b, len, "%.1f/s", x);
    else if (strcmp(metric, "memory") == 0 || strcmp(metric, "size") == 0) {
        if (x >= 1024.0 * 1024.0)
            snprintf(b, len, "%.2f MiB", x / (1024.0 * 1024.0));
        else
            snprintf(b, len, "%.0f B", x);
    } else if (x >= 1e9)
        snprintf(b, len, "%.3f s", x / 1e9);
    else if (x >= 1e6)
        snprintf(b, len, "%.3f ms", x / 1e6);
    else if (x >= 1e3)
        snprintf(b, len, "%.2f us", x / 1e3);
    else
        snprintf(b, len, "%.0f ns", x);
}

static void fmt_change(char *b, size_t len, const json_t *ratio)
{
    if (!json_is_number(ratio))
        snprintf(b, len, "-");
    else
        snprintf(b, len, "%+.1f%%", (json_number_value(ratio) - 1) * 100);
}

static void fmt_ci(char *b, size_t len, const json_t *ci)
{
    if (json_array_size(ci) != 2)
        snprintf(b, len, "-");
    else
        snprintf(b, len, "%+.1f%%..%+.1f%%",
                 (json_number_value(json_array_get(ci, 0)) - 1) * 100,
                 (json_number_value(json_array_get(ci, 1)) - 1) * 100);
}

static void fmt_p(char *b, size_t len, const json_t *p)
{
    if (!json_is_number(p))
        snprintf(b, len, "-");
    else if (json_number_value(p) < 1e-16)
        snprintf(b, len, "<1e-16");
    else
        snprintf(b, len, "%.2g", json_number_value(p));
}

static const char *upper_verdict(const char *v)
{
    if (strcmp(v, "regression") == 0)
        return "REGRESSION";
    if (strcmp(v, "accuracy_failure") == 0)
        return "ACCURACY FAILURE";
    if (strcmp(v, "inconclusive") == 0)
        return "INCONCLUSIVE";
    return "PASS";
}

static void render_console(const json_t *g, FILE *f)
{
    const char *verdict = json_string_value(json_object_get(g, "verdict"));
    fprintf(f, "mbench gate: %s  (baseline %s, current %s)\n",
            upper_verdict(verdict),
            json_string_value(
                json_object_get(json_object_get(g, "baseline"), "source")),
            json_string_value(
                json_object_get(json_object_get(g, "current"), "source")));
    const json_t *m = json_object_get(g, "method");
    fprintf(f,
            "rule: unit = the process; regression = %s p < %g AND the 95%% "
            "CI of current/baseline beyond the threshold; pass = CI within "
            "it\n\n",
            json_is_true(json_object_get(g, "paired"))
                ? "paired t (round by round)"
                : "Welch t on the log per-process figures,",
            json_number_value(json_object_get(m, "alpha")));
    fprintf(f, "%-24s %-16s %5s  %-10s %12s %12s %8s %17s %8s  %s\n", "model",
            "variant", "batch", "metric", "baseline", "current", "change",
            "95% CI", "p", "verdict");
    size_t i, k;
    const json_t *c, *x;
    json_array_foreach(json_object_get(g, "comparisons"), i, c)
    {
        json_array_foreach(json_object_get(c, "metrics"), k, x)
        {
            const char *metric =
                json_string_value(json_object_get(x, "metric"));
            char vb[32], vc[32], ch[24], ci[40], p[16];
            fmt_value(vb, sizeof vb, metric, json_object_get(x, "baseline"));
            fmt_value(vc, sizeof vc, metric, json_object_get(x, "current"));
            fmt_change(ch, sizeof ch, json_object_get(x, "ratio"));
            fmt_ci(ci, sizeof ci, json_object_get(x, "ci95"));
            fmt_p(p, sizeof p, json_object_get(x, "p_value"));
            fprintf(f,
                    "%-24.24s %-16.16s %5" JSON_INTEGER_FORMAT
                    "  %-10s %12s %12s %8s %17s %8s  %s\n",
                    json_string_value(json_object_get(c, "model")),
                    json_string_value(json_object_get(c, "variant"))
                        ? json_string_value(json_object_get(c, "variant"))
                        : "",
                    json_integer_value(json_object_get(c, "batch_size")),
                    metric, vb, vc, ch, ci, p,
                    json_string_value(json_object_get(x, "verdict")));
        }
    }
    json_array_foreach(json_object_get(g, "comparisons"), i, c)
    {
        json_array_foreach(json_object_get(c, "metrics"), k, x)
        {
            const char *v = json_string_value(json_object_get(x, "verdict"));
            if (strcmp(v, "pass") != 0)
                fprintf(f, "  %s %s: %s\n",
                        json_string_value(json_object_get(c, "variant")), v,
                        json_string_value(json_object_get(x, "reason")));
        }
    }
    json_array_foreach(json_object_get(g, "accuracy"), i, x)
        fprintf(f, "accuracy %s: %s = %.6g at %s\n",
                json_string_value(json_object_get(x, "verdict")),
                json_string_value(json_object_get(x, "gate")),
                json_number_value(json_object_get(x, "value")),
                json_string_value(json_object_get(x, "where")));
    json_array_foreach(json_object_get(g, "unmatched"), i, x) fprintf(
        f, "unmatched: %s\n", json_string_value(json_object_get(x, "reason")));
    json_array_foreach(json_object_get(g, "warnings"), i, x)
        fprintf(f, "warning: %s\n", json_string_value(x));
}

/* Markdown text with the characters that break a table cell escaped. */
static void md_text(mb_buf *b, const char *s)
{
    for (; s && *s; s++) {
        if (strchr("|*_`<>[]\\", *s))
            mb__buf_putc(b, '\\');
        if (*s == '\n')
            mb__buf_putc(b, ' ');
        else
            mb__buf_putc(b, *s);
    }
}

static char *render_md(const json_t *g)
{
    mb_buf b = MB_BUF_INIT;
    const char *verdict = json_string_value(json_object_get(g, "verdict"));
    const json_t *counts = json_object_get(g, "counts");
    mb__buf_printf(&b, "### mbench gate: **%s**\n\n", upper_verdict(verdict));
    mb__buf_puts(&b, "Baseline `");
    md_text(&b, json_string_value(
                    json_object_get(json_object_get(g, "baseline"), "source")));
    mb__buf_puts(&b, "`, current `");
    md_text(&b, json_string_value(
                    json_object_get(json_object_get(g, "current"), "source")));
    mb__buf_printf(
        &b,
        "`: %d pass, %d regression, %d improvement, %d "
        "inconclusive.\n\n",
        (int)json_integer_value(json_object_get(counts, "pass")),
        (int)json_integer_value(json_object_get(counts, "regression")),
        (int)json_integer_value(json_object_get(counts, "improvement")),
        (int)json_integer_value(json_object_get(counts, "inconclusive")));
    mb__buf_puts(&b,
                 "| model | variant | batch | metric | baseline | current | "
                 "change | 95% CI | p | verdict |\n"
                 "|---|---|---:|---|---:|---:|---:|---:|---:|---|\n");
    size_t i, k;
    const json_t *c, *x;
    json_array_foreach(json_object_get(g, "comparisons"), i, c)
    {
        json_array_foreach(json_object_get(c, "metrics"), k, x)
        {
            const char *metric =
                json_string_value(json_object_get(x, "metric"));
            const char *v = json_string_value(json_object_get(x, "verdict"));
            char vb[32], vc[32], ch[24], ci[40], p[16];
            fmt_value(vb, sizeof vb, metric, json_object_get(x, "baseline"));
            fmt_value(vc, sizeof vc, metric, json_object_get(x, "current"));
            fmt_change(ch, sizeof ch, json_object_get(x, "ratio"));
            fmt_ci(ci, sizeof ci, json_object_get(x, "ci95"));
            fmt_p(p, sizeof p, json_object_get(x, "p_value"));
            mb__buf_puts(&b, "| ");
            md_text(&b, json_string_value(json_object_get(c, "model")));
            mb__buf_puts(&b, " | ");
            md_text(&b, json_string_value(json_object_get(c, "variant")));
            mb__buf_printf(&b,
                           " | %" JSON_INTEGER_FORMAT
                           " | %s | %s | %s | %s | %s | %s | %s%s%s |\n",
                           json_integer_value(json_object_get(c, "batch_size")),
                           metric, vb, vc, ch, ci, p,
                           strcmp(v, "pass") ? "**" : "", v,
                           strcmp(v, "pass") ? "**" : "");
        }
    }
    mb__buf_puts(&b, "\n");
    json_array_foreach(json_object_get(g, "comparisons"), i, c)
    {
        json_array_foreach(json_object_get(c, "metrics"), k, x)
        {
            const char *v = json_string_value(json_object_get(x, "verdict"));
            if (strcmp(v, "pass") == 0)
                continue;
            mb__buf_printf(&b, "- %s: ", v);
            md_text(&b, json_string_value(json_object_get(x, "reason")));
            mb__buf_puts(&b, "\n");
        }
    }
    json_array_foreach(json_object_get(g, "accuracy"), i, x)
    {
        mb__buf_printf(&b, "- accuracy %s: `",
                       json_string_value(json_object_get(x, "verdict")));
        md_text(&b, json_string_value(json_object_get(x, "gate")));
        mb__buf_printf(&b, "` = %.6g at `",
                       json_number_value(json_object_get(x, "value")));
        md_text(&b, json_string_value(json_object_get(x, "where")));
        mb__buf_puts(&b, "`\n");
    }
    json_array_foreach(json_object_get(g, "unmatched"), i, x)
    {
        mb__buf_puts(&b, "- unmatched: ");
        md_text(&b, json_string_value(json_object_get(x, "reason")));
        mb__buf_puts(&b, "\n");
    }
    json_array_foreach(json_object_get(g, "warnings"), i, x)
    {
        mb__buf_puts(&b, "- warning: ");
        md_text(&b, json_string_value(x));
        mb__buf_puts(&b, "\n");
    }
    const json_t *m = json_object_get(g, "method");
    mb__buf_printf(
        &b,
        "\n<details><summary>Method</summary>\n\n"
        "A change counts only when it exceeds its threshold *and* "
        "is significant: Mann-Whitney U (two-sided, alpha %g) on the "
        "raw samples, and the bootstrap 95%% CI of current/baseline "
        "(%d resamples) entirely beyond the threshold. Fewer than %d "
        "samples, or a CI that straddles the threshold, is "
        "*inconclusive*.\n</details>\n",
        json_number_value(json_object_get(m, "alpha")),
        (int)json_integer_value(json_object_get(m, "bootstrap_resamples")),
        (int)json_integer_value(json_object_get(m, "min_samples")));
    return mb__buf_take(&b, NULL);
}

static int write_text(const char *path, const char *text)
{
    mb_err err = {0};
    if (!text)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    if (mb__write_file_atomic(path, text, strlen(text), &err))
        return mb_cli_fail(&err);
    return 0;
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
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *base_path = NULL, *cur_path = NULL, *db = NULL, *against = NULL,
               *git_dir = NULL, *md = NULL, *json_out = NULL;
    int no_store = 0, quiet = 0;
    json_t *history = NULL;
    mb__regress_opts o;
    mb__regress_defaults(&o);
    const char **gates = calloc((size_t)argc + 1, sizeof *gates);
    size_t n_gates = 0;
    mb_err err = {0};
    int rc = MB_EXIT_OK, opt;
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
        case 'm':
            md = optarg;
            if ((rc = mb_cli_output_check("--md", md))) {
                free(gates);
                return rc;
            }
            break;
        case 'j':
            json_out = optarg;
            if ((rc = mb_cli_output_check("--json", json_out))) {
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
    else if (!base_path && !against && !is_compare_doc(cur_path))
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
        return rc;
    }
    o.accuracy = gates;
    o.n_accuracy = n_gates;

    json_t *cur = NULL, *base = NULL, *git = NULL, *result = NULL;
    mb__store *store = NULL;
    char base_src[1100];
    int code = 0;
    if (load_json(cur_path, "current", &cur, &err)) {
        rc = mb_cli_fail(&err);
        goto out;
    }
    if (mb__regress_check_doc(cur, cur_path, &err)) {
        rc = mb_cli_fail(&err);
        goto out;
    }
    if (db) {
        git = mb__git_info(git_dir);
        if (mb__store_open_existing(db, &store, &err)) {
            rc = mb_cli_fail(&err);
            goto out;
        }
    }
    if (against) {
        const char *commit = json_string_value(json_object_get(git, "commit"));
        if (mb__store_baseline(store, against, commit, cur, &base, &err)) {
            rc = mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
            goto out;
        }
        const char *bc = json_string_value(json_object_get(
            json_object_get(json_object_get(base, "store"), "git"), "commit"));
        snprintf(base_src, sizeof base_src, "%s@%s (commit %.12s)",
                 mb__store_kind(store), against, bc ? bc : "none");
    } else if (!base_path) {
        /* A compare document: its variants against its own baseline,
         * paired round by round (the same pointer tells the gate). */
        base = json_incref(cur);
        snprintf(base_src, sizeof base_src, "%s (its baseline variant)",
                 cur_path);
    } else {
        if (load_json(base_path, "baseline", &base, &err)) {
            rc = mb_cli_fail(&err);
            goto out;
        }
        snprintf(base_src, sizeof base_src, "%s", base_path);
    }
    o.baseline_source = base_src;
    o.current_source = cur_path;
    if (store) {
        mb__store_filter hf = {0};
        hf.limit = 2000;
        if (mb__store_history(store, &hf, &history, &err)) {
            rc = mb_cli_fail(&err);
            goto out;
        }
        o.history = history;
    }
    if (mb__regress_run(base, cur, &o, &result, &code, &err)) {
        rc = err.code == MB_EINVAL && strncmp(err.msg, "--gate", 6) == 0
                 /* a malformed --gate expression */
                 ? mb_cli_error(MB_EXIT_USAGE, "%s", err.msg)
                 : mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
        goto out;
    }
    if (store && !no_store) {
        if (mb__store_put(store, cur, git, &err)) {
            rc = mb_cli_fail(&err);
            goto out;
        }
    }
    if (!quiet)
        render_console(result, stdout);
    if (md) {
        char *text = render_md(result);
        int w = write_text(md, text);
        free(text);
        if (w) {
            rc = w;
            goto out;
        }
    }
    if (json_out) {
        char *text =
            json_dumps(result, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        mb_buf b = MB_BUF_INIT;
        mb__buf_puts(&b, text ? text : "");
        mb__buf_putc(&b, '\n');
        free(text);
        char *t2 = mb__buf_take(&b, NULL);
        int w = write_text(json_out, t2);
        free(t2);
        if (w) {
            rc = w;
            goto out;
        }
    }
    rc = code;
out:
    json_decref(history);
    json_decref(cur);
    json_decref(base);
    json_decref(git);
    json_decref(result);
    mb__store_close(store);
    free(gates);
    return rc;
}
