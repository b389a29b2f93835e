/* gate.c - parsing and evaluating accuracy gates; default gates per
 * candidate precision. */
#include "accuracy/gate.h"

#include "accuracy/metrics.h"
#include "core/err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *alias;
    const char *key;
} metric_names[] = {
    {"mae", "mae"},
    {"mse", "mse"},
    {"rmse", "rmse"},
    {"psnr", "psnr"},
    {"cosine", "cosine"},
    {"cos", "cosine"},
    {"ssim", "ssim"},
    {"max_abs", "max_abs"},
    {"max_abs_diff", "max_abs"},
    {"rel_l2", "rel_l2"},
    {"rel_err", "rel_l2"},
    {"relative_error", "rel_l2"},
    {"pearson", "pearson"},
    {"corr", "pearson"},
    {"allclose_fail", "allclose_fail"},
    {"allclose_fail_fraction", "allclose_fail_fraction"},
    {"top1_agreement", "top1_agreement"},
    {"top1", "top1_agreement"},
    {"top5_agreement", "top5_agreement"},
    {"top5", "top5_agreement"},
    {"kl_mean", "kl_mean"},
    {"kl", "kl_mean"},
    {"kl_max", "kl_max"},
    {"nan_candidate", "nan_candidate"},
    {"inf_candidate", "inf_candidate"},
    {"nan_baseline", "nan_baseline"},
    {"inf_baseline", "inf_baseline"},
    {"nonfinite_new", "nonfinite_new"},
};

static const char *op_text[] = {">=", "<=", ">", "<", "==", "!="};

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

mb_status mb__gate_parse(const char *text, mb__gate *g, mb_err *err)
{
    memset(g, 0, sizeof *g);
    const char *p = text ? text : "";
    p = skip_space(p);
    char name[64];
    size_t n = 0;
    while ((isalnum((unsigned char)*p) || *p == '_') && n + 1 < sizeof name)
        name[n++] = (char)tolower((unsigned char)*p++);
    name[n] = '\0';
    p = skip_space(p);
    const char *key = NULL;
    for (size_t i = 0; i < sizeof metric_names / sizeof metric_names[0]; i++)
        if (strcmp(metric_names[i].alias, name) == 0)
            key = metric_names[i].key;
    if (!key)
        return mb__fail(err, MB_EINVAL,
                        "gate '%s': unknown metric '%s'; use one of mae, mse, "
                        "rmse, psnr, cosine, ssim, max_abs, rel_l2, pearson, "
                        "allclose_fail, allclose_fail_fraction, top1, top5, "
                        "kl, kl_max, nan_candidate, inf_candidate, "
                        "nonfinite_new",
                        text ? text : "", name);
    int op = -1;
    for (int i = 0; i < 6; i++) {
        size_t l = strlen(op_text[i]);
        if (strncmp(p, op_text[i], l) == 0) {
            op = i;
            p += l;
            break;
        }
    }
    if (op < 0)
        return mb__fail(err, MB_EINVAL,
                        "gate '%s': expected an operator (>=, <=, >, <, ==, "
                        "!=) after '%s', e.g. 'cosine>=0.999'",
                        text, name);
    p = skip_space(p);
    char *end = NULL;
    double v;
    errno = 0;
    if (strncasecmp(p, "inf", 3) == 0 && strlen(p) >= 3) {
        v = INFINITY;
        end = (char *)p + 3;
    } else if (strncasecmp(p, "-inf", 4) == 0) {
        v = -INFINITY;
        end = (char *)p + 4;
    } else {
        v = strtod(p, &end);
    }
    if (end == p || errno || isnan(v))
        return mb__fail(err, MB_EINVAL,
                        "gate '%s': '%s' is not a number; write e.g. "
                        "'psnr>=40' or 'max_abs<=1e-3'",
                        text, p);
    const char *rest = skip_space(end);
    if (*rest)
        return mb__fail(err, MB_EINVAL,
                        "gate '%s': unexpected '%s' after the value", text,
                        rest);
    snprintf(g->metric, sizeof g->metric, "%s", key);
    g->op = (mb__gate_op)op;
    g->value = v;
    if (isinf(v))
        snprintf(g->text, sizeof g->text, "%s%s%s", key, op_text[op],
                 v > 0 ? "inf" : "-inf");
    else
        snprintf(g->text, sizeof g->text, "%s%s%.10g", key, op_text[op], v);
    return MB_OK;
}

mb__gate_result mb__gate_eval(const mb__gate *g, const json_t *metrics,
                              double *actual)
{
    double v = NAN;
    const json_t *j = json_object_get(metrics, g->metric);
    mb__json_metric_get(j, &v);
    if (actual)
        *actual = v;
    /* two empty tensors of one shape are equal: nothing can differ */
    const json_t *count = json_object_get(metrics, "count");
    if (isnan(v) && json_is_integer(count) && json_integer_value(count) == 0)
        return MB_GATE_PASS;
    if (isnan(v))
        return MB_GATE_NA;
    int ok = 0;
    switch (g->op) {
    case MB_GATE_GE:
        ok = v >= g->value;
        break;
    case MB_GATE_LE:
        ok = v <= g->value;
        break;
    case MB_GATE_GT:
        ok = v > g->value;
        break;
    case MB_GATE_LT:
        ok = v < g->value;
        break;
    case MB_GATE_EQ:
        ok = v == g->value;
        break;
    case MB_GATE_NE:
        ok = v != g->value;
        break;
    }
    return ok ? MB_GATE_PASS : MB_GATE_FAIL;
}

static const char *result_name(mb__gate_result r)
{
    return r == MB_GATE_PASS ? "pass" : r == MB_GATE_FAIL ? "fail" : "n/a";
}

json_t *mb__gates_eval_outputs(const mb__gate *gates, size_t n_gates,
                               const json_t *outputs, int *all_passed)
{
    json_t *arr = json_array();
    int all = 1;
    for (size_t i = 0; i < n_gates; i++) {
        json_t *res = json_array();
        size_t applied = 0, failed = 0;
        size_t k;
        json_t *m;
        json_array_foreach(outputs, k, m)
        {
            double v;
            mb__gate_result r = mb__gate_eval(&gates[i], m, &v);
            json_t *o = json_object();
            const json_t *nm = json_object_get(m, "name");
            json_object_set_new(o, "output",
                                nm ? json_copy((json_t *)nm)
                                   : json_integer((json_int_t)k));
            json_object_set_new(o, "value", mb__json_metric(v));
            json_object_set_new(o, "result", json_string(result_name(r)));
            json_array_append_new(res, o);
            applied += r != MB_GATE_NA;
            failed += r == MB_GATE_FAIL;
        }
        int passed = applied > 0 && failed == 0;
        json_t *g = json_object();
        json_object_set_new(g, "gate", json_string(gates[i].text));
        json_object_set_new(g, "passed", json_boolean(passed));
        if (applied == 0)
            json_object_set_new(g, "reason",
                                json_string("the metric is undefined for "
                                            "every output"));
        else if (failed)
            json_object_set_new(
                g, "reason",
                json_sprintf("failed on %zu of %zu outputs", failed, applied));
        json_object_set_new(g, "results", res);
        json_array_append_new(arr, g);
        all &= passed;
    }
    if (all_passed)
        *all_passed = all;
    return arr;
}

bool mb__precision_parse(const char *s, mb__precision *p)
{
    if (!s)
        return false;
    if (!strcasecmp(s, "fp32") || !strcasecmp(s, "float32") ||
        !strcasecmp(s, "f32") || !strcasecmp(s, "float") ||
        !strcasecmp(s, "fp64") || !strcasecmp(s, "float64")) {
        *p = MB_PREC_FP32;
        return true;
    }
    if (!strcasecmp(s, "fp16") || !strcasecmp(s, "float16") ||
        !strcasecmp(s, "f16") || !strcasecmp(s, "half")) {
        *p = MB_PREC_FP16;
        return true;
    }
    if (!strcasecmp(s, "bf16") || !strcasecmp(s, "bfloat16")) {
        *p = MB_PREC_BF16;
        return true;
    }
    if (!strcasecmp(s, "int8") || !strcasecmp(s, "uint8") ||
        !strcasecmp(s, "qint8") || !strcasecmp(s, "quint8")) {
        *p = MB_PREC_INT8;
        return true;
    }
    return false;
}

const char *mb__precision_name(mb__precision p)
{
    return p == MB_PREC_FP16   ? "fp16"
           : p == MB_PREC_BF16 ? "bf16"
           : p == MB_PREC_INT8 ? "int8"
                               : "fp32";
}

bool mb__precision_of_runtime(const json_t *runtime, const char *asked,
                              mb__precision *p, char *what, size_t len)
{
    const char *v = json_string_value(json_object_get(
        json_object_get(runtime, "session"), "inference_precision"));
    mb__precision q;
    if (!v || !mb__precision_parse(v, &q))
        return false;
    *p = q;
    const char *be = json_string_value(json_object_get(runtime, "backend"));
    int ov = be && !strcmp(be, "openvino");
    const char *who = ov ? "OpenVINO" : be ? be : "the runtime";
    const char *pn = mb__precision_name(q);
    if (asked)
        snprintf(what, len, "computed in %s, as %s=%s asked: %s gates", pn,
                 ov ? "precision" : "dtype", asked, pn);
    else if (q != MB_PREC_FP32)
        snprintf(what, len,
                 "computed in %s, %s's default on this CPU: %s gates; "
                 "backend-opt=%s to compute in fp32",
                 pn, who, pn, ov ? "precision=f32" : "dtype=float32");
    else
        snprintf(what, len, "computed in fp32, as %s reports: fp32 gates", who);
    return true;
}

bool mb__precision_of_weights(const json_t *params_by_dtype, mb__precision *p,
                              char *what, size_t len)
{
    const char *key, *best = NULL;
    json_int_t most = 0;
    json_t *v;
    *p = MB_PREC_FP32;
    if (len)
        what[0] = '\0';
    json_object_foreach((json_t *)params_by_dtype, key, v)
    {
        json_int_t c = json_integer_value(json_object_get(v, "count"));
        if (c > most) {
            most = c;
            best = key;
        }
    }
    if (!best)
        return false;
    *p = mb__precision_from_dtype(mb_dtype_parse(best));
    if (len)
        snprintf(what, len, "%lld %s elements", (long long)most, best);
    return true;
}

mb__precision mb__precision_from_dtype(mb_dtype t)
{
    switch (t) {
    case MB_DTYPE_FLOAT16:
        return MB_PREC_FP16;
    case MB_DTYPE_BFLOAT16:
        return MB_PREC_BF16;
    case MB_DTYPE_INT8:
    case MB_DTYPE_UINT8:
    case MB_DTYPE_INT16:
    case MB_DTYPE_UINT16:
    case MB_DTYPE_INT32:
        return MB_PREC_INT8;
    default:
        return MB_PREC_FP32;
    }
}

size_t mb__gate_defaults(mb__precision p, mb__gate *out, size_t cap)
{
    /* Reasons in docs/ACCURACY.md: relative L2 error about 100x the unit
     * roundoff of the precision's arithmetic for fp32/fp16, a tenth of
     * the signal for int8; no NaN or Inf the baseline did not have. */
    static const char *const fp32[] = {"rel_l2<=1e-4", "cosine>=0.9999",
                                       "nonfinite_new==0"};
    static const char *const fp16[] = {"rel_l2<=1e-2", "cosine>=0.999",
                                       "nonfinite_new==0"};
    static const char *const bf16[] = {"rel_l2<=5e-2", "cosine>=0.998",
                                       "nonfinite_new==0"};
    static const char *const int8[] = {"rel_l2<=0.15", "cosine>=0.99",
                                       "nonfinite_new==0"};
    const char *const *src = p == MB_PREC_FP16   ? fp16
                             : p == MB_PREC_BF16 ? bf16
                             : p == MB_PREC_INT8 ? int8
                                                 : fp32;
    size_t n = 3;
    for (size_t i = 0; i < n && i < cap; i++)
        mb__gate_parse(src[i], &out[i], NULL);
    return n;
}
