/* execsec.c - report sections of programs and requirements (execsec.h). */
#include "report/execsec.h"

#include "report/execprint.h"
#include "report/rutil.h"
#include "report/svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Output format: Markdown tables or HTML tables, through one interface. */
typedef struct fmt {
    mb__buf *b;
    int html;
} fmt;

static void heading(fmt *f, const char *h, const char *id)
{
    if (f->html)
        mb__buf_printf(f->b, "<h2 id=\"%s\">%s</h2>\n", id, h);
    else
        mb__buf_printf(f->b, "### %s\n\n", h);
}

/* A section's heading (title, anchor hid) and the head of its table (id
 * tid; a column named "#..." holds numbers). */
static void table_begin(fmt *f, const char *title, const char *hid,
                        const char *tid, const char *const *cols, size_t n)
{
    heading(f, title, hid);
    if (f->html) {
        mb__buf_printf(
            f->b, "<div class=\"tablewrap\"><table id=\"%s\"><thead><tr>", tid);
        for (size_t i = 0; i < n; i++)
            mb__buf_printf(f->b, "<th%s>%s</th>",
                           cols[i][0] == '#' ? " class=\"n\"" : "",
                           cols[i] + (cols[i][0] == '#'));
        mb__buf_puts(f->b, "</tr></thead><tbody>\n");
    } else {
        mb__buf_puts(f->b, "|");
        for (size_t i = 0; i < n; i++)
            mb__buf_printf(f->b, " %s |", cols[i] + (cols[i][0] == '#'));
        mb__buf_puts(f->b, "\n|");
        for (size_t i = 0; i < n; i++)
            mb__buf_puts(f->b, cols[i][0] == '#' ? "---:|" : "---|");
        mb__buf_puts(f->b, "\n");
    }
}

static void row_begin(fmt *f)
{
    mb__buf_puts(f->b, f->html ? "<tr>" : "|");
}
static void row_end(fmt *f)
{
    mb__buf_puts(f->b, f->html ? "</tr>\n" : "\n");
}

/* A cell of text from a document (escaped; "-" when NULL), right-aligned
 * when num. */
static void cell(fmt *f, const char *s, int num)
{
    if (!f->html) {
        mb__buf_puts(f->b, " ");
        mb__md_escape(f->b, s);
        mb__buf_puts(f->b, " |");
        return;
    }
    mb__buf_puts(f->b, num ? "<td class=\"n\">" : "<td>");
    mb__html_escape(f->b, s ? s : "-");
    mb__buf_puts(f->b, "</td>");
}

/* The PASS / FAIL / n/a cell of a requirement, FAIL emphasised. */
static void cell_verdict(fmt *f, const json_t *passed)
{
    const char *w = json_is_true(passed)    ? "PASS"
                    : json_is_false(passed) ? "FAIL"
                                            : "n/a";
    if (f->html)
        mb__buf_printf(f->b, "<td class=\"%s\">%s</td>",
                       json_is_false(passed) ? "st-failed" : "", w);
    else
        mb__buf_printf(f->b, json_is_false(passed) ? " **%s** |" : " %s |", w);
}

/* Closes the table; in Markdown, md_note (or nothing when NULL) below. */
static void table_end(fmt *f, const char *md_note)
{
    mb__buf_puts(f->b, f->html ? "</tbody></table></div>\n" : "\n");
    if (!f->html && md_note)
        mb__buf_puts(f->b, md_note);
}

/* A duration in ns for the tables: "1.234 s", "12.35 ms", "812.3 us". */
static char *ms(double ns, char *t, size_t n)
{
    static const mb__unit_step steps[] = {{1e9, 1e9, "%.3f s"},
                                          {1e6, 1e6, "%.2f ms"},
                                          {-INFINITY, 1e3, "%.1f us"},
                                          {0, 0, NULL}};
    return mb__fmt_steps(ns, steps, t, n);
}

/* A plain number with up to `sig` significant digits ("192", "0.1995"). */
static char *num(double x, int sig, char *t, size_t n)
{
    if (!isfinite(x))
        snprintf(t, n, "-");
    else
        snprintf(t, n, "%.*g", sig, x);
    return t;
}

static char *ci_text(const json_t *ci, char *t, size_t n)
{
    char a[32], b[32];
    if (!json_is_object(ci))
        snprintf(t, n, "-");
    else
        snprintf(t, n, "%s .. %s", ms(mb__jnum(ci, "lo"), a, sizeof a),
                 ms(mb__jnum(ci, "hi"), b, sizeof b));
    return t;
}

/* ---- sections --------------------------------------------------------- */

static void requirements(fmt *f, const json_t *const *docs, size_t n)
{
    size_t total = 0, met = 0;
    for (size_t d = 0; d < n; d++) {
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(docs[d], "requirements"), i, r)
        {
            total++;
            met += json_is_true(json_object_get(r, "passed"));
        }
    }
    if (!total)
        return;
    char h[96];
    snprintf(h, sizeof h, "Requirements: %zu of %zu met", met, total);
    static const char *const cols[] = {"requirement", "variant", "verdict",
                                       "#value", "why"};
    table_begin(f, h, "requirements", "requirements-table", cols, 5);
    for (size_t d = 0; d < n; d++) {
        size_t i, j;
        json_t *r, *x;
        json_array_foreach(json_object_get(docs[d], "requirements"), i, r)
        {
            if (!json_array_size(json_object_get(r, "results"))) {
                row_begin(f);
                cell(f, mb__jstr(r, "requirement"), 0);
                cell(f, "-", 0);
                cell_verdict(f, json_false());
                cell(f, "-", 1);
                cell(f, mb__jstr(r, "note"), 0);
                row_end(f);
            }
            json_array_foreach(json_object_get(r, "results"), j, x)
            {
                char v[48];
                row_begin(f);
                cell(f, mb__jstr(r, "requirement"), 0);
                cell(f, mb__jstr(x, "variant"), 0);
                cell_verdict(f, json_object_get(x, "passed"));
                const char *vt = mb__jstr(x, "value_text");
                cell(f, vt ? vt : num(mb__jnum(x, "value"), 4, v, sizeof v), 1);
                cell(f, mb__jstr(x, "verdict"), 0);
                row_end(f);
            }
        }
    }
    table_end(f, NULL);
}

/* Walks the runs of every document and, with path, the members of the
 * object at path of each run (exec.phases, exec.loops, ...): every run
 * (or member) in order, documents first to last. */
typedef struct walk {
    const json_t *const *docs;
    size_t n, d, i;    /* next document and run */
    const char *path;  /* members of this object of each run, or NULL */
    const json_t *run; /* the current run */
    const json_t *obj; /* its object at path */
    void *it;          /* the next member of obj */
    const char *key;   /* the current member */
    const json_t *val;
} walk;

static walk walk_of(const json_t *const *docs, size_t n, const char *path)
{
    walk w = {docs, n, 0, 0, path, NULL, NULL, NULL, NULL, NULL};
    return w;
}

/* The next run; false after the last. */
static bool next_run(walk *w)
{
    for (; w->d < w->n; w->d++, w->i = 0) {
        const json_t *runs = json_object_get(w->docs[w->d], "runs");
        if (w->i < json_array_size(runs)) {
            w->run = json_array_get(runs, w->i++);
            return true;
        }
    }
    return false;
}

/* The next member (w->run, w->key, w->val); false after the last. */
static bool next_member(walk *w)
{
    while (!w->it) {
        if (!next_run(w))
            return false;
        w->obj = mb__jget(w->run, w->path);
        w->it = json_object_iter((json_t *)w->obj);
    }
    w->key = json_object_iter_key(w->it);
    w->val = json_object_iter_value(w->it);
    w->it = json_object_iter_next((json_t *)w->obj, w->it);
    return true;
}

/* Whether a run of any document has an object at path (with members,
 * unless empty_counts). */
static bool any_run_has(const json_t *const *docs, size_t n, const char *path,
                        int empty_counts)
{
    walk w = walk_of(docs, n, NULL);
    while (next_run(&w)) {
        const json_t *o = mb__jget(w.run, path);
        if (json_object_size(o) || (empty_counts && json_is_object(o)))
            return true;
    }
    return false;
}

/* The table of a section with a row per member of the object at w->path
 * of each run (phases, loops): opens it when a run has such a member and
 * returns true, else writes nothing and returns false. */
static bool member_table(fmt *f, const walk *w, const char *title,
                         const char *hid, const char *tid,
                         const char *const *cols, size_t ncols)
{
    if (!any_run_has(w->docs, w->n, w->path, 0))
        return false;
    table_begin(f, title, hid, tid, cols, ncols);
    return true;
}

static void speedups(fmt *f, const json_t *const *docs, size_t n)
{
    int any = 0;
    for (size_t d = 0; d < n && !any; d++) {
        const json_t *c = json_object_get(docs[d], "comparison");
        any = json_array_size(json_object_get(c, "entries")) ||
              json_array_size(json_object_get(c, "groups"));
    }
    if (!any)
        return;
    static const char *const cols[] = {"group",           "variant", "baseline",
                                       "#speedup",        "#95% CI", "#p",
                                       "phases (speedup)"};
    table_begin(f, "Speedups of programs", "exec-speedups",
                "exec-speedup-table", cols, 7);
    for (size_t d = 0; d < n; d++) {
        const json_t *c = json_object_get(docs[d], "comparison");
        const json_t *groups = json_object_get(c, "groups");
        size_t ng = json_array_size(groups) ? json_array_size(groups) : 1;
        for (size_t g = 0; g < ng; g++) {
            const json_t *gr = json_array_get(groups, g);
            const json_t *entries = gr ? json_object_get(gr, "entries")
                                       : json_object_get(c, "entries");
            const char *base =
                gr ? mb__jstr(gr, "baseline_branch") : mb__jstr(c, "baseline");
            if (!base && gr)
                base = mb__jstr(gr, "baseline");
            size_t i;
            json_t *e;
            json_array_foreach(entries, i, e)
            {
                char sp[48], ci[64], p[32];
                double s = mb__jnum(e, "speedup");
                const json_t *r = json_object_get(e, "ratio_ci95");
                snprintf(sp, sizeof sp, isfinite(s) ? "%.3fx" : "-", s);
                if (json_is_object(r))
                    snprintf(ci, sizeof ci, "%.3f .. %.3f",
                             1 / mb__jnum(r, "hi"), 1 / mb__jnum(r, "lo"));
                else
                    snprintf(ci, sizeof ci, "-");
                row_begin(f);
                cell(f, gr ? mb__jstr(gr, "group") : "-", 0);
                const char *br = mb__jstr(e, "branch");
                cell(f, br ? br : mb__jstr(e, "variant"), 0);
                cell(f, base, 0);
                cell(f, sp, 1);
                cell(f, ci, 1);
                cell(f, mb__fmt_p(mb__jnum(e, "p_value"), p, sizeof p), 1);
                mb__buf ph = MB_BUF_INIT;
                const char *k;
                json_t *v;
                json_object_foreach(json_object_get(e, "phases"), k, v)
                    mb__buf_printf(&ph, "%s%s %.3fx", ph.len ? ", " : "", k,
                                   mb__jnum(v, "speedup"));
                cell(f, ph.len ? ph.data : "-", 0);
                mb__buf_free(&ph);
                row_end(f);
            }
        }
    }
    table_end(f, "Speedup = baseline / variant of the median wall time; CI: "
                 "percentile bootstrap over runs (the unit of replication); "
                 "p: Mann-Whitney U.\n\n");
}
static void phases(fmt *f, const json_t *const *docs, size_t n)
{
    static const char *const cols[] = {"variant", "phase",    "#median",
                                       "#95% CI", "#per run", "#first",
                                       "#runs"};
    walk w = walk_of(docs, n, "exec.phases");
    if (!member_table(f, &w, "Phases", "exec-phases", "exec-phase-table", cols,
                      7))
        return;
    while (next_member(&w)) {
        const json_t *v = w.val;
        char a[32], b[64], c[32], e[32], g[32];
        char name[300];
        snprintf(name, sizeof name, "%s%s",
                 json_is_string(json_object_get(v, "parent")) ? "↳ " : "",
                 w.key);
        row_begin(f);
        cell(f, mb__jstr(w.run, "variant"), 0);
        cell(f, name, 0);
        cell(f, ms(mb__jnum(v, "median_ns"), a, sizeof a), 1);
        cell(f, ci_text(json_object_get(v, "ci95"), b, sizeof b), 1);
        cell(f, num(mb__jnum(v, "occurrences_per_run"), 3, c, sizeof c), 1);
        cell(f, ms(mb__jnum(v, "first_median_ns"), e, sizeof e), 1);
        cell(f, num(mb__jnum(v, "count"), 6, g, sizeof g), 1);
        row_end(f);
    }
    table_end(f, NULL);
}

/* One row of the values table: variant, kind, name and four figures
 * (numbers with sig[k] significant digits, "-" for NAN). */
static void value_row(fmt *f, const json_t *run, const char *kind,
                      const char *name, const double x[4], const int sig[4])
{
    row_begin(f);
    cell(f, mb__jstr(run, "variant"), 0);
    cell(f, kind, 0);
    cell(f, name, 0);
    for (int k = 0; k < 4; k++) {
        char t[32];
        cell(f, num(x[k], sig[k], t, sizeof t), 1);
    }
    row_end(f);
}

/* The throughput rows of a run derived from its counters; the min and max
 * columns hold the 95% CI of the rates. */
static void derived_rows(fmt *f, const json_t *run)
{
    static const char *const dk[][3] = {
        {"samples_per_s", "samples/s", "samples_per_s_ci95"},
        {"time_per_sample_ns", "time per sample (ns)", NULL},
        {"batches_per_s", "batches/s", "batches_per_s_ci95"},
        {"time_per_batch_ns", "time per batch (ns)", NULL}};
    static const int sig[4] = {5, 4, 4, 6};
    const json_t *dv = mb__jget(run, "exec.derived");
    for (size_t q = 0; json_is_object(dv) && q < 4; q++) {
        if (!json_is_number(json_object_get(dv, dk[q][0])))
            continue;
        const json_t *ci = dk[q][2] ? json_object_get(dv, dk[q][2]) : NULL;
        double x[4] = {mb__jnum(dv, dk[q][0]), mb__jnum(ci, "lo"),
                       mb__jnum(ci, "hi"), NAN};
        value_row(f, run, "derived", dk[q][1], x, sig);
    }
}

static void values(fmt *f, const json_t *const *docs, size_t n)
{
    if (!any_run_has(docs, n, "exec.counters", 0) &&
        !any_run_has(docs, n, "exec.metrics", 0) &&
        !any_run_has(docs, n, "exec.derived", 1))
        return;
    static const char *const cols[] = {"variant", "kind", "name", "#median",
                                       "#min",    "#max", "#runs"};
    static const int sig[4] = {5, 5, 5, 6};
    table_begin(f, "Counters, metrics and throughput", "exec-values",
                "exec-value-table", cols, 7);
    walk w = walk_of(docs, n, NULL);
    while (next_run(&w)) {
        for (int k = 0; k < 2; k++) {
            const char *key;
            json_t *v;
            json_object_foreach(
                (json_t *)mb__jget(w.run, k ? "exec.metrics" : "exec.counters"),
                key, v)
            {
                double x[4] = {mb__jnum(v, "median"), mb__jnum(v, "min"),
                               mb__jnum(v, "max"), mb__jnum(v, "runs")};
                value_row(f, w.run, k ? "metric" : "counter", key, x, sig);
            }
        }
        derived_rows(f, w.run);
    }
    table_end(f, "Counters are summed per run, metrics keep their last value; "
                 "median, min and max over runs.  Derived rows: counters per "
                 "second of wall time, min and max columns hold the 95% CI "
                 "over runs.\n\n");
}

static void loops(fmt *f, const json_t *const *docs, size_t n)
{
    static const char *const cols[] = {"variant",        "loop",    "#median",
                                       "#95% CI (runs)", "#p95",    "#p99",
                                       "#iterations",    "#items/s"};
    walk w = walk_of(docs, n, "exec.loops");
    if (!member_table(f, &w, "Loops (per-iteration timings)", "exec-loops",
                      "exec-loop-table", cols, 8))
        return;
    while (next_member(&w)) {
        const json_t *l = json_object_get(w.val, "latency");
        const json_t *ci = json_object_get(l, "median_ci95");
        char a[32], b[64], c[32], e[32], g[32], h[32];
        double est = mb__jnum(ci, "estimate");
        row_begin(f);
        cell(f, mb__jstr(w.run, "variant"), 0);
        cell(f, w.key, 0);
        cell(f, ms(isfinite(est) ? est : mb__jnum(l, "median"), a, sizeof a),
             1);
        cell(f, ci_text(ci, b, sizeof b), 1);
        cell(f, ms(mb__jnum(l, "p95"), c, sizeof c), 1);
        cell(f, ms(mb__jnum(l, "p99"), e, sizeof e), 1);
        cell(f, num(mb__jnum(w.val, "iterations"), 9, g, sizeof g), 1);
        cell(f, num(mb__jnum(w.val, "items_per_s"), 4, h, sizeof h), 1);
        row_end(f);
    }
    table_end(f, NULL);
}

/* The git facts of a run: its own, else its document's; NULL without. */
static const json_t *git_of(const walk *w)
{
    const json_t *g = json_object_get(w->run, "git");
    if (!json_is_string(json_object_get(g, "commit")))
        g = json_object_get(w->docs[w->d], "git");
    return json_is_string(json_object_get(g, "commit")) ? g : NULL;
}

static void git_facts(fmt *f, const json_t *const *docs, size_t n)
{
    int any = 0;
    for (size_t d = 0; d < n; d++)
        any |= json_is_string(mb__jget(docs[d], "git.commit"));
    walk w = walk_of(docs, n, NULL);
    while (!any && next_run(&w))
        any = json_is_string(mb__jget(w.run, "git.commit"));
    if (!any)
        return;
    static const char *const cols[] = {"variant", "branch", "resolved from",
                                       "commit", "commit date"};
    table_begin(f, "Git", "exec-git", "exec-git-table", cols, 5);
    w = walk_of(docs, n, NULL);
    while (next_run(&w)) {
        const json_t *g = git_of(&w);
        if (!g)
            continue;
        char c[16];
        snprintf(c, sizeof c, "%.12s", mb__jstr(g, "commit"));
        row_begin(f);
        cell(f, mb__jstr(w.run, "variant"), 0);
        cell(f, mb__jstr(g, "branch"), 0);
        cell(f, mb__jstr(g, "ref") ? mb__jstr(g, "ref") : mb__jstr(g, "branch"),
             0);
        cell(f, c, 0);
        cell(f, mb__jstr(g, "commit_date"), 0);
        row_end(f);
    }
    table_end(f, NULL);
}

/* The median of a top-level phase (NAN for a nested one). */
static double top_median(const json_t *v)
{
    return json_is_string(json_object_get(v, "parent"))
               ? NAN
               : mb__jnum(v, "median_ns");
}

/* A horizontal bar per (phase, variant) with its CI: where the time goes.
 * false (nothing drawn) without top-level phases or with over 200. */
static bool phase_chart(mb__buf *b, const json_t *const *docs, size_t n)
{
    size_t rows = 0;
    double hi = 0;
    walk w = walk_of(docs, n, "exec.phases");
    while (next_member(&w)) {
        double m = top_median(w.val), h = mb__jnum(w.val, "ci95.hi");
        if (!isfinite(m))
            continue;
        rows++;
        hi = fmax(hi, fmax(m, isfinite(h) ? h : m));
    }
    if (!rows || rows > 200 || hi <= 0)
        return false;
    hi = hi / 1e6 * 1.05;
    double lo0 = 0;
    mb__svg_nice_range(&lo0, &hi);
    mb__svg s;
    mb__svg_begin(&s, b, "chart-phases", "Top-level phases: median per run",
                  900, 12 + 44 + 24.0 * (double)rows);
    s.ml = 260;
    s.x = (mb__svg_axis){0, hi, 0, "median time per run (ms)"};
    s.y = (mb__svg_axis){0, (double)rows, 0, NULL};
    mb__svg_axes(&s, 1);
    size_t row = 0, var = 0;
    w = walk_of(docs, n, NULL);
    while (next_run(&w)) {
        /* one colour per run, whether it has phases or not */
        const char *col = mb__svg_color(var++);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)mb__jget(w.run, "exec.phases"), k, v)
        {
            double m = top_median(v);
            if (!isfinite(m))
                continue;
            double y = s.mt + 24.0 * (double)row++;
            char label[300], tip[700];
            snprintf(label, sizeof label, "%.40s · %.40s", k,
                     mb__jstr(w.run, "variant") ? mb__jstr(w.run, "variant")
                                                : "?");
            mb__buf_puts(b, "<g>");
            mb__svg_text(&s, s.ml - 8, y + 15, "end", "rowlabel", label);
            mb__svg_title(b, label);
            mb__buf_puts(b, "</g>");
            snprintf(tip, sizeof tip, "%s: median %.3f ms per run", label,
                     m / 1e6);
            double a = mb__svg_px(&s, 0), c = mb__svg_px(&s, m / 1e6);
            mb__buf_printf(b,
                           "<rect class=\"bar\" fill=\"%s\" x=\"%.1f\" "
                           "y=\"%.1f\" width=\"%.1f\" height=\"14\">",
                           col, a, y + 4, fmax(c - a, 1));
            mb__svg_title(b, tip);
            mb__buf_puts(b, "</rect>");
            double l = mb__jnum(v, "ci95.lo"), h = mb__jnum(v, "ci95.hi");
            if (isfinite(l) && isfinite(h) && h > l) {
                double pl = mb__svg_px(&s, l / 1e6),
                       ph = mb__svg_px(&s, h / 1e6);
                mb__buf_printf(
                    b,
                    "<g class=\"whisker\"><path d=\"M%.1f %.1f V%.1f M%.1f "
                    "%.1f H%.1f M%.1f %.1f V%.1f\"/></g>",
                    pl, y + 6, y + 16, pl, y + 11, ph, ph, y + 6, y + 16);
            }
        }
    }
    mb__svg_end(&s, "Whiskers: 95% CI of the median over runs (binomial order "
                    "statistics).");
    return true;
}

/* Every section; with expect (HTML), the phase chart too, its id
 * appended to expect. */
static void sections(fmt *f, const json_t *const *docs, size_t n,
                     mb__buf *expect)
{
    requirements(f, docs, n);
    if (!any_run_has(docs, n, "exec", 1))
        return;
    speedups(f, docs, n);
    phases(f, docs, n);
    if (expect && phase_chart(f->b, docs, n)) {
        mb__buf_puts(expect, expect->len ? " " : "");
        mb__buf_puts(expect, "chart-phases");
    }
    loops(f, docs, n);
    values(f, docs, n);
    git_facts(f, docs, n);
}

void mb__md_exec_sections(mb__buf *b, const json_t *const *docs, size_t n)
{
    fmt f = {b, 0};
    sections(&f, docs, n, NULL);
}

void mb__html_exec_sections(mb__buf *b, const json_t *const *docs, size_t n,
                            mb__buf *expect)
{
    fmt f = {b, 1};
    sections(&f, docs, n, expect);
}
