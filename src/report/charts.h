/* charts.h - the charts of the HTML report, each drawn from the run view
 * (rutil.h) as one inline SVG figure with a fixed element id, so the page
 * script and the browser test can check that each one is there.  A chart
 * whose data is absent is not drawn and returns 0. */
#ifndef MB_REPORT_CHARTS_H
#define MB_REPORT_CHARTS_H

#include "core/buf.h"
#include "report/rutil.h"

#include <stdbool.h>

/* Each returns true when it drew its chart (id in the comment), false
 * when the documents hold nothing for it or memory ran out (which sets
 * b->oom, as a failed append does). */
bool mb__chart_distribution(mb__buf *b, const mb__rview *v); /* chart-dist */
bool mb__chart_ecdf(mb__buf *b, const mb__rview *v);         /* chart-ecdf */
bool mb__chart_batch_throughput(mb__buf *b,
                                const mb__rview *v); /* chart-batch-thr */
bool mb__chart_batch_latency(mb__buf *b,
                             const mb__rview *v);          /* chart-batch-lat */
bool mb__chart_speedup(mb__buf *b, const mb__rview *v);    /* chart-speedup */
bool mb__chart_memory(mb__buf *b, const mb__rview *v);     /* chart-mem */
bool mb__chart_model_size(mb__buf *b, const mb__rview *v); /* chart-size */
bool mb__chart_accuracy(mb__buf *b, const mb__rview *v);   /* chart-acc */
bool mb__chart_outputs(mb__buf *b, const mb__rview *v);    /* chart-outputs */

/* The colour of run i: by variant when there are several variants, else
 * by run. */
const char *mb__run_color(const mb__rview *v, size_t i);
/* "variant · batch 4" (or just the variant) into out; returns out. */
char *mb__run_label(const mb__rview *v, size_t i, char *out, size_t len);

#endif
