/* csv.c - CSV rows for result documents (RFC 4180 quoting). */
#include "report/loadrep.h"
#include "report/csv.h"

#include "report/proftab.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *columns =
    "framework,model,variant,device,device_type,batch_size,input_shape,dtype,"
    "latency_p50_ms,latency_p95_ms,latency_p99_ms,latency_mean_ms,"
    "latency_std_ms,latency_min_ms,latency_max_ms,latency_ci_lo_ms,"
    "latency_ci_hi_ms,iterations,throughput_ips,throughput_sps,memory_mb,"
    "compilation_time_ms,first_inference_ms,timestamp,git_commit,"
    "model_sha256,status";

void mb__csv_field(mb_buf *out, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n")) {
        mb__buf_puts(out, s);
        return;
    }
    mb__buf_putc(out, '"');
    for (; *s; s++) {
        if (*s == '"')
            mb__buf_putc(out, '"');
        mb__buf_putc(out, *s);
    }
    mb__buf_putc(out, '"');
}

static void num_ms(mb_buf *out, const json_t *v)
{
    if (json_is_number(v))
        mb__buf_printf(out, ",%.6f", json_number_value(v) / 1e6);
    else
        mb__buf_puts(out, ",");
}

static void num_plain(mb_buf *out, const json_t *v, const char *fmt)
{
    mb__buf_putc(out, ',');
    if (json_is_number(v))
        mb__buf_printf(out, fmt, json_number_value(v));
}

static void str_field(mb_buf *out, const json_t *v)
{
    mb__buf_putc(out, ',');
    mb__csv_field(out, json_string_value(v));
}

void mb__report_csv(const json_t *doc, int with_header, mb_buf *out)
{
    if (mb__profile_doc_is(doc)) { /* one row per operator type */
        mb__report_profile_csv(doc, with_header, out);
        return;
    }
    if (mb__is_load_doc(doc)) { /* one row per load step */
        mb__report_load_csv(doc, with_header, out);
        return;
    }
    if (with_header) {
        mb__buf_puts(out, columns);
        mb__buf_puts(out, "\n");
    }
    const json_t *runs = json_object_get(doc, "runs"), *run;
    const char *ts = json_string_value(json_object_get(doc, "created_utc"));
    /* The measured project's commit: the run's (a suite task's branch),
     * else the document's git facts; never mbench's own. */
    const char *doc_commit = json_string_value(
        json_object_get(json_object_get(doc, "git"), "commit"));
    size_t i;
    json_array_foreach(runs, i, run)
    {
        const json_t *rt = json_object_get(run, "runtime");
        const json_t *model = json_object_get(run, "model");
        const json_t *lat = json_object_get(run, "latency");
        const json_t *in0 = json_array_get(json_object_get(run, "inputs"), 0);
        const char *commit = json_string_value(
            json_object_get(json_object_get(run, "git"), "commit"));
        if (!commit)
            commit = doc_commit;
        const char *be = json_string_value(json_object_get(run, "backend"));
        int is_exec = be && !strcmp(be, "exec");
        char fw[128], shape[256] = "";
        snprintf(fw, sizeof fw, "%s %s", is_exec ? "exec" :
                 json_string_value(json_object_get(rt, "name"))
                     ? json_string_value(json_object_get(rt, "name"))
                     : "unknown",
                 json_string_value(json_object_get(rt, "version"))
                     ? json_string_value(json_object_get(rt, "version"))
                     : "");
        size_t k, off = 0;
        const json_t *d;
        json_array_foreach(json_object_get(in0, "shape"), k, d)
            off += (size_t)snprintf(shape + off, sizeof shape - off, "%s%lld",
                                    k ? "x" : "",
                                    (long long)json_integer_value(d));
        mb__csv_field(out, is_exec ? "exec" : fw);
        str_field(out, is_exec ? json_object_get(run, "command")
                               : json_object_get(model, "name"));
        str_field(out, json_object_get(run, "variant"));
        str_field(out, json_object_get(run, "device"));
        str_field(out, json_object_get(run, "device_type"));
        num_plain(out, json_object_get(run, "batch_size"), "%.0f");
        mb__buf_putc(out, ',');
        mb__csv_field(out, shape);
        str_field(out, json_object_get(in0, "dtype"));
        num_ms(out, json_object_get(lat, "median"));
        num_ms(out, json_object_get(lat, "p95"));
        num_ms(out, json_object_get(lat, "p99"));
        num_ms(out, json_object_get(lat, "mean"));
        num_ms(out, json_object_get(lat, "std"));
        num_ms(out, json_object_get(lat, "min"));
        num_ms(out, json_object_get(lat, "max"));
        const json_t *ci = json_object_get(lat, "median_ci95");
        num_ms(out, json_object_get(ci, "lo"));
        num_ms(out, json_object_get(ci, "hi"));
        num_plain(out, json_object_get(run, "iterations"), "%.0f");
        const json_t *tp = json_object_get(run, "throughput");
        num_plain(out, json_object_get(tp, "inferences_per_s"), "%.3f");
        num_plain(out, json_object_get(tp, "samples_per_s"), "%.3f");
        const json_t *peak =
            json_object_get(json_object_get(run, "memory"), "rss_peak_bytes");
        mb__buf_putc(out, ',');
        if (json_is_number(peak))
            mb__buf_printf(out, "%.3f", json_number_value(peak) / 1048576.0);
        const json_t *ph = json_object_get(run, "phases");
        num_ms(out, json_object_get(ph, "session_create_ns"));
        num_ms(out, json_object_get(ph, "first_inference_ns"));
        mb__buf_putc(out, ',');
        mb__csv_field(out, ts);
        mb__buf_putc(out, ',');
        mb__csv_field(out, commit);
        str_field(out, json_object_get(model, "sha256"));
        str_field(out, json_object_get(run, "status"));
        mb__buf_putc(out, '\n');
    }
}
