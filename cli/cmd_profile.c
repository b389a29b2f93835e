/* cmd_profile.c - mbench profile: where the time goes (per operator type
 * and per node, from ONNX Runtime's profiler), reconciled with a separate
 * non-profiled timing pass, with FLOPs, share of the machine's peak and
 * hardware counters; and --compare of two variants' op-type profiles. */
#include "cli.h"
#include "outputs.h"
#include "runopts.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/stats.h"
#include "profile/counters.h"
#include "profile/flame.h"
#include "profile/machine.h"
#include "profile/profile.h"
#include "profile/trace.h"
#include "runner/runner.h"
#include "exec_util.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(profile, cmd_profile,
               "per-operator profile, FLOPs and share of peak; --compare A B")

#define DEFAULT_ITERS 50

/* Set by Ctrl-C (mb_cli_cancel_flag) before anything is measured. */
static volatile int *interrupted;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mbench profile MODEL [run options] [profile options]\n"
            "       mbench profile --compare A B [run options]\n"
            "       mbench profile --from-trace TRACE.json [--skip N]\n\n"
            "Profiles MODEL with ONNX Runtime's profiler in a pass of its "
            "own (never mixed\ninto timing): cold run and --warmup runs are "
            "skipped, then --iterations runs\n(default %d) are aggregated "
            "per operator type and per node.  A separate,\nnon-profiled "
            "pass measures the latency the profile is reconciled with.\n"
            "FLOPs come from the shapes in the trace; share of peak uses "
            "`mbench machine`.\n\n",
            DEFAULT_ITERS);
    mb_cli_runopts_usage(f);
    fputs("Profile options:\n"
          "  --top N              rows per table (default 10 op types, 15 "
          "nodes)\n"
          "  --trace FILE         keep ONNX Runtime's Chrome-trace JSON "
          "(Perfetto)\n"
          "  --folded FILE        folded stacks: graph;op_type;node "
          "weight_us\n"
          "  --flame FILE.svg     icicle chart graph -> op type -> node\n"
          "  --html FILE          self-contained HTML report (tables, "
          "chart, share of peak)\n"
          "  --json FILE          result document (kind \"profile\")\n"
          "  --compare A B        compare the op-type profiles of two models "
          "(or of two\n"
          "                       saved --json documents)\n"
          "  --from-trace FILE    analyse an existing ORT trace, run "
          "nothing\n"
          "  --skip N             with --from-trace: leading runs to skip "
          "(default 1)\n"
          "  --no-timing          skip the non-profiled timing pass\n"
          "  --no-counters        skip the hardware-counter pass\n"
          "  --no-peak            do not measure or read machine peaks\n"
          "  --quiet              no console report\n"
          "  --help               this help\n"
          "\nExit codes: 0 success, 2 usage error, 3 runtime error, "
          "130 interrupted.\n",
          f);
}

enum {
    O_HELP = 'h',
    O_TOP = 700,
    O_TRACE,
    O_FOLDED,
    O_FLAME,
    O_HTML,
    O_JSON,
    O_COMPARE,
    O_FROM,
    O_SKIP,
    O_NOTIMING,
    O_NOCOUNTERS,
    O_NOPEAK,
    O_QUIET
};

typedef struct popts {
    int top, no_timing, no_counters, no_peak, quiet, compare;
    int64_t skip;
    const char *trace, *folded, *flame, *html, *json, *from;
} popts;

static int write_buf(const char *path, mb_buf *b)
{
    mb_err err = {0};
    if (b->oom)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory rendering %s",
                            path);
    if (mb__write_file_atomic(path, b->data ? b->data : "", b->len, &err))
        return mb_cli_fail(&err);
    return 0;
}

/* Removes the profiler's temp directory and what is in it. */
static void rm_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The one .json file ORT wrote into dir, into path. */
static int find_trace(const char *dir, char *path, size_t len)
{
    DIR *d = opendir(dir);
    int found = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
            snprintf(path, len, "%s/%s", dir, e->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

/* Profiling pass: a session with profile=<tmp>/ort, the cold run, warmup
 * and iters runs, closed so that ORT writes the trace; then parsed.
 * *text keeps the raw trace for --trace. */
static mb_status profile_pass(const mb_plan *plan, int64_t iters,
                              json_t **profile, char **text, size_t *len,
                              mb_err *err)
{
    *profile = NULL;
    *text = NULL;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/mbench-profile.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return mb__fail(err, MB_EIO,
                        "cannot create a temporary directory in %s for the "
                        "trace; set TMPDIR",
                        tmp && *tmp ? tmp : "/tmp");
    char prefix[4200], path[4300];
    snprintf(prefix, sizeof prefix, "%s/ort", dir);
    mb_plan p;
    mb_status s = MB_OK;
    if (mb__plan_copy(&p, plan) || mb__plan_set_opt(&p, "profile", prefix)) {
        rm_tmpdir(dir);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    mb_bench *b = NULL;
    int64_t n = p.warmup_iters > iters ? p.warmup_iters : iters;
    int64_t *samples = mb__calloc((size_t)(n > 0 ? n : 1), sizeof *samples);
    if (!samples)
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!s)
        s = mb__bench_open(&p, p.n_batches ? p.batches[0] : 1, &b, err);
    if (!s && p.warmup_iters > 0)
        s = mb__bench_iterate(b, p.warmup_iters, samples, err);
    if (!s && *interrupted)
        s = mb__fail(err, MB_EINTERRUPTED, "interrupted");
    if (!s)
        s = mb__bench_iterate(b, iters, samples, err);
    mb__bench_close(b); /* writes the trace */
    free(samples);
    mb__plan_free(&p);
    if (!s && !find_trace(dir, path, sizeof path))
        s = mb__fail(err, MB_EBACKEND,
                     "the backend wrote no profiling trace into %s; only "
                     "the ort backend supports profiling",
                     dir);
    if (!s)
        s = mb__read_file(path, text, len, err);
    mb_trace *t = NULL;
    if (!s)
        s = mb__trace_parse(*text, *len, "ONNX Runtime trace", &t, err);
    if (!s) {
        size_t runs = mb__trace_runs(t);
        size_t skip = runs > (size_t)iters ? runs - (size_t)iters : 1;
        s = mb__trace_profile(t, skip, profile, err);
    }
    mb__trace_free(t);
    rm_tmpdir(dir);
    if (s) {
        free(*text);
        *text = NULL;
    }
    return s;
}

/* Counter pass: a non-profiled session, warmup, then iters runs counted
 * on every thread.  Returns the counters object (never NULL). */
static json_t *counter_pass(const mb_plan *plan, int64_t iters)
{
    mb_err err = {0};
    mb_counters *c = NULL;
    /* cheap check first: is there a PMU at all? */
    if (mb__counters_open(&c, &err))
        return mb__counters_unavailable(err.msg);
    mb__counters_close(c);
    mb_bench *b = NULL;
    int64_t n = plan->warmup_iters > iters ? plan->warmup_iters : iters;
    int64_t *samples = mb__calloc((size_t)(n > 0 ? n : 1), sizeof *samples);
    json_t *out = NULL;
    if (!samples ||
        mb__bench_open(plan, plan->n_batches ? plan->batches[0] : 1, &b,
                       &err) ||
        (plan->warmup_iters > 0 &&
         mb__bench_iterate(b, plan->warmup_iters, samples, &err)) ||
        mb__counters_open(&c, &err)) {
        out = mb__counters_unavailable(err.msg[0] ? err.msg
                                                  : "out of memory");
    } else {
        mb__counters_start(c);
        mb_status s = mb__bench_iterate(b, iters, samples, &err);
        mb__counters_stop(c);
        out = s ? mb__counters_unavailable(err.msg)
                : mb__counters_json(c, iters);
        mb__counters_close(c);
    }
    mb__bench_close(b);
    free(samples);
    return out;
}

static int threads_of(const mb_plan *plan)
{
    const char *t = mb__plan_get_opt(plan, "threads");
    return t ? atoi(t) : 0;
}

/* Profiles one model: the document (kind "profile") into *doc. */
static int profile_model(const mb_plan *plan, const popts *o, int64_t iters,
                         json_t **doc, char **trace_text, size_t *trace_len)
{
    mb_err err = {0};
    *doc = NULL;
    json_t *run = NULL;
    double latency = NAN;
    if (!o->no_timing) {
        if (mb__run_plan(plan, doc, &err))
            return mb_cli_fail(&err);
        run = json_array_get(json_object_get(*doc, "runs"), 0);
        const char *st = json_string_value(json_object_get(run, "status"));
        if (!st || strcmp(st, "ok") != 0) {
            const char *why =
                json_string_value(json_object_get(run, "error"));
            int rc = mb_cli_error(*interrupted ? MB_EXIT_INTERRUPTED
                                              : MB_EXIT_RUNTIME,
                                  "the timing pass did not finish: %s",
                                  why ? why : (st ? st : "no run"));
            json_decref(*doc);
            *doc = NULL;
            return rc;
        }
        latency = json_number_value(
            json_object_get(json_object_get(run, "latency"), "median"));
        json_object_set_new(*doc, "kind", json_string("profile"));
    } else {
        *doc = mb__doc_new("profile", NULL);
        run = json_pack("{s:s, s:s}", "status", "ok", "variant",
                        plan->variant ? plan->variant
                                      : mb__basename(plan->model_path));
        json_array_append_new(json_object_get(*doc, "runs"), run);
    }
    if (*interrupted) {
        json_decref(*doc);
        *doc = NULL;
        return mb_cli_error(MB_EXIT_INTERRUPTED, "interrupted");
    }
    json_t *profile = NULL;
    if (profile_pass(plan, iters, &profile, trace_text, trace_len, &err)) {
        json_decref(*doc);
        *doc = NULL;
        return mb_cli_fail(&err);
    }
    json_t *counters = o->no_counters
                           ? mb__counters_unavailable("skipped (--no-counters)")
                           : counter_pass(plan, iters);
    json_t *machine = NULL;
    int cached = 0;
    if (!o->no_peak && mb__machine_get(0, &machine, &cached, &err))
        mb_cli_warn("machine peaks not available: %s", err.msg);
    mb_profile_ctx ctx = {latency, plan->n_batches ? plan->batches[0] : 1,
                          threads_of(plan), machine, counters};
    mb__profile_finish(profile, &ctx);
    json_decref(machine);
    json_decref(counters);
    json_object_set_new(profile, "iterations", json_integer(iters));
    json_object_set_new(run, "profile", profile);
    return 0;
}

static const json_t *doc_profile(const json_t *doc)
{
    return json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
                           "profile");
}

static const char *doc_variant(const json_t *doc, const char *fallback)
{
    const char *v = json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "runs"), 0), "variant"));
    return v ? v : fallback;
}

/* Writes every requested output of a single-model profile. */
static int write_outputs(const popts *o, json_t *doc, const char *title,
                         const char *trace_text, size_t trace_len)
{
    const json_t *p = doc_profile(doc);
    int rc = 0;
    mb_err err = {0};
    if (!o->quiet) {
        mb_buf b = MB_BUF_INIT;
        mb__profile_text(p, title, o->top, &b);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        mb__buf_free(&b);
    }
    /* one output that cannot be written does not cost the others */
    if (o->trace && trace_text &&
        mb__write_file_atomic(o->trace, trace_text, trace_len, &err))
        rc = mb_cli_fail(&err);
    if (o->folded) {
        mb_buf b = MB_BUF_INIT;
        mb__profile_folded(p, title, &b);
        rc |= write_buf(o->folded, &b);
        mb__buf_free(&b);
    }
    if (o->flame) {
        mb_buf b = MB_BUF_INIT;
        mb__profile_svg(p, title, &b);
        rc |= write_buf(o->flame, &b);
        mb__buf_free(&b);
    }
    if (o->html) {
        mb_buf b = MB_BUF_INIT;
        mb__profile_html(p, title, json_object_get(doc, "environment"), &b);
        rc |= write_buf(o->html, &b);
        mb__buf_free(&b);
    }
    if (o->json) {
        json_object_set_new(doc, "command_line",
                            json_string(mb_cli_command_line()));
        char *text = json_dumps(doc, JSON_INDENT(2));
        if (!text)
            rc |= mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        else if (mb__write_file_atomic(o->json, text, strlen(text), &err))
            rc |= mb_cli_fail(&err);
        free(text);
    }
    if (rc)
        rc = MB_EXIT_RUNTIME;
    return rc;
}

/* A saved result document with a profile, or NULL when path is not one. */
static json_t *load_saved(const char *path)
{
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".json") != 0)
        return NULL;
    json_t *d = json_load_file(path, 0, NULL);
    if (d && !doc_profile(d)) {
        json_decref(d);
        return NULL;
    }
    return d;
}

static int run_compare(const mb_plan *plan, const popts *o, int64_t iters,
                       char **models)
{
    json_t *docs[2] = {NULL, NULL};
    int rc = 0;
    popts quick = *o;
    quick.no_timing = quick.no_counters = quick.no_peak = 1;
    for (int i = 0; i < 2 && !rc; i++) {
        docs[i] = load_saved(models[i]);
        if (docs[i])
            continue;
        mb_plan p;
        if (mb__plan_copy(&p, plan))
            return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        free(p.model_path);
        p.model_path = mb__strdup(models[i]);
        free(p.variant);
        p.variant = NULL;
        char *text = NULL;
        size_t len = 0;
        rc = profile_model(&p, &quick, iters, &docs[i], &text, &len);
        free(text);
        mb__plan_free(&p);
    }
    if (!rc) {
        const char *na = doc_variant(docs[0], mb__basename(models[0]));
        const char *nb = doc_variant(docs[1], mb__basename(models[1]));
        json_t *cmp = mb__profile_compare(doc_profile(docs[0]), na,
                                          doc_profile(docs[1]), nb);
        if (!cmp) {
            rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        } else {
            if (!o->quiet) {
                mb_buf b = MB_BUF_INIT;
                mb__profile_compare_text(cmp, &b);
                fwrite(b.data ? b.data : "", 1, b.len, stdout);
                mb__buf_free(&b);
            }
            if (o->json) {
                json_t *doc = mb__doc_new("profile",
                                          mb_cli_command_line());
                json_t *runs = json_object_get(doc, "runs");
                for (int i = 0; i < 2; i++)
                    json_array_append(
                        runs, json_array_get(json_object_get(docs[i], "runs"),
                                             0));
                json_object_set_new(doc, "profile_comparison", cmp);
                cmp = NULL;
                char *text = json_dumps(doc, JSON_INDENT(2));
                mb_err err = {0};
                if (!text)
                    rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
                else if (mb__write_file_atomic(o->json, text, strlen(text),
                                               &err))
                    rc = mb_cli_fail(&err);
                free(text);
                json_decref(doc);
            }
            json_decref(cmp);
        }
    }
    json_decref(docs[0]);
    json_decref(docs[1]);
    return rc;
}

static int run_from_trace(const popts *o, int64_t iters_unused)
{
    (void)iters_unused;
    mb_err err = {0};
    char *text = NULL;
    size_t len = 0;
    mb_trace *t = NULL;
    json_t *profile = NULL;
    if (mb__read_file(o->from, &text, &len, &err) ||
        mb__trace_parse(text, len, o->from, &t, &err) ||
        mb__trace_profile(t, (size_t)o->skip, &profile, &err)) {
        mb__trace_free(t);
        free(text);
        return mb_cli_fail(&err);
    }
    mb__trace_free(t);
    json_t *machine = NULL;
    int cached = 0;
    if (!o->no_peak && mb__machine_get(0, &machine, &cached, &err))
        mb_cli_warn("machine peaks not available: %s", err.msg);
    json_t *counters = mb__counters_unavailable(
        "not measured (--from-trace runs nothing)");
    mb_profile_ctx ctx = {NAN, 1, 0, machine, counters};
    mb__profile_finish(profile, &ctx);
    json_decref(machine);
    json_decref(counters);
    json_t *doc = mb__doc_new("profile", NULL);
    json_t *run = json_pack("{s:s, s:s, s:o}", "status", "ok", "variant",
                            mb__basename(o->from), "profile", profile);
    json_array_append_new(json_object_get(doc, "runs"), run);
    int rc = write_outputs(o, doc, mb__basename(o->from), text, len);
    free(text);
    json_decref(doc);
    return rc;
}

int cmd_profile(int argc, char **argv)
{
    static const struct option own[] = {
        {"help", no_argument, NULL, O_HELP},
        {"top", required_argument, NULL, O_TOP},
        {"trace", required_argument, NULL, O_TRACE},
        {"folded", required_argument, NULL, O_FOLDED},
        {"flame", required_argument, NULL, O_FLAME},
        {"html", required_argument, NULL, O_HTML},
        {"json", required_argument, NULL, O_JSON},
        {"compare", no_argument, NULL, O_COMPARE},
        {"from-trace", required_argument, NULL, O_FROM},
        {"skip", required_argument, NULL, O_SKIP},
        {"no-timing", no_argument, NULL, O_NOTIMING},
        {"no-counters", no_argument, NULL, O_NOCOUNTERS},
        {"no-peak", no_argument, NULL, O_NOPEAK},
        {"quiet", no_argument, NULL, O_QUIET},
    };
    struct option *longopts =
        mb_cli_runopts_merge(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    mb_plan plan;
    mb__plan_defaults(&plan);
    popts o = {0};
    o.skip = 1;
    int c, rc = MB_EXIT_OK;
    int64_t v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int r = mb_cli_runopts_handle(&plan, c, optarg);
        if (r < 0) {
            rc = MB_EXIT_USAGE;
            goto done;
        }
        if (r > 0)
            continue;
        switch (c) {
        case O_HELP: usage(stdout); goto done;
        case O_TOP:
            if (mb_cli_parse_i64(optarg, 1, 100000, &v)) {
                rc = mb_cli_bad_value("--top", optarg, "an integer >= 1");
                goto done;
            }
            o.top = (int)v;
            break;
        case O_SKIP:
            if (mb_cli_parse_i64(optarg, 0, 1000000, &v)) {
                rc = mb_cli_bad_value("--skip", optarg, "an integer >= 0");
                goto done;
            }
            o.skip = v;
            break;
        /* outputs are checked now, not after the profile is measured */
        case O_TRACE:
        case O_FOLDED:
        case O_FLAME:
        case O_HTML:
        case O_JSON: {
            const char **dst = c == O_TRACE    ? &o.trace
                               : c == O_FOLDED ? &o.folded
                               : c == O_FLAME  ? &o.flame
                               : c == O_HTML   ? &o.html
                                               : &o.json;
            const char *flag = c == O_TRACE    ? "--trace"
                               : c == O_FOLDED ? "--folded"
                               : c == O_FLAME  ? "--flame"
                               : c == O_HTML   ? "--html"
                                               : "--json";
            if ((rc = mb_cli_output_arg(flag, optarg, dst)))
                goto done;
            break;
        }
        case O_COMPARE: o.compare = 1; break;
        case O_FROM: o.from = optarg; break;
        case O_NOTIMING: o.no_timing = 1; break;
        case O_NOCOUNTERS: o.no_counters = 1; break;
        case O_NOPEAK: o.no_peak = 1; break;
        case O_QUIET: o.quiet = 1; break;
        case ':':
            rc = mb_cli_error(MB_EXIT_USAGE,
                              "%s needs a value; see 'mbench profile --help'",
                              argv[optind - 1]);
            goto done;
        default:
            rc = mb_cli_error(MB_EXIT_USAGE,
                              "unknown option '%s'; see 'mbench profile "
                              "--help'",
                              argv[optind - 1]);
            goto done;
        }
    }
    if (o.from) {
        if (optind != argc || o.compare) {
            rc = mb_cli_error(MB_EXIT_USAGE,
                              "--from-trace takes no MODEL and no --compare");
            goto done;
        }
        rc = run_from_trace(&o, 0);
        goto done;
    }
    int want = o.compare ? 2 : 1;
    if (argc - optind != want) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          o.compare ? "--compare needs two models A B, got %d"
                                    : "expected one MODEL, got %d; usage: "
                                      "mbench profile MODEL [options]",
                          argc - optind);
        goto done;
    }
    if (mb_cli_runopts_finish(&plan)) {
        rc = MB_EXIT_USAGE;
        goto done;
    }
    int64_t iters = plan.fixed_iters > 0 ? plan.fixed_iters : DEFAULT_ITERS;
    plan.fixed_iters = iters; /* the timing pass runs as many */
    if (plan.n_batches > 1) {
        mb_cli_warn("profile uses one batch size; profiling batch %lld only",
                    (long long)plan.batches[0]);
        plan.n_batches = 1;
    }
    interrupted = mb_cli_cancel_flag(1);
    plan.cancel = interrupted;
    if (o.compare) {
        if (o.trace || o.folded || o.flame || o.html)
            mb_cli_warn("--trace, --folded, --flame and --html apply to a "
                        "single profile; ignored with --compare");
        rc = run_compare(&plan, &o, iters, argv + optind);
        goto done;
    }
    plan.model_path = mb__strdup(argv[optind]);
    json_t *doc = NULL;
    char *text = NULL;
    size_t len = 0;
    rc = profile_model(&plan, &o, iters, &doc, &text, &len);
    if (!rc)
        rc = write_outputs(&o, doc,
                           doc_variant(doc, mb__basename(argv[optind])), text,
                           len);
    free(text);
    json_decref(doc);
done:
    free(longopts);
    mb__plan_free(&plan);
    return rc;
}
