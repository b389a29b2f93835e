/* profflame.c - SVG icicle chart and HTML report of a profile (profflame.h). */
#include "report/profflame.h"

#include "report/profprint.h"
#include "report/proftable.h"
#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#define SVG_W 1200.0
#define ROW_H 24.0
#define PAD 10.0
#define TOP 34.0

/* A string field, "" when absent. */
static const char *jstr(const json_t *o, const char *key)
{
    const char *s = mb__jstr(o, key);
    return s ? s : "";
}

/* A warm flame-graph colour derived from the op type's name. */
static void colour(const char *s, int shade, char out[32])
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    int r = 205 + (int)(h % 50), g = 70 + (int)((h >> 8) % 140);
    int bl = 40 + (int)((h >> 16) % 40);
    g = g + shade > 255 ? 255 : g + shade;
    snprintf(out, 32, "rgb(%d,%d,%d)", r, g, bl);
}

/* One box with a tooltip and, when it fits, a clipped label. */
static void box(mb__buf *b, double x, double y, double w, const char *fill,
                const char *label, const char *tip)
{
    if (w < 0.5)
        return;
    mb__buf_printf(b, "<g><title>");
    mb__html_escape(b, tip);
    mb__buf_printf(b,
                   "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                   "height=\"%.1f\" fill=\"%s\" stroke=\"white\" "
                   "stroke-width=\"0.5\"/>",
                   x, y, w, ROW_H - 1, fill);
    size_t fit = (size_t)((w - 6) / 7.0);
    if (fit >= 3) {
        char text[256];
        size_t n = strlen(label);
        if (n > fit) {
            size_t keep = fit - 2 < sizeof text - 3 ? fit - 2 : sizeof text - 3;
            memcpy(text, label, keep);
            strcpy(text + keep, "..");
        } else {
            snprintf(text, sizeof text, "%s", label);
        }
        mb__buf_printf(b,
                       "<text x=\"%.2f\" y=\"%.1f\" font-size=\"12\" "
                       "font-family=\"monospace\">",
                       x + 3, y + ROW_H - 8);
        mb__html_escape(b, text);
        mb__buf_puts(b, "</text>");
    }
    mb__buf_puts(b, "</g>\n");
}

void mb__profile_svg(const json_t *p, const char *title, mb__buf *b)
{
    const json_t *ops = json_object_get(p, "op_types");
    const json_t *nodes = json_object_get(p, "nodes");
    double total = 0;
    size_t i, j;
    json_t *o, *n;
    json_array_foreach(ops, i, o) total += mb__jnum(o, "total_ns");
    double width = SVG_W - 2 * PAD, height = TOP + 3 * ROW_H + 30;
    double scale = total > 0 ? width / total : 0;
    double runs = mb__jnum(json_object_get(p, "runs"), "used");
    if (!(runs > 0))
        runs = 1;
    char tip[1024], fill[32];

    mb__buf_printf(b,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                   "role=\"img\">\n",
                   SVG_W, height, SVG_W, height);
    mb__buf_puts(b,
                 "<rect width=\"100%\" height=\"100%\" fill=\"#fdfdf8\"/>\n");
    mb__buf_printf(b,
                   "<text x=\"%.0f\" y=\"22\" font-size=\"15\" "
                   "font-family=\"sans-serif\">Kernel time: ",
                   PAD);
    mb__html_escape(b, title ? title : "model");
    mb__buf_puts(b, " (graph, operator type, node)</text>\n");

    snprintf(tip, sizeof tip, "%s: %.3f ms per run in kernels",
             title ? title : "model", total / runs / 1e6);
    box(b, PAD, TOP, total > 0 ? width : 0, "rgb(230,160,60)",
        title ? title : "model", tip);
    double x = PAD;
    json_array_foreach(ops, i, o)
    {
        const char *op = jstr(o, "op_type");
        double w = mb__jnum(o, "total_ns") * scale;
        snprintf(tip, sizeof tip,
                 "%s: %.3f ms per run, %.1f%% of model_run, %.1f calls per run",
                 op, mb__jnum(o, "per_run_ns") / 1e6,
                 100 * mb__jnum(o, "share"), mb__jnum(o, "calls_per_run"));
        colour(op, 0, fill);
        box(b, x, TOP + ROW_H, w, fill, op, tip);
        double nx = x;
        json_array_foreach(nodes, j, n)
        {
            if (strcmp(jstr(n, "op_type"), op) != 0)
                continue;
            double nw = mb__jnum(n, "total_ns") * scale;
            snprintf(tip, sizeof tip, "%s (%s): %.3f ms per run, %.1f%%",
                     jstr(n, "name"), op, mb__jnum(n, "per_run_ns") / 1e6,
                     100 * mb__jnum(n, "share"));
            colour(op, 40, fill);
            box(b, nx, TOP + 2 * ROW_H, nw, fill, jstr(n, "name"), tip);
            nx += nw;
        }
        x += w;
    }
    mb__buf_printf(b,
                   "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
                   "font-family=\"sans-serif\" fill=\"#555\">Width = share "
                   "of the summed kernel time over %.0f profiled runs; hover "
                   "a box for its time.</text>\n",
                   PAD, TOP + 3 * ROW_H + 16, runs);
    mb__buf_puts(b, "</svg>\n");
}

static void td_text(mb__buf *b, const char *s)
{
    mb__buf_puts(b, "<td>");
    mb__html_escape(b, s);
    mb__buf_puts(b, "</td>");
}

static void td_num(mb__buf *b, const char *fmt, double v)
{
    mb__profile_cell_num(b, MB_PF_HTML, fmt, v);
}

/* The page's head, its style and the <h1>, then the machine line. */
static void page_head(mb__buf *b, const char *h1, const char *title,
                      const json_t *env)
{
    mb__buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                    "charset=\"utf-8\"><title>mbench profile: ");
    mb__html_escape(b, title);
    mb__buf_puts(
        b, "</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}"
           "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid "
           "#ccc;padding:3px 8px;font-size:13px}th{background:#f3f3f3}"
           "td.n{text-align:right;font-family:monospace}.bar{display:inline-"
           "block;height:10px;background:#d9822b}.note{color:#555;font-size:"
           "13px}</style></head><body>\n<h1>");
    mb__html_escape(b, h1);
    mb__html_escape(b, title);
    mb__buf_puts(b, "</h1>\n");
    if (env) {
        mb__buf_puts(b, "<p class=note>");
        mb__html_escape(b, jstr(env, "cpu_model"));
        mb__buf_printf(b, ", %.0f logical cores; ",
                       mb__jnum(env, "logical_cores"));
        mb__html_escape(b, jstr(env, "hostname"));
        mb__buf_puts(b, "</p>\n");
    }
}

void mb__profile_html(const json_t *p, const char *title, const json_t *env,
                      mb__buf *b)
{
    const json_t *rec = json_object_get(p, "reconcile");
    const json_t *work = json_object_get(p, "work");
    page_head(b, "Profile: ", title, env);
    mb__buf_printf(b,
                   "<p class=note>%.0f profiled runs used, %.0f skipped "
                   "(cold start, warm-up). Times are per run.</p>\n",
                   mb__jnum(json_object_get(p, "runs"), "used"),
                   mb__jnum(json_object_get(p, "runs"), "skipped"));

    mb__buf_puts(b, "<h2>Where the time goes</h2>\n");
    mb__profile_svg(p, title, b);

    double run = mb__jnum(rec, "model_run_median_ns");
    mb__buf_puts(b, "<h2>Reconciliation (medians over runs)</h2>\n<table>"
                    "<tr><th>part</th><th>ms</th><th>note</th></tr>\n");
    mb__buf_puts(b, "<tr><td>operator kernels (sum)</td>");
    td_num(b, "%.3f", mb__jnum(rec, "kernel_sum_median_ns") / 1e6);
    mb__buf_printf(b, "<td>%.1f%% of model_run</td></tr>\n",
                   100 * mb__jnum(rec, "kernel_sum_median_ns") / run);
    mb__buf_puts(b, "<tr><td>framework overhead</td>");
    td_num(b, "%.3f", mb__jnum(rec, "framework_overhead_median_ns") / 1e6);
    mb__buf_printf(b,
                   "<td>%.1f%% of model_run: inside Run, outside "
                   "kernels</td></tr>\n",
                   100 * mb__jnum(rec, "framework_overhead_median_ns") / run);
    mb__buf_puts(b, "<tr><td>model_run (profiled)</td>");
    td_num(b, "%.3f", run / 1e6);
    mb__buf_puts(b, "<td></td></tr>\n<tr><td>latency (separate pass, not "
                    "profiled)</td>");
    td_num(b, "%.3f", mb__jnum(rec, "latency_median_ns") / 1e6);
    mb__buf_printf(b, "<td>profiled model_run / latency = %.2f</td></tr>\n",
                   mb__jnum(rec, "profiler_inflation"));
    mb__buf_puts(b, "<tr><td>unaccounted vs latency</td>");
    td_num(b, "%.3f", mb__jnum(rec, "unaccounted_vs_latency_ns") / 1e6);
    mb__buf_puts(b, "<td>latency - kernel sum</td></tr></table>\n");

    mb__buf_puts(b, "<h2>Work and share of peak</h2>\n");
    mb__profile_work_table(b, MB_PF_HTML, p);
    mb__buf_puts(b, "<p class=note>");
    mb__html_escape(b, jstr(work, "rule"));
    mb__buf_puts(b, "</p>\n");

    mb__buf_puts(b, "<h2>By operator type</h2>\n");
    mb__profile_table(b, MB_PF_HTML, MB_PT_OP_TYPES,
                      json_object_get(p, "op_types"), 0);
    mb__buf_puts(b, "<h2>By node (top 50)</h2>\n");
    mb__profile_table(b, MB_PF_HTML, MB_PT_NODES, json_object_get(p, "nodes"),
                      50);
    mb__buf_puts(b, "<h2>Hardware counters</h2>\n");
    const json_t *c = json_object_get(p, "counters");
    if (json_is_true(json_object_get(c, "available"))) {
        const json_t *pi = json_object_get(c, "per_inference");
        mb__buf_puts(b, "<table><tr><th>per inference</th><th>value</th></tr>");
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)pi, key, v)
        {
            mb__buf_puts(b, "<tr>");
            td_text(b, key);
            td_num(b, "%.0f", json_is_number(v) ? json_number_value(v) : NAN);
            mb__buf_puts(b, "</tr>");
        }
        mb__buf_puts(b, "<tr><td>IPC</td>");
        td_num(b, "%.2f", mb__jnum(c, "ipc"));
        mb__buf_puts(b, "</tr></table>\n");
    } else {
        mb__buf_puts(b, "<p>not available: ");
        mb__html_escape(b, c ? jstr(c, "reason") : "not measured");
        mb__buf_puts(b, "</p>\n");
    }
    mb__buf_puts(b,
                 "<p class=note>Made by mbench profile.</p>\n</body></html>\n");
}

void mb__profile_compare_html(const json_t *c, const json_t *env, mb__buf *b)
{
    char title[600];
    snprintf(title, sizeof title, "%s vs %s", jstr(c, "a"), jstr(c, "b"));
    page_head(b, "Profile comparison: ", title, env);
    mb__buf_puts(b, "<p>");
    mb__profile_cmp_body(b, MB_PF_HTML, c);
    if (json_array_size(json_object_get(c, "pairs"))) {
        mb__buf_puts(b, "<h2>Replaced operators</h2>\n");
        mb__profile_table(b, MB_PF_HTML, MB_PT_CMP_PAIRS,
                          json_object_get(c, "pairs"), 0);
    }
    mb__buf_puts(b, "<p class=note>Made by mbench profile --compare.</p>\n"
                    "</body></html>\n");
}
