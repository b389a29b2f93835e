/* test_pick.c - which output the accuracy verdict reads as class scores
 * (src/accuracy/pick.c). */
#include "t.h"

#include "accuracy/pick.h"

static const int64_t hidden_dims[] = {-1, 8, 16}, pooled_dims[] = {-1, 16},
                     logit_dims[] = {-1, 3}, one_dims[] = {-1, 1},
                     trail_dims[] = {-1, 10, 1, 1};

/* A BERT sequence classifier in Hugging Face's output order. */
static const mb__out_shape bert[] = {
    {"last_hidden_state", MB_DTYPE_FLOAT32, 3, hidden_dims},
    {"pooler_output", MB_DTYPE_FLOAT32, 2, pooled_dims},
    {"logits", MB_DTYPE_FLOAT32, 2, logit_dims}};

static void logits_are_preferred_over_an_earlier_pooler_output(void)
{
    mb__judged j;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__judged_output(bert, 3, NULL, &j, &e), MB_OK);
    EXPECT_EQ_INT(j.index, 2);
    EXPECT_EQ_INT(j.classifier, 1);
    EXPECT_EQ_INT(j.requested, 0);
    EXPECT_CONTAINS(j.reason, "logits ([-1,3] float32): named like class "
                              "scores");
    EXPECT_CONTAINS(j.reason, "pooler_output (named like an embedding");
    EXPECT_CONTAINS(j.reason, "last_hidden_state (not [N, C]");
}

static void an_embedding_alone_is_never_read_as_class_scores(void)
{
    mb__judged j;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__judged_output(bert, 2, NULL, &j, &e), MB_OK);
    EXPECT_EQ_INT(j.index, 2);
    EXPECT_EQ_INT(j.classifier, 0);
    EXPECT_CONTAINS(j.reason, "no output looks like class scores");
    EXPECT_CONTAINS(j.reason, "--output NAME");
}

static void a_requested_name_wins_even_over_the_rule(void)
{
    mb__judged j;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__judged_output(bert, 3, "pooler_output", &j, &e), MB_OK);
    EXPECT_EQ_INT(j.index, 1);
    EXPECT_EQ_INT(j.classifier, 1);
    EXPECT_EQ_INT(j.requested, 1);
    EXPECT_CONTAINS(j.reason, "chosen with --output");
    EXPECT_EQ_INT(mb__judged_output(bert, 3, "last_hidden_state", &j, &e),
                  MB_OK);
    EXPECT_EQ_INT(j.index, 0);
    EXPECT_EQ_INT(j.classifier, 0);
    EXPECT_CONTAINS(j.reason, "judged by the gates only");
}

static void an_unknown_name_lists_the_outputs(void)
{
    mb__judged j;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__judged_output(bert, 3, "probs", &j, &e), MB_EINVAL);
    EXPECT_EQ_INT(j.index, 3);
    EXPECT_CONTAINS(e.msg, "--output probs");
    EXPECT_CONTAINS(e.msg, "last_hidden_state, pooler_output, logits");
}

static void score_names_beat_output_names_beat_others(void)
{
    const mb__out_shape outs[] = {
        {"dense_7", MB_DTYPE_FLOAT32, 2, logit_dims},
        {"output_0", MB_DTYPE_FLOAT32, 2, logit_dims},
        {"Probabilities", MB_DTYPE_FLOAT16, 2, logit_dims}};
    mb__judged j;
    mb_err e = {0};
    mb__judged_output(outs, 3, NULL, &j, &e);
    EXPECT_EQ_INT(j.index, 2);
    mb__judged_output(outs, 2, NULL, &j, &e);
    EXPECT_EQ_INT(j.index, 1);
    mb__judged_output(outs, 1, NULL, &j, &e);
    EXPECT_EQ_INT(j.index, 0);
    EXPECT_CONTAINS(j.reason, "the first [N, C] float output");
}

static void shapes_and_dtypes_that_are_not_scores_are_skipped(void)
{
    const mb__out_shape outs[] = {
        {"labels", MB_DTYPE_INT64, 2, logit_dims},    /* integer */
        {"logits1", MB_DTYPE_FLOAT32, 2, one_dims},   /* C == 1 */
        {"seq", MB_DTYPE_FLOAT32, -1, NULL},          /* not a tensor */
        {"scores", MB_DTYPE_FLOAT32, 4, trail_dims}}; /* [N,10,1,1] */
    mb__judged j;
    mb_err e = {0};
    mb__judged_output(outs, 4, NULL, &j, &e);
    EXPECT_EQ_INT(j.index, 3);
    EXPECT_EQ_INT(j.classifier, 1);
    mb__judged_output(outs, 3, NULL, &j, &e);
    EXPECT_EQ_INT(j.index, 3);
    EXPECT_EQ_INT(j.classifier, 0);
}

static void a_score_name_wins_over_an_embedding_word(void)
{
    const mb__out_shape outs[] = {
        {"pooled_logits", MB_DTYPE_FLOAT32, 2, logit_dims},
        {"embeddings", MB_DTYPE_FLOAT32, 2, pooled_dims}};
    mb__judged j;
    mb_err e = {0};
    mb__judged_output(outs, 2, NULL, &j, &e);
    EXPECT_EQ_INT(j.index, 0);
}

int main(void)
{
    RUN(logits_are_preferred_over_an_earlier_pooler_output);
    RUN(an_embedding_alone_is_never_read_as_class_scores);
    RUN(a_requested_name_wins_even_over_the_rule);
    RUN(an_unknown_name_lists_the_outputs);
    RUN(score_names_beat_output_names_beat_others);
    RUN(shapes_and_dtypes_that_are_not_scores_are_skipped);
    RUN(a_score_name_wins_over_an_embedding_word);
    return T_DONE();
}
