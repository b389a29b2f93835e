/* termhist.c - latency histogram for terminals. */
#include "report/termhist.h"

#include "core/alloc.h"
#include "core/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBINS 12

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Appends a bar of `cells` eighths-resolution length (value in cells). */
static void bar(mb__buf *out, double cells)
{
    static const char *const eighth[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    int full = (int)cells;
    int rest = (int)((cells - full) * 8);
    for (int i = 0; i < full; i++)
        mb__buf_puts(out, "█");
    if (rest > 0)
        mb__buf_puts(out, eighth[rest]);
    else if (full == 0 && cells > 0)
        mb__buf_puts(out, "▏");
}

static int ms_decimals(double span_ms)
{
    if (span_ms >= 100)
        return 1;
    if (span_ms >= 10)
        return 2;
    if (span_ms >= 1)
        return 3;
    return 4;
}

void mb__report_term_histogram(const int64_t *samples_ns, size_t n, int width,
                               int color, mb__buf *out)
{
    if (n == 0) {
        mb__buf_puts(out, "  (no samples to draw)\n");
        return;
    }
    double *x = mb__calloc(n, sizeof *x);
    if (!x) {
        out->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (double)samples_ns[i] / 1e6;
    qsort(x, n, sizeof *x, cmp_d);
    double lo = x[0], p50 = mb__percentile_sorted(x, n, 50),
           p95 = mb__percentile_sorted(x, n, 95),
           p99 = mb__percentile_sorted(x, n, 99);
    double hi = p99 > lo ? p99 : x[n - 1];
    int nb = NBINS;
    if (!(hi > lo)) {
        hi = lo;
        nb = 1;
    }
    size_t cnt[NBINS + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        if (x[i] > hi) {
            cnt[NBINS]++;
            continue;
        }
        int b = nb == 1 ? 0 : (int)((x[i] - lo) / (hi - lo) * nb);
        cnt[b >= nb ? nb - 1 : b]++;
    }
    size_t maxc = 1;
    for (int b = 0; b <= NBINS; b++)
        maxc = cnt[b] > maxc ? cnt[b] : maxc;
    int dec = ms_decimals(hi - lo > 0 ? (hi - lo) : hi);
    char l1[32], l2[32];
    snprintf(l2, sizeof l2, "%.*f", dec, x[n - 1]);
    int lw = (int)strlen(l2);
    if (width < 40)
        width = 40;
    /* "  lo – hi ms │bar count  marks" */
    int fixed = 2 + lw + 3 + lw + 4 + 1 + 8 + 10;
    double cols = (double)(width - fixed);
    if (cols < 10)
        cols = 10;
    const char *cbar = color ? "\033[36m" : "",
               *cmark = color ? "\033[33m" : "", *cdim = color ? "\033[2m" : "",
               *crst = color ? "\033[0m" : "";
    mb__buf_printf(out, "  %slatency (ms), %zu samples%s\n", cdim, n, crst);
    for (int b = 0; b <= nb; b++) {
        int tail = b == nb;
        size_t c = tail ? cnt[NBINS] : cnt[b];
        if (tail && c == 0)
            break;
        double a = tail ? hi : lo + (hi - lo) * b / nb;
        double z = tail ? x[n - 1] : lo + (hi - lo) * (b + 1) / nb;
        snprintf(l1, sizeof l1, "%.*f", dec, a);
        snprintf(l2, sizeof l2, "%.*f", dec, z);
        mb__buf_printf(out, "  %*s – %-*s │", lw, l1, lw, l2);
        double cells = cols * (double)c / (double)maxc;
        mb__buf_puts(out, cbar);
        bar(out, cells);
        mb__buf_puts(out, crst);
        int used = (int)ceil(cells);
        mb__buf_printf(out, "%*s %zu",
                       (int)cols - used > 0 ? (int)cols - used : 0, "", c);
        /* markers */
        const char *marks[3] = {NULL, NULL, NULL};
        int m = 0;
        double qv[3] = {p50, p95, p99};
        const char *qn[3] = {"p50", "p95", "p99"};
        for (int q = 0; q < 3; q++) {
            int in = tail ? qv[q] > hi
                          : (qv[q] >= a &&
                             (qv[q] < z || (b == nb - 1 && qv[q] <= z)));
            if (in)
                marks[m++] = qn[q];
        }
        if (tail)
            mb__buf_printf(out, "  %s◀ beyond p99%s", cdim, crst);
        else if (m) {
            mb__buf_printf(out, "  %s◀", cmark);
            for (int q = 0; q < m; q++)
                mb__buf_printf(out, " %s", marks[q]);
            mb__buf_puts(out, crst);
        }
        mb__buf_putc(out, '\n');
    }
    free(x);
}
