/* html.c - the self-contained HTML report: page layout, tables, metadata
 * and the embedded documents.  Charts come from charts.c. */
#include "report/html.h"
#include "report/execsec.h"

#include "core/err.h"
#include "report/charts.h"
#include "report/htmlpage.h"
#include "report/rutil.h"
#include "report/writers.h"

#include <math.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define esc mb__html_escape

/* <td class="n" data-v="raw">text</td>; an empty data-v sorts last. */
static void td_num(mb__buf *b, double raw, const char *text)
{
    if (isfinite(raw))
        mb__buf_printf(b, "<td class=\"n\" data-v=\"%.17g\">", raw);
    else
        mb__buf_puts(b, "<td class=\"n\" data-v=\"\">");
    esc(b, text);
    mb__buf_puts(b, "</td>");
}

static int is_baseline(const mb__rview *v, const mb__rrun *r)
{
    for (size_t c = 0; c < v->n_cmps; c++)
        if (v->cmps[c].is_baseline && v->cmps[c].doc == r->doc &&
            strcmp(v->cmps[c].name, r->variant) == 0)
            return 1;
    return 0;
}

static void summary_table(mb__buf *b, const mb__rview *v)
{
    char t[64], u[64];
    mb__buf_puts(
        b, "<h2>Summary</h2><div class=\"tablewrap\"><table id=\"summary\" "
           "class=\"sortable\" data-sortcheck=\"3\"><thead><tr>"
           "<th>variant</th><th>model</th><th class=\"n\">batch</th>"
           "<th class=\"n\" title=\"median, with its 95% confidence "
           "interval\">p50 ms [95% CI]</th>"
           "<th class=\"n\">p95 ms</th><th class=\"n\">p99 ms</th>"
           "<th class=\"n\">mean ms</th><th class=\"n\" title=\"robust "
           "coefficient of variation: 1.4826 MAD / median\">robust CV</th>"
           "<th class=\"n\" title=\"run-to-run spread: sd of the log "
           "per-process medians, over the processes measured (the unit of "
           "replication of the CI)\">run-to-run CV</th>"
           "<th class=\"n\">iterations</th>");
    int show_ips = 0;
    for (size_t i = 0; i < v->n_runs; i++)
        show_ips |= v->runs[i].batch > 1;
    if (show_ips)
        mb__buf_puts(b, "<th class=\"n\">inferences/s</th>");
    mb__buf_puts(b,
                 "<th class=\"n\">samples/s</th><th class=\"n\">peak RSS</th>"
                 "<th>status</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        int base = is_baseline(v, r);
        mb__buf_printf(b, "<tr%s><td class=\"name\">",
                       base ? " class=\"base\"" : "");
        esc(b, r->variant);
        if (base)
            mb__buf_puts(b, "<span class=\"badge\">baseline</span>");
        if (mb__rview_verdict_failed(v, NULL, r->variant))
            mb__buf_puts(b, " <span class=\"st-failed\">FAIL</span>");
        mb__buf_puts(b, "</td>");
        const char *path = mb__jstr(r->run, "model.path");
        mb__buf_puts(b, "<td class=\"mono\" title=\"");
        esc(b, path ? path : "");
        mb__buf_puts(b, "\">");
        esc(b, r->model ? r->model : "-");
        mb__buf_puts(b, "</td>");
        snprintf(t, sizeof t, "%lld", (long long)r->batch);
        td_num(b, r->batch >= 0 ? (double)r->batch : NAN,
               r->batch >= 0 ? t : "-");
        /* p50 with its confidence interval underneath */
        if (isfinite(r->p50))
            mb__buf_printf(b, "<td class=\"n\" data-v=\"%.17g\"><b>%s</b>",
                           r->p50 / 1e6, mb__fmt_ms(r->p50, t, sizeof t));
        else
            mb__buf_puts(b, "<td class=\"n\" data-v=\"\">-");
        if (isfinite(r->ci_lo) && isfinite(r->ci_hi))
            mb__buf_printf(b, "<br><span class=\"ci\">[%s, %s]</span>",
                           mb__fmt_ms(r->ci_lo, t, sizeof t),
                           mb__fmt_ms(r->ci_hi, u, sizeof u));
        mb__buf_puts(b, "</td>");
        td_num(b, r->p95 / 1e6, mb__fmt_ms(r->p95, t, sizeof t));
        td_num(b, r->p99 / 1e6, mb__fmt_ms(r->p99, t, sizeof t));
        td_num(b, r->mean / 1e6, mb__fmt_ms(r->mean, t, sizeof t));
        if (isfinite(r->cv))
            snprintf(t, sizeof t, "%.1f%%", r->cv * 100);
        else
            snprintf(t, sizeof t, "-");
        td_num(b, r->cv, t);
        if (isfinite(r->run_cv))
            snprintf(t, sizeof t, "%.1f%% (%d proc.)", r->run_cv * 100,
                     r->processes);
        else
            snprintf(t, sizeof t, "- (1 proc.)");
        td_num(b, r->run_cv, t);
        double it = mb__jnum(r->run, "iterations");
        td_num(b, it, mb__fmt_num(it, 1, t, sizeof t));
        if (show_ips)
            td_num(b, r->ips, mb__fmt_num(r->ips, 4, t, sizeof t));
        td_num(b, r->sps, mb__fmt_num(r->sps, 4, t, sizeof t));
        td_num(b, r->rss_peak, mb__fmt_bytes(r->rss_peak, t, sizeof t));
        if (strcmp(r->status, "ok") == 0) {
            mb__buf_puts(b, "<td>ok</td>");
        } else {
            mb__buf_puts(b, "<td><span class=\"st-failed\" title=\"");
            esc(b, r->error ? r->error : "");
            mb__buf_puts(b, "\">");
            esc(b, r->status);
            mb__buf_puts(b, "</span></td>");
        }
        mb__buf_puts(b, "</tr>\n");
    }
    mb__buf_puts(b, "</tbody></table></div>\n");
}

static void td_speedup(mb__buf *b, const json_t *s)
{
    double v = mb__jnum(s, "value");
    const json_t *ci = json_object_get(s, "ci95");
    if (!isfinite(v)) {
        td_num(b, NAN, "-");
        return;
    }
    mb__buf_printf(b, "<td class=\"n\" data-v=\"%.17g\">%.2f×", v, v);
    if (json_array_size(ci) == 2 && json_is_number(json_array_get(ci, 0)))
        mb__buf_printf(b, " <span class=\"ci\">[%.2f, %.2f]</span>",
                       json_number_value(json_array_get(ci, 0)),
                       json_number_value(json_array_get(ci, 1)));
    mb__buf_puts(b, "</td>");
}

static void speedup_table(mb__buf *b, const mb__rview *v, int64_t batch)
{
    char at[48], id[32];
    mb__batch_suffix(batch, at, sizeof at, id, sizeof id);
    mb__buf_printf(b,
                   "<h2>Speedups against the baseline%s</h2><div "
                   "class=\"tablewrap\"><table id=\"speedups%s\" "
                   "class=\"sortable\">",
                   at, id);
    mb__buf_puts(
        b,
        "<thead><tr><th>variant</th>"
        "<th class=\"n\">median speedup [95% CI]</th>"
        "<th class=\"n\">p99 speedup [95% CI]</th><th class=\"n\">p-value</th>"
        "<th>verdict</th><th class=\"n\">memory ratio</th>"
        "<th class=\"n\">memory Δ</th><th class=\"n\">size ratio</th>"
        "<th class=\"n\">parameters</th><th>notes</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < v->n_cmps; i++) {
        const mb__rcmp *c = &v->cmps[i];
        mb__buf_printf(b, "<tr%s><td class=\"name\">",
                       c->is_baseline ? " class=\"base\"" : "");
        esc(b, c->name);
        if (c->is_baseline)
            mb__buf_puts(b, "<span class=\"badge\">baseline</span>");
        if (mb__rview_verdict_failed(v, c, NULL))
            mb__buf_puts(b, " <span class=\"st-failed\">FAIL</span>");
        mb__buf_puts(b, "</td>");
        td_speedup(b, json_object_get(c->v, "speedup_median"));
        td_speedup(b, json_object_get(c->v, "speedup_p99"));
        mb__rcell f[5];
        mb__rcmp_figures(c, f);
        td_num(b, f[MB_RF_P].x, f[MB_RF_P].text);
        const char *verdict = mb__cmp_verdict(c);
        const char *e = mb__jstr(c->v, "error");
        mb__buf_printf(b, "<td class=\"%s\" title=\"",
                       strcmp(verdict, "FAILED") == 0 ? "st-failed" : "");
        esc(b, e ? e : "");
        mb__buf_puts(b, "\">");
        esc(b, verdict);
        mb__buf_puts(b, "</td>");
        for (size_t k = MB_RF_MEM_RATIO; k <= MB_RF_PARAMS; k++)
            td_num(b, f[k].x, f[k].text);
        mb__buf_puts(b, "<td class=\"notes\">");
        size_t k;
        const json_t *rec;
        json_array_foreach(json_object_get(c->v, "recommendations"), k, rec)
        {
            mb__buf_puts(b, json_is_true(json_object_get(rec, "ok")) ? "✔ "
                                                                     : "⚠ ");
            esc(b, mb__jstr(rec, "text"));
            mb__buf_puts(b, "<br>");
        }
        mb__buf_puts(b, "</td></tr>\n");
    }
    mb__buf_puts(b, "</tbody></table></div>\n");
}

static void speedup_cb(const mb__rview *v, int64_t batch, void *body)
{
    speedup_table(body, v, batch);
}

static void html_cell(mb__buf *b, const mb__rcell *c)
{
    td_num(b, c->x, c->text);
}

/* cosine is close to 1: more digits */
static const char *const html_agreement_keys[] = {
    "mae", "mse", "rmse", "max_abs", "rel_error", "cosine", "psnr", "ssim"};
static const int html_agreement_sig[] = {4, 4, 4, 4, 4, 6, 4, 4};
static const mb__rrows html_rows = {
    "<h2>Accuracy</h2><div class=\"tablewrap\"><table id=\"accuracy\" "
    "class=\"sortable\"><thead><tr><th>variant</th><th class=\"n\">top-1</th>"
    "<th class=\"n\">top-5</th><th class=\"n\">Δ top-1</th>"
    "<th class=\"n\">Δ top-1 paired 95% CI</th>"
    "<th class=\"n\">top-1 agreement</th><th>verdict</th></tr></thead>"
    "<tbody>\n",
    "</tbody></table></div>\n",
    "<h3>Output agreement with the baseline</h3><div class=\"tablewrap\">"
    "<table id=\"outputs\" class=\"sortable\"><thead><tr><th>variant</th>"
    "<th>output</th><th class=\"n\">MAE</th><th class=\"n\">MSE</th>"
    "<th class=\"n\">RMSE</th><th class=\"n\">max abs</th>"
    "<th class=\"n\">rel. error</th><th class=\"n\">cosine</th>"
    "<th class=\"n\">PSNR dB</th><th "
    "class=\"n\">SSIM</th><th>gates</th></tr></thead><tbody>\n",
    "</tbody></table></div>\n",
    mb__html_escape,
    "<tr><td class=\"name\">",
    "</td><td class=\"mono\">",
    "</td>",
    html_cell,
    "<td class=\"mono\">",
    "</td>",
    "</tr>\n",
    html_agreement_keys,
    html_agreement_sig,
    sizeof html_agreement_keys / sizeof *html_agreement_keys};

static void say_html(mb__buf *b, const mb__rverdict *vd)
{
    const mb__rcmp *c = vd->c;
    char pt[32];
    mb__buf_puts(b, "<b>");
    esc(b, c->name);
    mb__buf_puts(b, "</b> ");
    if (vd->failed) {
        mb__buf_puts(b, "<span class=\"failed\">failed</span>");
        const char *e = mb__jstr(c->v, "error");
        if (e) {
            mb__buf_puts(b, ": ");
            esc(b, e);
        }
        return;
    }
    if (strcmp(vd->verdict, "interrupted") == 0) {
        mb__buf_puts(b, "<span class=\"failed\">interrupted</span>: no "
                        "verdict (the figures cover the rounds that "
                        "finished)");
        return;
    }
    /* the headline first: correctness, then speed */
    mb__buf_printf(b, "<span class=\"%s\">",
                   vd->pass == 0 ? "failed"
                   : vd->pass    ? "pass"
                                 : "");
    esc(b, vd->word);
    mb__buf_puts(b, "</span>");
    esc(b, vd->rest);
    mb__buf_puts(b, "<br><small>speed: ");
    if (vd->significant) {
        mb__buf_printf(b, "is <span class=\"%s\">", vd->verdict);
        esc(b, vd->words);
        mb__buf_puts(b, "</span> than ");
        esc(b, c->baseline);
        mb__buf_puts(b, " (median latency");
    } else {
        mb__buf_puts(b, "shows <b>");
        esc(b, vd->verdict);
        mb__buf_puts(b, "</b> against ");
        esc(b, c->baseline);
        mb__buf_puts(b, " (");
        esc(b, vd->words[0] ? vd->words : "no speedup measured");
    }
    double p = vd->p, k = mb__jnum(c->v, "significance.replicates");
    const char *unit = mb__jstr(c->v, "significance.unit");
    if (isfinite(p) && isfinite(k) && unit)
        mb__buf_printf(b, ", p %s%s over %.0f %s%s", p < 0.0001 ? "" : "= ",
                       mb__fmt_p(p, pt, sizeof pt), k,
                       strcmp(unit, "process") == 0 ? "processes" : "blocks",
                       strcmp(unit, "process") == 0 ? "" : " of one process");
    else if (isfinite(p)) /* documents from before the process unit */
        mb__buf_printf(b, ", Mann-Whitney p %s%s", p < 0.0001 ? "" : "= ",
                       mb__fmt_p(p, pt, sizeof pt));
    mb__buf_puts(b, ")</small>");
}

static void verdict(mb__buf *b, const mb__rview *v)
{
    mb__buf_puts(b, "<p class=\"verdict\" id=\"verdict\">");
    if (!mb__rview_verdicts(v, "<br>", say_html, b)) {
        /* plain runs: fastest median and best throughput */
        static const mb__rmarkup html = {
            mb__html_escape,
            "Median latency ",
            "<b>",
            "</b>",
            "<span class=\"failed\">%zu run%s failed</span>",
            NULL};
        mb__rview_best_sentence(v, &html, b);
    }
    mb__buf_puts(b, "</p>\n");
}

static void dl_item(mb__buf *b, const char *key, const char *val)
{
    if (!val)
        return;
    mb__buf_puts(b, "<dt>");
    esc(b, key);
    mb__buf_puts(b, "</dt><dd>");
    esc(b, val);
    mb__buf_puts(b, "</dd>");
}

static void dl_num(mb__buf *b, const char *key, double x, const char *fmt_unit)
{
    char t[64];
    if (!isfinite(x))
        return;
    if (fmt_unit && strcmp(fmt_unit, "bytes") == 0)
        mb__fmt_bytes(x, t, sizeof t);
    else
        snprintf(t, sizeof t, "%.15g%s", x, fmt_unit ? fmt_unit : "");
    dl_item(b, key, t);
}

/* A document's machine: CPU, cores, memory, OS, compiler (opens the
 * panels that provenance_panel closes). */
static void machine_panel(mb__buf *b, const json_t *env)
{
    mb__buf_puts(
        b, "<div class=\"grid2\"><div class=\"panel\"><dl class=\"meta\">");
    dl_item(b, "machine", mb__jstr(env, "cpu_model"));
    char cores[96];
    double lc = mb__jnum(env, "logical_cores"),
           pc = mb__jnum(env, "physical_cores");
    if (isfinite(lc)) {
        snprintf(cores, sizeof cores, "%.0f logical%s", lc, "");
        if (isfinite(pc))
            snprintf(cores, sizeof cores, "%.0f logical, %.0f physical", lc,
                     pc);
        dl_item(b, "cores", cores);
    }
    dl_num(b, "CPU MHz", mb__jnum(env, "cpu_mhz"), NULL);
    dl_num(b, "memory", mb__jnum(env, "memory_bytes"), "bytes");
    dl_item(b, "governor", mb__jstr(env, "governor"));
    dl_item(b, "kernel", mb__jstr(env, "kernel"));
    dl_item(b, "arch", mb__jstr(env, "arch"));
    dl_item(b, "hostname", mb__jstr(env, "hostname"));
    dl_item(b, "libc", mb__jstr(env, "libc"));
    dl_item(b, "compiler", mb__jstr(env, "compiler"));
}

/* The runtime of a document's first run: name and version, providers,
 * library, backend, device. */
static void runtime_items(mb__buf *b, const json_t *r0)
{
    char rt[512];
    snprintf(rt, sizeof rt, "%s %s",
             mb__jstr(r0, "runtime.name") ? mb__jstr(r0, "runtime.name") : "",
             mb__jstr(r0, "runtime.version") ? mb__jstr(r0, "runtime.version")
                                             : "");
    dl_item(b, "runtime", rt);
    const json_t *pv = mb__jget(r0, "runtime.providers");
    if (json_array_size(pv)) {
        mb__buf pl = MB_BUF_INIT;
        size_t k;
        const json_t *x;
        json_array_foreach(pv, k, x)
        {
            if (k)
                mb__buf_puts(&pl, ", ");
            mb__buf_puts(&pl, json_is_string(x) ? json_string_value(x) : "?");
        }
        dl_item(b, "providers", pl.data);
        mb__buf_free(&pl);
    }
    dl_item(b, "runtime library", mb__jstr(r0, "runtime.library_path"));
    dl_item(b, "backend", mb__jstr(r0, "backend"));
    dl_item(b, "device", mb__jstr(r0, "device"));
}

/* A document's provenance: mbench, command, times, runtime, timer and
 * the statistics it used. */
static void provenance_panel(mb__buf *b, const json_t *doc, const json_t *env)
{
    const json_t *runs = json_object_get(doc, "runs");
    const json_t *r0 = json_array_get(runs, 0);
    mb__buf_puts(b, "</dl></div><div class=\"panel\"><dl class=\"meta\">");
    char ver[256];
    snprintf(
        ver, sizeof ver, "%s (commit %s)",
        mb__jstr(doc, "mbench.version") ? mb__jstr(doc, "mbench.version") : "?",
        mb__jstr(doc, "mbench.commit") ? mb__jstr(doc, "mbench.commit") : "?");
    dl_item(b, "mbench", ver);
    dl_item(b, "command line", mb__jstr(doc, "command_line"));
    dl_item(b, "created (UTC)", mb__jstr(doc, "created_utc"));
    dl_item(b, "environment read (UTC)", mb__jstr(env, "timestamp_utc"));
    if (r0)
        runtime_items(b, r0);
    const json_t *tm = json_object_get(doc, "timer");
    if (tm) {
        char t[160];
        snprintf(t, sizeof t, "%s, resolution %.0f ns, overhead %.0f ns",
                 mb__jstr(tm, "clock") ? mb__jstr(tm, "clock") : "?",
                 mb__jnum(tm, "resolution_ns"), mb__jnum(tm, "overhead_ns"));
        dl_item(b, "timer", t);
    }
    dl_item(b, "percentiles", mb__jstr(doc, "statistics.percentile_method"));
    dl_item(b, "median CI", mb__jstr(doc, "statistics.median_ci"));
    dl_item(b, "outliers", mb__jstr(doc, "statistics.outliers"));
    mb__buf_puts(b, "</dl></div></div>\n");
}

/* A run's options (its config, unset ones left out), name=value. */
static void run_options(mb__buf *b, const json_t *cfg)
{
    const char *k;
    const json_t *x;
    int first = 1;
    json_object_foreach((json_t *)cfg, k, x)
    {
        if (json_is_null(x) || (json_is_object(x) && json_object_size(x) == 0))
            continue;
        char *s = json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!first)
            mb__buf_puts(b, " ");
        first = 0;
        esc(b, k);
        mb__buf_puts(b, "=");
        esc(b, s);
        free(s);
    }
}

/* A run's inputs: name, dtype, shape and source. */
static void run_inputs(mb__buf *b, const json_t *run)
{
    const json_t *x;
    size_t j;
    json_array_foreach(json_object_get(run, "inputs"), j, x)
    {
        char *shape = json_dumps(json_object_get(x, "shape"),
                                 JSON_COMPACT | JSON_ENCODE_ANY);
        esc(b, mb__jstr(x, "name"));
        mb__buf_puts(b, " ");
        esc(b, mb__jstr(x, "dtype"));
        esc(b, shape);
        mb__buf_puts(b, " (");
        esc(b, mb__jstr(x, "source"));
        mb__buf_puts(b, ")<br>");
        free(shape);
    }
}

/* A run's phases: library load, session creation, first run. */
static void run_phases(mb__buf *b, const json_t *run)
{
    char t[64], u[64], w[64];
    snprintf(w, sizeof w, "load %s ms, ",
             mb__fmt_ms(mb__jnum(run, "phases.library_load_ns"), t, sizeof t));
    esc(b, w);
    snprintf(
        w, sizeof w, "session %s ms, ",
        mb__fmt_ms(mb__jnum(run, "phases.session_create_ns"), t, sizeof t));
    esc(b, w);
    snprintf(
        w, sizeof w, "first run %s ms",
        mb__fmt_ms(mb__jnum(run, "phases.first_inference_ns"), u, sizeof u));
    esc(b, w);
}

static void metadata(mb__buf *b, const json_t *const *docs, size_t n_docs,
                     const mb__rview *v)
{
    mb__buf_puts(b, "<h2>Environment and provenance</h2>\n");
    for (size_t d = 0; d < n_docs; d++) {
        const json_t *env = json_object_get(docs[d], "environment");
        if (n_docs > 1)
            mb__buf_printf(b, "<h3>Document %zu</h3>", d + 1);
        machine_panel(b, env);
        provenance_panel(b, docs[d], env);
    }
    /* per-run options and inputs */
    mb__buf_puts(
        b,
        "<h3>Runs in detail</h3><div class=\"tablewrap\"><table id=\"runs\">"
        "<thead><tr><th>variant</th><th class=\"n\">batch</th><th>runtime</th>"
        "<th>options</th><th>inputs</th><th>phases</th><th>stop rule</th>"
        "</tr></thead><tbody>\n");
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        mb__buf_puts(b, "<tr><td class=\"name\">");
        esc(b, r->variant);
        mb__buf_printf(b,
                       r->batch >= 0 ? "</td><td class=\"n\">%lld</td><td>"
                                     : "</td><td class=\"n\">-</td><td>",
                       (long long)r->batch);
        esc(b, mb__jstr(r->run, "runtime.name"));
        mb__buf_puts(b, " ");
        esc(b, mb__jstr(r->run, "runtime.version"));
        mb__buf_puts(b, "</td><td class=\"mono\">");
        run_options(b, json_object_get(r->run, "config"));
        mb__buf_puts(b, "</td><td class=\"mono\">");
        run_inputs(b, r->run);
        mb__buf_puts(b, "</td><td class=\"mono\">");
        run_phases(b, r->run);
        mb__buf_puts(b, "</td><td>");
        esc(b, mb__jstr(r->run, "stop_rule"));
        mb__buf_puts(b, "</td></tr>\n");
    }
    mb__buf_puts(b, "</tbody></table></div>\n");
}

/* Where each variant's outputs differ from the baseline's: the heat map
 * its comparison entry embeds (agreement.heatmap). */
static void heatmaps(mb__buf *b, const mb__rview *v)
{
    size_t n = 0;
    for (size_t i = 0; i < v->n_cmps; i++) {
        const mb__rcmp *c = &v->cmps[i];
        const json_t *h = mb__jget(c->v, "agreement.heatmap");
        if (!json_is_object(h))
            continue;
        if (!n++)
            mb__buf_puts(b, "<h3>Where the outputs differ</h3><div "
                            "class=\"grid2\" id=\"heatmaps\">\n");
        char who[300];
        snprintf(who, sizeof who, "%s against %s", c->name ? c->name : "?",
                 c->baseline ? c->baseline : "the baseline");
        mb__html_heatmap(b, h, who);
    }
    if (n)
        mb__buf_puts(b, "</div>\n");
}

/* Runs one chart and records its id in expect when drawn (memory running
 * out marks b). */
static void chart(mb__buf *b, bool (*fn)(mb__buf *, const mb__rview *),
                  const mb__rview *v, const char *id, mb__buf *expect)
{
    if (fn(b, v)) {
        mb__buf_puts(expect, expect->len ? " " : "");
        mb__buf_puts(expect, id);
    }
}

/* The latency, batch, speedup and memory charts; the ids of those drawn
 * go to expect. */
static void charts_block(mb__buf *charts, const mb__rview *v, mb__buf *expect)
{
    mb__buf_puts(charts, "<h2>Latency</h2>\n");
    chart(charts, mb__chart_distribution, v, "chart-dist", expect);
    chart(charts, mb__chart_ecdf, v, "chart-ecdf", expect);
    if (v->multi_batch) {
        mb__buf_puts(charts, "<h2>Batch size</h2><div class=\"grid2\">\n");
        chart(charts, mb__chart_batch_throughput, v, "chart-batch-thr", expect);
        chart(charts, mb__chart_batch_latency, v, "chart-batch-lat", expect);
        mb__buf_puts(charts, "</div>\n");
    }
    if (v->n_cmps) {
        mb__buf_puts(charts, "<h2>Speedup</h2>\n");
        chart(charts, mb__chart_speedup, v, "chart-speedup", expect);
    }
    mb__buf_puts(charts,
                 "<h2>Memory and model size</h2><div class=\"grid2\">\n");
    chart(charts, mb__chart_memory, v, "chart-mem", expect);
    chart(charts, mb__chart_model_size, v, "chart-size", expect);
    mb__buf_puts(charts, "</div>\n");
}

/* The page's header: kind, each document's time and machine, the
 * download and print buttons. */
static void page_header(mb__buf *body, const json_t *const *docs, size_t n_docs,
                        const char *kind)
{
    mb__buf_puts(
        body,
        "<main>\n<header class=\"top\"><div><h1>mbench <span class=\"kind\">");
    esc(body, kind);
    mb__buf_puts(body, "</span> report</h1><div class=\"sub\">");
    for (size_t d = 0; d < n_docs; d++) {
        if (d)
            mb__buf_puts(body, "<br>");
        esc(body, mb__jstr(docs[d], "created_utc"));
        mb__buf_puts(body, " · ");
        esc(body, mb__jstr(docs[d], "environment.cpu_model"));
        mb__buf_puts(body, " · ");
        esc(body, mb__jstr(docs[d], "environment.hostname"));
    }
    mb__buf_printf(
        body,
        "</div></div><div class=\"actions\"><button id=\"download-json\" "
        "type=\"button\" data-file=\"mbench-%s.json\">Download JSON</button>"
        "<button id=\"print\" type=\"button\">Print</button></div></header>\n",
        strcmp(kind, "compare") == 0 ? "compare"
        : strcmp(kind, "run") == 0   ? "run"
                                     : "result");
}

static void warnings_list(mb__buf *body, const mb__rview *v)
{
    mb__buf_puts(body, "<ul class=\"warnings\" id=\"warnings\">");
    for (size_t i = 0; i < v->n_warnings; i++) {
        mb__buf_puts(body, "<li>");
        esc(body, v->warnings[i]);
        mb__buf_puts(body, "</li>");
    }
    mb__buf_puts(body, "</ul>\n");
}

static void page_footer(mb__buf *body, const json_t *const *docs, size_t n_docs)
{
    mb__buf_printf(body,
                   "<footer>Generated by mbench %s from %zu result document%s "
                   "(schema ",
                   mb_version(), n_docs, n_docs == 1 ? "" : "s");
    esc(body, mb__jstr(docs[0], "schema"));
    mb__buf_puts(
        body, "). The full document is embedded in this page: "
              "<b>Download JSON</b> saves it. Hover a chart mark for its value."
              "</footer>\n</main>\n");
}

/* The whole page around body: title, the chart ids to expect, and the
 * documents embedded as JSON. */
static void page(mb__buf *out, const char *kind, const mb__rview *v,
                 const mb__buf *expect, mb__buf *body,
                 const json_t *const *docs, size_t n_docs)
{
    mb__html_page_begin(out, true);
    esc(out, kind);
    if (v->n_series) {
        mb__buf_puts(out, ": ");
        for (size_t i = 0; i < v->n_series && i < 4; i++) {
            if (i)
                mb__buf_puts(out, ", ");
            esc(out, v->series[i]);
        }
        if (v->n_series > 4)
            mb__buf_puts(out, ", …");
    }
    mb__html_page_body(out, true, expect->data ? expect->data : "", body);
    mb__html_page_data(out);
    if (n_docs == 1) {
        mb__json_script_embed(out, docs[0]);
    } else {
        mb__buf_putc(out, '[');
        for (size_t d = 0; d < n_docs; d++) {
            if (d)
                mb__buf_putc(out, ',');
            mb__json_script_embed(out, docs[d]);
        }
        mb__buf_putc(out, ']');
    }
    mb__html_page_end(out);
}

mb_status mb__result_html(const json_t *const *docs, size_t n_docs,
                          mb__buf *out, mb_err *err)
{
    mb__rview v;
    if (mb__rview_build(docs, n_docs, &v))
        return mb__fail(err, MB_ENOMEM, "out of memory building the report");
    mb__buf body = MB_BUF_INIT, expect = MB_BUF_INIT;
    const char *kind = mb__jstr(docs[0], "kind");
    if (!kind)
        kind = "result";

    /* charts first (into body) so the expected list is known for <body> */
    mb__buf charts = MB_BUF_INIT;
    charts_block(&charts, &v, &expect);
    page_header(&body, docs, n_docs, kind);
    verdict(&body, &v);
    if (v.n_warnings)
        warnings_list(&body, &v);
    summary_table(&body, &v);
    if (n_docs == 1 && mb__rview_batch_cmps(docs[0])) {
        /* several batch sizes: a speedup table per size */
        if (!mb__rview_each_batch(docs[0], speedup_cb, &body))
            body.oom = 1;
    } else if (v.n_cmps) {
        speedup_table(&body, &v, 0);
    }
    mb__buf_append(&body, charts.data ? charts.data : "", charts.len);
    if (v.has_accuracy) {
        mb__buf_puts(&body,
                     "<div class=\"grid2\" style=\"margin-top:18px\">\n");
        chart(&body, mb__chart_accuracy, &v, "chart-acc", &expect);
        mb__buf_puts(&body, "</div>\n");
        chart(&body, mb__chart_outputs, &v, "chart-outputs", &expect);
        mb__rview_accuracy_tables(&v, &html_rows, &body);
        heatmaps(&body, &v);
    }
    mb__html_exec_sections(&body, docs, n_docs, &expect);
    metadata(&body, docs, n_docs, &v);
    page_footer(&body, docs, n_docs);
    page(out, kind, &v, &expect, &body, docs, n_docs);
    bool bad = body.oom || expect.oom || charts.oom;
    mb__buf_free(&body);
    mb__buf_free(&expect);
    mb__buf_free(&charts);
    mb__rview_free(&v);
    if (bad || out->oom)
        return mb__fail(err, MB_ENOMEM,
                        "out of memory rendering the HTML report");
    return MB_OK;
}
