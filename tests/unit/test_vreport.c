/* test_vreport.c - the Markdown and HTML reports of a validation
 * (src/report/vreport.c): content from the document, escaping of its
 * strings, refusal of other documents. */
#include "t.h"

#include "report/vreport.h"

#include <stdlib.h>

/* A small validation document whose output name is hostile. */
static json_t *doc(void)
{
    json_error_t e;
    json_t *d = json_loads(
        "{\"kind\": \"validate\", \"warnings\": [\"inputs are random\"],"
        " \"validation\": {\"baseline\": \"a.onnx\", \"candidate\": \"b.onnx\","
        " \"inputs\": \"x.npz: 4 samples\", \"synthetic_inputs\": false,"
        " \"samples\": 4, \"batch\": 2, \"tolerance\": 0.01,"
        " \"models\": [{\"role\": \"baseline\", \"path\": \"a.onnx\","
        "   \"options\": {}}, {\"role\": \"candidate\", \"path\": \"b.onnx\","
        "   \"options\": {\"threads\": \"2\"}}],"
        " \"output_choice\": {\"reason\": \"<b>|x named like class scores\"},"
        " \"rule\": \"top1_agreement\", \"precision\": \"int8\","
        " \"precision_reason\": \"from --precision\","
        " \"criteria\": [\"FAIL top-1 agreement on <b>|x 0.5\"],"
        " \"gates\": [{\"gate\": \"rel_l2<=0.15\", \"passed\": true}],"
        " \"per_output\": [{\"name\": \"<b>|x\", \"judged\": true,"
        "   \"classifier\": true, \"passed\": false, \"checks\": [{\"check\":"
        "   \"top1_agreement>=0.9900\", \"value\": 0.5, \"result\": "
        "\"fail\"}]}],"
        " \"outputs\": [{\"name\": \"<b>|x\", \"shape\": [4, 3],"
        "   \"dtype_baseline\": \"float32\", \"dtype_candidate\": \"float16\","
        "   \"rel_l2\": 0.25, \"cosine\": 0.9, \"psnr\": \"inf\","
        "   \"top1_agreement\": 0.5, \"nonfinite_new\": 0}],"
        " \"passed\": false}}",
        0, &e);
    if (!d)
        printf("# bad test document: %s\n", e.text);
    return d;
}

static void markdown_shows_the_verdict_runs_checks_and_metrics(void)
{
    json_t *d = doc();
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__validation_md(d, &b, &err), MB_OK);
    EXPECT_CONTAINS(b.data, "# mbench validate: FAIL\n");
    EXPECT_CONTAINS(b.data, "| candidate | b.onnx | threads=2 |");
    EXPECT_CONTAINS(b.data, "**Samples:** 4 samples, batch 2, tolerance 0.01");
    EXPECT_CONTAINS(b.data, "| &lt;b&gt;\\|x | class scores | "
                            "top1\\_agreement&gt;=0.9900 | 0.5 | FAIL |");
    EXPECT_CONTAINS(b.data, "| &lt;b&gt;\\|x | \\[4,3\\] | float32 / float16 "
                            "| 0.25 | 0.9 | n/a | n/a | identical | 0.5 | 0 |");
    EXPECT_CONTAINS(b.data, "- inputs are random\n");
    mb__buf_free(&b);
    json_decref(d);
}

static void html_escapes_every_string_and_embeds_the_document(void)
{
    json_t *d = doc();
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__validation_html(d, &b, &err), MB_OK);
    EXPECT_CONTAINS(b.data, "<title>mbench validate: FAIL</title>");
    EXPECT_CONTAINS(b.data, "<td>&lt;b&gt;|x</td><td>class scores</td>");
    EXPECT(strstr(b.data, "<b>|x") == NULL ||
           strstr(b.data, "<b>|x") > strstr(b.data, "id=\"mbench-data\""));
    EXPECT_CONTAINS(b.data, "<script type=\"application/json\" "
                            "id=\"mbench-data\">");
    mb__buf_free(&b);
    json_decref(d);
}

static void a_document_without_a_validation_is_refused(void)
{
    json_t *d = json_pack("{s:s, s:[]}", "kind", "run", "runs");
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__validation_md(d, &b, &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "not a validation document");
    EXPECT_EQ_INT(mb__validation_html(d, &b, &err), MB_EINVAL);
    mb__buf_free(&b);
    json_decref(d);
}

int main(void)
{
    RUN(markdown_shows_the_verdict_runs_checks_and_metrics);
    RUN(html_escapes_every_string_and_embeds_the_document);
    RUN(a_document_without_a_validation_is_refused);
    return T_DONE();
}
