/* test_outpair.c - the one rule that pairs baseline and candidate outputs
 * (accuracy/outpair.h) for validate, compare and diff: by --map, by name,
 * by position only when no name matches (said), the one line for a
 * missing or extra output, and --map's parser. */
#include "t.h"

#include "accuracy/outpair.h"
#include "mbench.h"

#include <stdlib.h>
#include <string.h>

static mb__outname A[3] = {
    {"logits", NULL, 0}, {"aux", NULL, 0}, {"x", NULL, 0}};

static mb_status pair(const mb__outname *b, size_t nb, const mb__outmap *m,
                      size_t nm, mb__outpairs *p, mb_err *e)
{
    mb__pair_req rq = {A, b, 2, nb, m, nm, "the baseline", "the candidate", 0};
    return mb__outputs_pair(&rq, p, e);
}

static void the_same_names_in_another_order_pair_by_name(void)
{
    mb__outname b[2] = {{"aux", NULL, 0}, {"logits", NULL, 0}};
    mb__outpairs p;
    mb_err e = {0};
    EXPECT_EQ_INT(pair(b, 2, NULL, 0, &p, &e), MB_OK);
    EXPECT_EQ_INT(p.cand[0], 1);
    EXPECT_EQ_INT(p.cand[1], 0);
    EXPECT_EQ_INT(p.by_position, 0);
    EXPECT_STR(p.note, "");
    mb__pair_req rq = {A, b, 2, 2, NULL, 0, "a", "b", 0};
    json_t *j = mb__outpairs_json(&rq, &p);
    EXPECT_STR(json_string_value(json_object_get(j, "method")), "name");
    json_decref(j);
    mb__outpairs_free(&p);
}

static void a_renamed_output_is_refused_with_the_map_hint(void)
{
    mb__outname b[2] = {{"scores", NULL, 0}, {"aux", NULL, 0}};
    mb__outpairs p;
    mb_err e = {0};
    EXPECT_EQ_INT(pair(b, 2, NULL, 0, &p, &e), MB_EDATA);
    EXPECT_STR(e.msg, "outputs do not pair: 'logits' of the baseline has no "
                      "counterpart in the candidate; 'scores' of the "
                      "candidate has no counterpart in the baseline (outputs "
                      "of the baseline: logits, aux; of the candidate: "
                      "scores, aux); if logits was renamed, pair it with "
                      "--map logits=scores");
    mb__outmap m;
    EXPECT_EQ_INT(mb__outmap_parse("logits=scores", &m, &e), MB_OK);
    EXPECT_EQ_INT(pair(b, 2, &m, 1, &p, &e), MB_OK);
    EXPECT_EQ_INT(p.cand[0], 0);
    EXPECT_EQ_INT(p.by[0], MB_PAIR_MAP);
    EXPECT_EQ_INT(p.by[1], MB_PAIR_NAME);
    mb__outpairs_free(&p);
    /* a map naming no output, one mapped twice */
    EXPECT_EQ_INT(mb__outmap_parse("logit=scores", &m, &e), MB_OK);
    EXPECT_EQ_INT(pair(b, 2, &m, 1, &p, &e), MB_EINVAL);
    EXPECT_STR(e.msg, "--map logit=scores: the baseline has no output named "
                      "'logit'; its outputs are: logits, aux");
    mb__outmap twice[2];
    mb__outmap_parse("logits=scores", &twice[0], &e);
    mb__outmap_parse("aux=scores", &twice[1], &e);
    EXPECT_EQ_INT(pair(b, 2, twice, 2, &p, &e), MB_EINVAL);
}

static void an_extra_or_missing_output_is_one_line(void)
{
    mb__outname b[3] = {
        {"logits", NULL, 0}, {"aux", NULL, 0}, {"extra", NULL, 0}};
    mb__outpairs p;
    mb_err e = {0};
    EXPECT_EQ_INT(pair(b, 3, NULL, 0, &p, &e), MB_EDATA);
    EXPECT_CONTAINS(
        e.msg, "'extra' of the candidate has no counterpart in the baseline");
    EXPECT_EQ_INT(pair(b, 1, NULL, 0, &p, &e), MB_EDATA);
    EXPECT_CONTAINS(
        e.msg, "'aux' of the baseline has no counterpart in the candidate");
}

static void no_name_in_common_pairs_by_position_and_says_so(void)
{
    mb__outname b[2] = {{"out0", NULL, 0}, {"out1", NULL, 0}};
    mb__outpairs p;
    mb_err e = {0};
    EXPECT_EQ_INT(pair(b, 2, NULL, 0, &p, &e), MB_OK);
    EXPECT_EQ_INT(p.cand[0], 0);
    EXPECT_EQ_INT(p.cand[1], 1);
    EXPECT_EQ_INT(p.by_position, 1);
    EXPECT_STR(p.note, "paired by position: logits=out0, aux=out1 (no output "
                       "name matches; the baseline: logits, aux; the "
                       "candidate: out0, out1); name them alike or pair them "
                       "with --map BASE=CAND");
    mb__outpairs_free(&p);
    /* not when the counts differ */
    EXPECT_EQ_INT(pair(b, 1, NULL, 0, &p, &e), MB_EDATA);
}

static void unnamed_leftovers_pair_by_position_after_names(void)
{
    /* old ONNX test data: output_1 holds no name; logits matched */
    mb__outname b[2] = {{"output_1", NULL, 1}, {"logits", NULL, 0}};
    mb__outpairs p;
    mb_err e = {0};
    EXPECT_EQ_INT(pair(b, 2, NULL, 0, &p, &e), MB_OK);
    EXPECT_EQ_INT(p.cand[0], 1);
    EXPECT_EQ_INT(p.cand[1], 0);
    EXPECT_CONTAINS(p.note, "paired by position: aux=output_1 (the candidate "
                            "stores no tensor names");
    mb__outpairs_free(&p);
    /* an alternate name (stored in a .pb) pairs like a name */
    mb__outname c[2] = {{"output_0", "aux", 0}, {"logits", NULL, 0}};
    EXPECT_EQ_INT(pair(c, 2, NULL, 0, &p, &e), MB_OK);
    EXPECT_EQ_INT(p.cand[1], 0);
    EXPECT_EQ_INT(p.by_position, 0);
    mb__outpairs_free(&p);
}

static void map_values_are_checked(void)
{
    mb__outmap m;
    mb_err e = {0};
    const char *bad[] = {"logits", "=scores", "logits=", "", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        EXPECT_EQ_INT(mb__outmap_parse(bad[i], &m, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "expected BASE=CAND");
    char longname[600];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    longname[5] = '=';
    EXPECT_EQ_INT(mb__outmap_parse(longname, &m, &e), MB_EINVAL);
    EXPECT_EQ_INT(mb__outmap_parse("a=b=c", &m, &e), MB_OK);
    EXPECT_STR(m.base, "a");
    EXPECT_STR(m.cand, "b=c");
}

int main(void)
{
    RUN(the_same_names_in_another_order_pair_by_name);
    RUN(a_renamed_output_is_refused_with_the_map_hint);
    RUN(an_extra_or_missing_output_is_one_line);
    RUN(no_name_in_common_pairs_by_position_and_says_so);
    RUN(unnamed_leftovers_pair_by_position_after_names);
    RUN(map_values_are_checked);
    return T_DONE();
}
