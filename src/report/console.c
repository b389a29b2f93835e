/* console.c - console tables for result documents. */
#include "report/console.h"

#include "doc/fields.h"
#include "report/rutil.h"
#include "doc/view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static void header_block(const json_t *doc, const json_t *run,
                         const mb__console_opts *o, mb__buf *out)
{
    const json_t *rt = json_object_get(run, "runtime");
    const json_t *model = json_object_get(run, "model");
    const json_t *cfg =
        json_object_get(json_object_get(run, "config"), "backend_options");
    const char *b = o->color ? "\033[1m" : "", *r = o->color ? "\033[0m" : "";
    char vn[128], n[64], ver[64], dev[64];
    mb__buf_printf(
        out, "%s%s%s  [%s %s, %s]\n", b,
        mb__console_safe(str(run, "variant"), vn, sizeof vn), r,
        mb__console_safe(json_string_value(json_object_get(rt, "name"))
                             ? str(rt, "name")
                             : str(run, "backend"),
                         n, sizeof n),
        mb__console_safe(str(rt, "version"), ver, sizeof ver),
        mb__console_safe(str(run, "device"), dev, sizeof dev));
    char t1[32], t2[32], t3[32], p[32], fb[32], pb[32], mp[1024];
    mb__fmt_count(num(model, "params"), p, sizeof p);
    /* with external data (model.total_bytes); older documents: the file */
    double size = num(model, "total_bytes");
    mb__fmt_bytes(isfinite(size) ? size : num(model, "file_bytes"), fb,
                  sizeof fb);
    mb__fmt_bytes(num(model, "param_bytes"), pb, sizeof pb);
    const json_t *ph = json_object_get(run, "phases");
    mb__fmt_duration(num(ph, "library_load_ns"), t1, sizeof t1);
    mb__fmt_duration(num(ph, "session_create_ns"), t2, sizeof t2);
    mb__fmt_duration(num(ph, "first_inference_ns"), t3, sizeof t3);
    char comp[48] = "";
    if (isfinite(num(ph, "compile_ns"))) {
        char c[32];
        mb__fmt_duration(num(ph, "compile_ns"), c, sizeof c);
        snprintf(comp, sizeof comp, "  compile %s", c);
    }
    char extra[64] = "";
    double cv = num(json_object_get(model, "constants"), "values");
    if (cv > 0) {
        char c[32];
        mb__fmt_count(cv, c, sizeof c);
        snprintf(extra, sizeof extra, ", %s of them in Constant nodes", c);
    }
    mb__buf_printf(out,
                   "  model %s  %s %s  params %s (%s)%s\n"
                   "  runtime load %s  session create %s%s  first inference "
                   "%s\n",
                   mb__console_safe(str(model, "path"), mp, sizeof mp),
                   num(model, "external_data_bytes") > 0
                       ? "size (with external data)"
                       : "file",
                   fb, p, pb, extra, t1, t2, comp, t3);
    const char *key;
    json_t *v;
    int any = 0;
    json_object_foreach((json_t *)cfg, key, v)
    {
        mb__buf_puts(out, any ? " " : "  options ");
        mb__console_put(out, key);
        mb__buf_putc(out, '=');
        mb__console_put(out, json_string_value(v) ? json_string_value(v) : "?");
        any = 1;
    }
    if (any)
        mb__buf_putc(out, '\n');
    const json_t *tm = json_object_get(doc, "timer");
    if (tm)
        mb__buf_printf(out,
                       "  timer CLOCK_MONOTONIC: resolution %.0f ns, "
                       "overhead %.0f ns/read\n",
                       num(tm, "resolution_ns"), num(tm, "overhead_ns"));
}

/* The columns after "batch" and "p50 ms [95% CI]": fields of
 * doc/fields.h (heading, getter and unit come from there; a second
 * field is shown as "a ± b"), a width (negative: left-aligned) and the
 * narrowest terminal that shows the column. */
typedef struct col {
    const char *field, *field2;
    int width, min_term;
} col;

static const col cols[] = {
    {"latency_p90_ms", NULL, 9, 140},
    {"latency_p95_ms", NULL, 9, 88},
    {"latency_p99_ms", NULL, 9, 0},
    {"latency_mean_ms", "latency_std_ms", 19, 165},
    {"latency_min_ms", NULL, 9, 165},
    {"latency_max_ms", NULL, 9, 165},
    {"iterations", NULL, 7, 0},
    {"stop_rule", NULL, -16, 100},
    {"throughput_ips", NULL, 10, 0},
    {"throughput_sps", NULL, 10, 140},
    {"memory_mb", NULL, 10, 0},
};

static void put_cell(mb__buf *out, const col *c, const char *text)
{
    mb__buf_printf(out, c->width < 0 ? " %-*s" : " %*s",
                   c->width < 0 ? -c->width : c->width, text);
}

static void table_header(const mb__console_opts *o, mb__buf *out)
{
    mb__buf_printf(out, "\n%s%5s  %-24s", o->color ? "\033[2m" : "", "batch",
                   "p50 ms [95% CI]");
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        if (o->width < cols[i].min_term)
            continue;
        const mb__field *f = mb__field_find(cols[i].field);
        char head[64];
        if (cols[i].field2)
            snprintf(head, sizeof head, "%s ± %s", f->title,
                     mb__field_find(cols[i].field2)->title);
        else
            snprintf(head, sizeof head, "%s", f->title);
        put_cell(out, &cols[i], head);
    }
    mb__buf_printf(out, "%s\n", o->color ? "\033[0m" : "");
}

/* The columns a narrow terminal left out, and how to see them. */
static void hidden_note(const mb__console_opts *o, mb__buf *out)
{
    char list[300] = "";
    size_t off = 0;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        if (o->width >= cols[i].min_term || off >= sizeof list)
            continue;
        const mb__field *f = mb__field_find(cols[i].field);
        off += (size_t)snprintf(
            list + off, sizeof list - off, "%s%s%s%s", off ? ", " : "",
            f->title, cols[i].field2 ? " ± " : "",
            cols[i].field2 ? mb__field_find(cols[i].field2)->title : "");
    }
    if (off)
        mb__buf_printf(out,
                       "  (%d columns: not shown: %s; COLUMNS=200 mbench ... "
                       "or --md/--csv/--json show every column)\n",
                       o->width, list);
}

static void table_row(const mb__rrun *r, const mb__console_opts *o,
                      mb__buf *out)
{
    char a[32], lo[32], hi[32], cell[96];
    /* With replicates, the median shown is the one its CI is about: the
     * geometric mean of the per-process (or per-block) medians. */
    mb__fmt_ms_table(r->p50, a, sizeof a);
    if (isfinite(r->ci_lo) || isfinite(r->ci_hi)) {
        mb__fmt_ms_table(r->ci_lo, lo, sizeof lo);
        mb__fmt_ms_table(r->ci_hi, hi, sizeof hi);
        snprintf(cell, sizeof cell, "%s [%s, %s]", a, lo, hi);
    } else {
        snprintf(cell, sizeof cell, "%s [n too small]", a);
    }
    mb__buf_printf(out, "%5lld  %-24s",
                   (long long)(r->batch >= 0 ? r->batch : 0), cell);
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        if (o->width < cols[i].min_term)
            continue;
        char t1[64], t2[64], both[130];
        mb__field_cell(mb__field_find(cols[i].field), r, 0, t1, sizeof t1);
        if (cols[i].field2) {
            mb__field_cell(mb__field_find(cols[i].field2), r, 0, t2, sizeof t2);
            snprintf(both, sizeof both, "%s ± %s", t1, t2);
            put_cell(out, &cols[i], both);
        } else {
            put_cell(out, &cols[i], t1);
        }
    }
    mb__buf_putc(out, '\n');
}

/* The table of runs, a header block for each variant. */
static void runs_table(const json_t *doc, const mb__console_opts *o,
                       mb__buf *out)
{
    const json_t *runs = json_object_get(doc, "runs");
    size_t i;
    const json_t *run;
    const char *prev_variant = NULL;
    const char *red = o->color ? "\033[31m" : "",
               *rst = o->color ? "\033[0m" : "";
    json_array_foreach(runs, i, run)
    {
        mb__rrun r;
        mb__rrun_fill(&r, doc, 0, run);
        const char *variant = r.variant_raw ? r.variant_raw : "";
        if (!prev_variant || strcmp(prev_variant, variant) != 0) {
            if (prev_variant)
                mb__buf_putc(out, '\n');
            header_block(doc, run, o, out);
            table_header(o, out);
            prev_variant = variant;
        }
        if (r.status_raw && strcmp(r.status_raw, "failed") == 0)
            mb__buf_printf(out, "%5lld  %sFAILED: %s%s\n",
                           (long long)(r.batch >= 0 ? r.batch : 0), red,
                           r.error ? r.error : "", rst);
        else
            table_row(&r, o, out);
    }
    if (json_array_size(runs))
        hidden_note(o, out);
}

/* Outliers: many (a heavy tail or a second mode) or a count. */
static void outlier_note(const json_t *run, const char *dim, const char *rst,
                         mb__buf *out)
{
    const json_t *lat = json_object_get(run, "latency");
    const json_t *outl = json_object_get(lat, "outliers");
    double hi = num(outl, "high"), lo = num(outl, "low");
    long long b =
        (long long)json_integer_value(json_object_get(run, "batch_size"));
    double count = num(lat, "count");
    if (hi + lo > 0 && (hi + lo) > 0.05 * count)
        mb__buf_printf(out,
                       "%s  note: batch %lld: %.1f%% of the samples lie "
                       "far from the median (a heavy tail or a second "
                       "mode), kept in the statistics%s\n",
                       dim, b, 100 * (hi + lo) / count, rst);
    else if (hi + lo > 0)
        mb__buf_printf(out,
                       "%s  note: batch %lld: %.0f outliers (%.0f high, "
                       "%.0f low; MAD rule), kept in the statistics%s\n",
                       dim, b, hi + lo, hi, lo, rst);
}

/* The run-to-run spread over processes and the warnings it calls for,
 * or what one process can and cannot say. */
static void replication_notes(const json_t *run, const char *dim,
                              const char *rst, mb__buf *out)
{
    const json_t *lat = json_object_get(run, "latency");
    long long b =
        (long long)json_integer_value(json_object_get(run, "batch_size"));
    const json_t *rep = json_object_get(run, "replication");
    double kp = num(rep, "processes"), rcv = num(rep, "run_to_run_cv");
    const json_t *modes = json_object_get(rep, "modes");
    if (kp >= 2 && isfinite(rcv)) {
        mb__buf_printf(out,
                       "  batch %lld: run-to-run CV %.1f%% over %.0f "
                       "processes (the CI's unit of replication)\n",
                       b, rcv * 100, kp);
        if (json_is_object(modes)) {
            char m1[32], m2[32];
            mb__fmt_ms_table(num(json_object_get(modes, "fast"), "median"), m1,
                             sizeof m1);
            mb__fmt_ms_table(num(json_object_get(modes, "slow"), "median"), m2,
                             sizeof m2);
            mb__buf_printf(
                out,
                "  warning: batch %lld: processes settle in two modes: "
                "%.0f at about %s ms, %.0f at about %s ms\n",
                b, num(json_object_get(modes, "fast"), "processes"), m1,
                num(json_object_get(modes, "slow"), "processes"), m2);
        }
        if (rcv > 0.05)
            mb__buf_printf(out,
                           "  warning: batch %lld is noisy from process to "
                           "process (run-to-run CV %.0f%%); close other "
                           "programs, pin threads (--threads 1) or add "
                           "--processes\n",
                           b, rcv * 100);
    } else {
        mb__buf_printf(out,
                       "%s  batch %lld: one process: the CI covers "
                       "within-run noise only (--processes 40 for "
                       "run-to-run variation)%s\n",
                       dim, b, rst);
        double rcv1 = num(lat, "robust_cv");
        if (rcv1 > 0.10)
            mb__buf_printf(out,
                           "  warning: batch %lld is noisy (robust cv "
                           "%.0f%%: 1.4826 MAD / median); close other "
                           "programs or pin threads\n",
                           b, rcv1 * 100);
    }
}

/* Percentiles asked for beyond p50, p90, p95 and p99. */
static void extra_percentiles(const json_t *run, const char *dim,
                              const char *rst, mb__buf *out)
{
    const json_t *lat = json_object_get(run, "latency");
    long long b =
        (long long)json_integer_value(json_object_get(run, "batch_size"));
    const json_t *pcts = json_object_get(lat, "percentiles");
    size_t k;
    const json_t *pq;
    json_array_foreach(pcts, k, pq)
    {
        double q = num(pq, "q");
        if (q == 50 || q == 90 || q == 95 || q == 99)
            continue;
        char v[32];
        if (json_is_true(json_object_get(pq, "supported")))
            mb__fmt_ms_table(num(pq, "value"), v, sizeof v);
        else
            snprintf(v, sizeof v, "not supported by %.0f samples",
                     num(lat, "count"));
        mb__buf_printf(
            out, "%s  batch %lld: p%g = %s%s%s\n", dim, b, q, v,
            json_is_true(json_object_get(pq, "supported")) ? " ms" : "", rst);
    }
}

/* The notes under the table about one run. */
static void run_notes(const json_t *run, const mb__console_opts *o,
                      mb__buf *out)
{
    const char *dim = o->color ? "\033[2m" : "",
               *rst = o->color ? "\033[0m" : "";
    const char *red = o->color ? "\033[31m" : "";
    long long b =
        (long long)json_integer_value(json_object_get(run, "batch_size"));
    outlier_note(run, dim, rst, out);
    replication_notes(run, dim, rst, out);
    const json_t *leak =
        json_object_get(json_object_get(run, "memory"), "leak");
    if (json_is_true(json_object_get(leak, "suspected")))
        mb__buf_printf(out,
                       "%s  warning: batch %lld: memory grows by %.0f "
                       "bytes per iteration: leak suspected%s\n",
                       red, b, num(leak, "slope_bytes_per_iter"), rst);
    extra_percentiles(run, dim, rst, out);
}

void mb__report_console(const json_t *doc, const mb__console_opts *o,
                        mb__buf *out)
{
    size_t i, from = out->len;
    const json_t *run;
    runs_table(doc, o, out);
    /* Notes that belong under the table. */
    json_array_foreach(json_object_get(doc, "runs"), i, run)
        run_notes(run, o, out);
    const char *rst = o->color ? "\033[0m" : "";
    const json_t *warn = json_object_get(doc, "warnings");
    const json_t *w;
    json_array_foreach(warn, i, w)
        mb__buf_printf(out, "%s! %s%s\n", o->color ? "\033[33m" : "",
                       json_string_value(w), rst);
    mb__console_fit(out, from, o->width); /* notes and warnings wrap */
}
