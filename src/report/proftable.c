/* proftable.c - the per-operator tables of a profile in Markdown and HTML
 * (proftable.h). */
#include "report/proftable.h"

#include "report/profprint.h"
#include "report/rutil.h"

#include <stdbool.h>

#include <math.h>
#include <string.h>

typedef enum col_kind {
    COL_TEXT,   /* a string, escaped */
    COL_NUM,    /* a number divided by div, printed with fmt */
    COL_SHARE,  /* a fraction shown as a percentage (a bar in HTML) */
    COL_SHAPES, /* an array of {dtype, shape}: "float[1,16] float[32]" */
    COL_FLOPS,  /* a count divided by div; absent when not > 0 */
    COL_SI,     /* a count with its unit (fmt) scaled: "4.089 GFLOP" */
} col_kind;

/* One column: the row's key, how it is shown, and its heading in each
 * format (NULL: the format leaves the column out). */
typedef struct col {
    const char *key;
    col_kind kind;
    const char *fmt;
    double div;
    const char *head[2]; /* [MB_PF_MD], [MB_PF_HTML] */
} col;

static const col op_type_cols[] = {
    {"op_type", COL_TEXT, NULL, 1, {"op type", "op type"}},
    {"calls_per_run", COL_NUM, "%.1f", 1, {"calls/run", "calls/run"}},
    {"per_run_ns", COL_NUM, "%.3f", 1e6, {"per run ms", "per run ms"}},
    {"total_ns", COL_NUM, "%.3f", 1e6, {"total ms", NULL}},
    {"mean_ns", COL_NUM, "%.1f", 1e3, {"mean us", "mean us"}},
    {"median_ns", COL_NUM, "%.1f", 1e3, {"median us", "median us"}},
    {"share", COL_SHARE, NULL, 1, {"share", "share of run"}},
    {"flops_per_run", COL_FLOPS, "%.3f", 1e9, {"GFLOP/run", "GFLOP/run"}},
    {"gflops_per_s", COL_NUM, "%.1f", 1, {"GFLOP/s", "GFLOP/s"}},
    {"peak_share", COL_SHARE, NULL, 1, {"share of peak", "share of peak"}},
};

static const col node_cols[] = {
    {"name", COL_TEXT, NULL, 1, {"node", "node"}},
    {"op_type", COL_TEXT, NULL, 1, {"op type", "op type"}},
    {"provider", COL_TEXT, NULL, 1, {"provider", "provider"}},
    {"per_run_ns", COL_NUM, "%.3f", 1e6, {"per run ms", "per run ms"}},
    {"median_ns", COL_NUM, "%.1f", 1e3, {"median us", "median us"}},
    {"share", COL_SHARE, NULL, 1, {"share", "share"}},
    {"inputs", COL_SHAPES, NULL, 1, {"inputs", "inputs"}},
    {"outputs", COL_SHAPES, NULL, 1, {"outputs", "outputs"}},
};

static const col cmp_row_cols[] = {
    {"op_type", COL_TEXT, NULL, 1, {"op type", "op type"}},
    {"a_ns", COL_NUM, "%.3f", 1e6, {"A ms", "A ms"}},
    {"b_ns", COL_NUM, "%.3f", 1e6, {"B ms", "B ms"}},
    {"delta_ns", COL_NUM, "%+.3f", 1e6, {"B - A ms", "B - A ms"}},
    {"contribution", COL_SHARE, NULL, 1, {"contribution", "contribution"}},
};

static const col cmp_pair_cols[] = {
    {"from", COL_TEXT, NULL, 1, {NULL, "in A"}},
    {"to", COL_TEXT, NULL, 1, {NULL, "in B"}},
    {"a_ns", COL_NUM, "%.3f", 1e6, {NULL, "A ms"}},
    {"b_ns", COL_NUM, "%.3f", 1e6, {NULL, "B ms"}},
    {"speedup", COL_NUM, "%.2fx", 1, {NULL, "speedup"}},
};

static const struct {
    const col *cols;
    size_t n;
} tables[] = {
    [MB_PT_OP_TYPES] = {op_type_cols,
                        sizeof op_type_cols / sizeof *op_type_cols},
    [MB_PT_NODES] = {node_cols, sizeof node_cols / sizeof *node_cols},
    [MB_PT_CMP_ROWS] = {cmp_row_cols,
                        sizeof cmp_row_cols / sizeof *cmp_row_cols},
    [MB_PT_CMP_PAIRS] = {cmp_pair_cols,
                         sizeof cmp_pair_cols / sizeof *cmp_pair_cols},
};

void mb__profile_cell_num(mb__buf *b, mb__pformat f, const char *fmt, double x)
{
    if (f == MB_PF_HTML)
        mb__buf_puts(b, "<td class=n>");
    if (isfinite(x))
        mb__buf_printf(b, fmt, x);
    else
        mb__buf_puts(b, "-");
    if (f == MB_PF_HTML)
        mb__buf_puts(b, "</td>");
}

void mb__profile_cell_share(mb__buf *b, mb__pformat f, double share)
{
    if (f == MB_PF_MD) {
        mb__profile_cell_num(b, f, "%.1f%%", 100.0 * share);
    } else if (!isfinite(share)) {
        mb__buf_puts(b, "<td>-</td>");
    } else {
        double w = share < 0 ? 0 : share > 1 ? 100 : 100 * share;
        mb__buf_printf(b,
                       "<td><span class=bar style=\"width:%.1fpx\"></span> "
                       "%.1f%%</td>",
                       w * 1.5, 100 * share);
    }
}

static void esc(mb__buf *b, mb__pformat f, const char *s)
{
    if (f == MB_PF_MD)
        mb__md_escape(b, s); /* NULL: "-" */
    else
        mb__html_escape(b, s); /* NULL: nothing */
}

/* "float[1,16] float[32]" (Markdown escapes the brackets). */
static void shapes(mb__buf *b, mb__pformat f, const json_t *arr)
{
    size_t i;
    const json_t *s;
    json_array_foreach(arr, i, s)
    {
        if (i)
            mb__buf_puts(b, " ");
        esc(b, f, mb__jstr(s, "dtype"));
        bool md = f == MB_PF_MD; /* Markdown escapes the brackets */
        mb__put_dims(b, json_object_get(s, "shape"), md ? "\\[" : "[",
                     md ? "\\]" : "]");
    }
}

static void cell(mb__buf *b, mb__pformat f, const col *c, const json_t *r)
{
    double x = mb__jnum(r, c->key);
    const char *basis;
    switch (c->kind) {
    case COL_NUM:
        mb__profile_cell_num(b, f, c->fmt, x / c->div);
        return;
    case COL_SHARE:
        mb__profile_cell_share(b, f, x);
        return;
    case COL_FLOPS:
        /* Markdown tells "no estimate for this op type" from "none" */
        basis = mb__jstr(r, "flops_basis");
        if (f == MB_PF_MD && !(x > 0) && basis && strcmp(basis, "unknown") == 0)
            mb__buf_puts(b, "unknown");
        else
            mb__profile_cell_num(b, f, c->fmt, x > 0 ? x / c->div : NAN);
        return;
    case COL_SI:
        mb__buf_puts(b, f == MB_PF_HTML ? "<td class=n>" : "");
        mb__profile_si_count(b, x, c->fmt);
        mb__buf_puts(b, f == MB_PF_HTML ? "</td>" : "");
        return;
    case COL_TEXT:
    case COL_SHAPES:
        break;
    }
    if (f == MB_PF_HTML)
        mb__buf_puts(b, "<td>");
    if (c->kind == COL_TEXT)
        esc(b, f, mb__jstr(r, c->key));
    else
        shapes(b, f, json_object_get(r, c->key));
    if (f == MB_PF_HTML)
        mb__buf_puts(b, "</td>");
}

static void header(mb__buf *b, mb__pformat f, const col *cols, size_t n)
{
    const char *sep = f == MB_PF_MD ? "| " : "<table><tr><th>";
    for (size_t i = 0; i < n; i++)
        if (cols[i].head[f]) {
            mb__buf_puts(b, sep);
            mb__buf_puts(b, cols[i].head[f]);
            sep = f == MB_PF_MD ? " | " : "</th><th>";
        }
    if (f == MB_PF_HTML) {
        mb__buf_puts(b, "</th></tr>\n");
        return;
    }
    mb__buf_puts(b, " |\n|");
    for (size_t i = 0; i < n; i++)
        if (cols[i].head[f])
            mb__buf_puts(b,
                         cols[i].kind == COL_TEXT || cols[i].kind == COL_SHAPES
                             ? "---|"
                             : "--:|");
    mb__buf_puts(b, "\n");
}

void mb__profile_table(mb__buf *b, mb__pformat f, mb__ptable t,
                       const json_t *rows, size_t max)
{
    const col *cols = tables[t].cols;
    size_t n = tables[t].n, i;
    const json_t *r;
    header(b, f, cols, n);
    json_array_foreach(rows, i, r)
    {
        if (max && i >= max)
            break;
        mb__buf_puts(b, f == MB_PF_MD ? "| " : "<tr>");
        const char *sep = "";
        for (size_t k = 0; k < n; k++)
            if (cols[k].head[f]) {
                mb__buf_puts(b, sep);
                cell(b, f, &cols[k], r);
                sep = f == MB_PF_MD ? " | " : "";
            }
        mb__buf_puts(b, f == MB_PF_MD ? " |\n" : "</tr>\n");
    }
    mb__buf_puts(b, f == MB_PF_MD ? "\n" : "</table>\n");
}

/* The rows of the work table: figures of the whole profile. */
static const struct figure {
    const char *label; /* the row's heading */
    const char *key;   /* dotted path in the profile */
    col_kind kind;     /* COL_NUM, COL_SHARE or COL_SI */
    const char *fmt;   /* printf format, or the unit of COL_SI */
    const char *aside; /* a key whose text follows the label in (), or NULL */
    bool md_only;
} work_rows[] = {
    {"FLOPs per inference", "work.flops_per_run", COL_SI, "FLOP", NULL, false},
    {"MACs per inference", "work.macs_per_run", COL_SI, "MAC", NULL, false},
    {"kernel time without an estimate", "work.unestimated_share", COL_SHARE,
     NULL, NULL, true},
    {"achieved GFLOP/s", "work.gflops_per_s", COL_NUM, "%.1f", NULL, false},
    {"machine peak GFLOP/s", "work.peak_gflops_per_s", COL_NUM, "%.1f",
     "work.peak_basis", false},
    {"share of peak", "work.peak_share", COL_SHARE, NULL, NULL, false},
    {"memory bandwidth (triad, GB/s)", "machine.triad.all_cores_gbps", COL_NUM,
     "%.1f", NULL, false},
};

void mb__profile_work_table(mb__buf *b, mb__pformat f, const json_t *profile)
{
    bool md = f == MB_PF_MD;
    mb__buf_puts(b, md ? "| figure | value |\n|---|--:|\n" : "<table>");
    for (size_t i = 0; i < sizeof work_rows / sizeof *work_rows; i++) {
        const struct figure *w = &work_rows[i];
        if (w->md_only && !md)
            continue;
        mb__buf_puts(b, md ? "| " : i ? "\n<tr><td>" : "<tr><td>");
        mb__buf_puts(b, w->label);
        const char *aside = w->aside ? mb__jstr(profile, w->aside) : NULL;
        if (w->aside && (aside || !md)) { /* HTML always has the () */
            mb__buf_puts(b, " (");
            esc(b, f, aside);
            mb__buf_puts(b, ")");
        }
        mb__buf_puts(b, md ? " | " : "</td>");
        const col c = {w->key, w->kind, w->fmt, 1, {NULL, NULL}};
        cell(b, f, &c, profile);
        mb__buf_puts(b, md ? " |\n" : "</tr>");
    }
    mb__buf_puts(b, md ? "\n" : "</table>\n");
}

void mb__profile_cmp_sentence(mb__buf *b, mb__pformat f, const json_t *c)
{
    bool md = f == MB_PF_MD;
    const char *run = md ? "model\\_run" : "model_run";
    mb__buf_puts(b, "A = ");
    esc(b, f, mb__jstr(c, "a"));
    mb__buf_printf(b, ": %s %.3f ms; B = ", run,
                   mb__jnum(c, "a_model_run_ns") / 1e6);
    esc(b, f, mb__jstr(c, "b"));
    mb__buf_printf(b, ": %s %.3f ms", run, mb__jnum(c, "b_model_run_ns") / 1e6);
    double sp = mb__jnum(c, "speedup");
    if (isfinite(sp) && sp > 0)
        mb__buf_printf(b, "; %sB is %.2fx %s than A%s", md ? "**" : "<b>",
                       sp >= 1 ? sp : 1 / sp, sp >= 1 ? "faster" : "slower",
                       md ? "**" : "</b>");
}

void mb__profile_cmp_body(mb__buf *b, mb__pformat f, const json_t *c)
{
    bool md = f == MB_PF_MD;
    mb__profile_cmp_sentence(b, f, c);
    mb__buf_puts(b, md ? ".\n\n"
                       : " (mean profiled time per run).</p>\n<h2>Where the "
                         "change comes from</h2>\n");
    mb__profile_table(b, f, MB_PT_CMP_ROWS, json_object_get(c, "rows"), 0);
    const json_t *q = json_object_get(c, "qdq");
    mb__buf_printf(b,
                   "%sQuantize/DequantizeLinear: A %.3f ms, B %.3f ms per "
                   "run.%s\n",
                   md ? "" : "<p>", mb__jnum(q, "a_ns") / 1e6,
                   mb__jnum(q, "b_ns") / 1e6, md ? "" : "</p>");
}
