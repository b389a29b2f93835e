/* rundoc.c - the result document of a run: its skeleton (mb__doc_new),
 * the model object, a run's skeleton from an open bench, and the latency
 * statistics every engine reports in the same fields. */
#include "runner/runner.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/stats.h"
#include "core/sysinfo.h"
#include "model/onnx.h"
#include "backend/registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_or_null(double v, int ok)
{
    return ok && isfinite(v) ? json_real(v) : json_null();
}

json_t *mb__latency_json(const int64_t *samples, size_t n,
                         const double *extra_q, size_t n_extra)
{
    mb__summary s;
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_string("ns"));
    json_object_set_new(o, "count", json_integer((json_int_t)n));
    if (!mb__summarize_ns(samples, n, &s))
        return o;
    json_object_set_new(o, "min", json_real(s.min));
    json_object_set_new(o, "max", json_real(s.max));
    json_object_set_new(o, "mean", json_real(s.mean));
    json_object_set_new(o, "std", json_real(s.std));
    json_object_set_new(o, "cv", json_real(s.cv));
    json_object_set_new(o, "mad", json_real(s.mad));
    json_object_set_new(
        o, "robust_cv",
        json_real(s.median > 0 ? 1.4826 * s.mad / s.median : 0.0));
    json_object_set_new(o, "median", json_real(s.median));
    json_object_set_new(o, "p90", num_or_null(s.p90, s.p90_ok));
    json_object_set_new(o, "p95", num_or_null(s.p95, s.p95_ok));
    json_object_set_new(o, "p99", num_or_null(s.p99, s.p99_ok));
    json_object_set_new(o, "p99_9", num_or_null(s.p999, s.p999_ok));
    double *sorted = mb__calloc(n, sizeof *sorted);
    json_t *pcts = json_array();
    if (sorted) {
        for (size_t i = 0; i < n; i++)
            sorted[i] = (double)samples[i];
        qsort(sorted, n, sizeof *sorted, mb__cmp_double);
        static const double std_q[] = {50, 90, 95, 99, 99.9};
        for (size_t i = 0; i < 5 + n_extra; i++) {
            double q = i < 5 ? std_q[i] : extra_q[i - 5];
            int seen = 0; /* --percentile 99.9 is one of the standard ones */
            for (size_t j = 0; j < i; j++)
                seen |= (j < 5 ? std_q[j] : extra_q[j - 5]) == q;
            if (seen)
                continue;
            int ok = mb__percentile_supported(n, q) || q == 50;
            json_array_append_new(
                pcts,
                json_pack("{s:f,s:o,s:b}", "q", q, "value",
                          num_or_null(mb__percentile_sorted(sorted, n, q), ok),
                          "supported", ok));
        }
        free(sorted);
    }
    json_object_set_new(o, "percentiles", pcts);
    json_object_set_new(o, "median_ci95",
                        s.median_ci_ok
                            ? json_pack("{s:f,s:f,s:s}", "lo", s.median_ci_lo,
                                        "hi", s.median_ci_hi, "method",
                                        "binomial order statistics")
                            : json_null());
    json_object_set_new(o, "outliers",
                        json_pack("{s:s,s:f,s:I,s:I}", "method", "MAD",
                                  "threshold", 3.5, "low",
                                  (json_int_t)s.outliers_low, "high",
                                  (json_int_t)s.outliers_high));
    return o;
}

void mb__latency_apply_replication(json_t *lat, const json_t *rep)
{
    static const char *const figs[][2] = {{"median", "median_ci95"},
                                          {"p99", "p99_ci95"}};
    const char *unit = json_string_value(json_object_get(rep, "unit"));
    for (size_t f = 0; f < 2; f++) {
        const json_t *g = json_object_get(rep, figs[f][0]);
        const json_t *ci = json_object_get(g, "ci95");
        if (json_is_array(ci)) {
            json_object_set_new(
                lat, figs[f][1],
                json_pack("{s:O,s:O,s:O,s:O,s:s,s:O}", "lo",
                          json_array_get(ci, 0), "hi", json_array_get(ci, 1),
                          "estimate", json_object_get(g, "estimate"), "method",
                          json_object_get(g, "method"), "unit",
                          unit ? unit : "process", "replicates",
                          json_object_get(g, "replicates")));
        } else if (f == 1) {
            json_object_set_new(lat, figs[f][1], json_null());
        } else {
            json_t *m = json_object_get(lat, figs[f][1]);
            if (json_is_object(m))
                json_object_set_new(m, "method",
                                    json_string("binomial order statistics; "
                                                "assumes independent "
                                                "samples (too few samples "
                                                "for blocks)"));
        }
    }
}

json_t *mb__doc_new(const char *kind, const char *command_line)
{
    json_t *d = json_object();
    char ts[32];
    mb__utc_iso8601(ts, sizeof ts);
    mb__clock_info ci;
    mb__clock_measure(&ci);
    json_object_set_new(d, "schema", json_string("mbench.result/1"));
    json_object_set_new(d, "kind", json_string(kind));
    json_object_set_new(d, "created_utc", json_string(ts));
    json_object_set_new(d, "command_line",
                        json_string(command_line ? command_line : ""));
    json_object_set_new(d, "mbench",
                        json_pack("{s:s,s:s}", "version", mb_version(),
                                  "commit", mb_build_commit()));
    json_object_set_new(d, "environment", mb__sysinfo_json());
    json_object_set_new(d, "timer",
                        json_pack("{s:s,s:I,s:I,s:I}", "clock",
                                  "CLOCK_MONOTONIC", "resolution_ns",
                                  (json_int_t)ci.resolution_ns, "overhead_ns",
                                  (json_int_t)ci.overhead_ns, "min_step_ns",
                                  (json_int_t)ci.min_step_ns));
    json_object_set_new(
        d, "statistics",
        json_pack("{s:s,s:s,s:s,s:s,s:s}", "percentile_method",
                  "linear interpolation between order statistics (numpy "
                  "default)",
                  "median_ci",
                  "95%, over processes: Student t on the log per-process "
                  "medians (replication.median); with one process, over "
                  "blocks of consecutive samples (within-run noise only), "
                  "or below 250 samples binomial order statistics; each "
                  "run's latency.median_ci95.method says which",
                  "speedup_ci",
                  "compare: 95%, paired Student t on the log ratios of "
                  "per-process medians over blocks of consecutive rounds "
                  "(docs/STATISTICS.md)",
                  "outliers",
                  "|x - median| / (1.4826 MAD) > 3.5; counted, "
                  "never dropped",
                  "std", "sample standard deviation (n-1)"));
    json_object_set_new(d, "warnings", json_array());
    json_object_set_new(d, "interrupted", json_false());
    json_object_set_new(d, "runs", json_array());
    return d;
}

json_t *mb__model_json(const mb__plan *plan)
{
    json_t *m = json_object();
    const char *path = plan->model_path ? plan->model_path : "";
    json_object_set_new(m, "path", json_string(path));
    json_object_set_new(m, "name", json_string(mb__basename(path)));
    char hex[65];
    mb_err e;
    int64_t size = mb__file_size(path);
    json_object_set_new(m, "file_bytes",
                        size >= 0 ? json_integer(size) : json_null());
    json_object_set_new(m, "sha256",
                        size >= 0 && !mb__sha256_file(path, hex, &e)
                            ? json_string(hex)
                            : json_null());
    json_t *info = NULL;
    if (size > 0 && !mb__onnx_inspect(path, &info, &e)) {
        /* file_bytes is the .onnx file alone; a model with external data
         * takes total_bytes (docs/FORMATS.md), the figure to compare. */
        const json_t *ext = json_object_get(info, "external_data");
        json_object_set(m, "external_data_bytes",
                        json_object_get(ext, "file_bytes"));
        json_object_set(m, "external_data_files",
                        json_object_get(ext, "files"));
        json_object_set(m, "external_data_missing",
                        json_object_get(ext, "missing"));
        json_object_set(m, "total_bytes", json_object_get(info, "total_bytes"));
        json_object_set(m, "params", json_object_get(info, "params"));
        json_object_set(m, "param_bytes", json_object_get(info, "param_bytes"));
        json_object_set(m, "params_by_dtype",
                        json_object_get(info, "params_by_dtype"));
        json_object_set(m, "opsets", json_object_get(info, "opsets"));
        json_object_set(m, "producer_name",
                        json_object_get(info, "producer_name"));
        /* Weights some exporters keep in Constant nodes, not initializers. */
        json_object_set(m, "constants", json_object_get(info, "constants"));
        json_decref(info);
    } else {
        /* unknown external data: the .onnx file is all that is known */
        json_object_set_new(m, "external_data_bytes", json_null());
        json_object_set_new(m, "total_bytes",
                            size >= 0 ? json_integer(size) : json_null());
        json_object_set_new(m, "params", json_null());
        json_object_set_new(m, "param_bytes", json_null());
    }
    return m;
}

/* The preprocessing of image data as given (null: every default). */
static json_t *image_json(const mb__image_prep *m)
{
    static const mb__image_prep none = {0};
    if (!memcmp(m, &none, sizeof none))
        return json_null();
    json_t *mean = json_array(), *std = json_array();
    for (int k = 0; k < m->n_mean; k++)
        json_array_append_new(mean, json_real(m->mean[k]));
    for (int k = 0; k < m->n_std; k++)
        json_array_append_new(std, json_real(m->std[k]));
    return json_pack(
        "{s:[I,I], s:[I,I], s:o, s:o, s:o, s:s, s:s}", "resize",
        (json_int_t)m->resize_h, (json_int_t)m->resize_w, "center_crop",
        (json_int_t)m->crop_h, (json_int_t)m->crop_w, "scale",
        m->have_scale ? json_real(m->scale) : json_null(), "mean", mean, "std",
        std, "channel_order", m->bgr ? "bgr" : "rgb", "layout",
        m->layout == 1   ? "nchw"
        : m->layout == 2 ? "nhwc"
                         : "from the input's shape");
}

static json_t *config_json(const mb__plan *p, const mb__bench *b)
{
    json_t *c = json_object(), *be = json_object();
    /* what the backend was given, --dim included where it takes them */
    size_t n = 0;
    const mb_kv *kv = mb__bench_opts(b, &n);
    if (!kv) {
        kv = p->opts;
        n = p->n_opts;
    }
    for (size_t i = 0; i < n; i++)
        json_object_set_new(be, kv[i].key, json_string(kv[i].value));
    json_object_set_new(c, "backend_options", be);
    json_object_set_new(c, "seed", json_integer((json_int_t)p->seed));
    json_object_set_new(c, "data",
                        p->data_path ? json_string(p->data_path) : json_null());
    json_object_set_new(c, "image", image_json(&p->image));
    json_object_set_new(c, "warmup_iters", json_integer(p->warmup_iters));
    json_object_set_new(c, "warmup_time_ns", json_integer(p->warmup_time_ns));
    json_object_set_new(c, "min_iters", json_integer(p->min_iters));
    json_object_set_new(c, "min_time_ns", json_integer(p->min_time_ns));
    json_object_set_new(c, "max_iters", json_integer(p->max_iters));
    json_object_set_new(c, "max_time_ns", json_integer(p->max_time_ns));
    json_object_set_new(c, "fixed_iters", json_integer(p->fixed_iters));
    json_object_set_new(c, "target_ci", json_real(p->target_ci));
    return c;
}

static const char *device_of(const mb__plan *p)
{
    const char *ep = mb__plan_get_opt(p, "ep");
    return ep ? ep : "cpu";
}

json_t *mb__bench_run_skeleton(const mb__plan *p, mb__bench *b, int64_t batch,
                               json_t *model, int64_t rss_before,
                               int64_t rss_after)
{
    json_t *run = json_object();
    const char *name =
        p->variant ? p->variant
                   : mb__basename(p->model_path ? p->model_path : "model");
    json_object_set_new(run, "status", json_string("ok"));
    json_object_set_new(run, "variant", json_string(name));
    json_object_set(run, "model", model);
    json_object_set_new(run, "backend", json_string(mb__plan_backend(p)));
    mb__bench_model_facts(b, model);
    json_object_set_new(run, "runtime", mb__bench_runtime_json(b));
    const char *dev = device_of(p);
    json_object_set_new(run, "device", json_string(dev));
    json_object_set_new(run, "device_type",
                        json_string(strcmp(dev, "cpu") == 0 ? "cpu" : dev));
    json_object_set_new(run, "config", config_json(p, b));
    json_object_set_new(run, "batch_size", json_integer(batch));
    json_t *io = mb__bench_io_json(b);
    json_object_set(run, "inputs", json_object_get(io, "inputs"));
    json_object_set(run, "outputs", json_object_get(io, "outputs"));
    json_decref(io);
    const mb__phases *ph = mb__bench_phases(b);
    json_object_set_new(
        run, "phases",
        json_pack("{s:I,s:I,s:I,s:o}", "library_load_ns",
                  (json_int_t)ph->library_load_ns, "session_create_ns",
                  (json_int_t)ph->session_create_ns, "first_inference_ns",
                  (json_int_t)ph->first_inference_ns, "compile_ns",
                  ph->compile_ns >= 0 ? json_integer(ph->compile_ns)
                                      : json_null()));
    json_object_set_new(
        run, "memory",
        json_pack("{s:I,s:I}", "rss_before_load_bytes", (json_int_t)rss_before,
                  "rss_after_session_bytes", (json_int_t)rss_after));
    mb__bench_session_facts(b, run);
    return run;
}
