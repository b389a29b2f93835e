/* metrics_json.h - the metrics of a candidate against a baseline as the
 * JSON object of docs/ACCURACY.md (metrics_json.c), over metrics.c's
 * struct. */
#ifndef MB_ACCURACY_METRICS_JSON_H
#define MB_ACCURACY_METRICS_JSON_H

#include "accuracy/metrics.h"
#include "mbench.h"

#include <jansson.h>

/*
 * The same, as a new JSON object (caller json_decref) laid out as
 * docs/ACCURACY.md describes: the whole-tensor metrics at the top level,
 * "worst" naming the worst sample of each metric, and "per_sample" arrays
 * up to opts->per_sample_max samples.  Infinite values are the string
 * "inf" ("-inf"), undefined ones null.
 */
mb_status mb__metrics_compute(const mb_tensor *a, const mb_tensor *b,
                              const mb__metric_opts *opts, json_t **out,
                              mb_err *err);

/* The JSON object of an already computed result (new reference, or NULL
 * when memory runs out). */
json_t *mb__metrics_to_json(const mb_tensor *a, const mb_tensor *b,
                            const mb__metric_opts *opts,
                            const mb__metrics_result *res);

#endif
