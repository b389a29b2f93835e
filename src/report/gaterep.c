/* gaterep.c - console, Markdown and HTML writers of gate verdicts
 * (report/gaterep.h). */
#include "report/gaterep.h"

#include "core/alloc.h"
#include "core/err.h"
#include "report/html_assets.h"
#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mb__gate_doc_is(const json_t *doc)
{
    const char *s = mb__jstr(doc, "schema");
    return s && strncmp(s, "mbench.gate/", 12) == 0;
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

static int add_note(mb__gate_view *v, size_t *cap, const char *kind,
                    const char *text)
{
    if (!mb__grow((void **)&v->notes, cap, v->n_notes + 1, sizeof *v->notes))
        return -1;
    mb__gate_note *n = &v->notes[v->n_notes];
    n->kind = mb__strdup(kind);
    n->text = mb__strdup(text ? text : "");
    if (!n->kind || !n->text) {
        free(n->kind);
        free(n->text);
        return -1;
    }
    v->n_notes++;
    return 0;
}

static int build_notes(mb__gate_view *v)
{
    size_t cap = 0, i;
    const json_t *x;
    char kind[64], text[2048];
    for (i = 0; i < v->n_rows; i++)
        if (strcmp(v->rows[i].verdict, "pass") != 0 &&
            add_note(v, &cap, v->rows[i].verdict, v->rows[i].reason))
            return -1;
    v->n_row_notes = v->n_notes;
    json_array_foreach(v->accuracy, i, x)
    {
        snprintf(kind, sizeof kind, "accuracy %s", nz(mb__jstr(x, "verdict")));
        snprintf(text, sizeof text, "%s = %.6g at %s", nz(mb__jstr(x, "gate")),
                 mb__jnum(x, "value"), nz(mb__jstr(x, "where")));
        if (add_note(v, &cap, kind, text))
            return -1;
    }
    json_array_foreach(v->unmatched, i, x)
        if (add_note(v, &cap, "unmatched", mb__jstr(x, "reason")))
            return -1;
    json_array_foreach(v->warnings, i, x)
        if (add_note(v, &cap, "warning", json_string_value(x)))
            return -1;
    return 0;
}

mb_status mb__gate_view_build(const json_t *g, mb__gate_view *v, mb_err *err)
{
    memset(v, 0, sizeof *v);
    if (!mb__gate_doc_is(g) || !mb__jstr(g, "verdict"))
        return mb__fail(err, MB_EFORMAT,
                        "not a gate verdict (schema mbench.gate/1)");
    v->verdict = mb__jstr(g, "verdict");
    v->baseline_src = nz(mb__jstr(g, "baseline.source"));
    v->current_src = nz(mb__jstr(g, "current.source"));
    v->paired = json_is_true(json_object_get(g, "paired"));
    v->alpha = mb__jnum(g, "method.alpha");
    static const char *const method[][2] = {
        {"unit", "Unit of replication"}, {"test", "Test"},
        {"ci", "Interval"}, {"rule", "Rule"}, {"figures", "Other figures"}};
    const json_t *m = json_object_get(g, "method");
    for (size_t i = 0; i < sizeof method / sizeof method[0]; i++)
        if (mb__jstr(m, method[i][0])) {
            v->method[v->n_method][0] = method[i][1];
            v->method[v->n_method++][1] = mb__jstr(m, method[i][0]);
        }
    v->n_pass = (long long)json_integer_value(mb__jget(g, "counts.pass"));
    v->n_regression =
        (long long)json_integer_value(mb__jget(g, "counts.regression"));
    v->n_improvement =
        (long long)json_integer_value(mb__jget(g, "counts.improvement"));
    v->n_inconclusive =
        (long long)json_integer_value(mb__jget(g, "counts.inconclusive"));
    v->accuracy = json_object_get(g, "accuracy");
    v->unmatched = json_object_get(g, "unmatched");
    v->warnings = json_object_get(g, "warnings");
    size_t cap = 0, i, k;
    const json_t *c, *x;
    json_array_foreach(json_object_get(g, "comparisons"), i, c)
    {
        json_array_foreach(json_object_get(c, "metrics"), k, x)
        {
            if (!mb__grow((void **)&v->rows, &cap, v->n_rows + 1,
                          sizeof *v->rows)) {
                mb__gate_view_free(v);
                return mb__fail(err, MB_ENOMEM, "out of memory");
            }
            mb__gate_row *r = &v->rows[v->n_rows++];
            const json_t *ci = json_object_get(x, "ci95");
            r->model = nz(mb__jstr(c, "model"));
            r->variant = nz(mb__jstr(c, "variant"));
            r->batch = (long long)json_integer_value(
                json_object_get(c, "batch_size"));
            r->metric = nz(mb__jstr(x, "metric"));
            r->verdict = nz(mb__jstr(x, "verdict"));
            r->reason = nz(mb__jstr(x, "reason"));
            r->baseline = mb__jnum(x, "baseline");
            r->current = mb__jnum(x, "current");
            r->ratio = mb__jnum(x, "ratio");
            r->ci_lo = r->ci_hi = NAN;
            if (json_array_size(ci) == 2) {
                r->ci_lo = json_number_value(json_array_get(ci, 0));
                r->ci_hi = json_number_value(json_array_get(ci, 1));
            }
            r->p = mb__jnum(x, "p_value");
        }
    }
    if (build_notes(v)) {
        mb__gate_view_free(v);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    return MB_OK;
}

void mb__gate_view_free(mb__gate_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n_notes; i++) {
        free(v->notes[i].kind);
        free(v->notes[i].text);
    }
    free(v->notes);
    free(v->rows);
    memset(v, 0, sizeof *v);
}

const char *mb__gate_verdict_title(const char *v)
{
    if (!v)
        return "PASS";
    if (strcmp(v, "regression") == 0)
        return "REGRESSION";
    if (strcmp(v, "accuracy_failure") == 0)
        return "ACCURACY FAILURE";
    if (strcmp(v, "inconclusive") == 0)
        return "INCONCLUSIVE";
    return "PASS";
}

/* The five formatted figures of a row. */
typedef struct cells {
    char base[32], cur[32], change[24], ci[40], p[16];
} cells;

static void row_cells(const mb__gate_row *r, cells *c)
{
    mb__fmt_metric(r->metric, r->baseline, c->base, sizeof c->base);
    mb__fmt_metric(r->metric, r->current, c->cur, sizeof c->cur);
    mb__fmt_change(r->ratio, c->change, sizeof c->change);
    mb__fmt_change_ci(r->ci_lo, r->ci_hi, c->ci, sizeof c->ci);
    mb__fmt_p_short(r->p, c->p, sizeof c->p);
}

static mb_status done(mb_buf *out, mb__gate_view *v, mb_err *err)
{
    mb__gate_view_free(v);
    if (out->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory rendering the gate");
    return MB_OK;
}

/* ---- console -------------------------------------------------------- */

mb_status mb__report_gate_console(const json_t *g, mb_buf *out, mb_err *err)
{
    mb__gate_view v;
    mb_status st = mb__gate_view_build(g, &v, err);
    if (st)
        return st;
    mb__buf_printf(out, "mbench gate: %s  (baseline %s, current %s)\n",
                   mb__gate_verdict_title(v.verdict), v.baseline_src,
                   v.current_src);
    mb__buf_printf(out,
                   "rule: unit = the process; regression = %s p < %g AND "
                   "the 95%% CI of current/baseline beyond the threshold; "
                   "pass = CI within it\n\n",
                   v.paired ? "paired t (round by round)"
                            : "Welch t on the log per-process figures,",
                   v.alpha);
    mb__buf_printf(out, "%-24s %-16s %5s  %-10s %12s %12s %8s %17s %8s  %s\n",
                   "model", "variant", "batch", "metric", "baseline",
                   "current", "change", "95% CI", "p", "verdict");
    for (size_t i = 0; i < v.n_rows; i++) {
        const mb__gate_row *r = &v.rows[i];
        cells c;
        row_cells(r, &c);
        mb__buf_printf(out,
                       "%-24.24s %-16.16s %5lld  %-10s %12s %12s %8s %17s "
                       "%8s  %s\n",
                       r->model, r->variant, r->batch, r->metric, c.base,
                       c.cur, c.change, c.ci, c.p, r->verdict);
    }
    for (size_t i = 0; i < v.n_rows; i++)
        if (strcmp(v.rows[i].verdict, "pass") != 0)
            mb__buf_printf(out, "  %s %s: %s\n", v.rows[i].variant,
                           v.rows[i].verdict, v.rows[i].reason);
    for (size_t i = v.n_row_notes; i < v.n_notes; i++)
        mb__buf_printf(out, "%s: %s\n", v.notes[i].kind, v.notes[i].text);
    return done(out, &v, err);
}

/* ---- Markdown ------------------------------------------------------- */

static void md_notes(mb_buf *b, const mb__gate_view *v)
{
    for (size_t i = 0; i < v->n_notes; i++) {
        mb__buf_puts(b, "- ");
        mb__md_escape(b, v->notes[i].kind);
        mb__buf_puts(b, ": ");
        mb__md_escape(b, v->notes[i].text);
        mb__buf_puts(b, "\n");
    }
}

/* The method as the verdict states it (test, CI, rule). */
static void md_method(mb_buf *b, const mb__gate_view *v)
{
    mb__buf_puts(b, "\n<details><summary>Method</summary>\n\n");
    for (size_t i = 0; i < v->n_method; i++) {
        mb__buf_printf(b, "- %s: ", v->method[i][0]);
        mb__md_escape(b, v->method[i][1]);
        mb__buf_puts(b, "\n");
    }
    if (isfinite(v->alpha))
        mb__buf_printf(b, "- alpha: %g\n", v->alpha);
    mb__buf_puts(b, "\nA change counts only when it exceeds its threshold "
                    "*and* is significant; a CI that straddles the threshold "
                    "is *inconclusive*.\n</details>\n");
}

mb_status mb__report_gate_md(const json_t *g, mb_buf *out, mb_err *err)
{
    mb__gate_view v;
    mb_status st = mb__gate_view_build(g, &v, err);
    if (st)
        return st;
    mb__buf_printf(out, "### mbench gate: **%s**\n\n",
                   mb__gate_verdict_title(v.verdict));
    mb__buf_puts(out, "Baseline ");
    mb__md_code(out, v.baseline_src);
    mb__buf_puts(out, ", current ");
    mb__md_code(out, v.current_src);
    mb__buf_printf(out,
                   ": %lld pass, %lld regression, %lld improvement, %lld "
                   "inconclusive.\n\n",
                   v.n_pass, v.n_regression, v.n_improvement,
                   v.n_inconclusive);
    mb__buf_puts(out, "| model | variant | batch | metric | baseline | "
                      "current | change | 95% CI | p | verdict |\n"
                      "|---|---|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < v.n_rows; i++) {
        const mb__gate_row *r = &v.rows[i];
        cells c;
        row_cells(r, &c);
        int bold = strcmp(r->verdict, "pass") != 0;
        mb__buf_puts(out, "| ");
        mb__md_escape(out, r->model);
        mb__buf_puts(out, " | ");
        mb__md_escape(out, r->variant);
        mb__buf_printf(out, " | %lld | ", r->batch);
        mb__md_escape(out, r->metric);
        mb__buf_printf(out, " | %s | %s | %s | %s | %s | %s", c.base, c.cur,
                       c.change, c.ci, c.p, bold ? "**" : "");
        mb__md_escape(out, r->verdict);
        mb__buf_printf(out, "%s |\n", bold ? "**" : "");
    }
    mb__buf_puts(out, "\n");
    md_notes(out, &v);
    md_method(out, &v);
    return done(out, &v, err);
}

/* ---- HTML ----------------------------------------------------------- */

static void html_cell(mb_buf *b, const char *cls, const char *s)
{
    mb__buf_printf(b, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
                   cls ? "\"" : "");
    mb__html_escape(b, s);
    mb__buf_puts(b, "</td>");
}

static void html_list(mb_buf *b, const mb__gate_view *v)
{
    if (!v->n_notes)
        return;
    mb__buf_puts(b, "<ul class=\"warnings\" id=\"notes\">");
    for (size_t i = 0; i < v->n_notes; i++) {
        mb__buf_puts(b, "<li><b>");
        mb__html_escape(b, v->notes[i].kind);
        mb__buf_puts(b, "</b>: ");
        mb__html_escape(b, v->notes[i].text);
        mb__buf_puts(b, "</li>");
    }
    mb__buf_puts(b, "</ul>\n");
}

mb_status mb__report_gate_html(const json_t *g, mb_buf *out, mb_err *err)
{
    mb__gate_view v;
    mb_status st = mb__gate_view_build(g, &v, err);
    if (st)
        return st;
    const char *title = mb__gate_verdict_title(v.verdict);
    int good = strcmp(title, "PASS") == 0;
    mb__buf_puts(out,
                 "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                 "charset=\"utf-8\">\n<meta name=\"viewport\" "
                 "content=\"width=device-width,initial-scale=1\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" "
                 "content=\"default-src 'none'; style-src "
                 "'unsafe-inline'\">\n<meta name=\"color-scheme\" "
                 "content=\"light dark\">\n<title>mbench gate: ");
    mb__html_escape(out, title);
    mb__buf_puts(out, "</title>\n<style>\n");
    for (size_t i = 0; mb_html_css[i]; i++)
        mb__buf_puts(out, mb_html_css[i]);
    mb__buf_printf(out,
                   "</style></head>\n<body>\n<main>\n<header "
                   "class=\"top\"><div><h1>mbench <span "
                   "class=\"kind\">gate</span>: <span id=\"verdict\" "
                   "style=\"color:var(--%s)\">",
                   good ? "good" : "bad");
    mb__html_escape(out, title);
    mb__buf_puts(out, "</span></h1><div class=\"sub\">baseline <code>");
    mb__html_escape(out, v.baseline_src);
    mb__buf_puts(out, "</code>, current <code>");
    mb__html_escape(out, v.current_src);
    mb__buf_printf(out,
                   "</code><br>%lld pass, %lld regression, %lld "
                   "improvement, %lld inconclusive</div></div></header>\n",
                   v.n_pass, v.n_regression, v.n_improvement,
                   v.n_inconclusive);
    html_list(out, &v);
    mb__buf_puts(out, "<div class=\"panel\"><table id=\"gate\"><thead><tr>"
                      "<th>model</th><th>variant</th><th>batch</th>"
                      "<th>metric</th><th>baseline</th><th>current</th>"
                      "<th>change</th><th>95% CI</th><th>p</th>"
                      "<th>verdict</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < v.n_rows; i++) {
        const mb__gate_row *r = &v.rows[i];
        cells c;
        char batch[24];
        row_cells(r, &c);
        snprintf(batch, sizeof batch, "%lld", r->batch);
        mb__buf_puts(out, "<tr>");
        html_cell(out, NULL, r->model);
        html_cell(out, NULL, r->variant);
        html_cell(out, "num", batch);
        html_cell(out, NULL, r->metric);
        html_cell(out, "num", c.base);
        html_cell(out, "num", c.cur);
        html_cell(out, "num", c.change);
        html_cell(out, "num", c.ci);
        html_cell(out, "num", c.p);
        html_cell(out, strcmp(r->verdict, "pass") ? "bad" : NULL, r->verdict);
        mb__buf_puts(out, "</tr>\n");
    }
    mb__buf_puts(out, "</tbody></table></div>\n<details><summary>Method"
                      "</summary><ul>");
    for (size_t i = 0; i < v.n_method; i++) {
        mb__buf_printf(out, "<li><b>%s</b>: ", v.method[i][0]);
        mb__html_escape(out, v.method[i][1]);
        mb__buf_puts(out, "</li>");
    }
    mb__buf_printf(out, "<li><b>alpha</b>: %g</li></ul></details>\n", v.alpha);
    mb__buf_printf(out, "<footer>Generated by mbench %s from a gate verdict "
                        "(schema mbench.gate/1), embedded below as JSON."
                        "</footer>\n</main>\n<script "
                        "type=\"application/json\" id=\"mbench-data\">\n",
                   mb_version());
    mb__json_script_embed(out, g);
    mb__buf_puts(out, "\n</script>\n</body></html>\n");
    return done(out, &v, err);
}
