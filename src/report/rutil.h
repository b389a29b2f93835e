/* rutil.h - what the Markdown and HTML writers share: escaping of
 * untrusted strings (variant names, paths, model metadata), lookups in a
 * result document, a flat view of every run across several documents, the
 * warnings a reader must see, and number formatting.  Pure functions: no
 * I/O, no global state. */
#ifndef MB_REPORT_RUTIL_H
#define MB_REPORT_RUTIL_H

#include "core/buf.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* HTML-escapes s (& < > " ' and control characters) into b, for text and
 * attribute values alike.  NULL appends nothing. */
void mb__html_escape(mb_buf *b, const char *s);
/* Escapes s for a GitHub-flavoured Markdown table cell: backslash-escapes
 * \ ` * _ | [ ] # ~ $, writes < > & as entities and folds newlines, tabs
 * and other control characters into spaces.  NULL appends "-". */
void mb__md_escape(mb_buf *b, const char *s);
/* Appends the JSON text of doc for a <script type="application/json">
 * block: < > & and U+2028/U+2029 become \u escapes, so "</script>" can
 * never appear, and JSON.parse gives back the same document. */
void mb__json_script_embed(mb_buf *b, const json_t *doc);

/* Dotted-path lookups ("latency.median_ci95.lo"); NULL/NAN when missing or
 * of another type.  Borrowed from o. */
const json_t *mb__jget(const json_t *o, const char *path);
double mb__jnum(const json_t *o, const char *path);
const char *mb__jstr(const json_t *o, const char *path);

/* One measured run, wherever it came from. All pointers borrowed from the
 * documents. Numbers are NAN when the document does not have them. */
typedef struct mb_rrun {
    const json_t *doc;  /* the document holding it */
    const json_t *run;  /* the RUN object */
    size_t doc_index;
    const char *variant, *model, *status, *error;
    int64_t batch;      /* -1 when missing */
    double p50, p95, p99, p90, mean, min, max, cv, ci_lo, ci_hi; /* ns */
    double ips, sps, rss_peak, file_bytes;
    double run_cv;      /* run-to-run CV (sd of log per-process medians) */
    int processes;      /* processes measured; 0 when not recorded */
    size_t outliers;
    int leak;           /* memory.leak.suspected */
    int synthetic;      /* any input with source "synthetic" */
    const json_t *samples; /* array of ns, or NULL */
    int series;         /* index of its variant in the variant list */
} mb_rrun;

/* One comparison entry ("comparison.variants[i]"), with its document. */
typedef struct mb_rcmp {
    const json_t *doc, *v;
    const char *name, *status, *baseline;
    int is_baseline;
} mb_rcmp;

typedef struct mb_rview {
    mb_rrun *runs;
    size_t n_runs;
    mb_rcmp *cmps;
    size_t n_cmps;
    const char **series; /* distinct variant names, in first-seen order */
    size_t n_series;
    char **warnings;     /* owned; deduplicated, in order */
    size_t n_warnings;
    int multi_batch;     /* some variant ran at several batch sizes */
    int has_accuracy;    /* some comparison entry has accuracy/agreement */
    int any_samples;
} mb_rview;

/* Builds the view; returns 0, or -1 when memory runs out (view is then
 * empty).  Free with mb__rview_free. */
int mb__rview_build(const json_t *const *docs, size_t n_docs, mb_rview *v);
void mb__rview_free(mb_rview *v);
/* Among the runs that finished: the lowest median (*fast) and the highest
 * samples/s (*thr), either NULL when none has it; *failed counts the runs
 * that did not finish. */
void mb__rview_best(const mb_rview *v, const mb_rrun **fast,
                    const mb_rrun **thr, size_t *failed);

/* The verdict of one comparison entry in words: "baseline", "FAILED", the
 * document's significance verdict ("faster", "slower", ...), or one derived
 * from the speedup CI ("faster", "slower", "inconclusive").  Static. */
const char *mb__cmp_verdict(const mb_rcmp *c);

/* "p < 0.0001" style p-value text ("-" for NAN) into out; returns out. */
char *mb__fmt_p(double p, char *out, size_t len);
/* The median speedup of a comparison entry in words, into out:
 * "2.10× faster (95% CI 1.90–2.30×)" or, below 1, "2.50× slower (95% CI
 * 2.45–2.54×)" (the inverse ratio, easier to read), "" when absent. */
char *mb__speedup_words(const json_t *speedup, char *out, size_t len);

/* Formats a duration in ns as milliseconds with 3-4 significant digits
 * ("1.234", "12.35", "123.4") into out; "-" for NAN. Returns out. */
char *mb__fmt_ms(double ns, char *out, size_t len);
/* Formats a byte count as "12.3 MiB"; "-" for NAN. Returns out. */
char *mb__fmt_bytes(double b, char *out, size_t len);
/* General number with `sig` significant digits, "-" for NAN. */
char *mb__fmt_num(double x, int sig, char *out, size_t len);
/* An integer with thousands separators: "1,234,567". Returns out. */
char *mb__fmt_grouped(uint64_t v, char *out, size_t len);

#endif
