/* cmd_compare.c - mbench compare: parse the variants and options, call
 * the compare engine (src/runner/cmprun.c), print its table, write the
 * outputs. */
#include "cli.h"
#include "outputs.h"
#include "reqopt.h"
#include "runopts.h"

#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "report/rutil.h"
#include "runner/cmprun.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(compare, cmd_compare,
               "compare a baseline and its variants: speed, memory, size, accuracy")

typedef struct variant {
    char *name;
    mb_plan plan;
} variant;

static volatile int interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted)
        _exit(MB_EXIT_INTERRUPTED);
    interrupted = 1;
}

/* A progress line on stderr (terminals only): the round of processes. */
typedef struct {
    int64_t start, last;
    int shown;
} progress_state;

static void progress(void *user, const char *what, size_t round,
                     size_t rounds, int64_t elapsed_ns)
{
    progress_state *ps = user;
    int64_t now = mb_now_ns();
    if (now - ps->last < 100000000LL)
        return;
    ps->last = now;
    ps->shown = 1;
    fprintf(stderr, "\r%s: round %zu of %zu (a fresh process per variant), "
                    "%.1f s\033[K",
            what, round + 1, rounds, (double)elapsed_ns / 1e9);
    fflush(stderr);
}

static void usage(FILE *f)
{
    fputs("usage: mbench compare NAME=MODEL[,option=value...] ... [options]\n"
          "       mbench compare --variants FILE [options]\n\n"
          "Measures a baseline (the first variant, or --baseline NAME) and "
          "its variants in\n--processes K rounds (default 40): each round "
          "starts a fresh process per variant\nand runs them in interleaved "
          "slots.  Speedups are ratios of per-process medians,\npaired by "
          "round, with Student-t 95% CIs over the processes; a change is "
          "claimed only\nwhen significant and beyond the noise threshold.  "
          "Also memory, model size, accuracy\nagainst --labels and output "
          "agreement, with recommendations.  Variant options are run options without dashes:"
          "\n  fp32=model.onnx int8=model_int8.onnx "
          "fp32-opt=model.onnx,opt-level=all,threads=2\n\n"
          "Compare options:\n"
          "  --baseline NAME         the variant the others are judged "
          "against\n"
          "  --variants FILE         variant specifications, one per line "
          "(# comments)\n"
          "  --labels FILE           class ids (.npy or text): top-1/top-5 "
          "accuracy\n"
          "  --tolerance F           accuracy loss allowed (default 0.01)\n"
          "  --output NAME           the output judged by top-1 measures and "
          "labels\n"
          "  --threshold F           noise threshold: smaller speed changes "
          "are 'same'\n"
          "                          (default 1%)\n"
          "  --gate 'METRIC OP X'    output-agreement gate (repeatable; "
          "default: per precision)\n"
          "  --atol X  --rtol X      allclose tolerances (1e-8, 1e-5)\n"
          "  --timeout D             kill a variant that takes longer than D "
          "for one step (default 10m)\n"
          "  --fail-fast             stop at the first failed variant\n"
          "  --save-outputs DIR      write every variant's outputs as .npy\n"
          "  --quiet                 no console table\n\n",
          f);
    mb_cli_runopts_usage(f);
    fputs(mb_cli_outputs_help, f);
    fputs("\nExit codes: 0 success, 2 usage error, 3 runtime error or a "
          "FAILED variant, 130 interrupted.\n",
          f);
}

enum { O_BASE = 600, O_VARFILE, O_LABELS, O_TOL, O_GATE, O_ATOL, O_RTOL,
       O_TIMEOUT, O_FAILFAST, O_SAVEOUT, O_QUIET, O_HELP, O_OUTPUT, O_REQUIRE,
       O_THRESH };

static void free_variant(variant *v)
{
    free(v->name);
    mb__plan_free(&v->plan);
}

/* NAME=MODEL[,k=v...] into v (plan copied from base). */
static int parse_variant(const char *spec, const mb_plan *base, variant *v)
{
    memset(v, 0, sizeof *v);
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return mb_cli_error(MB_EXIT_USAGE,
                            "invalid variant '%s': expected NAME=MODEL[,"
                            "option=value...]",
                            spec),
               -1;
    if (mb__plan_copy(&v->plan, base))
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory"), -1;
    v->name = strndup(spec, (size_t)(eq - spec));
    char *rest = strdup(eq + 1), *save = NULL;
    int first = 1, rc = 0;
    for (char *tok = strtok_r(rest, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save), first = 0) {
        if (first) {
            free(v->plan.model_path);
            v->plan.model_path = strdup(tok);
            continue;
        }
        char *e2 = strchr(tok, '=');
        if (e2)
            *e2 = '\0';
        rc = mb_cli_runopts_apply_kv(&v->plan, tok, e2 ? e2 + 1 : "1");
    }
    free(rest);
    free(v->plan.variant);
    v->plan.variant = strdup(v->name);
    return rc;
}

/* The speed cell: "1.234x faster [1.200, 1.270]", "same 1.002x [...]". */
static void speed_cell(const json_t *e, char *buf, size_t len)
{
    const json_t *s = json_object_get(e, "speedup_median");
    const json_t *sig = json_object_get(e, "significance");
    if (json_is_true(json_object_get(e, "baseline"))) {
        snprintf(buf, len, "(baseline)");
        return;
    }
    if (!json_is_object(s)) {
        snprintf(buf, len, "n/a%s", json_is_object(sig) ? ""
                                    : " (baseline FAILED)");
        return;
    }
    double v = json_number_value(json_object_get(s, "value"));
    double lo = json_number_value(json_array_get(json_object_get(s, "ci95"), 0));
    double hi = json_number_value(json_array_get(json_object_get(s, "ci95"), 1));
    int d = hi - lo < 0.01 ? 4 : 3;
    const char *verdict = json_string_value(json_object_get(sig, "verdict"));
    const char *tag = !verdict                                  ? "?"
                      : !strcmp(verdict, "faster")              ? "faster"
                      : !strcmp(verdict, "slower")              ? "SLOWER"
                      : !strcmp(verdict, "same")                ? "same"
                      : !strcmp(verdict, "no significant difference") ? "n.s."
                                                                : "1 proc";
    snprintf(buf, len, "%.*fx [%.*f, %.*f] %s", d, v, d, lo, d, hi, tag);
}

static void print_table(json_t *doc, FILE *f)
{
    int color = mb_cli_use_color(fileno(f));
    const char *bold = color ? "\033[1m" : "", *rst = color ? "\033[0m" : "",
               *green = color ? "\033[32m" : "",
               *yellow = color ? "\033[33m" : "",
               *red = color ? "\033[31m" : "";
    json_t *cmp = json_object_get(doc, "comparison");
    /* Columns by priority, so that a row fits the terminal; a log (not a
     * terminal) gets them all. */
    int width = isatty(fileno(f)) ? mb_cli_term_width(fileno(f)) : 200;
    int show_cv = width >= 150, show_p99 = width >= 125,
        show_mem = width >= 108, show_status = width >= 95;
    int nw = show_status ? 16 : 12;
    char hdr[512];
    int off = snprintf(hdr, sizeof hdr, "%-*s%s %-26s", nw, "variant",
                       show_status ? " status " : "", "p50 ms [95% CI]");
    if (show_p99)
        off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %9s", "p99 ms");
    off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %-31s",
                    "speedup [95% CI]");
    if (show_cv)
        off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %8s %10s",
                        "run CV", "inf/s");
    if (show_mem)
        off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %10s",
                        "peak RSS");
    if (show_p99)
        off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %9s", "size");
    snprintf(hdr + off, sizeof hdr - (size_t)off, " %7s %7s", "top-1",
             "agree");
    fprintf(f, "\n%s%s%s\n", bold, hdr, rst);
    size_t i;
    json_t *e;
    json_t *runs = json_object_get(doc, "runs");
    json_array_foreach(json_object_get(cmp, "variants"), i, e)
    {
        const json_t *run = json_array_get(runs, i);
        char nm[64];
        snprintf(nm, sizeof nm, "%s%s",
                 json_string_value(json_object_get(e, "name")),
                 json_is_true(json_object_get(e, "baseline")) ? " *" : "");
        if (!strcmp(mb__jstr(e, "status") ? mb__jstr(e, "status") : "",
                    "failed")) {
            fprintf(f, "%-*s %sFAILED%s  %s\n", nw, nm, red, rst,
                    mb__jstr(e, "error"));
            continue;
        }
        const json_t *lat = json_object_get(run, "latency");
        char p50[64], p99[32], sp[64], cv[16], mem[32], size[32], acc[16],
            agr[16];
        const json_t *ci = json_object_get(lat, "median_ci95");
        double est = mb__jnum(lat, "median_ci95.estimate");
        if (!isfinite(est))
            est = mb__jnum(lat, "median");
        if (json_is_object(ci))
            snprintf(p50, sizeof p50, "%.4g [%.4g, %.4g]", est / 1e6,
                     mb__jnum(ci, "lo") / 1e6, mb__jnum(ci, "hi") / 1e6);
        else
            snprintf(p50, sizeof p50, "%.4g", est / 1e6);
        double v99 = mb__jnum(lat, "p99");
        if (isfinite(v99))
            snprintf(p99, sizeof p99, "%.4g", v99 / 1e6);
        else
            snprintf(p99, sizeof p99, "n/a");
        speed_cell(e, sp, sizeof sp);
        double rcv = mb__jnum(run, "replication.run_to_run_cv");
        if (isfinite(rcv))
            snprintf(cv, sizeof cv, "%.1f%%", rcv * 100);
        else
            snprintf(cv, sizeof cv, "-");
        mb__fmt_bytes(mb__jnum(run, "memory.rss_peak_bytes"), mem, sizeof mem);
        double sz = mb__jnum(run, "model.total_bytes");
        mb__fmt_bytes(isfinite(sz) ? sz : mb__jnum(run, "model.file_bytes"),
                      size, sizeof size);
        double t1 = mb__jnum(e, "accuracy.top1");
        if (isfinite(t1))
            snprintf(acc, sizeof acc, "%.4f", t1);
        else
            snprintf(acc, sizeof acc, "-");
        const json_t *ag = json_object_get(e, "agreement");
        double a1 = mb__jnum(ag, "top1");
        if (isfinite(a1))
            snprintf(agr, sizeof agr, "%.2f%%", 100 * a1);
        else
            snprintf(agr, sizeof agr, json_is_object(ag) ? "see below" : "-");
        fprintf(f, "%-*s%s %-26s", nw, nm, show_status ? " ok     " : "",
                p50);
        if (show_p99)
            fprintf(f, " %9s", p99);
        fprintf(f, " %-31s", sp);
        if (show_cv)
            fprintf(f, " %8s %10.1f", cv,
                    mb__jnum(run, "throughput.inferences_per_s"));
        if (show_mem)
            fprintf(f, " %10s", mem);
        if (show_p99)
            fprintf(f, " %9s", size);
        fprintf(f, " %7s %7s\n", acc, agr);
    }
    const char *why = mb__jstr(doc, "judged_output.reason");
    if (why && *why)
        fprintf(f, "\nclass scores: %s\n", why);
    fprintf(f, "\n%sRecommendations%s (baseline: %s)\n", bold, rst,
            mb__jstr(cmp, "baseline"));
    json_array_foreach(json_object_get(cmp, "variants"), i, e)
    {
        if (json_is_true(json_object_get(e, "baseline")))
            continue;
        fprintf(f, "%s%s%s:\n", bold, mb__jstr(e, "name"), rst);
        size_t k;
        json_t *r;
        json_array_foreach(json_object_get(e, "recommendations"), k, r)
        {
            int ok = json_is_true(json_object_get(r, "ok"));
            fprintf(f, "  %s%s%s %s\n", ok ? green : yellow,
                    ok ? "\u2713" : "\u26a0", rst, mb__jstr(r, "text"));
        }
    }
    size_t k;
    json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), k, w)
        fprintf(f, "%s! %s%s\n", yellow, json_string_value(w), rst);
    fprintf(f, "%sspeedup = baseline / variant, geometric means of "
               "per-process medians; CI: Student t over processes paired by "
               "round; run CV: run-to-run spread of the medians; n.s. = no "
               "significant difference%s\n",
            color ? "\033[2m" : "", rst);
}

static int read_variant_file(const char *path, char ***specs, size_t *n)
{
    char *text = NULL;
    mb_err e = {0};
    if (mb__read_file(path, &text, NULL, &e))
        return mb_cli_fail(&e), -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        /* An inline comment: '#' after a blank ends the specification. */
        for (char *h = strchr(line, '#'); h; h = strchr(h + 1, '#'))
            if (h > line && (h[-1] == ' ' || h[-1] == '\t')) {
                *h = '\0';
                break;
            }
        size_t L = strlen(line);
        while (L && (line[L - 1] == ' ' || line[L - 1] == '\t' ||
                     line[L - 1] == '\r'))
            line[--L] = '\0';
        if (!*line || *line == '#')
            continue;
        char **ns = realloc(*specs, (*n + 1) * sizeof *ns);
        if (!ns)
            break;
        *specs = ns;
        (*specs)[(*n)++] = strdup(line);
    }
    free(text);
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    static const struct option own[] = {
        {"baseline", required_argument, NULL, O_BASE},
        {"output", required_argument, NULL, O_OUTPUT},
        {"threshold", required_argument, NULL, O_THRESH},
        {"variants", required_argument, NULL, O_VARFILE},
        {"labels", required_argument, NULL, O_LABELS},
        {"tolerance", required_argument, NULL, O_TOL},
        {"gate", required_argument, NULL, O_GATE},
        {"atol", required_argument, NULL, O_ATOL},
        {"rtol", required_argument, NULL, O_RTOL},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"fail-fast", no_argument, NULL, O_FAILFAST},
        {"save-outputs", required_argument, NULL, O_SAVEOUT},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
        {"require", required_argument, NULL, O_REQUIRE},
    };
    struct option *longopts =
        mb_cli_runopts_merge_outputs(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");

    mb_plan plan;
    mb__plan_defaults(&plan);
    mb_cli_outputs out = {0};
    const char *baseline_name = NULL, *labels_path = NULL, *save_dir = NULL,
               *output_name = NULL;
    double tolerance = 0.01, threshold = 0.01;
    mb_metric_opts mo;
    mb__metric_opts_defaults(&mo);
    mb_gate gates[32];
    size_t n_gates = 0, nv = 0, n_specs = 0;
    int64_t timeout_ns = 600LL * 1000000000;
    int fail_fast = 0, quiet = 0, rc = MB_EXIT_OK, c;
    char **specs = NULL;
    variant *vs = NULL;
    json_t *doc = NULL;
    mb_cli_reqs reqs = {0};
    mb_err err = {0};
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
        double d;
        switch (c) {
        case 'h':
        case O_HELP: usage(stdout); goto done;
        case O_BASE: baseline_name = optarg; break;
        case O_VARFILE:
            if (read_variant_file(optarg, &specs, &n_specs)) {
                rc = MB_EXIT_RUNTIME;
                goto done;
            }
            break;
        case O_LABELS: labels_path = optarg; break;
        case O_REQUIRE: if ((rc = mb_cli_reqs_add(&reqs, optarg))) goto done; break;
        case O_OUTPUT: output_name = optarg; break;
        case O_THRESH:
            if (mb_cli_parse_fraction(optarg, 0.5, &threshold)) {
                rc = mb_cli_bad_value("--threshold", optarg,
                                      "a fraction such as 0.01 or 1%");
                goto done;
            }
            break;
        case O_TOL:
            if (mb_cli_parse_double(optarg, 0, 1, &tolerance)) {
                rc = mb_cli_bad_value("--tolerance", optarg,
                                      "an accuracy difference in [0, 1]");
                goto done;
            }
            break;
        case O_ATOL:
        case O_RTOL:
            if (mb_cli_parse_double(optarg, 0, 1e300, &d)) {
                rc = mb_cli_bad_value(c == O_ATOL ? "--atol" : "--rtol",
                                      optarg, "a non-negative number");
                goto done;
            }
            if (c == O_ATOL)
                mo.atol = d;
            else
                mo.rtol = d;
            break;
        case O_GATE:
            if (n_gates == 32 || mb__gate_parse(optarg, &gates[n_gates], &err)) {
                rc = n_gates == 32 ? mb_cli_error(MB_EXIT_USAGE, "too many --gate")
                                   : mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
                goto done;
            }
            n_gates++;
            break;
        case O_TIMEOUT:
            if (mb_cli_parse_duration_ns(optarg, &timeout_ns) || !timeout_ns) {
                rc = mb_cli_bad_value("--timeout", optarg,
                                      "a duration such as 30s or 5m");
                goto done;
            }
            break;
        case O_FAILFAST: fail_fast = 1; break;
        case O_SAVEOUT:
            save_dir = optarg;
            if ((rc = mb_cli_output_dir_check("--save-outputs", optarg)))
                goto done;
            break;
        case O_QUIET: quiet = 1; break;
        case ':':
            rc = mb_cli_error(MB_EXIT_USAGE, "%s needs a value; see 'mbench "
                              "compare --help'", argv[optind - 1]);
            goto done;
        default:
            rc = mb_cli_error(MB_EXIT_USAGE, "unknown option '%s'; see "
                              "'mbench compare --help'", argv[optind - 1]);
            goto done;
        }
    }
    for (int i = optind; i < argc; i++) {
        char **ns = realloc(specs, (n_specs + 1) * sizeof *ns);
        if (!ns)
            goto done;
        specs = ns;
        specs[n_specs++] = strdup(argv[i]);
    }
    if (n_specs < 2) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "compare needs at least two variants "
                          "(NAME=MODEL ...), got %zu; see 'mbench compare "
                          "--help'",
                          n_specs);
        goto done;
    }
    if (plan.n_batches > 1) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "compare measures one batch size at a time; give "
                          "one --batch (run compare once per size)");
        goto done;
    }
    if (mb_cli_runopts_finish(&plan)) {
        rc = MB_EXIT_USAGE;
        goto done;
    }
    plan.save_samples = 1;
    vs = calloc(n_specs, sizeof *vs);
    if (!vs)
        goto done;
    for (size_t i = 0; i < n_specs; i++, nv++) {
        if (parse_variant(specs[i], &plan, &vs[i])) {
            nv++;
            rc = MB_EXIT_USAGE;
            goto done;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(vs[k].name, vs[i].name) == 0) {
                nv++;
                rc = mb_cli_error(MB_EXIT_USAGE, "two variants are named "
                                  "'%s'; give each a distinct NAME",
                                  vs[i].name);
                goto done;
            }
    }
    size_t bi = 0;
    if (baseline_name) {
        for (bi = 0; bi < nv && strcmp(vs[bi].name, baseline_name); bi++)
            ;
        if (bi == nv) {
            rc = mb_cli_error(MB_EXIT_USAGE, "--baseline %s names no variant",
                              baseline_name);
            goto done;
        }
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    mb__cmp_spec *cs = calloc(nv, sizeof *cs);
    if (!cs) {
        rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nv; i++)
        cs[i] = (mb__cmp_spec){vs[i].name, &vs[i].plan};
    mb__compare_req rq;
    mb__compare_req_defaults(&rq);
    rq.variants = cs;
    rq.n = nv;
    rq.baseline = bi;
    rq.processes = plan.processes;
    rq.labels_path = labels_path;
    rq.output = output_name;
    rq.tolerance = tolerance;
    rq.threshold = threshold;
    rq.gates = gates;
    rq.n_gates = n_gates;
    rq.metrics = mo;
    rq.timeout_ns = timeout_ns;
    rq.fail_fast = fail_fast;
    rq.save_outputs = save_dir;
    rq.command_line = mb_cli_command_line();
    rq.cancel = &interrupted;
    progress_state ps = {mb_now_ns(), 0, 0};
    if (isatty(2)) {
        rq.progress = progress;
        rq.progress_user = &ps;
    }
    mb_status st = mb__compare_run(&rq, &doc, &err);
    free(cs);
    if (ps.shown)
        fprintf(stderr, "\r\033[K");
    if (st) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    if (!quiet)
        print_table(doc, stdout);
    int req_rc = mb_cli_reqs_judge(&reqs, doc, NULL, stdout);
    int wr = mb_cli_outputs_write(&out, doc);
    if (wr)
        rc = wr;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(json_object_get(doc, "comparison"),
                                       "variants"), i, e)
        if (!rc && !strcmp(mb__jstr(e, "status"), "failed"))
            rc = mb_cli_error(MB_EXIT_RUNTIME, "variant %s FAILED: %s",
                              mb__jstr(e, "name"), mb__jstr(e, "error"));
    if (json_is_true(json_object_get(doc, "interrupted")) && !rc)
        rc = MB_EXIT_INTERRUPTED;
    rc = mb_cli_reqs_exit(rc, req_rc);
done:
    mb_cli_reqs_free(&reqs);
    for (size_t k = 0; k < nv; k++)
        free_variant(&vs[k]);
    free(vs);
    for (size_t k = 0; k < n_specs; k++)
        free(specs[k]);
    free(specs);
    json_decref(doc);
    free(longopts);
    mb__plan_free(&plan);
    return rc;
}
