/* cmd_compare.c - mbench compare: a baseline and its variants, side by
 * side, each in its own process, measured in interleaved rounds. */
#include "cli.h"
#include "outputs.h"
#include "runopts.h"

#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/stats.h"
#include "data/labels.h"
#include "data/npy.h"
#include "report/console.h"
#include "report/rutil.h"
#include "runner/child.h"
#include "runner/compare.h"
#include "runner/runner.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

MBENCH_COMMAND(compare, cmd_compare,
               "compare a baseline and its variants: speed, memory, size, accuracy")

typedef struct variant {
    char *name;
    mb_plan plan;
    mb__child *child;
    char *error;
    int64_t *samples;
    size_t n, cap;
    int64_t slot; /* iterations per round slot */
    int64_t busy_ns;
    int done;
    json_t *run;
    mb_tensor *outputs; /* concatenated over batches, one per model output */
    size_t n_outputs;
    json_t *accuracy, *agreement;
    int agreement_pass;
    char note[256];
} variant;

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
    fputs("usage: mbench compare NAME=MODEL[,option=value...] ... [options]\n"
          "       mbench compare --variants FILE [options]\n\n"
          "Measures a baseline (the first variant, or --baseline NAME) and "
          "its variants, each in\nits own process, in interleaved rounds; "
          "reports speedups with 95% CIs, a Mann-Whitney\nU test, memory, "
          "model size, accuracy against --labels and output agreement, with\n"
          "recommendations.  Variant options are run options without dashes:"
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
       O_TIMEOUT, O_FAILFAST, O_SAVEOUT, O_QUIET, O_HELP };

static void free_variant(variant *v)
{
    mb__child_free(v->child);
    free(v->name);
    free(v->error);
    free(v->samples);
    mb__plan_free(&v->plan);
    json_decref(v->run);
    json_decref(v->accuracy);
    json_decref(v->agreement);
    for (size_t i = 0; i < v->n_outputs; i++)
        mb_tensor_clear(&v->outputs[i]);
    free(v->outputs);
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

static int add_samples(variant *v, const int64_t *s, size_t n)
{
    if (!mb__grow((void **)&v->samples, &v->cap, v->n + n, sizeof *s))
        return -1;
    memcpy(v->samples + v->n, s, n * sizeof *s);
    v->n += n;
    for (size_t i = 0; i < n; i++)
        v->busy_ns += s[i];
    return 0;
}

static void fail_variant(variant *v, const mb_err *e)
{
    if (!v->error)
        v->error = strdup(e->msg[0] ? e->msg : mb_status_name(e->code));
    mb__child_free(v->child);
    v->child = NULL;
}

/* Has this variant met the stopping rule of its plan? */
static int variant_done(const variant *v, const mb_plan *p)
{
    if (v->error)
        return 1;
    if (p->fixed_iters > 0)
        return (int64_t)v->n >= p->fixed_iters;
    if ((int64_t)v->n >= p->max_iters || v->busy_ns >= p->max_time_ns)
        return 1;
    if ((int64_t)v->n < p->min_iters || v->busy_ns < p->min_time_ns)
        return 0;
    double *d = mb__calloc(v->n, sizeof *d);
    if (!d)
        return 1;
    for (size_t i = 0; i < v->n; i++)
        d[i] = (double)v->samples[i];
    int ok = mb__median_ci_rel(d, v->n) <= p->target_ci;
    free(d);
    return ok;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Concatenates batch files dir/b<i>_o<k>.npy along axis 0 and keeps the
 * first `samples` rows when the outputs are batched. */
static mb_status load_outputs(variant *v, const char *dir, size_t batches,
                              size_t samples, int64_t batch, mb_err *err)
{
    for (size_t k = 0;; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/b%06d_o%02zu.skip", dir, 0, k);
        if (access(path, F_OK) == 0) { /* not a tensor: kept empty */
            mb_tensor *o = mb__realloc_array(v->outputs, v->n_outputs + 1,
                                             sizeof *o);
            if (!o)
                return mb__fail(err, MB_ENOMEM, "out of memory");
            v->outputs = o;
            memset(&v->outputs[v->n_outputs++], 0, sizeof *o);
            continue;
        }
        snprintf(path, sizeof path, "%s/b%06d_o%02zu.npy", dir, 0, k);
        if (access(path, F_OK) != 0)
            break;
        mb_tensor *parts = mb__calloc(batches, sizeof *parts);
        if (!parts)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        mb_status s = MB_OK;
        size_t rows = 0, row_bytes = 0;
        for (size_t i = 0; i < batches && !s; i++) {
            snprintf(path, sizeof path, "%s/b%06zu_o%02zu.npy", dir, i, k);
            s = mb__npy_read(path, &parts[i], err);
            if (!s && parts[i].rank > 0)
                rows += (size_t)parts[i].dims[0];
        }
        mb_tensor t = {0};
        if (!s) {
            mb_tensor *p0 = &parts[0];
            int batched = p0->rank > 0 && p0->dims[0] == batch;
            int64_t dims[MB_MAX_RANK];
            memcpy(dims, p0->dims, sizeof dims);
            if (batched && batches > 1) {
                dims[0] = (int64_t)(rows < samples ? rows : samples);
            } else if (batched && samples < (size_t)batch) {
                dims[0] = (int64_t)samples;
            }
            if (!batched && batches > 1)
                dims[0] = p0->dims[0]; /* unbatched output: keep batch 0 */
            s = mb_tensor_alloc(&t, p0->dtype, p0->rank, dims, p0->name, err);
            if (!s) {
                row_bytes = p0->rank > 0 && p0->dims[0] > 0
                                ? p0->nbytes / (size_t)p0->dims[0]
                                : p0->nbytes;
                size_t off = 0;
                for (size_t i = 0; i < batches && off < t.nbytes; i++) {
                    if (parts[i].dtype != p0->dtype ||
                        parts[i].nbytes / (parts[i].rank > 0 && parts[i].dims[0] > 0 ? (size_t)parts[i].dims[0] : 1) != row_bytes)
                        break;
                    size_t n = parts[i].nbytes;
                    if (off + n > t.nbytes)
                        n = t.nbytes - off;
                    memcpy((char *)t.data + off, parts[i].data, n);
                    off += n;
                    if (!batched)
                        break;
                }
            }
        }
        for (size_t i = 0; i < batches; i++)
            mb_tensor_clear(&parts[i]);
        free(parts);
        if (s)
            return s;
        mb_tensor *o = mb__realloc_array(v->outputs, v->n_outputs + 1,
                                         sizeof *o);
        if (!o) {
            mb_tensor_clear(&t);
            return mb__fail(err, MB_ENOMEM, "out of memory");
        }
        v->outputs = o;
        v->outputs[v->n_outputs++] = t;
    }
    return MB_OK;
}

/* Index of the first classifier-shaped ([N, C], C > 1) output, or -1. */
static int classifier_output(const variant *v)
{
    for (size_t i = 0; i < v->n_outputs; i++) {
        const mb_tensor *t = &v->outputs[i];
        if (!t->data)
            continue;
        int rank = t->rank;
        while (rank > 2 && t->dims[rank - 1] == 1)
            rank--;
        if (rank == 2 && t->dims[1] > 1)
            return (int)i;
    }
    return -1;
}

static mb_precision variant_precision(const variant *v)
{
    const json_t *by = json_object_get(json_object_get(v->run, "model"),
                                       "params_by_dtype");
    const char *key, *best = NULL;
    json_t *val;
    double most = -1;
    json_object_foreach((json_t *)by, key, val)
    {
        double b = json_number_value(json_object_get(val, "bytes"));
        if (b > most) {
            most = b;
            best = key;
        }
    }
    mb_precision p = MB_PREC_FP32;
    if (best)
        mb__precision_parse(best, &p);
    return p;
}

static void judge_agreement(variant *v, const variant *base,
                            const mb_gate *user, size_t n_user,
                            const mb_metric_opts *mo)
{
    json_t *outs = json_array();
    v->agreement = json_object();
    int ci = classifier_output(base);
    for (size_t i = 0; i < v->n_outputs && i < base->n_outputs; i++) {
        json_t *m = NULL;
        mb_err e = {0};
        if (!base->outputs[i].data || !v->outputs[i].data) {
            m = json_pack("{s:s}", "skipped",
                          "not a tensor (a sequence or map): not compared");
        } else if (mb__metrics_compute(&base->outputs[i], &v->outputs[i], mo,
                                       &m, &e)) {
            m = json_pack("{s:s}", "error", e.msg);
        } else {
            json_object_del(m, "per_sample");
        }
        json_object_set_new(m, "name", json_string(base->outputs[i].name
                                                       ? base->outputs[i].name
                                                       : ""));
        if ((int)i == ci)
            json_object_set(v->agreement, "top1",
                            json_object_get(m, "top1_agreement"));
        json_array_append_new(outs, m);
    }
    json_object_set_new(v->agreement, "outputs", outs);
    mb_gate gates[32];
    size_t ng = n_user;
    if (n_user) {
        memcpy(gates, user, n_user * sizeof *gates);
    } else {
        ng = mb__gate_defaults(variant_precision(v), gates, 32);
    }
    int all = 0;
    json_t *res = mb__gates_eval_outputs(gates, ng, outs, &all);
    json_object_set_new(v->agreement, "gates", res);
    json_object_set_new(v->agreement, "precision",
                        json_string(mb__precision_name(variant_precision(v))));
    v->agreement_pass = all;
    /* A short note: the figures a reader looks at first. */
    json_t *o0 = json_array_get(outs, ci >= 0 ? (size_t)ci : 0);
    double cos = NAN, mx = NAN, t1 = NAN;
    mb__json_metric_get(json_object_get(o0, "cosine"), &cos);
    mb__json_metric_get(json_object_get(o0, "max_abs"), &mx);
    mb__json_metric_get(json_object_get(o0, "top1_agreement"), &t1);
    if (isfinite(t1))
        snprintf(v->note, sizeof v->note,
                 "top-1 agreement %.2f%%, cosine %.6f, max |diff| %.3g",
                 t1 * 100, cos, mx);
    else
        snprintf(v->note, sizeof v->note, "cosine %.6f, max |diff| %.3g", cos,
                 mx);
}

static void print_table(json_t *doc, const variant *vs, size_t nv, FILE *f)
{
    (void)nv; /* the comparison lists the variants in the same order */
    int color = mb_cli_use_color(fileno(f));
    const char *bold = color ? "\033[1m" : "", *rst = color ? "\033[0m" : "",
               *green = color ? "\033[32m" : "", *yellow = color ? "\033[33m" : "",
               *red = color ? "\033[31m" : "";
    json_t *cmp = json_object_get(doc, "comparison");
    /* Columns by priority, so that a row fits the terminal: the least
     * needed go first (p and inf/s, then p99 and size, then memory). */
    int width = mb_cli_term_width(fileno(f));
    int show_p = width >= 150, show_p99 = width >= 125,
        show_mem = width >= 108, show_status = width >= 95;
    int nw = show_status ? 16 : 12;
    char hdr[512];
    int off = snprintf(hdr, sizeof hdr, "%-*s%s %-26s", nw, "variant",
                       show_status ? " status " : "", "p50 ms [95% CI]");
    if (show_p99)
        off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %9s", "p99 ms");
    off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %-24s",
                    "speedup [95% CI]");
    if (show_p)
        off += snprintf(hdr + off, sizeof hdr - (size_t)off, " %9s %10s", "p",
                        "inf/s");
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
    json_array_foreach(json_object_get(cmp, "variants"), i, e)
    {
        const variant *v = &vs[i];
        char nm[64];
        snprintf(nm, sizeof nm, "%s%s", v->name,
                 json_is_true(json_object_get(e, "baseline")) ? " *" : "");
        if (v->error) {
            fprintf(f, "%-*s %sFAILED%s  %s\n", nw, nm, red, rst, v->error);
            continue;
        }
        const json_t *run = v->run, *lat = json_object_get(run, "latency");
        char p50[64], p99[32], sp[64], pv[32], mem[32], size[32], acc[16],
            agr[16];
        double med = json_number_value(json_object_get(lat, "median"));
        const json_t *ci = json_object_get(lat, "median_ci95");
        if (json_is_object(ci))
            snprintf(p50, sizeof p50, "%.4g [%.4g, %.4g]", med / 1e6,
                     json_number_value(json_object_get(ci, "lo")) / 1e6,
                     json_number_value(json_object_get(ci, "hi")) / 1e6);
        else
            snprintf(p50, sizeof p50, "%.4g", med / 1e6);
        const json_t *p99v = json_object_get(lat, "p99");
        if (json_is_number(p99v))
            snprintf(p99, sizeof p99, "%.4g", json_number_value(p99v) / 1e6);
        else
            snprintf(p99, sizeof p99, "n/a");
        const json_t *s = json_object_get(e, "speedup_median");
        const json_t *sig = json_object_get(e, "significance");
        if (json_is_object(s) && json_is_object(sig))
            snprintf(sp, sizeof sp, "%.3fx [%.3f, %.3f]",
                     json_number_value(json_object_get(s, "value")),
                     json_number_value(json_array_get(json_object_get(s, "ci95"), 0)),
                     json_number_value(json_array_get(json_object_get(s, "ci95"), 1)));
        else
            snprintf(sp, sizeof sp, "1.00x (baseline)");
        if (json_is_object(sig) &&
            json_number_value(json_object_get(sig, "p")) < 1e-15)
            snprintf(pv, sizeof pv, "<1e-15");
        else if (json_is_object(sig))
            snprintf(pv, sizeof pv, "%.2g",
                     json_number_value(json_object_get(sig, "p")));
        else
            snprintf(pv, sizeof pv, "-");
        mb__fmt_bytes(json_number_value(json_object_get(
                          json_object_get(run, "memory"), "rss_peak_bytes")),
                      mem, sizeof mem);
        mb__fmt_bytes(json_number_value(json_object_get(
                          json_object_get(run, "model"), "file_bytes")),
                      size, sizeof size);
        const json_t *a = json_object_get(e, "accuracy");
        if (json_is_number(json_object_get(a, "top1")))
            snprintf(acc, sizeof acc, "%.4f",
                     json_number_value(json_object_get(a, "top1")));
        else
            snprintf(acc, sizeof acc, "-");
        const json_t *ag = json_object_get(e, "agreement");
        if (json_is_number(json_object_get(ag, "top1")))
            snprintf(agr, sizeof agr, "%.2f%%",
                     100 * json_number_value(json_object_get(ag, "top1")));
        else
            snprintf(agr, sizeof agr, json_is_object(ag) ? "see below" : "-");
        fprintf(f, "%-*s%s %-26s", nw, nm, show_status ? " ok     " : "",
                p50);
        if (show_p99)
            fprintf(f, " %9s", p99);
        fprintf(f, " %-24s", sp);
        if (show_p)
            fprintf(f, " %9s %10.1f", pv,
                    json_number_value(json_object_get(
                        json_object_get(run, "throughput"),
                        "inferences_per_s")));
        if (show_mem)
            fprintf(f, " %10s", mem);
        if (show_p99)
            fprintf(f, " %9s", size);
        fprintf(f, " %7s %7s\n", acc, agr);
    }
    fprintf(f, "\n%sRecommendations%s (baseline: %s)\n", bold, rst,
            json_string_value(json_object_get(cmp, "baseline")));
    json_array_foreach(json_object_get(cmp, "variants"), i, e)
    {
        if (json_is_true(json_object_get(e, "baseline")))
            continue;
        fprintf(f, "%s%s%s:\n", bold,
                json_string_value(json_object_get(e, "name")), rst);
        size_t k;
        json_t *r;
        json_array_foreach(json_object_get(e, "recommendations"), k, r)
        {
            int ok = json_is_true(json_object_get(r, "ok"));
            fprintf(f, "  %s%s%s %s\n", ok ? green : yellow,
                    ok ? "\u2713" : "\u26a0", rst,
                    json_string_value(json_object_get(r, "text")));
        }
    }
    size_t k;
    json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), k, w)
        fprintf(f, "%s! %s%s\n", yellow, json_string_value(w), rst);
    fprintf(f, "%sspeedup = baseline median / variant median; CI: percentile "
               "bootstrap; p: two-sided Mann-Whitney U%s\n",
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
        size_t L = strlen(line);
        while (L && (line[L - 1] == ' ' || line[L - 1] == '\r'))
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
    };
    struct option *longopts =
        mb_cli_runopts_merge_outputs(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");

    mb_plan plan;
    mb__plan_defaults(&plan);
    mb_cli_outputs out = {0};
    const char *baseline_name = NULL, *labels_path = NULL, *save_dir = NULL;
    double tolerance = 0.01;
    mb_metric_opts mo;
    mb__metric_opts_defaults(&mo);
    mb_gate gates[32];
    size_t n_gates = 0, nv = 0, n_specs = 0;
    int64_t timeout_ns = 600LL * 1000000000;
    int fail_fast = 0, quiet = 0, rc = MB_EXIT_OK, c;
    char **specs = NULL;
    variant *vs = NULL;
    json_t *doc = NULL;
    int64_t *labels = NULL;
    size_t n_labels = 0;
    char tmpdir[] = "/tmp/mbench-compare.XXXXXX";
    int have_tmp = 0;
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
        case O_SAVEOUT: save_dir = optarg; break;
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
    vs = mb__calloc(n_specs, sizeof *vs);
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
    if (labels_path && mb__labels_load(labels_path, &labels, &n_labels, &err)) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int64_t batch = plan.n_batches ? plan.batches[0] : 1;

    /* Load every variant in its own process. */
    int tty = isatty(2);
    for (size_t i = 0; i < nv; i++) {
        if (tty)
            fprintf(stderr, "\rloading %s (%zu/%zu)...\033[K", vs[i].name,
                    i + 1, nv);
        mb_err e = {0};
        if (mb__child_spawn(&vs[i].plan, batch, timeout_ns, &vs[i].child, &e))
            fail_variant(&vs[i], &e);
        if (vs[i].error && fail_fast) {
            rc = mb_cli_error(MB_EXIT_RUNTIME, "variant %s FAILED: %s",
                              vs[i].name, vs[i].error);
            goto done;
        }
    }
    /* Calibrate: a few iterations each, to size the round slots so that
     * one slot takes about 50 ms. */
    for (size_t i = 0; i < nv; i++) {
        if (vs[i].error)
            continue;
        int64_t s[3];
        mb_err e = {0};
        for (int w = 0; w < (int)(plan.warmup_iters > 0 ? 1 : 0); w++) {
            int64_t nw = plan.warmup_iters;
            int64_t *ws = mb__calloc((size_t)nw, sizeof *ws);
            if (!ws ||
                mb__child_measure(vs[i].child, nw, 0, ws, timeout_ns, &e))
                fail_variant(&vs[i], &e);
            free(ws);
        }
        if (!vs[i].error &&
            mb__child_measure(vs[i].child, 3, 0, s, timeout_ns, &e))
            fail_variant(&vs[i], &e);
        if (!vs[i].error) {
            int64_t per = (s[0] + s[1] + s[2]) / 3;
            vs[i].slot = per > 0 ? 50000000 / per : 1000;
            if (vs[i].slot < 1)
                vs[i].slot = 1;
            if (vs[i].slot > 5000)
                vs[i].slot = 5000;
        }
        if (vs[i].error && fail_fast) {
            rc = mb_cli_error(MB_EXIT_RUNTIME, "variant %s FAILED: %s",
                              vs[i].name, vs[i].error);
            goto done;
        }
    }
    for (size_t i = 0; i < nv; i++)
        mb__child_pause(vs[i].child);
    /* Interleaved rounds: every variant takes one slot per round, in a
     * rotating order, until each meets its stopping rule. */
    int64_t t_start = mb_now_ns();
    size_t round = 0;
    const char *stop = "target_ci";
    for (;; round++) {
        int all_done = 1;
        for (size_t j = 0; j < nv; j++) {
            variant *v = &vs[(j + round) % nv];
            if (v->error || v->done)
                continue;
            int64_t k = v->slot;
            if (plan.fixed_iters > 0 && (int64_t)v->n + k > plan.fixed_iters)
                k = plan.fixed_iters - (int64_t)v->n;
            int64_t *s = mb__calloc((size_t)k, sizeof *s);
            mb_err e = {0};
            /* Each slot starts with two unrecorded iterations: the variant
             * has been idle while the others ran, and waking its threads
             * and caches is not the model's latency. */
            if (!s || mb__child_measure(v->child, k, 2, s, timeout_ns, &e) ||
                add_samples(v, s, (size_t)k))
                fail_variant(v, &e);
            /* Stopped while the others run: an idle runtime's spinning
             * worker threads would otherwise compete for the cores. */
            mb__child_pause(v->child);
            free(s);
            if (v->error && fail_fast) {
                rc = mb_cli_error(MB_EXIT_RUNTIME, "variant %s FAILED: %s",
                                  v->name, v->error);
                goto done;
            }
            if (interrupted)
                break;
        }
        for (size_t j = 0; j < nv; j++) {
            vs[j].done = variant_done(&vs[j], &vs[j].plan);
            all_done &= vs[j].done;
        }
        if (tty) {
            fprintf(stderr, "\rmeasuring: round %zu, %.1f s\033[K", round + 1,
                    (double)(mb_now_ns() - t_start) / 1e9);
        }
        if (interrupted) {
            stop = "interrupted";
            break;
        }
        if (all_done)
            break;
    }
    if (tty)
        fprintf(stderr, "\r\033[K");

    /* Outputs on the same inputs, for accuracy and agreement. */
    if (!interrupted && mkdtemp(tmpdir)) {
        have_tmp = 1;
        for (size_t i = 0; i < nv; i++) {
            if (vs[i].error)
                continue;
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/v%zu", tmpdir, i);
            mkdir(dir, 0700);
            size_t nb = 0, ns = 0;
            mb_err e = {0};
            if (mb__child_outputs(vs[i].child, dir, timeout_ns, &nb, &ns, &e) ||
                load_outputs(&vs[i], dir, nb, ns, batch, &e))
                fail_variant(&vs[i], &e);
        }
    }
    /* The runs, from the children. */
    for (size_t i = 0; i < nv; i++) {
        if (vs[i].error)
            continue;
        mb_err e = {0};
        if (mb__child_finish(vs[i].child, timeout_ns, &vs[i].run, &e)) {
            fail_variant(&vs[i], &e);
            continue;
        }
        json_t *run = vs[i].run;
        /* Output tensors take the model's output names. */
        for (size_t k = 0; k < vs[i].n_outputs; k++) {
            const char *nm = json_string_value(json_object_get(
                json_array_get(json_object_get(run, "outputs"), k), "name"));
            if (nm) {
                free(vs[i].outputs[k].name);
                vs[i].outputs[k].name = strdup(nm);
            }
        }
        json_object_set_new(run, "latency",
                            mb__latency_json(vs[i].samples, vs[i].n,
                                             plan.percentiles,
                                             plan.n_percentiles));
        json_object_set_new(run, "iterations", json_integer((json_int_t)vs[i].n));
        json_object_set_new(run, "stop_rule",
                            json_string(interrupted ? "interrupted"
                                        : plan.fixed_iters ? "fixed_iterations"
                                                           : stop));
        double secs = (double)vs[i].busy_ns / 1e9;
        json_object_set_new(
            run, "throughput",
            json_pack("{s:f,s:f,s:s}", "inferences_per_s",
                      secs > 0 ? (double)vs[i].n / secs : 0.0,
                      "samples_per_s",
                      secs > 0 ? (double)vs[i].n * (double)batch / secs : 0.0,
                      "method", "iterations / sum of latencies (interleaved)"));
        json_object_set_new(json_object_get(run, "phases"), "measure_ns",
                            json_integer(vs[i].busy_ns));
        json_t *a = json_array();
        for (size_t k = 0; k < vs[i].n; k++)
            json_array_append_new(a, json_integer(vs[i].samples[k]));
        json_object_set_new(run, "samples_ns", a);
    }
    /* Accuracy and agreement. */
    variant *bv = &vs[bi];
    if (labels) {
        for (size_t i = 0; i < nv; i++) {
            int co = classifier_output(&vs[i]);
            if (vs[i].error || co < 0)
                continue;
            double t1, t5;
            mb_err e = {0};
            if (mb__topk_accuracy(&vs[i].outputs[co], labels, n_labels, &t1,
                                  &t5, &e)) {
                rc = mb_cli_error(MB_EXIT_RUNTIME, "--labels %s: %s",
                                  labels_path, e.msg);
                goto done;
            }
            vs[i].accuracy = json_pack("{s:f,s:f,s:I}", "top1", t1, "top5",
                                       t5, "samples", (json_int_t)n_labels);
        }
    }
    if (!bv->error)
        for (size_t i = 0; i < nv; i++)
            if (i != bi && !vs[i].error && vs[i].n_outputs)
                judge_agreement(&vs[i], bv, gates, n_gates, &mo);

    doc = mb__doc_new("compare", mb_cli_command_line());
    json_t *runs = json_object_get(doc, "runs");
    mb__cmp_variant *cv = mb__calloc(nv, sizeof *cv);
    for (size_t i = 0; cv && i < nv; i++) {
        variant *v = &vs[i];
        if (v->run)
            json_array_append(runs, v->run);
        else
            json_array_append_new(runs, json_pack("{s:s,s:s,s:s,s:I}", "status",
                                                  "failed", "variant", v->name,
                                                  "error", v->error,
                                                  "batch_size",
                                                  (json_int_t)batch));
        cv[i] = (mb__cmp_variant){v->name, v->error, v->samples, v->n,
                                  v->run, v->accuracy, v->agreement,
                                  v->agreement ? v->agreement_pass : -1,
                                  v->note};
    }
    mb__cmp_opts co = {tolerance, 0.05, 2000, plan.seed, plan.data_path == NULL};
    if (cv)
        json_object_set_new(doc, "comparison",
                            mb__compare_analyze(cv, nv, bi, &co));
    free(cv);
    json_t *warn = json_object_get(doc, "warnings");
    if (!plan.data_path)
        json_array_append_new(
            warn, json_string("RANDOM INPUTS ONLY: every variant saw the same "
                              "seeded synthetic inputs; latency is "
                              "representative, but output agreement on random "
                              "data says little about accuracy; use --data "
                              "and --labels"));
    if (interrupted)
        json_object_set_new(doc, "interrupted", json_true());
    if (!quiet)
        print_table(doc, vs, nv, stdout);
    if (save_dir) {
        mkdir(save_dir, 0755);
        for (size_t i = 0; i < nv; i++) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/%s", save_dir, vs[i].name);
            mkdir(dir, 0755);
            for (size_t k = 0; k < vs[i].n_outputs; k++) {
                if (!vs[i].outputs[k].data)
                    continue;
                char path[8192];
                snprintf(path, sizeof path, "%s/%s.npy", dir,
                         vs[i].outputs[k].name ? vs[i].outputs[k].name
                                               : "output");
                for (char *p = path + strlen(dir) + 1; *p; p++)
                    if (*p == '/')
                        *p = '_';
                mb_err e = {0};
                if (mb__npy_write(path, &vs[i].outputs[k], &e))
                    rc = mb_cli_fail(&e);
            }
        }
    }
    int wr = mb_cli_outputs_write(&out, doc);
    if (wr)
        rc = wr;
    for (size_t i = 0; i < nv && !rc; i++)
        if (vs[i].error)
            rc = mb_cli_error(MB_EXIT_RUNTIME, "variant %s FAILED: %s",
                              vs[i].name, vs[i].error);
    if (interrupted && !rc)
        rc = MB_EXIT_INTERRUPTED;
done:
    if (have_tmp)
        nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    for (size_t i = 0; i < nv; i++)
        free_variant(&vs[i]);
    free(vs);
    for (size_t i = 0; i < n_specs; i++)
        free(specs[i]);
    free(specs);
    free(labels);
    json_decref(doc);
    free(longopts);
    mb__plan_free(&plan);
    return rc;
}
