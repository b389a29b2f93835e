/* vreport.c - Markdown and HTML reports of a validation (see vreport.h).
 * One walk over the document drives both formats through a few block
 * primitives (heading, paragraph, list item, table), each escaping the
 * document's strings for its format. */
#include "report/vreport.h"

#include "accuracy/metrics.h"
#include "core/err.h"
#include "report/csv.h"
#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct vw {
    mb__buf *b;
    int html;
    int in_list;
} vw;

static void text(vw *w, const char *s)
{
    if (w->html)
        mb__html_escape(w->b, s ? s : "-");
    else
        mb__md_escape(w->b, s ? s : "-");
}

static void end_list(vw *w)
{
    if (w->in_list)
        mb__buf_puts(w->b, w->html ? "</ul>\n" : "\n");
    w->in_list = 0;
}

static void heading(vw *w, int level, const char *s)
{
    end_list(w);
    if (w->html) {
        mb__buf_printf(w->b, "<h%d>", level);
        text(w, s);
        mb__buf_printf(w->b, "</h%d>\n", level);
    } else {
        for (int i = 0; i < level; i++)
            mb__buf_putc(w->b, '#');
        mb__buf_putc(w->b, ' ');
        text(w, s);
        mb__buf_puts(w->b, "\n\n");
    }
}

/* A paragraph "LABEL: value" (label in bold). */
static void field(vw *w, const char *label, const char *value)
{
    end_list(w);
    mb__buf_puts(w->b, w->html ? "<p><b>" : "**");
    text(w, label);
    mb__buf_puts(w->b, w->html ? ":</b> " : ":** ");
    text(w, value);
    mb__buf_puts(w->b, w->html ? "</p>\n" : "\n\n");
}

static void item(vw *w, const char *s)
{
    if (!w->in_list)
        mb__buf_puts(w->b, w->html ? "<ul>\n" : "");
    w->in_list = 1;
    mb__buf_puts(w->b, w->html ? "<li>" : "- ");
    text(w, s);
    mb__buf_puts(w->b, w->html ? "</li>\n" : "\n");
}

static void row(vw *w, const char *const *cells, size_t n, int header)
{
    if (w->html) {
        mb__buf_puts(w->b, "<tr>");
        for (size_t i = 0; i < n; i++) {
            mb__buf_puts(w->b, header ? "<th>" : "<td>");
            text(w, cells[i]);
            mb__buf_puts(w->b, header ? "</th>" : "</td>");
        }
        mb__buf_puts(w->b, "</tr>\n");
        return;
    }
    mb__buf_puts(w->b, "|");
    for (size_t i = 0; i < n; i++) {
        mb__buf_putc(w->b, ' ');
        text(w, cells[i]);
        mb__buf_puts(w->b, " |");
    }
    mb__buf_putc(w->b, '\n');
    if (header) {
        mb__buf_puts(w->b, "|");
        for (size_t i = 0; i < n; i++)
            mb__buf_puts(w->b, "---|");
        mb__buf_putc(w->b, '\n');
    }
}

static void table_start(vw *w, const char *const *cols, size_t n)
{
    end_list(w);
    if (w->html)
        mb__buf_puts(w->b, "<table>\n");
    row(w, cols, n, 1);
}

static void table_end(vw *w)
{
    mb__buf_puts(w->b, w->html ? "</table>\n" : "\n");
}

/* A metric value of the document as text ("inf", "n/a", 6 digits). */
static const char *metric(const json_t *o, const char *key, char *buf,
                          size_t len)
{
    return mb__json_metric_text(json_object_get(o, key), "yes", "no", buf, len);
}

/* PSNR as text: "identical" when it is infinite (no difference). */
static const char *psnr_text(const json_t *o, char *buf, size_t len)
{
    const char *t = metric(o, "psnr", buf, len);
    return strcmp(t, "inf") ? t : "identical";
}

static void shape_of(const json_t *m, char *buf, size_t len)
{
    int64_t dims[MB_MAX_RANK];
    int rank = 0;
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(m, "shape"), i, d)
    {
        if (rank < MB_MAX_RANK)
            dims[rank++] = (int64_t)json_integer_value(d);
    }
    mb_shape_str(dims, rank, buf, len);
}

static void runs_section(vw *w, const json_t *v)
{
    heading(w, 2, "Runs");
    static const char *const cols[] = {"role", "model", "run options"};
    table_start(w, cols, 3);
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(v, "models"), i, m)
    {
        char opts[512];
        size_t off = 0;
        opts[0] = '\0';
        const char *key;
        const json_t *val;
        json_object_foreach((json_t *)json_object_get(m, "options"), key, val)
        {
            if (off < sizeof opts)
                off += (size_t)snprintf(opts + off, sizeof opts - off,
                                        "%s%s=%s", off ? " " : "", key,
                                        json_string_value(val));
        }
        const char *cells[3] = {mb__jstr(m, "role"), mb__jstr(m, "path"),
                                off ? opts : "defaults"};
        row(w, cells, 3, 0);
    }
    table_end(w);
    char buf[160];
    field(w, "Inputs", mb__jstr(v, "inputs"));
    snprintf(buf, sizeof buf, "%.0f samples, batch %.0f, tolerance %g",
             mb__jnum(v, "samples"), mb__jnum(v, "batch"),
             mb__jnum(v, "tolerance"));
    field(w, "Samples", buf);
    if (mb__jstr(v, "labels"))
        field(w, "Labels", mb__jstr(v, "labels"));
    if (mb__jstr(v, "segmentation.masks"))
        field(w, "Masks", mb__jstr(v, "segmentation.masks"));
}

static void verdict_section(vw *w, const json_t *v)
{
    heading(w, 2, "Verdict");
    const char *rule = mb__jstr(v, "rule");
    field(w, "Class scores", mb__jstr(v, "output_choice.reason"));
    char rbuf[200];
    size_t rl = rule ? strcspn(rule, "+") : 0;
    snprintf(rbuf, sizeof rbuf, "%s%s",
             rule && rl == 6 && !strncmp(rule, "labels", 6)
                 ? "top-1 accuracy against the labels on the class "
                   "scores, gates on every judged output"
             : rule && rl == 14 && !strncmp(rule, "top1_agreement", 14)
                 ? "top-1 agreement on the class scores, gates on every "
                   "judged output"
                 : "gates on every judged output (no class scores)",
             rule && strstr(rule, "masks")
                 ? "; mean IoU and Dice against the masks on the "
                   "segmentation output"
                 : "");
    field(w, "Rule", rbuf);
    if (mb__jstr(v, "precision")) {
        char buf[256];
        snprintf(buf, sizeof buf, "default gates for %s (%s)",
                 mb__jstr(v, "precision"),
                 mb__jstr(v, "precision_reason")
                     ? mb__jstr(v, "precision_reason")
                     : "");
        field(w, "Gates", buf);
    }
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(v, "criteria"), i, s)
        item(w, json_string_value(s));
    json_array_foreach(json_object_get(v, "gates"), i, s)
    {
        char line[256];
        const char *why = mb__jstr(s, "reason");
        int ok = json_is_true(json_object_get(s, "passed"));
        snprintf(line, sizeof line, "%s %s%s%s", ok ? "PASS" : "FAIL",
                 mb__jstr(s, "gate"), why && !ok ? " - " : "",
                 why && !ok ? why : "");
        item(w, line);
    }
    end_list(w);

    heading(w, 3, "Per output");
    static const char *const cols[] = {"output", "judged as", "check", "value",
                                       "result"};
    table_start(w, cols, 5);
    const json_t *o;
    json_array_foreach(json_object_get(v, "per_output"), i, o)
    {
        const char *name = mb__jstr(o, "name");
        const json_t *passed = json_object_get(o, "passed");
        const char *as = json_is_null(passed) ? "not judged (--output)"
                         : json_is_true(json_object_get(o, "classifier"))
                             ? "class scores"
                             : "gates";
        const char *verdict = json_is_null(passed)   ? "-"
                              : json_is_true(passed) ? "PASS"
                                                     : "FAIL";
        const char *cells[5] = {name, as, "(all checks)", "", verdict};
        row(w, cells, 5, 0);
        size_t k;
        const json_t *c;
        json_array_foreach(json_object_get(o, "checks"), k, c)
        {
            char val[64];
            const char *r = mb__jstr(c, "result");
            const char *cc[5] = {name, as, mb__jstr(c, "check"),
                                 metric(c, "value", val, sizeof val),
                                 r && strcmp(r, "pass") == 0   ? "pass"
                                 : r && strcmp(r, "fail") == 0 ? "FAIL"
                                                               : "n/a"};
            row(w, cc, 5, 0);
        }
    }
    table_end(w);
}

static void metrics_section(vw *w, const json_t *v)
{
    heading(w, 2, "Metrics");
    static const char *const cols[] = {
        "output",  "shape", "dtypes",  "rel_l2",          "cosine",
        "max_abs", "mae",   "psnr dB", "top-1 agreement", "new NaN/Inf"};
    table_start(w, cols, 10);
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(v, "outputs"), i, m)
    {
        char sh[128], dt[64], b[7][64];
        shape_of(m, sh, sizeof sh);
        snprintf(dt, sizeof dt, "%s / %s", mb__jstr(m, "dtype_baseline"),
                 mb__jstr(m, "dtype_candidate"));
        const char *cells[10] = {mb__jstr(m, "name"),
                                 sh,
                                 dt,
                                 metric(m, "rel_l2", b[0], sizeof b[0]),
                                 metric(m, "cosine", b[1], sizeof b[1]),
                                 metric(m, "max_abs", b[2], sizeof b[2]),
                                 metric(m, "mae", b[3], sizeof b[3]),
                                 psnr_text(m, b[4], sizeof b[4]),
                                 metric(m, "top1_agreement", b[5], sizeof b[5]),
                                 metric(m, "nonfinite_new", b[6], sizeof b[6])};
        row(w, cells, 10, 0);
    }
    table_end(w);
    const json_t *heat = json_object_get(v, "heatmap");
    char cap[768];
    if (json_is_object(heat) && w->html)
        mb__html_heatmap(w->b, heat, NULL);
    else if (json_is_object(heat))
        field(w, "Heatmap (in the HTML report)",
              mb__heatmap_caption(heat, cap, sizeof cap));
    const json_t *acc = json_object_get(v, "accuracy");
    if (json_is_object(acc)) {
        char line[320];
        snprintf(line, sizeof line,
                 "on %s: baseline top-1 %.4f top-5 %.4f, candidate top-1 "
                 "%.4f top-5 %.4f (delta %+.4f)",
                 mb__jstr(acc, "output"), mb__jnum(acc, "baseline.top1"),
                 mb__jnum(acc, "baseline.top5"),
                 mb__jnum(acc, "candidate.top1"),
                 mb__jnum(acc, "candidate.top5"), mb__jnum(acc, "top1_delta"));
        field(w, "Accuracy against the labels", line);
    }
    const json_t *seg = json_object_get(v, "segmentation");
    if (json_is_object(seg)) {
        char line[320];
        snprintf(line, sizeof line,
                 "on %s (%.0f classes): baseline mean IoU %.4f mean Dice "
                 "%.4f, candidate mean IoU %.4f mean Dice %.4f (delta %+.4f, "
                 "%+.4f)",
                 mb__jstr(seg, "output"), mb__jnum(seg, "baseline.classes"),
                 mb__jnum(seg, "baseline.mean_iou"),
                 mb__jnum(seg, "baseline.mean_dice"),
                 mb__jnum(seg, "candidate.mean_iou"),
                 mb__jnum(seg, "candidate.mean_dice"),
                 mb__jnum(seg, "mean_iou_delta"),
                 mb__jnum(seg, "mean_dice_delta"));
        field(w, "Segmentation against the masks", line);
    }
}

static void body(vw *w, const json_t *doc, const json_t *v)
{
    int passed = json_is_true(json_object_get(v, "passed"));
    char title[64];
    snprintf(title, sizeof title, "mbench validate: %s",
             passed ? "PASS" : "FAIL");
    heading(w, 1, title);
    char line[1024];
    snprintf(line, sizeof line, "%s %s against baseline %s%s",
             passed ? "PASS" : "FAIL", mb__jstr(v, "candidate"),
             mb__jstr(v, "baseline"),
             json_is_true(json_object_get(v, "synthetic_inputs"))
                 ? " (RANDOM INPUTS ONLY)"
                 : "");
    field(w, "Verdict", line);
    size_t i;
    const json_t *s;
    if (json_array_size(json_object_get(doc, "warnings"))) {
        heading(w, 2, "Warnings");
        json_array_foreach(json_object_get(doc, "warnings"), i, s)
            item(w, json_string_value(s));
        end_list(w);
    }
    runs_section(w, v);
    verdict_section(w, v);
    metrics_section(w, v);
    snprintf(
        line, sizeof line, "mbench %s, %s: %s",
        mb__jstr(doc, "mbench.version") ? mb__jstr(doc, "mbench.version") : "?",
        mb__jstr(doc, "created_utc") ? mb__jstr(doc, "created_utc") : "?",
        mb__jstr(doc, "command_line") ? mb__jstr(doc, "command_line") : "");
    field(w, "Made by", line);
}

/* ---- diff ------------------------------------------------------------- */

/* The verdict word of a diff: PASS or FAIL under gates, DONE without. */
static const char *diff_word(const json_t *doc)
{
    if (json_array_size(json_object_get(doc, "gates")) == 0)
        return "DONE";
    return json_is_true(json_object_get(doc, "passed")) ? "PASS" : "FAIL";
}

static void diff_body(vw *w, const json_t *doc)
{
    char line[1024];
    snprintf(line, sizeof line, "mbench diff: %s", diff_word(doc));
    heading(w, 1, line);
    snprintf(line, sizeof line, "%s: %zu tensor%s of %s against baseline %s%s",
             diff_word(doc), json_array_size(json_object_get(doc, "outputs")),
             json_array_size(json_object_get(doc, "outputs")) == 1 ? "" : "s",
             mb__jstr(doc, "candidate") ? mb__jstr(doc, "candidate") : "?",
             mb__jstr(doc, "baseline") ? mb__jstr(doc, "baseline") : "?",
             json_array_size(json_object_get(doc, "gates")) ? ""
                                                            : ", no gates");
    field(w, "Verdict", line);
    size_t i, k;
    const json_t *g, *r;
    if (json_array_size(json_object_get(doc, "gates"))) {
        heading(w, 2, "Gates");
        json_array_foreach(json_object_get(doc, "gates"), i, g)
        {
            json_array_foreach(json_object_get(g, "results"), k, r)
            {
                char val[64];
                const char *res = mb__jstr(r, "result");
                snprintf(line, sizeof line, "%s %s on %s: %s",
                         res && !strcmp(res, "pass")   ? "PASS"
                         : res && !strcmp(res, "fail") ? "FAIL"
                                                       : "n/a",
                         mb__jstr(g, "gate"), mb__jstr(r, "output"),
                         metric(r, "value", val, sizeof val));
                item(w, line);
            }
        }
        end_list(w);
    }
    metrics_section(w, doc);
    snprintf(
        line, sizeof line, "mbench %s: %s",
        mb__jstr(doc, "mbench.version") ? mb__jstr(doc, "mbench.version") : "?",
        mb__jstr(doc, "command_line") ? mb__jstr(doc, "command_line") : "");
    field(w, "Made by", line);
}

/* Writes a report in one format: Markdown, or a whole HTML page titled
 * title (head, body, the document embedded for tools). */
static mb_status page(const json_t *doc, const json_t *v, const char *title,
                      mb__buf *out, int html, mb_err *err)
{
    vw w = {out, html, 0};
    if (html) {
        mb__buf_puts(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
            "charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-"
            "Policy\" content=\"default-src 'none'; style-src "
            "'unsafe-inline'; img-src data:\">\n<meta name=\"color-scheme\" "
            "content=\"light dark\">\n<title>");
        mb__html_escape(out, title);
        mb__buf_puts(out, "</title>\n<style>body{font:14px/1.45 system-ui,"
                          "sans-serif;margin:2em auto;max-width:70em;padding:0 "
                          "1em}table{border-collapse:collapse;margin:.5em 0 "
                          "1.5em}td,th{border:1px solid #8886;padding:.2em "
                          ".6em;text-align:left}th{background:#8882}</style>"
                          "</head>\n<body>\n");
    }
    if (v)
        body(&w, doc, v);
    else
        diff_body(&w, doc);
    end_list(&w);
    if (html) {
        mb__buf_puts(out, "<script type=\"application/json\" "
                          "id=\"mbench-data\">\n");
        mb__json_script_embed(out, doc);
        mb__buf_puts(out, "\n</script>\n</body></html>\n");
    }
    if (out->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory writing the report");
    return MB_OK;
}

/* A validation's report (doc's "validation" object) in one format. */
static mb_status render(const json_t *doc, mb__buf *out, int html, mb_err *err)
{
    const json_t *v = json_object_get(doc, "validation");
    if (!json_is_object(v))
        return mb__fail(err, MB_EINVAL,
                        "not a validation document (no \"validation\" "
                        "object); write it with mbench validate --json");
    return page(doc, v,
                json_is_true(json_object_get(v, "passed"))
                    ? "mbench validate: PASS"
                    : "mbench validate: FAIL",
                out, html, err);
}

mb_status mb__validation_md(const json_t *doc, mb__buf *out, mb_err *err)
{
    return render(doc, out, 0, err);
}

mb_status mb__validation_html(const json_t *doc, mb__buf *out, mb_err *err)
{
    return render(doc, out, 1, err);
}

int mb__diff_doc_is(const json_t *doc)
{
    const char *s = mb__jstr(doc, "schema");
    return s && !strcmp(s, "mbench.diff/1");
}

static mb_status diff_render(const json_t *doc, mb__buf *out, int html,
                             mb_err *err)
{
    if (!mb__diff_doc_is(doc))
        return mb__fail(err, MB_EINVAL,
                        "not a diff document (schema mbench.diff/1); write "
                        "it with mbench diff --json");
    char title[64];
    snprintf(title, sizeof title, "mbench diff: %s", diff_word(doc));
    return page(doc, NULL, title, out, html, err);
}

mb_status mb__diff_md(const json_t *doc, mb__buf *out, mb_err *err)
{
    return diff_render(doc, out, 0, err);
}

mb_status mb__diff_html(const json_t *doc, mb__buf *out, mb_err *err)
{
    return diff_render(doc, out, 1, err);
}

/* The scalar metrics of a tensor, in the CSV's order. */
static const char *const diff_csv_cols[] = {"count",
                                            "mae",
                                            "mse",
                                            "rmse",
                                            "psnr",
                                            "data_range",
                                            "cosine",
                                            "pearson",
                                            "ssim",
                                            "max_abs",
                                            "rel_l2",
                                            "allclose_fail",
                                            "nonfinite_new",
                                            "top1_agreement",
                                            "top5_agreement",
                                            "kl_mean",
                                            "kl_max"};

void mb__diff_csv(const json_t *doc, mb__buf *out)
{
    size_t nc = sizeof diff_csv_cols / sizeof *diff_csv_cols;
    mb__buf_puts(out, "tensor,shape,dtype_baseline,dtype_candidate");
    for (size_t c = 0; c < nc; c++)
        mb__buf_printf(out, ",%s", diff_csv_cols[c]);
    mb__buf_putc(out, '\n');
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(doc, "outputs"), i, m)
    {
        char sh[128];
        shape_of(m, sh, sizeof sh);
        mb__csv_field(out, mb__jstr(m, "name"));
        mb__buf_putc(out, ',');
        mb__csv_field(out, sh);
        mb__buf_putc(out, ',');
        mb__csv_field(out, mb__jstr(m, "dtype_baseline"));
        mb__buf_putc(out, ',');
        mb__csv_field(out, mb__jstr(m, "dtype_candidate"));
        for (size_t c = 0; c < nc; c++) {
            const json_t *x = json_object_get(m, diff_csv_cols[c]);
            if (json_is_string(x)) { /* "inf" and "nan" are stored so */
                mb__buf_putc(out, ',');
                mb__csv_field(out, json_string_value(x));
            } else
                mb__csv_num(out, "%.9g",
                            json_is_number(x) ? json_number_value(x) : NAN);
        }
        mb__buf_putc(out, '\n');
    }
}
