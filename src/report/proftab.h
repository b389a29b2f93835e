/* proftab.h - a profile result document (kind "profile", docs/PROFILE.md)
 * as Markdown, CSV and HTML: the per-operator tables instead of the
 * latency summary the other kinds get.  markdown.c, csv.c and html.c hand
 * a profile document here, so `--md/--csv/--html` of `mbench profile` and
 * `mbench report` of a saved profile give the same bytes.  Pure. */
#ifndef MB_REPORT_PROFTAB_H
#define MB_REPORT_PROFTAB_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* 1 when doc is a profile document: kind "profile" with a "profile" in its
 * first run or a "profile_comparison". */
int mb__profile_doc_is(const json_t *doc);

/* Markdown: title, reconciliation, op types (all), nodes (top 25), work
 * and share of peak, counters, warnings; for a comparison, the table of
 * op types that explains the change.  Each document in turn. */
mb_status mb__report_profile_md(const json_t *const *docs, size_t n_docs,
                                mb__buf *out, mb_err *err);

/* CSV rows, one per operator type (header when with_header):
 * model,variant,batch_size,op_type,calls_per_run,per_run_ms,total_ms,
 * mean_ms,median_ms,share,flops_per_run,gflops_per_s,peak_share,
 * model_run_ms,latency_ms,timestamp,git_commit.  A comparison gives
 * a,b,op_type,a_ms,b_ms,delta_ms,contribution,timestamp,git_commit. */
void mb__report_profile_csv(const json_t *doc, int with_header, mb__buf *out);

/* The HTML page of one profile document (mb__profile_html, or the
 * comparison page).  Script-free. */
mb_status mb__report_profile_html(const json_t *doc, mb__buf *out, mb_err *err);

#endif
