/* cmpverdict.h - what compare says about a variant's outputs: its
 * verdict (validate's judge on every output and the labels, cmprun.c),
 * the accuracy difference against labels with its paired 95% CI, and the
 * recommendations that follow from them, naming the failing output and
 * its failing figures.  Pure: the comparison entry in, JSON out. */
#ifndef MB_RUNNER_CMPVERDICT_H
#define MB_RUNNER_CMPVERDICT_H

#include "compare/compare.h"

#include <jansson.h>

/* Adds to e (a comparison entry) "verdict" and accuracy.delta_top1, and to
 * recs the recommendations about x's outputs: the verdict first, then the
 * accuracy against labels (base_top1 is the baseline's top-1, NAN without
 * labels). */
void mb__cmp_judge_outputs(json_t *e, json_t *recs, const mb__cmp_variant *x,
                           double base_top1, const mb__cmp_opts *o);

/* The failing checks of a verdict in one line, "pooler_output: rel_l2 0.5
 * (needs rel_l2<=0.0001), cosine 0.97 (needs cosine>=0.9999)"; outputs
 * joined by "; ".  Empty when nothing failed. */
void mb__verdict_failures(const json_t *verdict, char *buf, size_t len);

/* The headline verdict of a comparison entry, correctness first, then
 * speed: "FAIL: pooler_output rel_l2 0.5 > 0.0001; speed n.s.", "PASS;
 * 1.21x slower", "baseline", "FAILED: why".  The same words in every
 * writer (console, JSON "headline", CSV, Markdown, HTML); computed from
 * the entry, so saved documents without "headline" get it too. */
void mb__cmp_headline(const json_t *e, char *buf, size_t len);

#endif
