/* runtext.c - histograms, progress line and outcome of `mbench run`
 * (runtext.h). */
#include "report/runtext.h"

#include "core/err.h"
#include "report/termhist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long batch_of(const json_t *run)
{
    return (long long)json_integer_value(json_object_get(run, "batch_size"));
}

void mb__report_run_histograms(const json_t *doc, const mb__console_opts *o,
                               mb__buf *out)
{
    size_t i;
    const json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        const json_t *s = json_object_get(run, "samples_ns");
        size_t n = json_array_size(s);
        int64_t *v = calloc(n ? n : 1, sizeof *v);
        for (size_t k = 0; v && k < n; k++)
            v[k] = json_integer_value(json_array_get(s, k));
        mb__buf_printf(out, "\nbatch %lld latency distribution:\n",
                       batch_of(run));
        if (v)
            mb__report_term_histogram(v, n, o->width, o->color, out);
        else
            out->oom = 1;
        free(v);
    }
}

void mb__run_progress_line(char *buf, size_t len, int64_t batch, int64_t iters,
                           int64_t elapsed_ns, double ci_rel, double target)
{
    double frac = isfinite(ci_rel) && ci_rel > 0 ? target / ci_rel : 0;
    int width = 24, fill = (int)((frac > 1 ? 1 : frac) * width);
    char bar[32], ci[32];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
    bar[width] = '\0';
    if (isfinite(ci_rel))
        snprintf(ci, sizeof ci, "CI +-%.2f%%", ci_rel * 100);
    else
        snprintf(ci, sizeof ci, "CI pending");
    snprintf(buf, len,
             "\rbatch %lld [%s] %lld iterations, %.1f s, %s (target "
             "%.2f%%)\033[K",
             (long long)batch, bar, (long long)iters, (double)elapsed_ns / 1e9,
             ci, target * 100);
}

void mb__run_outcome_of(const json_t *doc, mb__run_outcome *o, mb_err *failure,
                        mb__buf *notes)
{
    memset(o, 0, sizeof *o);
    size_t i;
    const json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        const char *st = json_string_value(json_object_get(run, "status"));
        if (!o->failed && st && strcmp(st, "failed") == 0) {
            o->failed = 1;
            mb__fail(failure, MB_EBACKEND, "batch %lld failed: %s",
                     batch_of(run),
                     json_string_value(json_object_get(run, "error")));
        }
    }
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        const json_t *leak =
            json_object_get(json_object_get(run, "memory"), "leak");
        if (!leak)
            continue;
        int sus = json_is_true(json_object_get(leak, "suspected"));
        mb__buf_printf(
            notes,
            "leak check, batch %lld: %s (RSS slope %.1f bytes per "
            "iteration, growth %.0f bytes)\n",
            batch_of(run), sus ? "LEAK SUSPECTED" : "no leak",
            json_number_value(json_object_get(leak, "slope_bytes_per_iter")),
            json_number_value(json_object_get(leak, "growth_bytes")));
        o->leak |= sus;
    }
    o->interrupted = json_is_true(json_object_get(doc, "interrupted"));
}
