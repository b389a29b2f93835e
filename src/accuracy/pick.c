/* pick.c - choosing the output read as class scores (see pick.h). */
#include "accuracy/pick.h"

#include "core/err.h"

#include <stdbool.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const score_words[] = {"logit", "prob", "score", "softmax",
                                          "pred"};
static const char *const embed_words[] = {
    "embed", "hidden", "pool", "feature", "encod", "state", "attention"};

/* The first of words[0..n) that name (lower-cased) contains, or NULL. */
static const char *name_has(const char *name, const char *const *words,
                            size_t n)
{
    char low[256];
    size_t k = 0;
    for (; name && name[k] && k + 1 < sizeof low; k++)
        low[k] = (char)tolower((unsigned char)name[k]);
    low[k] = '\0';
    for (size_t i = 0; i < n; i++)
        if (strstr(low, words[i]))
            return words[i];
    return NULL;
}

bool mb__classifier_shaped(const mb__out_shape *o)
{
    if (o->rank < 2 || !o->dims)
        return false;
    if (o->dtype != MB_DTYPE_FLOAT32 && o->dtype != MB_DTYPE_FLOAT16 &&
        o->dtype != MB_DTYPE_FLOAT64 && o->dtype != MB_DTYPE_BFLOAT16)
        return false;
    int rank = o->rank;
    while (rank > 2 && o->dims[rank - 1] == 1)
        rank--;
    return rank == 2 && o->dims[1] > 1;
}

void mb__out_shapes_from_tensors(const mb_tensor *t, size_t n,
                                 mb__out_shape *shapes)
{
    for (size_t i = 0; i < n; i++) {
        shapes[i].name = t[i].name;
        shapes[i].dtype = t[i].dtype;
        /* compare leaves a sequence or map output empty: no data, no
         * dtype */
        shapes[i].rank =
            t[i].data || t[i].dtype != MB_DTYPE_UNDEFINED ? t[i].rank : -1;
        shapes[i].dims = t[i].dims;
    }
}

static const char *nm(const mb__out_shape *o)
{
    return o->name && *o->name ? o->name : "(unnamed)";
}

static void shape_text(const mb__out_shape *o, char *buf, size_t len)
{
    if (o->rank < 0 || !o->dims) {
        snprintf(buf, len, "not a tensor");
        return;
    }
    char sh[160];
    mb_shape_str(o->dims, o->rank, sh, sizeof sh);
    snprintf(buf, len, "%s %s", sh, mb_dtype_name(o->dtype));
}

/* Appends printf text to buf at *off (truncating quietly). */
static void add(char *buf, size_t len, size_t *off, const char *fmt,
                const char *a, const char *b)
{
    if (*off >= len)
        return;
    int w = snprintf(buf + *off, len - *off, fmt, a, b);
    if (w > 0)
        *off += (size_t)w;
    if (*off >= len)
        *off = len;
}

mb_status mb__judged_output(const mb__out_shape *outs, size_t n,
                            const char *requested, mb__judged *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    out->index = n;
    char sh[200];
    if (requested) {
        for (size_t i = 0; i < n; i++) {
            if (!outs[i].name || strcmp(outs[i].name, requested) != 0)
                continue;
            out->index = i;
            out->requested = 1;
            out->classifier = mb__classifier_shaped(&outs[i]);
            shape_text(&outs[i], sh, sizeof sh);
            snprintf(out->reason, sizeof out->reason,
                     "%s (%s) chosen with --output%s", nm(&outs[i]), sh,
                     out->classifier
                         ? ": judged as class scores"
                         : "; it is not [N, C] class scores, so it is "
                           "judged by the gates only");
            return MB_OK;
        }
        char names[400];
        size_t off = 0;
        names[0] = '\0';
        for (size_t i = 0; i < n; i++)
            add(names, sizeof names, &off, "%s%s", i ? ", " : "", nm(&outs[i]));
        snprintf(out->reason, sizeof out->reason, "no output named '%s'",
                 requested);
        return mb__fail(err, MB_EINVAL,
                        "--output %s: the model has no output of that name; "
                        "its outputs are: %s",
                        requested, n ? names : "(none)");
    }
    /* Tier 0: class-score name; 1: "output" in the name; 2: any other
     * name; embedding-like names and non-classifier shapes are out. */
    int best_tier = 3;
    for (size_t i = 0; i < n; i++) {
        if (!mb__classifier_shaped(&outs[i]))
            continue;
        int tier;
        if (name_has(outs[i].name, score_words, 5))
            tier = 0;
        else if (name_has(outs[i].name, embed_words, 7))
            continue;
        else if (name_has(outs[i].name, (const char *const[]){"output"}, 1))
            tier = 1;
        else
            tier = 2;
        if (tier < best_tier) {
            best_tier = tier;
            out->index = i;
        }
    }
    /* The others, and why they were passed over. */
    char skipped[400];
    size_t off = 0;
    skipped[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i == out->index)
            continue;
        const char *why;
        const char *w = name_has(outs[i].name, score_words, 5);
        if (!mb__classifier_shaped(&outs[i]))
            why = "not [N, C] float scores";
        else if (!w && name_has(outs[i].name, embed_words, 7))
            why = "named like an embedding or hidden state";
        else
            why = "a later or less score-like name";
        add(skipped, sizeof skipped, &off, "%s%s", off ? "; " : "",
            nm(&outs[i]));
        add(skipped, sizeof skipped, &off, " (%s)%s", why, "");
    }
    if (out->index == n) {
        snprintf(out->reason, sizeof out->reason,
                 "no output looks like class scores ([N, C] float, C > 1, "
                 "not named like an embedding): %s; every output is judged "
                 "by the gates (choose one with --output NAME)",
                 n ? skipped : "the model has no outputs");
        return MB_OK;
    }
    const mb__out_shape *o = &outs[out->index];
    out->classifier = 1;
    shape_text(o, sh, sizeof sh);
    static const char *const tier_words[] = {
        "named like class scores", "an [N, C] output named like an output",
        "the first [N, C] float output"};
    snprintf(out->reason, sizeof out->reason, "%s (%s): %s%s%s", nm(o), sh,
             tier_words[best_tier], off ? "; passed over: " : "",
             off ? skipped : "");
    return MB_OK;
}
