/* fuzz_result.c - libFuzzer harness for what `mbench report` and `mbench
 * gate` do with a result document once jansson has parsed it: the schema
 * check (mb__regress_check_doc), the gate's judgement of the document
 * against itself (mb__regress_run, few bootstrap resamples), and every
 * report writer (Markdown, HTML, CSV, console); and the writers of the
 * other documents mbench renders, whatever the document: a diff's
 * Markdown, HTML and CSV, a gate verdict's CSV, and a load document's
 * console, Markdown, CSV and HTML.  jansson itself is not
 * fuzzed here: inputs that are not JSON stop at json_loadb.  Built by
 * `make fuzz`. */
#include "report/vreport.h"
#include "core/buf.h"
#include "regress/regress.h"
#include "report/console.h"
#include "report/csv.h"
#include "report/gaterep.h"
#include "report/html.h"
#include "report/loadrep.h"
#include "report/markdown.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, size, 0, &je);
    if (!doc)
        return 0;
    mb_err err;
    mb__buf w = MB_BUF_INIT;
    (void)mb__diff_md(doc, &w, &err);
    mb__buf_free(&w);
    (void)mb__diff_html(doc, &w, &err);
    mb__buf_free(&w);
    mb__diff_csv(doc, &w);
    mb__buf_free(&w);
    (void)mb__report_gate_csv(doc, &w, &err);
    mb__buf_free(&w);
    if (mb__is_load_doc(doc)) {
        mb__report_load_console(doc, 80, &w);
        mb__buf_free(&w);
        mb__report_load_md(doc, &w);
        mb__buf_free(&w);
        mb__report_load_csv(doc, 1, &w);
        mb__buf_free(&w);
        (void)mb__report_load_html(doc, &w, &err);
        mb__buf_free(&w);
        (void)mb__load_doc_outcome(doc, &err);
    }
    if (mb__regress_check_doc(doc, "fuzz.json", &err) == MB_OK) {
        const json_t *docs[2] = {doc, doc};
        mb__buf b = MB_BUF_INIT;
        (void)mb__report_md(docs, 2, &b, &err);
        mb__buf_free(&b);
        (void)mb__report_html(docs, 1, &b, &err);
        mb__buf_free(&b);
        mb__report_csv(doc, 1, &b);
        mb__buf_free(&b);
        mb__console_opts co = {80, 1};
        mb__report_console(doc, &co, &b);
        mb__buf_free(&b);
        mb__regress_opts o;
        mb__regress_defaults(&o);
        /* every latency metric, so that every per-process path runs */
        for (int m = 0; m < MB_GM_COUNT; m++)
            o.threshold[m] = 0.05;
        json_t *verdict = NULL;
        int code = 0;
        if (mb__regress_run(doc, doc, &o, &verdict, &code, &err) == MB_OK)
            json_decref(verdict);
    }
    json_decref(doc);
    return 0;
}
