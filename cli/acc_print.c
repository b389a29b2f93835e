/* acc_print.c - console rendering of accuracy metrics and gate verdicts. */
#include "acc_print.h"

#include "accuracy/metrics.h"

#include <math.h>
#include <string.h>

const char *mb_cli_metric_str(const json_t *v, char *buf, size_t len)
{
    return mb__json_metric_text(v, "true", "false", buf, len);
}

static const char *g(const json_t *m, const char *key, char *buf, size_t len)
{
    return mb_cli_metric_str(json_object_get(m, key), buf, len);
}

static void shape_str(const json_t *shape, char *buf, size_t len)
{
    size_t off = 0, i;
    json_t *d;
    off += (size_t)snprintf(buf + off, len - off, "[");
    json_array_foreach(shape, i, d) {
        if (off >= len)
            break;
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
                                (long long)json_integer_value(d));
    }
    if (off < len)
        snprintf(buf + off, len - off, "]");
}

void mb_cli_print_metrics(FILE *f, const json_t *m)
{
    char b1[64], b2[64], b3[64], b4[64], sh[256];
    const json_t *name = json_object_get(m, "name");
    shape_str(json_object_get(m, "shape"), sh, sizeof sh);
    fprintf(f, "%s %s %s vs %s, %s elements\n",
            name ? json_string_value(name) : "tensor", sh,
            json_string_value(json_object_get(m, "dtype_baseline")),
            json_string_value(json_object_get(m, "dtype_candidate")),
            g(m, "count", b1, sizeof b1));
    fprintf(f, "  mae %s  mse %s  rmse %s\n", g(m, "mae", b1, sizeof b1),
            g(m, "mse", b2, sizeof b2), g(m, "rmse", b3, sizeof b3));
    fprintf(f, "  psnr %s dB (data range %s, %s)\n",
            g(m, "psnr", b1, sizeof b1), g(m, "data_range", b2, sizeof b2),
            g(m, "data_range_source", b3, sizeof b3));
    fprintf(f, "  cosine %s  pearson %s  ssim %s (%s, %s images)\n",
            g(m, "cosine", b1, sizeof b1), g(m, "pearson", b2, sizeof b2),
            g(m, "ssim", b3, sizeof b3), g(m, "ssim_mode", b4, sizeof b4),
            g(m, "ssim_images", sh, sizeof sh));
    char at[256] = "";
    const json_t *mat = json_object_get(m, "max_abs_at");
    if (json_is_array(mat))
        shape_str(mat, at, sizeof at);
    fprintf(f, "  max_abs %s%s%s  rel_l2 %s\n", g(m, "max_abs", b1, sizeof b1),
            at[0] ? " at " : "", at, g(m, "rel_l2", b2, sizeof b2));
    fprintf(f, "  allclose(rtol %s, atol %s): %s of %s elements fail\n",
            g(m, "rtol", b1, sizeof b1), g(m, "atol", b2, sizeof b2),
            g(m, "allclose_fail", b3, sizeof b3), g(m, "count", b4, sizeof b4));
    fprintf(f, "  NaN %s / %s  Inf %s / %s (baseline / candidate), "
               "new non-finite %s\n",
            g(m, "nan_baseline", b1, sizeof b1),
            g(m, "nan_candidate", b2, sizeof b2),
            g(m, "inf_baseline", b3, sizeof b3),
            g(m, "inf_candidate", b4, sizeof b4),
            g(m, "nonfinite_new", sh, sizeof sh));
    if (json_is_true(json_object_get(m, "classifier")))
        fprintf(f, "  top1 agreement %s  top5 agreement %s  KL mean %s "
                   "max %s\n",
                g(m, "top1_agreement", b1, sizeof b1),
                g(m, "top5_agreement", b2, sizeof b2),
                g(m, "kl_mean", b3, sizeof b3), g(m, "kl_max", b4, sizeof b4));
    const json_t *w = json_object_get(m, "worst");
    if (json_object_size(w) > 0) {
        fprintf(f, "  worst sample:");
        const char *key;
        json_t *o;
        json_object_foreach((json_t *)w, key, o) {
            fprintf(f, " %s #%lld (%s)", key,
                    (long long)json_integer_value(json_object_get(o, "sample")),
                    g(o, "value", b1, sizeof b1));
        }
        fprintf(f, "\n");
    }
}

void mb_cli_print_gates(FILE *f, const json_t *gates)
{
    size_t i;
    json_t *gt;
    json_array_foreach(gates, i, gt) {
        int passed = json_is_true(json_object_get(gt, "passed"));
        fprintf(f, "  %s %s", passed ? "PASS" : "FAIL",
                json_string_value(json_object_get(gt, "gate")));
        size_t k;
        json_t *r;
        const char *sep = "  (";
        json_array_foreach(json_object_get(gt, "results"), k, r) {
            char b[64], n[128];
            const json_t *o = json_object_get(r, "output");
            mb_cli_metric_str(o, n, sizeof n);
            fprintf(f, "%s%s %s: %s", sep, n,
                    json_string_value(json_object_get(r, "result")),
                    mb_cli_metric_str(json_object_get(r, "value"), b,
                                      sizeof b));
            sep = ", ";
        }
        if (strcmp(sep, ", ") == 0)
            fprintf(f, ")");
        const json_t *why = json_object_get(gt, "reason");
        if (why && !passed)
            fprintf(f, " - %s", json_string_value(why));
        fprintf(f, "\n");
    }
}
