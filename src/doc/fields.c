/* fields.c - the per-run field list (doc/fields.h) and the CSV and
 * store renderings of its values. */
#include "doc/fields.h"

#include "core/alloc.h"
#include "doc/docfmt.h"
#include "compare/cmpverdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GETTER(fn, stmt)                                                       \
    static void fn(const mb__rrun *r, mb__fval *v, char *tmp, size_t len)      \
    {                                                                          \
        (void)tmp;                                                             \
        (void)len;                                                             \
        stmt;                                                                  \
    }

/* "onnxruntime 1.30.0"; "unknown" when the runtime is not recorded. */
static void get_framework(const mb__rrun *r, mb__fval *v, char *tmp, size_t len)
{
    if (r->backend && !strcmp(r->backend, "exec"))
        snprintf(tmp, len, "exec"); /* a whole program, not a runtime */
    else
        snprintf(tmp, len, "%s %s",
                 r->runtime_name ? r->runtime_name : "unknown",
                 r->runtime_version ? r->runtime_version : "");
    v->s = tmp;
}

/* "1x3x224x224", "" without inputs. */
static void get_shape(const mb__rrun *r, mb__fval *v, char *tmp, size_t len)
{
    size_t k, off = 0;
    const json_t *d;
    tmp[0] = '\0';
    json_array_foreach(r->shape, k, d)
    {
        int w = snprintf(tmp + off, len - off, "%s%lld", k ? "x" : "",
                         (long long)json_integer_value(d));
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
    v->s = tmp;
}

/* model.name, or the file name of model.path. */
static void get_model(const mb__rrun *r, mb__fval *v, char *tmp, size_t len)
{
    (void)tmp;
    (void)len;
    v->s = r->model_name;
    if (!v->s && r->backend && !strcmp(r->backend, "exec"))
        v->s = r->command; /* a program is named by its command */
    if (!v->s && r->model_path) {
        const char *slash = strrchr(r->model_path, '/');
        v->s = slash ? slash + 1 : r->model_path;
    }
}

GETTER(get_model_path, v->s = r->model_path)
GETTER(get_file_bytes, v->x = r->model_file_bytes)
GETTER(get_variant, v->s = r->variant_raw)
GETTER(get_backend, v->s = r->backend)
GETTER(get_device, v->s = r->device)
GETTER(get_device_type, v->s = r->device_type)
GETTER(get_batch, v->x = r->batch >= 0 ? (double)r->batch : NAN)
GETTER(get_dtype, v->s = r->dtype)
GETTER(get_config, v->j = r->config)
GETTER(get_count, v->x = r->count)
/* The median the CI is about: with replicates, the geometric mean of the
 * per-process medians (the pooled median is latency.median in the JSON). */
GETTER(get_median, v->x = r->p50)
GETTER(get_p90, v->x = r->p90)
GETTER(get_p95, v->x = r->p95)
GETTER(get_p99, v->x = r->p99)
GETTER(get_mean, v->x = r->mean)
GETTER(get_std, v->x = r->std)
GETTER(get_min, v->x = r->min)
GETTER(get_max, v->x = r->max)
GETTER(get_ci_lo, v->x = r->ci_lo)
GETTER(get_ci_hi, v->x = r->ci_hi)
GETTER(get_iterations, v->x = r->iterations)
GETTER(get_stop_rule, v->s = r->stop_rule)
GETTER(get_ips, v->x = r->ips)
GETTER(get_sps, v->x = r->sps)
GETTER(get_rss, v->x = r->rss_peak)
GETTER(get_peak_method, v->s = r->peak_method)
/* compilation_time_ms: the JIT/XLA compile where the backend compiles
 * (Python models), else session creation (graph optimisation). */
GETTER(get_session,
       v->x = isfinite(r->compile_ns) ? r->compile_ns : r->session_ns)
GETTER(get_first, v->x = r->first_ns)
GETTER(get_created, v->s = r->created_utc)
GETTER(get_commit, v->s = r->project_commit)
GETTER(get_sha256, v->s = r->sha256)
GETTER(get_status, v->s = r->status_raw)
GETTER(get_error, v->s = r->error)

/* The comparison entry of r's variant at r's batch size in a compare
 * document, or NULL. */
static const json_t *cmp_entry(const mb__rrun *r)
{
    const json_t *all = json_object_get(r->doc, "comparisons"), *c = NULL, *x;
    size_t i;
    json_array_foreach(all, i, x)
    {
        if (mb__jnum(x, "batch_size") == (double)r->batch)
            c = x;
    }
    if (!c)
        c = json_object_get(r->doc, "comparison");
    json_array_foreach(json_object_get(c, "variants"), i, x)
    {
        const char *n = mb__jstr(x, "name");
        if (n && r->variant_raw && !strcmp(n, r->variant_raw))
            return x;
    }
    return NULL;
}

GETTER(get_top1, v->x = mb__jnum(cmp_entry(r), "accuracy.top1"))
GETTER(get_top1_delta, v->x = mb__jnum(cmp_entry(r), "accuracy.delta_top1"))
/* The paired 95% CI of top1_delta: its lower (tmp "0") or upper bound. */
static void get_delta_ci(const mb__rrun *r, mb__fval *v, int k)
{
    const json_t *ci = mb__jget(cmp_entry(r), "accuracy.delta_top1_ci95");
    if (json_array_size(ci) == 2)
        v->x = json_number_value(json_array_get(ci, (size_t)k));
}
GETTER(get_top1_delta_lo, get_delta_ci(r, v, 0))
GETTER(get_top1_delta_hi, get_delta_ci(r, v, 1))
/* "pass" or "fail" of the variant's verdict; "" when it has none. */
static void get_verdict(const mb__rrun *r, mb__fval *v, char *tmp, size_t len)
{
    (void)tmp;
    (void)len;
    const json_t *p = mb__jget(cmp_entry(r), "verdict.passed");
    v->s = json_is_boolean(p) ? (json_is_true(p) ? "pass" : "fail") : NULL;
}
/* The failing outputs and figures of the verdict. */
static void get_failures(const mb__rrun *r, mb__fval *v, char *tmp, size_t len)
{
    const json_t *vd = json_object_get(cmp_entry(r), "verdict");
    if (!json_is_object(vd))
        return;
    mb__verdict_failures(vd, tmp, len);
    v->s = tmp;
}

/* The variant's headline verdict, correctness first, then speed
 * (mb__cmp_headline); "" outside a comparison and for the baseline. */
static void get_headline(const mb__rrun *r, mb__fval *v, char *tmp, size_t len)
{
    const json_t *e = cmp_entry(r);
    if (!json_is_object(e) || json_is_true(json_object_get(e, "baseline")))
        return;
    mb__cmp_headline(e, tmp, len);
    v->s = tmp;
}

enum { C = MB_FO_CSV, S = MB_FO_STORE, H = MB_FO_HISTORY };

/* In CSV column order (docs/FORMATS.md); fields that are not CSV columns
 * sit next to their kin. */
static const mb__field fields[] = {
    {"framework", "", MB_FT_TEXT, C, NULL, NULL, "framework", get_framework},
    {"model", "", MB_FT_TEXT, C | S | H, "model_name", "model_name", "model",
     get_model},
    {"model_path", "", MB_FT_TEXT, S, "model_path", NULL, "path",
     get_model_path},
    {"model_file_bytes", "B", MB_FT_INT, S | H, "model_file_bytes",
     "file_bytes", "file", get_file_bytes},
    {"variant", "", MB_FT_TEXT, C | S | H, "variant", "variant", "variant",
     get_variant},
    {"backend", "", MB_FT_TEXT, S | H, "backend", "backend", "backend",
     get_backend},
    {"device", "", MB_FT_TEXT, C | S, "device", NULL, "device", get_device},
    {"device_type", "", MB_FT_TEXT, C, NULL, NULL, "device type",
     get_device_type},
    {"batch_size", "n", MB_FT_INT, C | S | H, "batch_size", "batch_size",
     "batch", get_batch},
    {"input_shape", "", MB_FT_TEXT, C, NULL, NULL, "shape", get_shape},
    {"dtype", "", MB_FT_TEXT, C, NULL, NULL, "dtype", get_dtype},
    {"config", "", MB_FT_JSON, S, "config", NULL, "config", get_config},
    {"latency_count", "n", MB_FT_INT, S, "latency_count", NULL, "samples",
     get_count},
    {"latency_p50_ms", "ns", MB_FT_REAL, C | S | H, "p50_ns", "p50", "p50",
     get_median},
    {"latency_p90_ms", "ns", MB_FT_REAL, S | H, "p90_ns", "p90", "p90",
     get_p90},
    {"latency_p95_ms", "ns", MB_FT_REAL, C | S | H, "p95_ns", "p95", "p95",
     get_p95},
    {"latency_p99_ms", "ns", MB_FT_REAL, C | S | H, "p99_ns", "p99", "p99",
     get_p99},
    {"latency_mean_ms", "ns", MB_FT_REAL, C | S | H, "mean_ns", "mean", "mean",
     get_mean},
    {"latency_std_ms", "ns", MB_FT_REAL, C | S | H, "std_ns", "std", "std",
     get_std},
    {"latency_min_ms", "ns", MB_FT_REAL, C | S | H, "min_ns", "min", "min",
     get_min},
    {"latency_max_ms", "ns", MB_FT_REAL, C | S | H, "max_ns", "max", "max",
     get_max},
    {"latency_ci_lo_ms", "ns", MB_FT_REAL, C | S | H, "ci_lo_ns", "p50_ci_lo",
     "CI low", get_ci_lo},
    {"latency_ci_hi_ms", "ns", MB_FT_REAL, C | S | H, "ci_hi_ns", "p50_ci_hi",
     "CI high", get_ci_hi},
    {"iterations", "n", MB_FT_INT, C | S | H, "iterations", "iterations",
     "iters", get_iterations},
    {"stop_rule", "", MB_FT_TEXT, S, "stop_rule", NULL, "stop", get_stop_rule},
    {"throughput_ips", "1/s", MB_FT_REAL, C | S | H, "throughput_ips",
     "throughput", "inf/s", get_ips},
    {"throughput_sps", "1/s", MB_FT_REAL, C | S | H, "throughput_sps",
     "samples_per_s", "samples/s", get_sps},
    {"memory_mb", "B", MB_FT_INT, C | S | H, "memory_peak_bytes", "memory",
     "peak RSS", get_rss},
    {"memory_peak_method", "", MB_FT_TEXT, S, "memory_peak_method", NULL,
     "RSS method", get_peak_method},
    {"compilation_time_ms", "ns", MB_FT_REAL, C, NULL, NULL, "compile time",
     get_session},
    {"first_inference_ms", "ns", MB_FT_REAL, C, NULL, NULL, "first inference",
     get_first},
    {"timestamp", "", MB_FT_TEXT, C, NULL, NULL, "created", get_created},
    {"git_commit", "", MB_FT_TEXT, C, NULL, NULL, "project commit", get_commit},
    {"model_sha256", "", MB_FT_TEXT, C | S | H, "model_sha256", "model_sha256",
     "sha256", get_sha256},
    {"status", "", MB_FT_TEXT, C | S | H, "status", "status", "status",
     get_status},
    {"error", "", MB_FT_TEXT, S, "error", NULL, "error", get_error},
    /* a compare variant's accuracy and verdict (empty elsewhere) */
    {"top1", "frac", MB_FT_REAL, C, NULL, NULL, "top-1", get_top1},
    {"top1_delta", "frac", MB_FT_REAL, C, NULL, NULL, "Δ top-1",
     get_top1_delta},
    {"top1_delta_ci_lo", "frac", MB_FT_REAL, C, NULL, NULL, "Δ top-1 CI low",
     get_top1_delta_lo},
    {"top1_delta_ci_hi", "frac", MB_FT_REAL, C, NULL, NULL, "Δ top-1 CI high",
     get_top1_delta_hi},
    {"verdict", "", MB_FT_TEXT, C, NULL, NULL, "verdict", get_verdict},
    {"verdict_failures", "", MB_FT_TEXT, C, NULL, NULL, "failing",
     get_failures},
    {"headline", "", MB_FT_TEXT, C, NULL, NULL, "headline", get_headline},
};

const mb__field *mb__fields(size_t *n)
{
    *n = sizeof fields / sizeof fields[0];
    return fields;
}

const mb__field *mb__field_find(const char *name)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

void mb__field_get(const mb__field *f, const mb__rrun *r, mb__fval *v,
                   char *tmp, size_t tmp_len)
{
    v->s = NULL;
    v->x = NAN;
    v->j = NULL;
    tmp[0] = '\0';
    f->get(r, v, tmp, tmp_len);
}

void mb__field_csv(const mb__field *f, const mb__fval *v, mb__buf *out)
{
    if (f->type == MB_FT_TEXT || f->type == MB_FT_JSON) {
        mb__csv_field(out, v->s);
        return;
    }
    if (!isfinite(v->x))
        return;
    if (strcmp(f->unit, "ns") == 0)
        mb__buf_printf(out, "%.6f", v->x / 1e6);
    else if (strcmp(f->unit, "B") == 0)
        mb__buf_printf(out, "%.3f", v->x / 1048576.0);
    else if (strcmp(f->unit, "1/s") == 0)
        mb__buf_printf(out, "%.3f", v->x);
    else if (strcmp(f->unit, "frac") == 0)
        mb__buf_printf(out, "%.6f", v->x);
    else
        mb__buf_printf(out, "%.0f", v->x);
}

/* The header (r NULL) or the row of r: every CSV field in list order. */
static void csv_line(const mb__rrun *r, mb__buf *out)
{
    char tmp[256];
    const char *sep = "";
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!(fields[i].where & MB_FO_CSV))
            continue;
        mb__buf_puts(out, sep);
        sep = ",";
        if (!r) {
            mb__buf_puts(out, fields[i].name);
            continue;
        }
        mb__fval v;
        mb__field_get(&fields[i], r, &v, tmp, sizeof tmp);
        mb__field_csv(&fields[i], &v, out);
    }
    mb__buf_putc(out, '\n');
}

void mb__fields_csv_header(mb__buf *out)
{
    csv_line(NULL, out);
}

void mb__fields_csv_row(const mb__rrun *r, mb__buf *out)
{
    csv_line(r, out);
}

const char *mb__field_cell(const mb__field *f, const mb__rrun *r, int md,
                           char *out, size_t len)
{
    char tmp[256];
    mb__fval v;
    mb__field_get(f, r, &v, tmp, sizeof tmp);
    if (f->type == MB_FT_TEXT || f->type == MB_FT_JSON)
        snprintf(out, len, "%s", v.s ? v.s : md ? "-" : "");
    else if (strcmp(f->unit, "ns") == 0 && md)
        mb__fmt_ms(v.x, out, len);
    else if (strcmp(f->unit, "ns") == 0)
        mb__fmt_ms_table(v.x, out, len);
    else if (strcmp(f->unit, "B") == 0)
        mb__fmt_bytes(v.x, out, len);
    else if (md)
        mb__fmt_num(v.x, 4, out, len);
    else if (strcmp(f->unit, "1/s") == 0)
        snprintf(out, len, "%.1f", v.x);
    else if (isfinite(v.x))
        snprintf(out, len, "%.0f", v.x);
    else
        snprintf(out, len, "-");
    return out;
}

char *mb__field_sql(const mb__field *f, const mb__rrun *r, int *oom)
{
    char tmp[256], num[48];
    mb__fval v;
    char *s = NULL;
    mb__field_get(f, r, &v, tmp, sizeof tmp);
    switch (f->type) {
    case MB_FT_TEXT:
        if (!v.s)
            return NULL;
        s = mb__strdup(v.s);
        break;
    case MB_FT_JSON:
        if (!v.j || json_is_null(v.j))
            return NULL;
        s = json_dumps(v.j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        break;
    case MB_FT_INT:
    case MB_FT_REAL:
        if (!isfinite(v.x))
            return NULL;
        snprintf(num, sizeof num, f->type == MB_FT_INT ? "%.0f" : "%.17g", v.x);
        s = mb__strdup(num);
        break;
    }
    if (!s)
        *oom = 1;
    return s;
}
