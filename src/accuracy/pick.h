/* pick.h - which output of a model the accuracy verdict reads as class
 * scores: the one rule behind `mbench validate` and `mbench compare` for
 * top-1 agreement and --labels, so both commands judge the same output.
 *
 * The rule (docs/ACCURACY.md, "Which output is the classifier"):
 *  1. a requested name (--output) wins; an unknown name is MB_EINVAL
 *     listing the available names;
 *  2. otherwise only classifier-shaped outputs are candidates: a float
 *     tensor (float32/16/64, bfloat16) of shape [N, C] with C > 1
 *     (trailing dims of size 1 ignored);
 *  3. a name like class scores (contains logit, prob, score, softmax or
 *     pred) comes first;
 *  4. else a name like an embedding or a hidden state (contains embed,
 *     hidden, pool, feature, encod, state or attention) is never picked:
 *     the top-1 of an embedding means nothing;
 *  5. then a name containing "output", then any other name; the first in
 *     model order among equals.
 * With no candidate left there is no classifier output: every output is
 * judged by the gates alone.  Names are compared case-insensitively. */
#ifndef MB_ACCURACY_PICK_H
#define MB_ACCURACY_PICK_H

#include "mbench.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One output as the rule sees it (all borrowed).  rank < 0: not a tensor
 * (a sequence or map) or of unknown shape; never picked automatically. */
typedef struct mb__out_shape {
    const char *name; /* may be NULL or "" */
    mb_dtype dtype;
    int rank;
    const int64_t *dims; /* rank entries; < 0 for symbolic dims */
} mb__out_shape;

typedef struct mb__judged {
    size_t index;     /* the chosen output, or n when there is none */
    int classifier;   /* the chosen output is [N, C] class scores: top-1
                         agreement and --labels apply to it */
    int requested;    /* chosen by name (--output) */
    char reason[512]; /* one sentence: which output and why */
} mb__judged;

/*
 * Picks the output judged as class scores among outs[0..n) (see the rule
 * above).  requested may be NULL.  *out is always filled; MB_EINVAL when
 * requested names no output ("no output named 'x'; the outputs are: a, b").
 */
mb_status mb__judged_output(const mb__out_shape *outs, size_t n,
                            const char *requested, mb__judged *out,
                            mb_err *err);

/* Non-zero when the shape is classifier-shaped: a float dtype, [N, C] with
 * C > 1 after dropping trailing dims of size 1. */
bool mb__classifier_shaped(const mb__out_shape *o);

/* Fills shapes[0..n) from tensors (borrowing names and dims); a tensor
 * without data (not a tensor) gets rank -1. */
void mb__out_shapes_from_tensors(const mb_tensor *t, size_t n,
                                 mb__out_shape *shapes);

#endif
