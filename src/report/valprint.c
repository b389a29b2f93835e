/* valprint.c - console text of metrics, gates and validations
 * (valprint.h). */
#include "report/valprint.h"

#include "accuracy/metrics.h"
#include "report/rutil.h"

#include <stdbool.h>
#include <string.h>

static const char *g(const json_t *m, const char *key, char *buf, size_t len)
{
    return mb__json_metric_text(json_object_get(m, key), "true", "false", buf,
                                len);
}

/* The lines of mb__metrics_text after the first: a format taking up to
 * five strings and the metric keys that fill them.  A NULL format stands
 * for the max_abs line (it has a position); classifier lines are written
 * only for class scores.  A key "=identical" is ", identical" after an
 * infinite value (PSNR of outputs that do not differ), else nothing. */
static const struct metric_line {
    const char *fmt;
    const char *keys[5];
    bool classifier;
} metric_lines[] = {
    {"  mae %s  mse %s  rmse %s\n", {"mae", "mse", "rmse"}, false},
    {"  psnr %s dB%s (data range %s, %s)\n",
     {"psnr", "=identical", "data_range", "data_range_source"},
     false},
    {"  cosine %s  pearson %s  ssim %s (%s, %s images)\n",
     {"cosine", "pearson", "ssim", "ssim_mode", "ssim_images"},
     false},
    {NULL, {NULL}, false},
    {"  allclose(rtol %s, atol %s): %s of %s elements fail\n",
     {"rtol", "atol", "allclose_fail", "count"},
     false},
    {"  NaN %s / %s  Inf %s / %s (baseline / candidate), new non-finite "
     "%s\n",
     {"nan_baseline", "nan_candidate", "inf_baseline", "inf_candidate",
      "nonfinite_new"},
     false},
    {"  top1 agreement %s  top5 agreement %s  KL mean %s max %s\n",
     {"top1_agreement", "top5_agreement", "kl_mean", "kl_max"},
     true},
};

static void metric_line(mb__buf *f, const json_t *m,
                        const struct metric_line *l)
{
    char b[5][64];
    const char *t[5];
    for (size_t i = 0; i < 5; i++)
        t[i] = !l->keys[i] ? ""
               /* "=identical": a note on the value before when it is inf */
               : l->keys[i][0] == '='
                   ? (i && !strcmp(t[i - 1], "inf") ? ", identical" : "")
                   : g(m, l->keys[i], b[i], sizeof b[i]);
    mb__buf_printf(f, l->fmt, t[0], t[1], t[2], t[3], t[4]);
}

void mb__metrics_text(const json_t *m, mb__buf *f)
{
    char b1[64], b2[64];
    const json_t *name = json_object_get(m, "name");
    mb__buf_printf(f, "%s ", name ? json_string_value(name) : "tensor");
    const char *cn = json_string_value(json_object_get(m, "candidate_name"));
    if (cn)
        mb__buf_printf(f, "(candidate: %s) ", cn);
    mb__put_dims(f, json_object_get(m, "shape"), "[", "]");
    mb__buf_printf(f, " %s vs %s, %s elements\n",
                   json_string_value(json_object_get(m, "dtype_baseline")),
                   json_string_value(json_object_get(m, "dtype_candidate")),
                   g(m, "count", b1, sizeof b1));
    bool classifier = json_is_true(json_object_get(m, "classifier"));
    for (size_t i = 0; i < sizeof metric_lines / sizeof *metric_lines; i++) {
        const struct metric_line *l = &metric_lines[i];
        if (l->fmt && (!l->classifier || classifier)) {
            metric_line(f, m, l);
        } else if (!l->fmt) {
            mb__buf_printf(f, "  max_abs %s", g(m, "max_abs", b1, sizeof b1));
            const json_t *at = json_object_get(m, "max_abs_at");
            if (json_is_array(at)) {
                mb__buf_puts(f, " at ");
                mb__put_dims(f, at, "[", "]");
            }
            mb__buf_printf(f, "  rel_l2 %s\n", g(m, "rel_l2", b2, sizeof b2));
        }
    }
    const json_t *w = json_object_get(m, "worst");
    if (json_object_size(w) > 0) {
        mb__buf_puts(f, "  worst sample:");
        const char *key;
        json_t *o;
        json_object_foreach((json_t *)w, key, o)
        {
            const char *file = json_string_value(json_object_get(o, "file"));
            mb__buf_printf(
                f, " %s #%lld", key,
                (long long)json_integer_value(json_object_get(o, "sample")));
            if (file) { /* the image of an image folder */
                mb__buf_putc(f, ' ');
                mb__console_put(f, file);
            }
            mb__buf_printf(f, " (%s)", g(o, "value", b1, sizeof b1));
        }
        mb__buf_puts(f, "\n");
    }
}

void mb__gates_text(const json_t *gates, mb__buf *f)
{
    size_t i;
    json_t *gt;
    json_array_foreach(gates, i, gt)
    {
        int passed = json_is_true(json_object_get(gt, "passed"));
        mb__buf_printf(f, "  %s %s", passed ? "PASS" : "FAIL",
                       json_string_value(json_object_get(gt, "gate")));
        size_t k;
        json_t *r;
        const char *sep = "  (";
        json_array_foreach(json_object_get(gt, "results"), k, r)
        {
            char b[64], n[128];
            mb__buf_printf(f, "%s%s %s: %s", sep, g(r, "output", n, sizeof n),
                           json_string_value(json_object_get(r, "result")),
                           g(r, "value", b, sizeof b));
            sep = ", ";
        }
        if (strcmp(sep, ", ") == 0)
            mb__buf_puts(f, ")");
        const json_t *why = json_object_get(gt, "reason");
        if (why && !passed)
            mb__buf_printf(f, " - %s", json_string_value(why));
        mb__buf_puts(f, "\n");
    }
}

static const char *s(const json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

/* Dice and IoU against masks: the means, then per class (the first 32). */
static void seg_text(const json_t *seg, mb__buf *f)
{
    const json_t *a = json_object_get(seg, "baseline"),
                 *b = json_object_get(seg, "candidate");
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    mb__buf_printf(
        f,
        "segmentation against %s on %s (%s classes, %s "
        "pixels): baseline mean IoU %s mean Dice %s, candidate "
        "mean IoU %s mean Dice %s\n",
        s(seg, "masks"), s(seg, "output"), g(a, "classes", b1, sizeof b1),
        g(a, "pixels", b2, sizeof b2), g(a, "mean_iou", b3, sizeof b3),
        g(a, "mean_dice", b4, sizeof b4), g(b, "mean_iou", b5, sizeof b5),
        g(b, "mean_dice", b6, sizeof b6));
    size_t k;
    json_t *x;
    json_array_foreach(json_object_get(a, "iou"), k, x)
    {
        if (k == 32) {
            mb__buf_puts(f, "  ... (every class in the document)\n");
            break;
        }
        mb__buf_printf(
            f,
            "  class %zu: IoU %s / %s  Dice %s / %s (baseline / "
            "candidate)\n",
            k, mb__json_metric_text(x, "", "", b1, sizeof b1),
            mb__json_metric_text(json_array_get(json_object_get(b, "iou"), k),
                                 "", "", b2, sizeof b2),
            mb__json_metric_text(json_array_get(json_object_get(a, "dice"), k),
                                 "", "", b3, sizeof b3),
            mb__json_metric_text(json_array_get(json_object_get(b, "dice"), k),
                                 "", "", b4, sizeof b4));
    }
}

/* Everything above the verdict line. */
void mb__folder_text(const json_t *info, mb__buf *f)
{
    const json_t *classes = json_object_get(info, "classes");
    size_t n = json_array_size(classes), i;
    const json_t *c;
    if (!json_is_object(info))
        return;
    mb__buf_printf(
        f, "image folder %s: %lld images", s(info, "path"),
        (long long)json_integer_value(json_object_get(info, "images")));
    if (!n) {
        mb__buf_puts(f, ", no class folders (no labels)\n");
        return;
    }
    mb__buf_printf(f, "; class folder -> class id:");
    json_array_foreach(classes, i, c)
    {
        if (i == 12) {
            mb__buf_printf(f,
                           " ... (%zu classes; all in the JSON's "
                           "image_folder.classes)",
                           n);
            break;
        }
        mb__buf_printf(f, "%s ", i ? "," : "");
        mb__console_put(f, s(c, "folder"));
        mb__buf_printf(
            f, " -> %lld (%lld)",
            (long long)json_integer_value(json_object_get(c, "id")),
            (long long)json_integer_value(json_object_get(c, "images")));
    }
    mb__buf_putc(f, '\n');
}

static void report(const json_t *v, mb__buf *f)
{
    int synthetic = json_is_true(json_object_get(v, "synthetic_inputs"));
    mb__buf_printf(f, "baseline  %s\ncandidate %s\ninputs    %s\n",
                   s(v, "baseline"), s(v, "candidate"), s(v, "inputs"));
    if (synthetic)
        mb__buf_puts(f, "!!! WARNING: NO REAL DATA - the verdict below rests "
                        "on random inputs only !!!\n");
    const char *pn = json_string_value(
        json_object_get(json_object_get(v, "output_pairing"), "note"));
    if (pn)
        mb__buf_printf(f, "outputs   %s\n", pn);
    mb__folder_text(json_object_get(v, "image_folder"), f);
    size_t k;
    json_t *o;
    /* --output chooses which output's metrics are shown; every output is
     * still judged (the verdict per output, below) */
    const json_t *ch = json_object_get(v, "output_choice");
    const char *shown = json_is_true(json_object_get(ch, "requested"))
                            ? json_string_value(json_object_get(ch, "output"))
                            : NULL;
    json_array_foreach(json_object_get(v, "outputs"), k, o)
    {
        const char *nm = json_string_value(json_object_get(o, "name"));
        if (!shown || (nm && !strcmp(nm, shown)))
            mb__metrics_text(o, f);
    }
    const json_t *acc = json_object_get(v, "accuracy");
    if (json_is_object(acc))
        mb__buf_printf(
            f,
            "accuracy against %s (%lld labels) on %s: baseline "
            "top-1 %.4f top-5 %.4f, candidate top-1 %.4f top-5 "
            "%.4f\n",
            s(v, "labels"),
            (long long)json_integer_value(json_object_get(acc, "samples")),
            s(acc, "output"), mb__jnum(acc, "baseline.top1"),
            mb__jnum(acc, "baseline.top5"), mb__jnum(acc, "candidate.top1"),
            mb__jnum(acc, "candidate.top5"));
    const json_t *seg = json_object_get(v, "segmentation");
    if (json_is_object(seg))
        seg_text(seg, f);
    mb__buf_printf(f, "class scores: %s\n", s(ch, "reason"));
    mb__buf_printf(f, "criteria (rule: %s; gates on every output%s):\n",
                   s(v, "rule"),
                   shown ? "; metrics shown for the --output only" : "");
    json_array_foreach(json_object_get(v, "criteria"), k, o)
        mb__buf_printf(f, "  %s\n", json_string_value(o));
    const char *why = json_string_value(json_object_get(v, "precision_reason"));
    if (why)
        mb__buf_printf(f, "  default gates for %s (%s):\n", s(v, "precision"),
                       why);
    mb__gates_text(json_object_get(v, "gates"), f);
    mb__buf_puts(f, "verdict per output:\n");
    json_array_foreach(json_object_get(v, "per_output"), k, o)
    {
        const json_t *p = json_object_get(o, "passed");
        mb__buf_printf(f, "  %-6s %s%s\n",
                       json_is_null(p)   ? "-"
                       : json_is_true(p) ? "PASS"
                                         : "FAIL",
                       s(o, "name"),
                       json_is_null(p) ? " (not judged: --output chose another)"
                       : json_is_true(json_object_get(o, "classifier"))
                           ? " (class scores: top-1 and gates)"
                       : json_is_true(json_object_get(o, "segmentation"))
                           ? " (segmentation: IoU, Dice and gates)"
                           : " (gates)");
    }
}

void mb__validation_console(const json_t *doc, int quiet, mb__buf *out)
{
    mb__validation_console_w(doc, quiet, 200, out);
}

void mb__validation_console_w(const json_t *doc, int quiet, int width,
                              mb__buf *out)
{
    const json_t *v = json_object_get(doc, "validation");
    if (!json_is_object(v))
        return;
    if (!quiet)
        report(v, out);
    /* the document's warnings (random inputs have their banner above) */
    size_t k;
    const json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), k, w)
    {
        const char *t = json_string_value(w);
        if (t && strncmp(t, "inputs are random", 17) != 0) {
            mb__buf_puts(out, "! ");
            mb__console_wrap(out, t, width, 2, 2);
        }
    }
    mb__buf_printf(out, "%s: %s vs %s%s\n",
                   json_is_true(json_object_get(v, "passed")) ? "PASS" : "FAIL",
                   s(v, "candidate"), s(v, "baseline"),
                   json_is_true(json_object_get(v, "synthetic_inputs"))
                       ? " (RANDOM INPUTS ONLY)"
                       : "");
}
