/* gaterep.c - console, Markdown and HTML writers of gate verdicts
 * (report/gaterep.h). */
#include "report/gaterep.h"

#include "core/alloc.h"
#include "core/err.h"
#include "report/csv.h"
#include "report/htmlpage.h"
#include "report/rutil.h"

#include <math.h>
#include <stdbool.h>
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

/* Appends a note; kind and text share one allocation (kind owns it).
 * False when memory runs out. */
static bool add_note(mb__gate_view *v, size_t *cap, const char *kind,
                     const char *text)
{
    if (!text)
        text = "";
    size_t nk = strlen(kind) + 1, nt = strlen(text) + 1;
    if (!mb__grow((void **)&v->notes, cap, v->n_notes + 1, sizeof *v->notes))
        return false;
    char *both = malloc(nk + nt);
    if (!both)
        return false;
    memcpy(both, kind, nk);
    memcpy(both + nk, text, nt);
    v->notes[v->n_notes].kind = both;
    v->notes[v->n_notes++].text = both + nk;
    return true;
}

/* Every row that is not a pass, then the accuracy gates, unmatched runs
 * and warnings.  False when memory runs out. */
static bool build_notes(mb__gate_view *v)
{
    size_t cap = 0, i;
    const json_t *x;
    char kind[64], text[2048];
    for (i = 0; i < v->n_rows; i++)
        if (strcmp(v->rows[i].verdict, "pass") != 0 &&
            !add_note(v, &cap, v->rows[i].verdict, v->rows[i].reason))
            return false;
    v->n_row_notes = v->n_notes;
    json_array_foreach(v->accuracy, i, x)
    {
        snprintf(kind, sizeof kind, "accuracy %s", nz(mb__jstr(x, "verdict")));
        snprintf(text, sizeof text, "%s = %.6g at %s", nz(mb__jstr(x, "gate")),
                 mb__jnum(x, "value"), nz(mb__jstr(x, "where")));
        if (!add_note(v, &cap, kind, text))
            return false;
    }
    json_array_foreach(v->unmatched, i,
                       x) if (!add_note(v, &cap, "unmatched",
                                        mb__jstr(x, "reason"))) return false;
    json_array_foreach(v->warnings, i,
                       x) if (!add_note(v, &cap, "warning",
                                        json_string_value(x))) return false;
    return true;
}

mb_status mb__gate_view_build(const json_t *g, mb__gate_view *v, mb_err *err)
{
    memset(v, 0, sizeof *v);
    v->doc = g;
    if (!mb__gate_doc_is(g) || !mb__jstr(g, "verdict"))
        return mb__fail(err, MB_EFORMAT,
                        "not a gate verdict (schema mbench.gate/1)");
    v->verdict = mb__jstr(g, "verdict");
    v->baseline_src = nz(mb__jstr(g, "baseline.source"));
    v->current_src = nz(mb__jstr(g, "current.source"));
    v->paired = json_is_true(json_object_get(g, "paired"));
    v->alpha = mb__jnum(g, "method.alpha");
    static const char *const method[][2] = {{"unit", "Unit of replication"},
                                            {"test", "Test"},
                                            {"ci", "Interval"},
                                            {"rule", "Rule"},
                                            {"figures", "Other figures"}};
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
            r->batch =
                (long long)json_integer_value(json_object_get(c, "batch_size"));
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
    if (!build_notes(v)) {
        mb__gate_view_free(v);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    return MB_OK;
}

void mb__gate_view_free(mb__gate_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n_notes; i++)
        free(v->notes[i].kind); /* holds the text too */
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

/* The columns of the verdict table, in every format: the heading, whether
 * the cell is a figure (right-aligned, not escaped in Markdown), and the
 * console's printf format. */
static const struct gate_col {
    const char *head;
    bool num;
    const char *console;
} gate_cols[] = {
    {"model", false, "%-24.24s "}, {"variant", false, "%-16.16s "},
    {"batch", true, "%5s  "},      {"metric", false, "%-10s "},
    {"baseline", true, "%12s "},   {"current", true, "%12s "},
    {"change", true, "%8s "},      {"95% CI", true, "%17s "},
    {"p", true, "%8s  "},          {"verdict", false, "%s\n"},
};
#define N_GATE_COLS (sizeof gate_cols / sizeof *gate_cols)

/* A row's cells as text, in the order of gate_cols. */
typedef struct cells {
    char batch[24], base[32], cur[32], change[24], ci[40], p[16];
    const char *s[N_GATE_COLS];
} cells;

static void row_cells(const mb__gate_row *r, cells *c)
{
    snprintf(c->batch, sizeof c->batch, "%lld", r->batch);
    mb__fmt_metric(r->metric, r->baseline, c->base, sizeof c->base);
    mb__fmt_metric(r->metric, r->current, c->cur, sizeof c->cur);
    mb__fmt_change(r->ratio, c->change, sizeof c->change);
    mb__fmt_change_ci(r->ci_lo, r->ci_hi, c->ci, sizeof c->ci);
    mb__fmt_p_short(r->p, c->p, sizeof c->p);
    const char *s[N_GATE_COLS] = {r->model, r->variant, c->batch,  r->metric,
                                  c->base,  c->cur,     c->change, c->ci,
                                  c->p,     r->verdict};
    memcpy(c->s, s, sizeof s);
}

/* How Markdown and HTML mark up the parts the two share. */
typedef struct markup {
    void (*esc)(mb__buf *b, const char *s);
    void (*code)(mb__buf *b, const char *s);
    const char *item, *item_mid, *item_end; /* a list item "key: value" */
} markup;

static void html_code(mb__buf *b, const char *s)
{
    mb__buf_puts(b, "<code>");
    mb__html_escape(b, s);
    mb__buf_puts(b, "</code>");
}

static const markup md_markup = {mb__md_escape, mb__md_code, "- ", ": ", "\n"};
static const markup html_markup = {mb__html_escape, html_code, "<li><b>",
                                   "</b>: ", "</li>"};

static void item(mb__buf *b, const markup *m, const char *key, const char *val)
{
    mb__buf_puts(b, m->item);
    m->esc(b, key);
    mb__buf_puts(b, m->item_mid);
    m->esc(b, val);
    mb__buf_puts(b, m->item_end);
}

static void notes(mb__buf *b, const markup *m, const mb__gate_view *v)
{
    for (size_t i = 0; i < v->n_notes; i++)
        item(b, m, v->notes[i].kind, v->notes[i].text);
}

static void method(mb__buf *b, const markup *m, const mb__gate_view *v)
{
    for (size_t i = 0; i < v->n_method; i++)
        item(b, m, v->method[i][0], v->method[i][1]);
}

/* "`base`, current `cur`" + sep + the counts of each verdict. */
static void sources_counts(mb__buf *b, const markup *m, const mb__gate_view *v,
                           const char *sep)
{
    m->code(b, v->baseline_src);
    mb__buf_puts(b, ", current ");
    m->code(b, v->current_src);
    mb__buf_printf(b,
                   "%s%lld pass, %lld regression, %lld improvement, %lld "
                   "inconclusive",
                   sep, v->n_pass, v->n_regression, v->n_improvement,
                   v->n_inconclusive);
}

/* Reads the verdict into its view, writes it with w, frees the view. */
static mb_status render(const json_t *g, mb__buf *out, mb_err *err,
                        void (*w)(mb__buf *, const mb__gate_view *))
{
    mb__gate_view v;
    mb_status st = mb__gate_view_build(g, &v, err);
    if (st)
        return st;
    w(out, &v);
    mb__gate_view_free(&v);
    if (out->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory rendering the gate");
    return MB_OK;
}

/* ---- console -------------------------------------------------------- */

static void gate_console(mb__buf *out, const mb__gate_view *v)
{
    mb__buf_printf(out, "mbench gate: %s  (baseline %s, current %s)\n",
                   mb__gate_verdict_title(v->verdict), v->baseline_src,
                   v->current_src);
    mb__buf_printf(out,
                   "rule: unit = the process; regression = %s p < %g AND "
                   "the 95%% CI of current/baseline beyond the threshold; "
                   "pass = CI within it\n\n",
                   v->paired ? "paired t (round by round)"
                             : "Welch t on the log per-process figures,",
                   v->alpha);
    for (size_t k = 0; k < N_GATE_COLS; k++)
        mb__buf_printf(out, gate_cols[k].console, gate_cols[k].head);
    for (size_t i = 0; i < v->n_rows; i++) {
        cells c;
        row_cells(&v->rows[i], &c);
        for (size_t k = 0; k < N_GATE_COLS; k++)
            mb__buf_printf(out, gate_cols[k].console, c.s[k]);
    }
    for (size_t i = 0; i < v->n_rows; i++)
        if (strcmp(v->rows[i].verdict, "pass") != 0)
            mb__buf_printf(out, "  %s %s: %s\n", v->rows[i].variant,
                           v->rows[i].verdict, v->rows[i].reason);
    for (size_t i = v->n_row_notes; i < v->n_notes; i++)
        mb__buf_printf(out, "%s: %s\n", v->notes[i].kind, v->notes[i].text);
}

/* ---- Markdown ------------------------------------------------------- */

/* The method as the verdict states it (test, CI, rule). */
static void md_method(mb__buf *b, const mb__gate_view *v)
{
    mb__buf_puts(b, "\n<details><summary>Method</summary>\n\n");
    method(b, &md_markup, v);
    if (isfinite(v->alpha))
        mb__buf_printf(b, "- alpha: %g\n", v->alpha);
    mb__buf_puts(b, "\nA change counts only when it exceeds its threshold "
                    "*and* is significant; a CI that straddles the threshold "
                    "is *inconclusive*.\n</details>\n");
}

static void gate_md(mb__buf *out, const mb__gate_view *v)
{
    mb__buf_printf(out, "### mbench gate: **%s**\n\n",
                   mb__gate_verdict_title(v->verdict));
    mb__buf_puts(out, "Baseline ");
    sources_counts(out, &md_markup, v, ": ");
    mb__buf_puts(out, ".\n\n|");
    for (size_t k = 0; k < N_GATE_COLS; k++)
        mb__buf_printf(out, " %s |", gate_cols[k].head);
    mb__buf_puts(out, "\n|");
    for (size_t k = 0; k < N_GATE_COLS; k++)
        mb__buf_puts(out, gate_cols[k].num ? "---:|" : "---|");
    mb__buf_puts(out, "\n");
    for (size_t i = 0; i < v->n_rows; i++) {
        cells c;
        row_cells(&v->rows[i], &c);
        const char *bold = strcmp(v->rows[i].verdict, "pass") ? "**" : "";
        for (size_t k = 0; k < N_GATE_COLS; k++) {
            bool last = k + 1 == N_GATE_COLS;
            mb__buf_printf(out, "| %s", last ? bold : "");
            if (gate_cols[k].num)
                mb__buf_puts(out, c.s[k]);
            else
                mb__md_escape(out, c.s[k]);
            mb__buf_puts(out, last ? bold : " ");
        }
        mb__buf_puts(out, " |\n");
    }
    mb__buf_puts(out, "\n");
    notes(out, &md_markup, v);
    md_method(out, v);
}

/* ---- HTML ----------------------------------------------------------- */

static void html_cell(mb__buf *b, const char *cls, const char *s)
{
    mb__buf_printf(b, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
                   cls ? "\"" : "");
    mb__html_escape(b, s);
    mb__buf_puts(b, "</td>");
}

static void gate_html(mb__buf *out, const mb__gate_view *v)
{
    const char *title = mb__gate_verdict_title(v->verdict);
    int good = strcmp(title, "PASS") == 0;
    mb__html_page_begin(out, false);
    mb__buf_puts(out, "gate: ");
    mb__html_escape(out, title);
    mb__html_page_body(out, false, NULL, NULL);
    mb__buf_printf(out,
                   "<main>\n<header "
                   "class=\"top\"><div><h1>mbench <span "
                   "class=\"kind\">gate</span>: <span id=\"verdict\" "
                   "style=\"color:var(--%s)\">",
                   good ? "good" : "bad");
    mb__html_escape(out, title);
    mb__buf_puts(out, "</span></h1><div class=\"sub\">baseline ");
    sources_counts(out, &html_markup, v, "<br>");
    mb__buf_puts(out, "</div></div></header>\n");
    if (v->n_notes) {
        mb__buf_puts(out, "<ul class=\"warnings\" id=\"notes\">");
        notes(out, &html_markup, v);
        mb__buf_puts(out, "</ul>\n");
    }
    mb__buf_puts(out, "<div class=\"panel\"><table id=\"gate\"><thead><tr>");
    for (size_t k = 0; k < N_GATE_COLS; k++)
        mb__buf_printf(out, "<th>%s</th>", gate_cols[k].head);
    mb__buf_puts(out, "</tr></thead><tbody>\n");
    for (size_t i = 0; i < v->n_rows; i++) {
        cells c;
        row_cells(&v->rows[i], &c);
        mb__buf_puts(out, "<tr>");
        for (size_t k = 0; k < N_GATE_COLS - 1; k++)
            html_cell(out, gate_cols[k].num ? "num" : NULL, c.s[k]);
        html_cell(out, strcmp(v->rows[i].verdict, "pass") ? "bad" : NULL,
                  v->rows[i].verdict);
        mb__buf_puts(out, "</tr>\n");
    }
    mb__buf_puts(out, "</tbody></table></div>\n<details><summary>Method"
                      "</summary><ul>");
    method(out, &html_markup, v);
    mb__buf_printf(out, "<li><b>alpha</b>: %g</li></ul></details>\n", v->alpha);
    mb__buf_printf(out,
                   "<footer>Generated by mbench %s from a gate verdict "
                   "(schema mbench.gate/1), embedded below as JSON."
                   "</footer>\n</main>\n<script "
                   "type=\"application/json\" id=\"mbench-data\">\n",
                   mb_version());
    mb__json_script_embed(out, v->doc);
    mb__buf_puts(out, "\n</script>\n</body></html>\n");
}

/* ---- CSV ------------------------------------------------------------ */

static void gate_csv(mb__buf *out, const mb__gate_view *v)
{
    mb__buf_puts(out, "model,variant,batch,metric,unit,baseline,current,"
                      "ratio,ratio_ci95_lo,ratio_ci95_hi,p,verdict,reason\n");
    for (size_t i = 0; i < v->n_rows; i++) {
        const mb__gate_row *r = &v->rows[i];
        mb__csv_field(out, r->model);
        mb__buf_putc(out, ',');
        mb__csv_field(out, r->variant);
        mb__buf_printf(out, ",%lld,", r->batch);
        mb__csv_field(out, r->metric);
        mb__buf_printf(out, ",%s", mb__metric_unit(r->metric));
        const double figs[] = {r->baseline, r->current, r->ratio,
                               r->ci_lo,    r->ci_hi,   r->p};
        for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++)
            mb__csv_num(out, "%.9g", figs[k]);
        mb__buf_putc(out, ',');
        mb__csv_field(out, r->verdict);
        mb__buf_putc(out, ',');
        mb__csv_field(out, r->reason);
        mb__buf_putc(out, '\n');
    }
}

mb_status mb__report_gate_csv(const json_t *g, mb__buf *out, mb_err *err)
{
    return render(g, out, err, gate_csv);
}

mb_status mb__report_gate_console(const json_t *g, mb__buf *out, mb_err *err)
{
    return render(g, out, err, gate_console);
}

mb_status mb__report_gate_md(const json_t *g, mb__buf *out, mb_err *err)
{
    return render(g, out, err, gate_md);
}

mb_status mb__report_gate_html(const json_t *g, mb__buf *out, mb_err *err)
{
    return render(g, out, err, gate_html);
}
