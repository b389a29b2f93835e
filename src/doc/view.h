/* view.h - the typed read side of result documents: every run of one or
 * more documents as a struct filled once from the JSON (mb__rrun), the
 * comparison entries, the variant series and the warnings a reader must
 * see.  Writers (console, CSV, Markdown, HTML, the store) read these
 * fields instead of looking keys up themselves.  Pure: no I/O, no global
 * state; every pointer is borrowed from the documents. */
#ifndef MB_DOC_VIEW_H
#define MB_DOC_VIEW_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One measured run, wherever it came from. All pointers borrowed from the
 * documents. Numbers are NAN when the document does not have them. */
typedef struct mb__rrun {
    const json_t *doc; /* the document holding it */
    const json_t *run; /* the RUN object */
    size_t doc_index;
    const char *variant, *model, *status, *error;
    int64_t batch; /* -1 when missing */
    /* p50 is the median its CI is about (with processes: the geometric
     * mean of the per-process medians); median is latency.median as
     * recorded, the figure the CSV and the store keep. */
    double p50, p95, p99, p90, mean, min, max, cv, ci_lo, ci_hi; /* ns */
    double median, std, count;                                   /* ns, n */
    double ips, sps, rss_peak, file_bytes;
    double model_file_bytes; /* model.file_bytes alone (the .onnx file) */
    double params;           /* model.params: initializer elements */
    double iterations;       /* NAN when missing */
    double load_ns, session_ns, first_ns; /* phases */
    double compile_ns; /* phases.compile_ns: JIT/XLA compile; NAN: none */
    /* As recorded (NULL when missing); variant, model and status above
     * have fallbacks for display. */
    const char *variant_raw, *status_raw, *model_name;
    const char *model_path, *sha256, *backend, *device, *device_type;
    const char *runtime_name, *runtime_version, *stop_rule, *peak_method;
    const char *dtype;         /* of the first input */
    const json_t *shape;       /* of the first input (array), or NULL */
    const json_t *config;      /* the run's config object, or NULL */
    const char *created_utc;   /* of the document */
    const char *mbench_commit; /* mbench.commit of the document */
    /* The measured project's commit: the run's git facts (a suite task's
     * branch), else the document's; never mbench's own.  NULL when none. */
    const char *project_commit;
    const char *command; /* a program's command line (exec, suite) */
    double run_cv;       /* run-to-run CV (sd of log per-process medians) */
    int processes;       /* processes measured; 0 when not recorded */
    size_t outliers;
    int leak;              /* memory.leak.suspected */
    int synthetic;         /* any input with source "synthetic" */
    const json_t *samples; /* array of ns, or NULL */
    int series;            /* index of its variant in the variant list */
} mb__rrun;

/* One comparison entry ("comparison.variants[i]"), with its document. */
typedef struct mb__rcmp {
    const json_t *doc, *v;
    const char *name, *status, *baseline, *error;
    int is_baseline; /* named as comparison.baseline */
    int flagged;     /* carries "baseline": true (compare engine) */
    /* speedup_median: value and 95% CI (NAN when absent) */
    double speedup, speedup_lo, speedup_hi;
    const char *sig_verdict;       /* significance.verdict, or NULL */
    int has_sig;                   /* a significance object is recorded */
    double top1, top5, delta_top1; /* accuracy against labels */
    double agree_top1;             /* top-1 agreement with the baseline */
    int has_agreement;             /* an agreement object is recorded */
    const json_t *recommendations; /* array, or NULL */
    double params; /* model.params of its first run in the document */
    int verdict;   /* verdict.passed: 1 pass, 0 fail, -1 none */
} mb__rcmp;

typedef struct mb__rview {
    mb__rrun *runs;
    size_t n_runs;
    mb__rcmp *cmps;
    size_t n_cmps;
    const char **series; /* distinct variant names, in first-seen order */
    size_t n_series;
    char **warnings; /* owned; deduplicated, in order */
    size_t n_warnings;
    int multi_batch;  /* some variant ran at several batch sizes */
    int has_accuracy; /* some comparison entry has accuracy/agreement */
    int any_samples;
} mb__rview;

/* MB_EINVAL when there is no document or one is not a JSON object (the
 * message names which); the writers check this first. */
mb_status mb__rview_check_docs(const json_t *const *docs, size_t n_docs,
                               mb_err *err);

/* Builds the view; returns 0, or -1 when memory runs out (view is then
 * empty).  Free with mb__rview_free. */
int mb__rview_build(const json_t *const *docs, size_t n_docs, mb__rview *v);
void mb__rview_free(mb__rview *v);
/* Among the runs that finished: the lowest median (*fast) and the highest
 * samples/s (*thr), either NULL when none has it; *failed counts the runs
 * that did not finish. */
void mb__rview_best(const mb__rview *v, const mb__rrun **fast,
                    const mb__rrun **thr, size_t *failed);

/* The verdict of one comparison entry in words: "baseline", "FAILED", the
 * document's significance verdict ("faster", "slower", ...), or one derived
 * from the speedup CI ("faster", "slower", "inconclusive").  Static. */
const char *mb__cmp_verdict(const mb__rcmp *c);

/* How a writer marks up the sentence of mb__rview_best_sentence. */
typedef struct mb__rmarkup {
    void (*esc)(mb__buf *b, const char *s); /* escapes text */
    const char *lead;        /* "lowest median latency ", "Median latency " */
    const char *em, *em_end; /* around the figures ("<b>", "</b>"), or "" */
    const char *failed_fmt;  /* "%zu run%s **FAILED**": count, plural s */
    const char *none;        /* said when nothing is, or NULL */
} mb__rmarkup;

/* The verdict of plain runs in one sentence: the lowest median latency
 * and (several runs) the highest throughput, with their variant and batch
 * size, then how many runs failed.  Returns 1 when something was said. */
int mb__rview_best_sentence(const mb__rview *v, const mb__rmarkup *m,
                            mb__buf *out);

/* A figure of a table cell: the number (NAN when absent) and its text. */
typedef struct mb__rcell {
    double x;
    char text[64];
} mb__rcell;

/* The figures of a comparison entry's speedup row: p-value, memory ratio,
 * memory change (bytes), size ratio, parameters; "-" when absent. */
enum {
    MB_RF_P,
    MB_RF_MEM_RATIO,
    MB_RF_MEM_DELTA,
    MB_RF_SIZE_RATIO,
    MB_RF_PARAMS
};
void mb__rcmp_figures(const mb__rcmp *c, mb__rcell f[5]);

/* How a writer marks up the accuracy tables. */
typedef struct mb__rrows {
    const char *acc_head, *acc_end; /* around the accuracy rows */
    const char *out_head, *out_end; /* around the output agreement rows */
    void (*esc)(mb__buf *b, const char *s); /* escapes the labels */
    const char *row;                        /* before the variant */
    const char *label_sep;                  /* between it and the output */
    const char *label_end;                  /* after the labels */
    void (*cell)(mb__buf *b, const mb__rcell *c); /* one figure */
    const char *text_open, *text_end;             /* around a text cell */
    const char *row_end;
    /* the columns of the output table: agreement keys ("mae", "cosine",
     * ...) and the significant digits of each */
    const char *const *keys;
    const int *sig;
    size_t n_keys;
} mb__rrows;

/* The accuracy tables: a row per comparison entry with the variant, top-1,
 * top-5, Δ top-1 (signed), its paired 95% CI ("lo to hi"), top-1
 * agreement with the baseline (4 significant digits, "-" when absent) and
 * the verdict (PASS, or FAIL with the failing outputs and figures); then,
 * when any entry has agreement.outputs, a row per output with m's columns
 * ("rel_error" falls back to the "rel_l2" that compare writes) and the
 * output's gates ("pass", or "FAIL" with the failing gates). */
void mb__rview_accuracy_tables(const mb__rview *v, const mb__rrows *m,
                               mb__buf *b);

/* One comparison entry's verdict, worked out once for every writer. */
typedef struct mb__rverdict {
    const mb__rcmp *c;
    const char *verdict; /* mb__cmp_verdict */
    bool failed;         /* the variant did not finish */
    bool significant;    /* faster or slower, with the speedup in words */
    char words[160];     /* mb__speedup_words of the median speedup */
    double p;            /* significance.p, NAN when absent */
    /* The headline, correctness first (mb__cmp_headline): "FAIL:
     * pooler_output rel_l2 0.5 > 0.0001; speed n.s."; word is its first
     * word ("PASS", "FAIL", "FAILED", "no accuracy verdict"), rest what
     * follows it (": pooler_output ...; speed n.s."), pass 1/0/-1. */
    char headline[800];
    char word[32];
    const char *rest;
    int pass;
} mb__rverdict;

/* Whether the comparison entry of the variant named variant (c itself
 * when variant is NULL) has a failed accuracy verdict: every table marks
 * such a variant "FAIL". */
bool mb__rview_verdict_failed(const mb__rview *v, const mb__rcmp *c,
                              const char *variant);

/* Calls say for each comparison entry that is not a baseline, writing sep
 * between them; returns how many were said. */
size_t mb__rview_verdicts(const mb__rview *v, const char *sep,
                          void (*say)(mb__buf *b, const mb__rverdict *vd),
                          mb__buf *b);

/* For a compare document measured at several batch sizes
 * (mb__rview_batch_cmps): calls fn with the view of each size and the
 * size, in the document's order.  False when memory runs out. */
bool mb__rview_each_batch(const json_t *doc,
                          void (*fn)(const mb__rview *v, int64_t batch,
                                     void *user),
                          void *user);

/* For a compare document measured at several batch sizes: a copy of doc
 * (sharing its members) whose "comparison" is c (one entry of its
 * "comparisons") and whose runs are those at c's batch_size, so that the
 * writers of one comparison show one batch.  Caller frees with
 * json_decref; NULL when memory runs out. */
json_t *mb__rview_batch_doc(const json_t *doc, const json_t *c);
/* doc's "comparisons" when it holds more than one (several batch sizes),
 * else NULL.  Borrowed. */
const json_t *mb__rview_batch_cmps(const json_t *doc);

/* Fills *r from one RUN object of doc (index di); never fails.  For
 * writers that walk runs one at a time (CSV, store). */
void mb__rrun_fill(mb__rrun *r, const json_t *doc, size_t di,
                   const json_t *run);

#endif
