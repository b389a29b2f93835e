/* console_cmp.c - the console table of a compare document: one row per
 * variant (latency with its CI, speedup with its CI and verdict, run-to-run
 * spread, memory, size, parameter count, accuracy), columns by priority so that
 * a row fits the terminal, then the recommendations and warnings.  Reads the
 * typed view (doc/view.h). */
#include "report/console.h"

#include "report/rutil.h"
#include "report/valprint.h"
#include "doc/view.h"
#include "compare/cmpverdict.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The speed cell: "1.234x [1.200, 1.270] faster", "(baseline)". */
static void speed_cell(const mb__rcmp *c, char *buf, size_t len)
{
    if (c->flagged) {
        snprintf(buf, len, "(baseline)");
        return;
    }
    if (!isfinite(c->speedup)) {
        snprintf(buf, len, "n/a%s", c->has_sig ? "" : " (baseline FAILED)");
        return;
    }
    double v = c->speedup, lo = c->speedup_lo, hi = c->speedup_hi;
    int d = hi - lo < 0.01 ? 4 : 3;
    const char *s = c->sig_verdict;
    const char *tag = !s                                        ? "?"
                      : !strcmp(s, "faster")                    ? "faster"
                      : !strcmp(s, "slower")                    ? "SLOWER"
                      : !strcmp(s, "same")                      ? "same"
                      : !strcmp(s, "no significant difference") ? "n.s."
                                                                : "1 proc";
    snprintf(buf, len, "%.*fx [%.*f, %.*f] %s", d, v, d, lo, d, hi, tag);
}

typedef struct layout {
    int cv, p99, mem, status, params, nw;
    int ci, top1, agree; /* the p50's CI, top-1, top-1 agreement */
} layout;

static void header(mb__buf *out, const layout *l, const char *bold,
                   const char *rst)
{
    mb__buf_printf(out, "\n%s%-*s%s %-*s", bold, l->nw, "variant",
                   l->status ? " status " : "", l->ci ? 26 : 9,
                   l->ci ? "p50 ms [95% CI]" : "p50 ms");
    if (l->p99)
        mb__buf_printf(out, " %9s", "p99 ms");
    mb__buf_printf(out, " %-31s", "speedup [95% CI]");
    if (l->cv)
        mb__buf_printf(out, " %8s %10s", "run CV", "inf/s");
    if (l->mem)
        mb__buf_printf(out, " %10s", "peak RSS");
    if (l->p99)
        mb__buf_printf(out, " %9s", "size");
    if (l->params)
        mb__buf_printf(out, " %11s", "params");
    if (l->top1)
        mb__buf_printf(out, " %7s", "top-1");
    if (l->agree)
        mb__buf_printf(out, " %7s", "agree");
    mb__buf_printf(out, " %-7s%s\n", "verdict", rst);
}

/* The columns a narrow terminal left out, and how to see them. */
static void hidden_note(mb__buf *out, const layout *l, int width)
{
    const struct {
        int shown;
        const char *names;
    } cols[] = {
        {l->status, "status"},    {l->ci, "p50 CI"},    {l->p99, "p99"},
        {l->cv, "run CV, inf/s"}, {l->mem, "peak RSS"}, {l->p99, "size"},
        {l->params, "params"},    {l->top1, "top-1"},   {l->agree, "agree"}};
    char list[200] = "";
    size_t off = 0;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (!cols[i].shown && off < sizeof list)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
                                    off ? ", " : "", cols[i].names);
    char note[400];
    snprintf(note, sizeof note,
             "(%d columns: not shown: %s; COLUMNS=200 mbench ... or "
             "--md/--csv/--json show every column)",
             width, list);
    if (off)
        mb__console_wrap(out, note, width, 0, 1);
}

static void row(mb__buf *out, const layout *l, const mb__rcmp *c,
                const mb__rrun *r)
{
    char p50[64], p99[32], sp[64], cv[16], mem[32], size[32], acc[16], agr[16],
        par[32];
    if (r && isfinite(r->ci_lo))
        snprintf(p50, sizeof p50, "%.4g [%.4g, %.4g]", r->p50 / 1e6,
                 r->ci_lo / 1e6, r->ci_hi / 1e6);
    else
        snprintf(p50, sizeof p50, "%.4g", r ? r->p50 / 1e6 : NAN);
    if (r && isfinite(r->p99))
        snprintf(p99, sizeof p99, "%.4g", r->p99 / 1e6);
    else
        snprintf(p99, sizeof p99, "n/a");
    speed_cell(c, sp, sizeof sp);
    if (r && isfinite(r->run_cv))
        snprintf(cv, sizeof cv, "%.1f%%", r->run_cv * 100);
    else
        snprintf(cv, sizeof cv, "-");
    mb__fmt_bytes(r ? r->rss_peak : NAN, mem, sizeof mem);
    mb__fmt_bytes(r ? r->file_bytes : NAN, size, sizeof size);
    if (isfinite(c->params))
        snprintf(par, sizeof par, "%.0f", c->params);
    else
        snprintf(par, sizeof par, "-");
    if (isfinite(c->top1))
        snprintf(acc, sizeof acc, "%.4f", c->top1);
    else
        snprintf(acc, sizeof acc, "-");
    if (isfinite(c->agree_top1))
        snprintf(agr, sizeof agr, "%.2f%%", 100 * c->agree_top1);
    else
        snprintf(agr, sizeof agr, c->has_agreement ? "see below" : "-");
    if (l->status) /* "interrupted" is spelled out in the warnings */
        mb__buf_printf(out, " %-7s",
                       !strcmp(c->status, "interrupted") ? "interr." : "ok");
    if (!l->ci)
        snprintf(p50, sizeof p50, "%.4g", r ? r->p50 / 1e6 : NAN);
    mb__buf_printf(out, " %-*s", l->ci ? 26 : 9, p50);
    if (l->p99)
        mb__buf_printf(out, " %9s", p99);
    mb__buf_printf(out, " %-31s", sp);
    if (l->cv)
        mb__buf_printf(out, " %8s %10.1f", cv, r ? r->ips : NAN);
    if (l->mem)
        mb__buf_printf(out, " %10s", mem);
    if (l->p99)
        mb__buf_printf(out, " %9s", size);
    if (l->params)
        mb__buf_printf(out, " %11s", par);
    if (l->top1)
        mb__buf_printf(out, " %7s", acc);
    if (l->agree)
        mb__buf_printf(out, " %7s", agr);
    mb__buf_printf(out, " %-7s\n",
                   c->verdict < 0 ? "-"
                   : c->verdict   ? "PASS"
                                  : "FAIL");
}

/* When a variant compiles (JAX, TorchScript, torch.compile: phases.
 * compile_ns), its start-up apart from the timed samples, one line per
 * variant: building the model, compiling, the first inference (medians
 * over the processes, as in the document). */
static void startup(mb__buf *out, const json_t *doc, const mb__rview *v,
                    size_t nw)
{
    const json_t *runs = json_object_get(doc, "runs");
    int any = 0;
    for (size_t i = 0; i < json_array_size(runs); i++)
        any |= isfinite(mb__jnum(json_array_get(runs, i), "phases.compile_ns"));
    if (!any)
        return;
    mb__buf_printf(out, "\nstart-up (median over processes, not in the "
                        "latency):\n");
    for (size_t i = 0; i < v->n_cmps && i < json_array_size(runs); i++) {
        const json_t *r = json_array_get(runs, i);
        char sc[32], cc[32] = "-", fi[32];
        mb__fmt_duration(mb__jnum(r, "phases.session_create_ns"), sc,
                         sizeof sc);
        double c = mb__jnum(r, "phases.compile_ns");
        if (isfinite(c))
            mb__fmt_duration(c, cc, sizeof cc);
        mb__fmt_duration(mb__jnum(r, "phases.first_inference_ns"), fi,
                         sizeof fi);
        /* the intra-op threads a runtime reports (Python models: all
         * frameworks take the same; compare warns when they differ) */
        const char *th = json_string_value(
            json_object_get(json_object_get(r, "runtime"), "threads"));
        char tt[48] = "";
        if (th && *th && strspn(th, "0123456789") == strlen(th))
            snprintf(tt, sizeof tt, "  threads %.16s", th);
        mb__buf_printf(out,
                       "  %-*s session create %s  compile %s  first "
                       "inference %s%s\n",
                       (int)nw, v->cmps[i].name, sc, cc, fi, tt);
    }
}

/* The table and the recommendations of one comparison (doc's
 * "comparison" against its runs); batch > 0 titles it "batch B"; the
 * judged output is said under the first table only. */
static void one_comparison(const json_t *doc, const mb__console_opts *o,
                           int64_t batch, int first, mb__buf *out)
{
    const char *bold = o->color ? "\033[1m" : "",
               *rst = o->color ? "\033[0m" : "",
               *green = o->color ? "\033[32m" : "",
               *yellow = o->color ? "\033[33m" : "",
               *red = o->color ? "\033[31m" : "";
    mb__rview v;
    const json_t *docs[1] = {doc};
    if (mb__rview_build(docs, 1, &v)) {
        out->oom = 1;
        return;
    }
    if (batch > 0)
        mb__buf_printf(out, "\n%sbatch %" PRId64 "%s", bold, batch, rst);
    layout l = {o->width >= 150, o->width >= 125, o->width >= 108,
                o->width >= 95,  o->width >= 162, o->width >= 95 ? 16 : 12,
                o->width >= 95,  o->width >= 72,  o->width >= 80};
    header(out, &l, bold, rst);
    for (size_t i = 0; i < v.n_cmps; i++) {
        const mb__rcmp *c = &v.cmps[i];
        /* the document's runs are in variant order */
        const mb__rrun *r = i < v.n_runs ? &v.runs[i] : NULL;
        char nm[64], safe[64];
        snprintf(nm, sizeof nm, "%s%s",
                 mb__console_safe(c->name, safe, sizeof safe),
                 c->flagged ? " *" : "");
        mb__buf_printf(out, "%-*s", l.nw, nm);
        if (strcmp(c->status, "failed") == 0) {
            mb__buf_printf(out, " %sFAILED%s  ", red, rst);
            mb__console_wrap(out, c->error ? c->error : "(null)", o->width,
                             l.nw + 9, l.nw + 1);
        } else
            row(out, &l, c, r);
    }
    hidden_note(out, &l, o->width);
    startup(out, doc, &v, (size_t)l.nw);
    const char *why = mb__jstr(doc, "judged_output.reason");
    if (first && why && *why) {
        mb__buf_puts(out, "\nclass scores: ");
        mb__console_wrap(out, why, o->width, 14, 2);
    }
    const json_t *folder = json_object_get(doc, "image_folder");
    if (first && folder) {
        mb__buf ft = MB_BUF_INIT;
        mb__folder_text(folder, &ft);
        if (ft.len)
            ft.data[--ft.len] = '\0';
        mb__console_wrap(out, ft.data, o->width, 0, 2);
        mb__buf_free(&ft);
    }
    mb__buf_printf(out, "\n%sRecommendations%s (baseline: ", bold, rst);
    mb__console_put(out, mb__jstr(doc, "comparison.baseline"));
    mb__buf_puts(out, ")\n");
    for (size_t i = 0; i < v.n_cmps; i++) {
        const mb__rcmp *c = &v.cmps[i];
        if (c->flagged)
            continue;
        mb__buf_puts(out, bold);
        mb__console_put(out, c->name);
        /* the headline verdict first: correctness, then speed */
        char head[800];
        mb__cmp_headline(c->v, head, sizeof head);
        mb__buf_printf(out, "%s: %s", rst,
                       !strncmp(head, "FAIL", 4)   ? red
                       : !strncmp(head, "PASS", 4) ? green
                                                   : "");
        mb__console_put(out, head);
        mb__buf_printf(out, "%s\n", rst);
        size_t k;
        const json_t *rec;
        json_array_foreach(c->recommendations, k, rec)
        {
            int ok = json_is_true(json_object_get(rec, "ok"));
            mb__buf_printf(out, "  %s%s%s ", ok ? green : yellow,
                           ok ? "\u2713" : "\u26a0", rst);
            mb__console_wrap(out, mb__jstr(rec, "text"), o->width, 4, 4);
        }
    }
    mb__rview_free(&v);
}

void mb__report_compare_console(const json_t *doc, const mb__console_opts *o,
                                mb__buf *out)
{
    const char *rst = o->color ? "\033[0m" : "",
               *yellow = o->color ? "\033[33m" : "";
    const json_t *all = mb__rview_batch_cmps(doc);
    if (all) {
        /* several batch sizes: a table per size */
        size_t b;
        const json_t *c;
        json_array_foreach(all, b, c)
        {
            json_t *d = mb__rview_batch_doc(doc, c);
            if (!d) {
                out->oom = 1;
                return;
            }
            one_comparison(d, o, (int64_t)mb__jnum(c, "batch_size"), b == 0,
                           out);
            json_decref(d);
        }
    } else {
        one_comparison(doc, o, 0, 1, out);
    }
    size_t k;
    const json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), k, w)
    {
        mb__buf_printf(out, "%s!%s ", yellow, rst);
        mb__console_wrap(out, json_string_value(w), o->width, 2, 2);
    }
    mb__buf_puts(out, o->color ? "\033[2m" : "");
    mb__console_wrap(out,
                     "speedup = baseline / variant, geometric means of "
                     "per-process medians; CI: Student t over blocks of "
                     "rounds, paired by round; run CV: run-to-run spread of "
                     "the medians; n.s. = no significant difference",
                     o->width, 0, 0);
    if (o->color && out->len && !out->oom) { /* the reset before '\n' */
        out->data[--out->len] = '\0';
        mb__buf_printf(out, "%s\n", rst);
    }
}
