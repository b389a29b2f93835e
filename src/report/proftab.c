/* proftab.c - profile documents as Markdown, CSV and HTML (proftab.h). */
#include "report/proftab.h"

#include "core/err.h"
#include "report/csv.h"
#include "report/profflame.h"
#include "report/profprint.h"
#include "report/proftable.h"
#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MD_TOP_NODES 25

static const json_t *first_run(const json_t *doc)
{
    return json_array_get(json_object_get(doc, "runs"), 0);
}

int mb__profile_doc_is(const json_t *doc)
{
    const char *kind = mb__jstr(doc, "kind");
    return kind && strcmp(kind, "profile") == 0 &&
           (json_is_object(json_object_get(first_run(doc), "profile")) ||
            json_is_object(json_object_get(doc, "profile_comparison")));
}

/* The name a profile is shown under: the run's variant, else "model". */
static const char *title_of(const json_t *doc)
{
    const char *v = mb__jstr(first_run(doc), "variant");
    return v ? v : "model";
}

/* ---- Markdown ----------------------------------------------------------- */

/* " | 1.234" with printf format fmt, or " | -" when x is not finite. */
static void md_num(mb__buf *b, const char *fmt, double x)
{
    mb__buf_puts(b, " | ");
    mb__profile_cell_num(b, MB_PF_MD, fmt, x);
}

static void md_pct(mb__buf *b, double x)
{
    mb__buf_puts(b, " | ");
    mb__profile_cell_share(b, MB_PF_MD, x);
}

static void md_reconcile(mb__buf *b, const json_t *p)
{
    const json_t *rec = json_object_get(p, "reconcile");
    double run = mb__jnum(rec, "model_run_median_ns");
    mb__buf_puts(b, "### Reconciliation (medians over runs)\n\n"
                    "| part | ms | note |\n|---|--:|---|\n"
                    "| operator kernels (sum)");
    md_num(b, "%.3f", mb__jnum(rec, "kernel_sum_median_ns") / 1e6);
    md_pct(b, mb__jnum(rec, "kernel_sum_median_ns") / run);
    mb__buf_puts(b, " of model\\_run |\n| framework overhead");
    md_num(b, "%.3f", mb__jnum(rec, "framework_overhead_median_ns") / 1e6);
    md_pct(b, mb__jnum(rec, "framework_overhead_median_ns") / run);
    mb__buf_puts(b, " of model\\_run (inside Run, outside kernels) |\n"
                    "| model\\_run (profiled)");
    md_num(b, "%.3f", run / 1e6);
    mb__buf_puts(b, " | |\n| latency (separate pass, not profiled)");
    double lat = mb__jnum(rec, "latency_median_ns");
    md_num(b, "%.3f", lat / 1e6);
    if (isfinite(lat)) {
        mb__buf_printf(b, " | profiled model\\_run is %.2fx of it |\n",
                       mb__jnum(rec, "profiler_inflation"));
        mb__buf_puts(b, "| unaccounted vs latency");
        md_num(b, "%.3f", mb__jnum(rec, "unaccounted_vs_latency_ns") / 1e6);
        mb__buf_puts(b, " | latency - kernel sum |\n\n");
    } else {
        mb__buf_puts(b, " | not measured |\n\n");
    }
}

static void md_op_types(mb__buf *b, const json_t *p)
{
    mb__buf_puts(b, "### By operator type\n\n");
    mb__profile_table(b, MB_PF_MD, MB_PT_OP_TYPES,
                      json_object_get(p, "op_types"), 0);
}

static void md_nodes(mb__buf *b, const json_t *p)
{
    const json_t *nodes = json_object_get(p, "nodes");
    size_t n = json_array_size(nodes);
    if (n > MD_TOP_NODES)
        mb__buf_printf(b, "### By node (top %d of %zu)\n\n", MD_TOP_NODES, n);
    else
        mb__buf_puts(b, "### By node\n\n");
    mb__profile_table(b, MB_PF_MD, MB_PT_NODES, nodes, MD_TOP_NODES);
}

static void md_work(mb__buf *b, const json_t *p)
{
    mb__buf_puts(b, "### Work and share of peak\n\n");
    mb__profile_work_table(b, MB_PF_MD, p);

    const json_t *c = json_object_get(p, "counters");
    mb__buf_puts(b, "### Hardware counters (per inference)\n\n");
    if (!json_is_true(json_object_get(c, "available"))) {
        mb__buf_puts(b, "Not available: ");
        mb__md_escape(b, mb__jstr(c, "reason") ? mb__jstr(c, "reason")
                                               : "not measured");
        mb__buf_puts(b, "\n\n");
        return;
    }
    mb__buf_puts(b, "| counter | value |\n|---|--:|\n");
    static const char *const keys[] = {"cycles", "instructions",
                                       "cache_misses"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        mb__buf_printf(b, "| %s", keys[i]);
        md_num(b, "%.0f",
               mb__jnum(json_object_get(c, "per_inference"), keys[i]));
        mb__buf_puts(b, " |\n");
    }
    mb__buf_puts(b, "| IPC");
    md_num(b, "%.2f", mb__jnum(c, "ipc"));
    mb__buf_puts(b, " |\n\n");
}

static void md_comparison(mb__buf *b, const json_t *c)
{
    mb__buf_puts(b, "### Comparison (mean profiled time per run)\n\n");
    mb__profile_cmp_body(b, MB_PF_MD, c);
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(c, "pairs"), i, r)
    {
        mb__buf_puts(b, "- ");
        mb__md_escape(b, mb__jstr(r, "from"));
        mb__buf_puts(b, " in A -> ");
        mb__md_escape(b, mb__jstr(r, "to"));
        mb__buf_printf(b, " in B: %.3f -> %.3f ms per run (%.2fx)\n",
                       mb__jnum(r, "a_ns") / 1e6, mb__jnum(r, "b_ns") / 1e6,
                       mb__jnum(r, "speedup"));
    }
    mb__buf_puts(b, "\n");
}

static void md_doc(mb__buf *b, const json_t *doc)
{
    const json_t *cmp = json_object_get(doc, "profile_comparison");
    const json_t *p = json_object_get(first_run(doc), "profile");
    mb__buf_puts(b, cmp ? "## mbench profile comparison\n\n"
                        : "## mbench profile: ");
    if (!cmp) {
        mb__md_escape(b, title_of(doc));
        mb__buf_printf(b,
                       "\n\n%.0f profiled runs used (%.0f skipped: cold start "
                       "and warm-up); times are per run.\n\n",
                       mb__jnum(p, "runs.used"), mb__jnum(p, "runs.skipped"));
        md_reconcile(b, p);
        md_op_types(b, p);
        md_nodes(b, p);
        md_work(b, p);
    } else {
        md_comparison(b, cmp);
    }
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), i, w)
    {
        if (!i)
            mb__buf_puts(b, "### Warnings\n\n");
        mb__buf_puts(b, "- ");
        mb__md_escape(b, json_string_value(w));
        mb__buf_puts(b, "\n");
    }
    if (json_array_size(json_object_get(doc, "warnings")))
        mb__buf_puts(b, "\n");
    mb__buf_puts(b, "<sub>mbench ");
    mb__md_escape(b, mb__jstr(doc, "mbench.version"));
    mb__buf_puts(b, " · ");
    mb__md_escape(b, mb__jstr(doc, "created_utc"));
    mb__buf_puts(b, " · ");
    mb__md_escape(b, mb__jstr(doc, "environment.cpu_model"));
    mb__buf_puts(b, "</sub>\n\n");
}

mb_status mb__report_profile_md(const json_t *const *docs, size_t n_docs,
                                mb__buf *out, mb_err *err)
{
    for (size_t i = 0; i < n_docs; i++)
        md_doc(out, docs[i]);
    if (out->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory rendering Markdown");
    return MB_OK;
}

/* ---- CSV ---------------------------------------------------------------- */

static void csv_str(mb__buf *b, const char *s)
{
    mb__buf_putc(b, ',');
    mb__csv_field(b, s);
}

void mb__report_profile_csv(const json_t *doc, int with_header, mb__buf *out)
{
    const char *ts = mb__jstr(doc, "created_utc");
    const char *commit = mb__jstr(doc, "mbench.commit");
    const json_t *c = json_object_get(doc, "profile_comparison");
    size_t i;
    const json_t *r;
    if (c) {
        if (with_header)
            mb__buf_puts(out, "a,b,op_type,a_ms,b_ms,delta_ms,contribution,"
                              "timestamp,git_commit\n");
        json_array_foreach(json_object_get(c, "rows"), i, r)
        {
            mb__csv_field(out, mb__jstr(c, "a"));
            csv_str(out, mb__jstr(c, "b"));
            csv_str(out, mb__jstr(r, "op_type"));
            mb__csv_num(out, "%.6f", mb__jnum(r, "a_ns") / 1e6);
            mb__csv_num(out, "%.6f", mb__jnum(r, "b_ns") / 1e6);
            mb__csv_num(out, "%.6f", mb__jnum(r, "delta_ns") / 1e6);
            mb__csv_num(out, "%.6f", mb__jnum(r, "contribution"));
            csv_str(out, ts);
            csv_str(out, commit);
            mb__buf_putc(out, '\n');
        }
        return;
    }
    if (with_header)
        mb__buf_puts(out, "model,variant,batch_size,op_type,calls_per_run,"
                          "per_run_ms,total_ms,mean_ms,median_ms,share,"
                          "flops_per_run,gflops_per_s,peak_share,"
                          "model_run_ms,latency_ms,timestamp,git_commit\n");
    const json_t *run = first_run(doc);
    const json_t *p = json_object_get(run, "profile");
    const char *model = mb__jstr(run, "model.name");
    double batch = mb__jnum(p, "work.batch");
    json_array_foreach(json_object_get(p, "op_types"), i, r)
    {
        mb__csv_field(out, model ? model : title_of(doc));
        csv_str(out, title_of(doc));
        mb__csv_num(out, "%.0f", batch);
        csv_str(out, mb__jstr(r, "op_type"));
        mb__csv_num(out, "%.3f", mb__jnum(r, "calls_per_run"));
        mb__csv_num(out, "%.6f", mb__jnum(r, "per_run_ns") / 1e6);
        mb__csv_num(out, "%.6f", mb__jnum(r, "total_ns") / 1e6);
        mb__csv_num(out, "%.6f", mb__jnum(r, "mean_ns") / 1e6);
        mb__csv_num(out, "%.6f", mb__jnum(r, "median_ns") / 1e6);
        mb__csv_num(out, "%.6f", mb__jnum(r, "share"));
        mb__csv_num(out, "%.0f", mb__jnum(r, "flops_per_run"));
        mb__csv_num(out, "%.3f", mb__jnum(r, "gflops_per_s"));
        mb__csv_num(out, "%.6f", mb__jnum(r, "peak_share"));
        mb__csv_num(out, "%.6f",
                    mb__jnum(p, "reconcile.model_run_median_ns") / 1e6);
        mb__csv_num(out, "%.6f",
                    mb__jnum(p, "reconcile.latency_median_ns") / 1e6);
        csv_str(out, ts);
        csv_str(out, commit);
        mb__buf_putc(out, '\n');
    }
}

/* ---- HTML --------------------------------------------------------------- */

mb_status mb__report_profile_html(const json_t *doc, mb__buf *out, mb_err *err)
{
    const json_t *c = json_object_get(doc, "profile_comparison");
    if (c)
        mb__profile_compare_html(c, json_object_get(doc, "environment"), out);
    else
        mb__profile_html(json_object_get(first_run(doc), "profile"),
                         title_of(doc), json_object_get(doc, "environment"),
                         out);
    if (out->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory rendering HTML");
    return MB_OK;
}
