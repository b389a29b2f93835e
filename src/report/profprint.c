/* profprint.c - the console view, folded stacks and comparison table of
 * per-operator profiles (profprint.h). */
#include "report/profprint.h"

#include "report/machrep.h"
#include "report/rutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- console ---------------------------------------------------------- */

static void ms(mb__buf *b, double ns)
{
    if (isfinite(ns))
        mb__buf_printf(b, "%10.3f ms", ns / 1e6);
    else
        mb__buf_printf(b, "%13s", "-");
}

void mb__profile_si_count(mb__buf *b, double v, const char *unit)
{
    static const struct {
        double scale;
        const char *prefix;
    } S[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
    if (!isfinite(v)) {
        mb__buf_printf(b, "- %s", unit);
        return;
    }
    for (size_t i = 0; i < sizeof S / sizeof *S; i++)
        if (fabs(v) >= S[i].scale) {
            mb__buf_printf(b, "%.3f %s%s", v / S[i].scale, S[i].prefix, unit);
            return;
        }
    mb__buf_printf(b, "%.0f %s", v, unit);
}

static void shapes(mb__buf *b, const json_t *arr)
{
    size_t i;
    json_t *s;
    mb__buf_putc(b, '[');
    json_array_foreach(arr, i, s)
    {
        mb__buf_printf(b, "%s%s", i ? " " : "",
                       json_string_value(json_object_get(s, "dtype")));
        mb__put_dims(b, json_object_get(s, "shape"), "[", "]");
    }
    mb__buf_putc(b, ']');
}

static void pct_or_dash(mb__buf *b, double x, int width)
{
    if (isfinite(x))
        mb__buf_printf(b, " %*.1f%%", width - 1, 100.0 * x);
    else
        mb__buf_printf(b, " %*s", width, "-");
}

static void counters_text(const json_t *c, mb__buf *b)
{
    mb__buf_puts(b, "\nHardware counters (per inference)\n");
    if (!c || !json_is_true(json_object_get(c, "available"))) {
        const char *why = json_string_value(json_object_get(c, "reason"));
        mb__buf_printf(b, "  not available: %s\n", why ? why : "not measured");
        return;
    }
    static const char *const keys[] = {"cycles", "instructions", "cache_misses",
                                       NULL};
    for (size_t i = 0; keys[i]; i++) {
        const json_t *v =
            json_object_get(json_object_get(c, "per_inference"), keys[i]);
        if (json_is_number(v))
            mb__buf_printf(b, "  %-26s %14.0f\n", keys[i],
                           json_number_value(v));
        else
            mb__buf_printf(b, "  %-26s %14s\n", keys[i], "not available");
    }
    double ipc = mb__jnum(c, "ipc");
    if (isfinite(ipc))
        mb__buf_printf(b, "  %-26s %14.2f\n", "IPC", ipc);
    const char *scope = json_string_value(json_object_get(c, "scope"));
    if (scope)
        mb__buf_printf(b, "  (%s)\n", scope);
}

/* The reconciliation: kernels, framework overhead, model_run, latency. */
static void reconcile_text(const json_t *p, mb__buf *b)
{
    const json_t *rec = json_object_get(p, "reconcile");
    double run = mb__jnum(rec, "model_run_median_ns");
    mb__buf_puts(b, "Reconciliation\n");
    mb__buf_puts(b, "  operator kernels (sum)     ");
    ms(b, mb__jnum(rec, "kernel_sum_median_ns"));
    mb__buf_printf(b, "  %5.1f%% of model_run\n",
                   100.0 * mb__jnum(rec, "kernel_sum_median_ns") / run);
    double sub = mb__jnum(rec, "subgraph_kernel_median_ns");
    if (isfinite(sub) && sub > 0) {
        mb__buf_puts(b, "    in If/Loop/Scan bodies   ");
        ms(b, sub);
        mb__buf_puts(b, "  part of the sum, counted once (the If/Loop/Scan "
                        "rows hold their own time only)\n");
    }
    mb__buf_puts(b, "  framework overhead         ");
    ms(b, mb__jnum(rec, "framework_overhead_median_ns"));
    mb__buf_printf(b, "  %5.1f%% of model_run (inside Run, outside kernels)\n",
                   100.0 * mb__jnum(rec, "framework_overhead_median_ns") / run);
    mb__buf_puts(b, "  model_run (profiled)       ");
    ms(b, run);
    mb__buf_putc(b, '\n');
    double lat = mb__jnum(rec, "latency_median_ns");
    if (isfinite(lat)) {
        mb__buf_puts(b, "  latency (separate pass)    ");
        ms(b, lat);
        mb__buf_printf(b, "  not profiled; profiled model_run is %.2fx of it\n",
                       mb__jnum(rec, "profiler_inflation"));
        mb__buf_puts(b, "  unaccounted vs latency     ");
        ms(b, mb__jnum(rec, "unaccounted_vs_latency_ns"));
        mb__buf_printf(b, "  latency - kernel sum (%.1f%% of latency)\n",
                       100.0 * mb__jnum(rec, "unaccounted_vs_latency_ns") /
                           lat);
    } else {
        mb__buf_puts(b, "  latency (separate pass)    not measured\n");
    }
}

/* The top_ops costliest operator types, one line each. */
static void op_types_text(const json_t *p, int top_ops, mb__buf *b)
{
    mb__buf_printf(b, "\nBy operator type (top %d)\n", top_ops);
    mb__buf_printf(b, "  %-24s %9s %11s %11s %11s %11s %7s %9s %8s %6s\n",
                   "op type", "calls/run", "per run ms", "total ms", "mean us",
                   "median us", "share", "GFLOP/run", "GFLOP/s", "%peak");
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(p, "op_types"), i, row)
    {
        if ((int)i >= top_ops)
            break;
        double f = mb__jnum(row, "flops_per_run");
        mb__buf_printf(
            b, "  %-24.24s %9.1f %11.3f %11.3f %11.1f %11.1f",
            json_string_value(json_object_get(row, "op_type")),
            mb__jnum(row, "calls_per_run"), mb__jnum(row, "per_run_ns") / 1e6,
            mb__jnum(row, "total_ns") / 1e6, mb__jnum(row, "mean_ns") / 1e3,
            mb__jnum(row, "median_ns") / 1e3);
        pct_or_dash(b, mb__jnum(row, "share"), 7);
        if (f > 0)
            mb__buf_printf(b, " %9.3f", f / 1e9);
        else
            mb__buf_printf(
                b, " %9s",
                strcmp(json_string_value(json_object_get(row, "flops_basis")),
                       "unknown") == 0
                    ? "unknown"
                    : "-");
        double g = mb__jnum(row, "gflops_per_s");
        if (isfinite(g))
            mb__buf_printf(b, " %8.1f", g);
        else
            mb__buf_printf(b, " %8s", "-");
        pct_or_dash(b, mb__jnum(row, "peak_share"), 6);
        mb__buf_putc(b, '\n');
    }
    size_t nops = json_array_size(json_object_get(p, "op_types"));
    if (nops > (size_t)top_ops)
        mb__buf_printf(b, "  ... %zu more op types (--top N)\n",
                       nops - (size_t)top_ops);
}

/* The top_nodes costliest nodes, with provider and shapes. */
static void nodes_text(const json_t *p, int top_nodes, mb__buf *b)
{
    const json_t *runs = json_object_get(p, "runs");
    size_t i;
    json_t *row;
    mb__buf_printf(b, "\nBy node (top %d)\n", top_nodes);
    mb__buf_printf(b, "  %-32s %-18s %11s %11s %11s %7s  %s\n", "node",
                   "op type", "per run ms", "mean us", "median us", "share",
                   "provider, inputs -> outputs");
    json_array_foreach(json_object_get(p, "nodes"), i, row)
    {
        if ((int)i >= top_nodes)
            break;
        mb__buf_printf(b, "  %-32.32s %-18.18s %11.3f %11.1f %11.1f",
                       json_string_value(json_object_get(row, "name")),
                       json_string_value(json_object_get(row, "op_type")),
                       mb__jnum(row, "per_run_ns") / 1e6,
                       mb__jnum(row, "mean_ns") / 1e3,
                       mb__jnum(row, "median_ns") / 1e3);
        pct_or_dash(b, mb__jnum(row, "share"), 7);
        mb__buf_printf(b, "  %s ",
                       json_string_value(json_object_get(row, "provider")));
        const char *parent = mb__jstr(row, "parent");
        if (parent)
            mb__buf_printf(b, "(in %s %s) ", mb__jstr(row, "parent_op_type"),
                           parent);
        double incl = mb__jnum(row, "inclusive_ns");
        if (isfinite(incl))
            mb__buf_printf(b, "(own time; %.3f ms per run with its subgraphs) ",
                           incl / mb__jnum(runs, "used") / 1e6);
        shapes(b, json_object_get(row, "inputs"));
        mb__buf_puts(b, " -> ");
        shapes(b, json_object_get(row, "outputs"));
        mb__buf_putc(b, '\n');
    }
    size_t nn = json_array_size(json_object_get(p, "nodes"));
    if (nn > (size_t)top_nodes)
        mb__buf_printf(b, "  ... %zu more nodes (--top N)\n",
                       nn - (size_t)top_nodes);
}

/* Work and efficiency: FLOPs, achieved and peak GFLOP/s, bandwidth. */
static void work_text(const json_t *p, mb__buf *b)
{
    const json_t *work = json_object_get(p, "work");
    mb__buf_puts(b, "\nWork and efficiency\n");
    double flops = mb__jnum(work, "flops_per_run");
    mb__buf_puts(b, "  FLOPs per inference        ");
    mb__profile_si_count(b, flops, "FLOP");
    mb__buf_puts(b, " (");
    mb__profile_si_count(b, mb__jnum(work, "macs_per_run"), "MAC");
    mb__buf_printf(b, "; batch %.0f: ", mb__jnum(work, "batch"));
    mb__profile_si_count(b, mb__jnum(work, "flops_per_sample"), "FLOP");
    mb__buf_puts(b, " per sample)\n");
    if (json_is_true(json_object_get(work, "nchwc_layout")))
        mb__buf_puts(b, "  (counted from the shapes ONNX Runtime ran: its "
                        "NCHWc layout, used at --opt-level all, pads channel "
                        "counts to the SIMD block, so the count can exceed "
                        "the model's nominal one and differ between "
                        "--opt-level values; see docs/PROFILE.md)\n");
    mb__buf_printf(b,
                   "  kernel time without an estimate  %.1f%% (counted ops "
                   "whose weights are not in the trace)\n",
                   100.0 * mb__jnum(work, "unestimated_share"));
    double g = mb__jnum(work, "gflops_per_s");
    if (isfinite(g))
        mb__buf_printf(
            b, "  achieved                   %.1f GFLOP/s (at the %s)\n", g,
            json_string_value(json_object_get(work, "gflops_time_basis")));
    double peak = mb__jnum(work, "peak_gflops_per_s");
    if (isfinite(peak))
        mb__buf_printf(b, "  machine peak               %.1f GFLOP/s (%s)\n",
                       peak,
                       json_string_value(json_object_get(work, "peak_basis")));
    else
        mb__buf_puts(b, "  machine peak               not measured (mbench "
                        "machine)\n");
    double ps = mb__jnum(work, "peak_share");
    const json_t *m = json_object_get(p, "machine");
    char narrow[256];
    if (isfinite(ps) && ps > 1 &&
        mb__machine_narrow_blas(m, narrow, sizeof narrow))
        mb__buf_printf(
            b, "  share of peak              %.1f%%  (above 100%%: %s)\n",
            100.0 * ps, narrow);
    else if (isfinite(ps))
        mb__buf_printf(b, "  share of peak              %.1f%%%s\n", 100.0 * ps,
                       ps > 1 ? "  (above 100%: the cached peak is too low, "
                                "probably measured on a busy machine; "
                                "`mbench machine --refresh` on a quiet one)"
                              : "");
    double bw = mb__jnum(json_object_get(m, "triad"), "all_cores_gbps");
    if (isfinite(bw))
        mb__buf_printf(b, "  memory bandwidth (triad)   %.1f GB/s\n", bw);
}

void mb__profile_text(const json_t *p, const char *title, int top, mb__buf *b)
{
    const json_t *runs = json_object_get(p, "runs");
    int top_ops = top > 0 ? top : 10, top_nodes = top > 0 ? top : 15;

    mb__buf_printf(b, "Profile of %s\n", title ? title : "model");
    mb__buf_printf(
        b,
        "  %.0f profiled runs used (%.0f skipped: cold start and "
        "warm-up); each line is a median over runs, so the lines need "
        "not add up; 'per run ms' is a mean\n\n",
        mb__jnum(runs, "used"), mb__jnum(runs, "skipped"));

    reconcile_text(p, b);
    op_types_text(p, top_ops, b);
    nodes_text(p, top_nodes, b);
    work_text(p, b);
    counters_text(json_object_get(p, "counters"), b);
}
/* ---- folded stacks ------------------------------------------------------ */

static void folded_name(mb__buf *b, const char *s)
{
    for (; s && *s; s++)
        mb__buf_putc(b, (*s == ';' || *s == ' ' || *s == '\n' || *s == '\t' ||
                         *s == '\r')
                            ? '_'
                            : *s);
}

/* The row of the node called name, or NULL. */
static const json_t *node_row(const json_t *nodes, const char *name)
{
    size_t i;
    json_t *row;
    json_array_foreach(nodes, i, row)
    {
        const char *n = mb__jstr(row, "name");
        if (n && strcmp(n, name) == 0)
            return row;
    }
    return NULL;
}

/* The frames of the If/Loop/Scan nodes that hold row, outermost first:
 * "op_type;node;" for each. */
static void folded_parents(const json_t *nodes, const json_t *row, int depth,
                           mb__buf *b)
{
    const char *parent = mb__jstr(row, "parent");
    const json_t *prow = parent ? node_row(nodes, parent) : NULL;
    if (!prow || prow == row || depth > 64)
        return;
    folded_parents(nodes, prow, depth + 1, b);
    folded_name(b, mb__jstr(prow, "op_type"));
    mb__buf_putc(b, ';');
    folded_name(b, parent);
    mb__buf_putc(b, ';');
}

void mb__profile_folded(const json_t *p, const char *graph, mb__buf *b)
{
    size_t i;
    json_t *row;
    const json_t *nodes = json_object_get(p, "nodes");
    json_array_foreach(nodes, i, row)
    {
        double us = mb__jnum(row, "total_ns") / 1e3;
        long long w = (long long)(us + 0.5);
        folded_name(b, graph && *graph ? graph : "model");
        mb__buf_putc(b, ';');
        folded_parents(nodes, row, 0, b);
        folded_name(b, json_string_value(json_object_get(row, "op_type")));
        mb__buf_putc(b, ';');
        folded_name(b, json_string_value(json_object_get(row, "name")));
        mb__buf_printf(b, " %lld\n", w > 0 ? w : 1);
    }
}
/* ---- comparison --------------------------------------------------------- */

void mb__profile_compare_text(const json_t *c, mb__buf *b)
{
    const char *na = json_string_value(json_object_get(c, "a"));
    const char *nb = json_string_value(json_object_get(c, "b"));
    double ta = mb__jnum(c, "a_model_run_ns"),
           tb = mb__jnum(c, "b_model_run_ns");
    double sp = mb__jnum(c, "speedup");
    mb__buf_printf(b, "Profile comparison (mean profiled time per run)\n");
    mb__buf_printf(b, "  A = %s: model_run %.3f ms\n", na, ta / 1e6);
    mb__buf_printf(b, "  B = %s: model_run %.3f ms\n", nb, tb / 1e6);
    if (isfinite(sp))
        mb__buf_printf(b, "  B is %.2fx %s than A (%+.3f ms per run)\n\n",
                       sp >= 1 ? sp : 1 / sp, sp >= 1 ? "faster" : "slower",
                       (tb - ta) / 1e6);
    mb__buf_printf(b, "  %-28s %12s %12s %12s %13s\n", "op type", "A ms",
                   "B ms", "B - A ms", "contribution");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(c, "rows"), i, r)
    {
        double a = mb__jnum(r, "a_ns"), bb = mb__jnum(r, "b_ns");
        const char *op = json_string_value(json_object_get(r, "op_type"));
        int always = op && op[0] == '('; /* the overhead row */
        mb__buf_printf(b, "  %-28.28s ", op ? op : "?");
        if (a > 0 || always)
            mb__buf_printf(b, "%12.3f ", a / 1e6);
        else
            mb__buf_printf(b, "%12s ", "-");
        if (bb > 0 || always)
            mb__buf_printf(b, "%12.3f ", bb / 1e6);
        else
            mb__buf_printf(b, "%12s ", "-");
        mb__buf_printf(b, "%+12.3f ", (bb - a) / 1e6);
        pct_or_dash(b, mb__jnum(r, "contribution"), 12);
        mb__buf_putc(b, '\n');
    }
    const json_t *q = json_object_get(c, "qdq");
    mb__buf_printf(b,
                   "\n  Quantize/DequantizeLinear: A %.3f ms (%.1f%%), B "
                   "%.3f ms (%.1f%%)\n",
                   mb__jnum(q, "a_ns") / 1e6, 100.0 * mb__jnum(q, "a_share"),
                   mb__jnum(q, "b_ns") / 1e6, 100.0 * mb__jnum(q, "b_share"));
    size_t k;
    json_t *pr;
    json_array_foreach(json_object_get(c, "pairs"), k, pr)
        mb__buf_printf(b,
                       "  %s in A -> %s in B: %.3f -> %.3f ms per run "
                       "(%.2fx)\n",
                       json_string_value(json_object_get(pr, "from")),
                       json_string_value(json_object_get(pr, "to")),
                       mb__jnum(pr, "a_ns") / 1e6, mb__jnum(pr, "b_ns") / 1e6,
                       mb__jnum(pr, "speedup"));
    /* one sentence on where the change comes from */
    const json_t *top = json_array_get(json_object_get(c, "rows"), 0);
    const json_t *second = json_array_get(json_object_get(c, "rows"), 1);
    if (top && isfinite(sp)) {
        mb__buf_printf(b, "  Most of the change comes from %s (%+.3f ms)",
                       json_string_value(json_object_get(top, "op_type")),
                       mb__jnum(top, "delta_ns") / 1e6);
        if (second)
            mb__buf_printf(
                b, ", then %s (%+.3f ms)",
                json_string_value(json_object_get(second, "op_type")),
                mb__jnum(second, "delta_ns") / 1e6);
        mb__buf_puts(b, ".\n");
    }
}
