/* valprint.h - the console text of accuracy results: the metrics of one
 * output, a gate verdict array, and the whole report of a validation
 * (`mbench validate`), with its verdict line.  Shared by `mbench diff`
 * and `mbench validate`.  Pure: document -> bytes. */
#ifndef MB_REPORT_VALPRINT_H
#define MB_REPORT_VALPRINT_H

#include "core/buf.h"

#include <jansson.h>

/* Every metric of one output's metrics object (accuracy/metrics.h
 * layout), indented by two spaces, with its worst samples. */
void mb__metrics_text(const json_t *m, mb__buf *out);

/* The gate verdict array of mb__gates_eval_outputs, one line per gate
 * ("  PASS cosine>=0.999  (logits pass: 0.99991)"). */
void mb__gates_text(const json_t *gates, mb__buf *out);

/* The console report of a validate document (its "validation" object,
 * docs/ACCURACY.md): models, inputs (a loud line for random ones), the
 * metrics of every output, accuracy against labels, the class-score
 * choice, the criteria and gates, each output's verdict; then the verdict
 * line "PASS: CANDIDATE vs BASELINE".  With quiet only the verdict line.
 * Nothing for a document without a "validation" object. */
void mb__validation_console(const json_t *doc, int quiet, mb__buf *out);
/* An image folder's line (accuracy/folderinfo.h's object): "image folder
 * PATH: N images; class folder -> class id: cat -> 0 (12), ..." (the
 * first 12 classes). */
void mb__folder_text(const json_t *info, mb__buf *f);
/* The same with the document's warnings (but the random-inputs one, which
 * has its banner) wrapped at `width` columns. */
void mb__validation_console_w(const json_t *doc, int quiet, int width,
                              mb__buf *out);

#endif
