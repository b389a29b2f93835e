/* markdown.c - result documents as GitHub-flavoured Markdown. */
#include "report/markdown.h"
#include "report/execsec.h"

#include "core/err.h"
#include "doc/fields.h"
#include "report/rutil.h"
#include "report/writers.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* "2.10x [1.90, 2.30]" or "-". */
static void put_speedup(mb__buf *b, const json_t *s)
{
    double v = mb__jnum(s, "value");
    if (!isfinite(v)) {
        mb__buf_puts(b, "-");
        return;
    }
    mb__buf_printf(b, "%.2fx", v);
    const json_t *ci = json_object_get(s, "ci95");
    if (json_is_array(ci) && json_array_size(ci) == 2 &&
        json_is_number(json_array_get(ci, 0)) &&
        json_is_number(json_array_get(ci, 1)))
        mb__buf_printf(b, " [%.2f, %.2f]",
                       json_number_value(json_array_get(ci, 0)),
                       json_number_value(json_array_get(ci, 1)));
}

static void say_md(mb__buf *b, const mb__rverdict *vd)
{
    char pt[32];
    mb__md_escape(b, vd->c->name);
    if (vd->failed) {
        mb__buf_puts(b, " **FAILED**");
        return;
    }
    if (strcmp(vd->verdict, "interrupted") == 0) {
        mb__buf_puts(b, " **interrupted**: no verdict (the figures cover the "
                        "rounds that finished)");
        return;
    }
    /* the headline first (correctness, then speed), then the speed
     * sentence it abbreviates */
    mb__buf_puts(b, ": **");
    mb__md_escape(b, vd->word);
    mb__buf_puts(b, "**");
    mb__md_escape(b, vd->rest);
    mb__buf_puts(b, vd->significant ? " (" : " (speed: ");
    mb__md_escape(b, vd->significant ? vd->words : vd->verdict);
    mb__buf_puts(b, vd->significant ? " than " : " against ");
    mb__md_escape(b, vd->c->baseline);
    if (isfinite(vd->p))
        mb__buf_printf(b, ", p %s%s", vd->p < 0.0001 ? "" : "= ",
                       mb__fmt_p(vd->p, pt, sizeof pt));
    mb__buf_puts(b, ")");
}

static void verdict_line(mb__buf *b, const mb__rview *v)
{
    mb__buf_puts(b, "**Verdict:** ");
    if (!mb__rview_verdicts(v, "; ", say_md, b)) {
        /* plain runs: fastest median and best throughput */
        static const mb__rmarkup md = {mb__md_escape,
                                       "lowest median latency ",
                                       "",
                                       "",
                                       "%zu run%s **FAILED**",
                                       "no runs"};
        mb__rview_best_sentence(v, &md, b);
    }
    mb__buf_puts(b, "\n\n");
}

/* The summary's figure columns: fields of doc/fields.h with the
 * heading this table gives them. */
static const struct {
    const char *field, *head;
} md_cols[] = {
    {"latency_p95_ms", "p95 ms"},
    {"latency_p99_ms", "p99 ms"},
    {"throughput_ips", "throughput (inferences/s)"},
    {"throughput_sps", "samples/s"},
    {"memory_mb", "peak RSS"},
};

static void summary_table(mb__buf *b, const mb__rview *v)
{
    char t1[32], t2[32], t3[32];
    mb__buf_puts(b, "### Summary\n\n"
                    "| variant | model | batch | p50 ms [95% CI]");
    for (size_t c = 0; c < sizeof md_cols / sizeof md_cols[0]; c++)
        mb__buf_printf(b, " | %s", md_cols[c].head);
    mb__buf_puts(b, " | run-to-run CV (processes) | status |\n"
                    "|---|---|--:|--:");
    for (size_t c = 0; c < sizeof md_cols / sizeof md_cols[0]; c++)
        mb__buf_puts(b, "|--:");
    mb__buf_puts(b, "|--:|---|\n");
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        mb__buf_puts(b, "| ");
        mb__md_escape(b, r->variant);
        for (size_t c = 0; c < v->n_cmps; c++)
            if (v->cmps[c].is_baseline &&
                strcmp(v->cmps[c].name, r->variant) == 0) {
                mb__buf_puts(b, " (baseline)");
                break;
            }
        if (mb__rview_verdict_failed(v, NULL, r->variant))
            mb__buf_puts(b, " **FAIL**");
        mb__buf_puts(b, " | ");
        mb__md_escape(b, r->model);
        if (r->batch >= 0)
            mb__buf_printf(b, " | %lld | ", (long long)r->batch);
        else
            mb__buf_puts(b, " | - | ");
        mb__buf_puts(b, mb__fmt_ms(r->p50, t1, sizeof t1));
        if (isfinite(r->ci_lo) && isfinite(r->ci_hi))
            mb__buf_printf(b, " [%s, %s]", mb__fmt_ms(r->ci_lo, t2, sizeof t2),
                           mb__fmt_ms(r->ci_hi, t3, sizeof t3));
        for (size_t c = 0; c < sizeof md_cols / sizeof md_cols[0]; c++)
            mb__buf_printf(b, " | %s",
                           mb__field_cell(mb__field_find(md_cols[c].field), r,
                                          1, t1, sizeof t1));
        if (isfinite(r->run_cv))
            mb__buf_printf(b, " | %.1f%% (%d) | ", r->run_cv * 100,
                           r->processes);
        else
            mb__buf_printf(b, " | - (%d) | ", r->processes ? r->processes : 1);
        if (strcmp(r->status, "ok") == 0) {
            mb__buf_puts(b, "ok");
        } else {
            mb__buf_puts(b, "**");
            mb__md_escape(b, r->status);
            mb__buf_puts(b, "**");
            if (r->error) {
                mb__buf_puts(b, ": ");
                mb__md_escape(b, r->error);
            }
        }
        mb__buf_puts(b, " |\n");
    }
    mb__buf_puts(b, "\n");
}

static void speedup_table(mb__buf *b, const mb__rview *v, int64_t batch)
{
    char at[48];
    mb__batch_suffix(batch, at, sizeof at, NULL, 0);
    mb__buf_printf(b, "### Speedups%s\n\n", at);
    mb__buf_puts(
        b, "Speedup = baseline latency / variant latency (higher is "
           "faster), with 95% confidence intervals (Student t over processes,\n"
           "docs/STATISTICS.md).\n\n"
           "| variant | baseline | median speedup [95% CI] | p99 speedup "
           "[95% CI] | p-value | memory ratio | size ratio | parameters | "
           "verdict |\n"
           "|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    for (size_t i = 0; i < v->n_cmps; i++) {
        const mb__rcmp *c = &v->cmps[i];
        mb__buf_puts(b, "| ");
        mb__md_escape(b, c->name);
        if (mb__rview_verdict_failed(v, c, NULL))
            mb__buf_puts(b, " **FAIL**");
        mb__buf_puts(b, " | ");
        mb__md_escape(b, c->baseline);
        mb__buf_puts(b, " | ");
        put_speedup(b, json_object_get(c->v, "speedup_median"));
        mb__buf_puts(b, " | ");
        put_speedup(b, json_object_get(c->v, "speedup_p99"));
        mb__rcell f[5];
        mb__rcmp_figures(c, f);
        mb__buf_printf(b, " | %s | %s | %s | %s | ", f[MB_RF_P].text,
                       f[MB_RF_MEM_RATIO].text, f[MB_RF_SIZE_RATIO].text,
                       f[MB_RF_PARAMS].text);
        const char *verdict = mb__cmp_verdict(c);
        if (strcmp(verdict, "FAILED") == 0) {
            mb__buf_puts(b, "**FAILED**");
            const char *e = mb__jstr(c->v, "error");
            if (e) {
                mb__buf_puts(b, ": ");
                mb__md_escape(b, e);
            }
        } else {
            mb__md_escape(b, verdict);
        }
        mb__buf_puts(b, " |\n");
    }
    mb__buf_puts(b, "\n");
}

static void md_cell(mb__buf *b, const mb__rcell *c)
{
    mb__buf_printf(b, " | %s", c->text);
}

static const char *const md_agreement_keys[] = {
    "mae", "rmse", "max_abs", "rel_error", "cosine", "psnr", "ssim"};
static const int md_agreement_sig[] = {4, 4, 4, 4, 4, 4, 4};
static const mb__rrows md_rows = {
    "### Accuracy\n\n"
    "| variant | top-1 | top-5 | Δ top-1 | Δ top-1 paired 95% CI | top-1 "
    "agreement with baseline | verdict |\n|---|--:|--:|--:|--:|--:|---|\n",
    "\n",
    "#### Output agreement with the baseline\n\n"
    "| variant | output | MAE | RMSE | max abs | rel. error | "
    "cosine | PSNR dB | SSIM | gates |\n"
    "|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n",
    "\n",
    mb__md_escape,
    "| ",
    " | ",
    "",
    md_cell,
    " | ",
    "",
    " |\n",
    md_agreement_keys,
    md_agreement_sig,
    sizeof md_agreement_keys / sizeof *md_agreement_keys};

/* batch > 0 names the batch size after the variant; *header counts the
 * lines written (the heading comes with the first). */
static void recommendations(mb__buf *b, const mb__rview *v, int64_t batch,
                            int *header)
{
    for (size_t i = 0; i < v->n_cmps; i++) {
        const mb__rcmp *c = &v->cmps[i];
        size_t k;
        const json_t *r;
        json_array_foreach(json_object_get(c->v, "recommendations"), k, r)
        {
            if (!(*header)++)
                mb__buf_puts(b, "### Recommendations\n\n");
            mb__buf_puts(b, json_is_true(json_object_get(r, "ok"))
                                ? "- ✅ "
                                : "- ⚠️ ");
            mb__md_escape(b, c->name);
            if (batch > 0)
                mb__buf_printf(b, " (batch %" PRId64 ")", batch);
            mb__buf_puts(b, ": ");
            mb__md_escape(b, mb__jstr(r, "text"));
            mb__buf_puts(b, "\n");
        }
    }
}

/* What the per-batch callbacks write into. */
typedef struct md_ctx {
    mb__buf *b;
    int said; /* recommendation lines written */
} md_ctx;

static void speedup_cb(const mb__rview *v, int64_t batch, void *user)
{
    speedup_table(((md_ctx *)user)->b, v, batch);
}

static void recommendations_cb(const mb__rview *v, int64_t batch, void *user)
{
    md_ctx *x = user;
    recommendations(x->b, v, batch, &x->said);
}

static void footer(mb__buf *b, const json_t *const *docs, size_t n_docs)
{
    for (size_t d = 0; d < n_docs; d++) {
        mb__buf_puts(b, "<sub>mbench ");
        mb__md_escape(b, mb__jstr(docs[d], "mbench.version"));
        mb__buf_puts(b, " (");
        mb__md_escape(b, mb__jstr(docs[d], "mbench.commit"));
        mb__buf_puts(b, ") · ");
        mb__md_escape(b, mb__jstr(docs[d], "created_utc"));
        mb__buf_puts(b, " · ");
        mb__md_escape(b, mb__jstr(docs[d], "environment.cpu_model"));
        const char *cmd = mb__jstr(docs[d], "command_line");
        if (cmd) {
            mb__buf_puts(b, " · ");
            mb__md_escape(b, cmd);
        }
        mb__buf_puts(b, "</sub>\n\n");
    }
}

mb_status mb__result_md(const json_t *const *docs, size_t n_docs, mb__buf *out,
                        mb_err *err)
{
    mb__rview v;
    if (mb__rview_build(docs, n_docs, &v))
        return mb__fail(err, MB_ENOMEM, "out of memory building the report");
    const char *kind = mb__jstr(docs[0], "kind");
    mb__buf_puts(out, "## mbench ");
    mb__md_escape(out, kind ? kind : "result");
    if (n_docs > 1)
        mb__buf_printf(out, " (%zu documents merged)", n_docs);
    mb__buf_puts(out, "\n\n");
    verdict_line(out, &v);
    summary_table(out, &v);
    /* several batch sizes (one compare document): per size */
    bool batches = n_docs == 1 && mb__rview_batch_cmps(docs[0]);
    md_ctx x = {out, 0};
    if (batches && !mb__rview_each_batch(docs[0], speedup_cb, &x))
        out->oom = 1;
    else if (!batches && v.n_cmps)
        speedup_table(out, &v, 0);
    if (v.has_accuracy)
        mb__rview_accuracy_tables(&v, &md_rows, out);
    if (batches && !out->oom &&
        !mb__rview_each_batch(docs[0], recommendations_cb, &x))
        out->oom = 1;
    else if (!batches)
        recommendations(out, &v, 0, &x.said);
    if (x.said)
        mb__buf_puts(out, "\n");
    mb__md_exec_sections(out, docs, n_docs);
    if (v.n_warnings) {
        mb__buf_puts(out, "### Warnings\n\n");
        for (size_t i = 0; i < v.n_warnings; i++) {
            mb__buf_puts(out, "- ");
            mb__md_escape(out, v.warnings[i]);
            mb__buf_puts(out, "\n");
        }
        mb__buf_puts(out, "\n");
    }
    footer(out, docs, n_docs);
    mb__rview_free(&v);
    if (out->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory rendering Markdown");
    return MB_OK;
}
