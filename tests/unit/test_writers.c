/* test_writers.c - the gate and history writers (report/gaterep.h,
 * report/histrep.h), the shared formatters and escapers, the table of
 * writers by document kind (report/writers.h) and the output manager
 * (report/output.h): hostile names are escaped in every format, the
 * figures are the verdict's, every requested file is written, and a
 * document is recognised as the same kind in every format. */
#include "t.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "report/csv.h"
#include "report/gaterep.h"
#include "report/html.h"
#include "report/loadrep.h"
#include "report/markdown.h"
#include "report/output.h"
#include "report/rutil.h"
#include "report/writers.h"

#include <string.h>

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#define EVIL "<script>x|y*z</script>"

/* A verdict as src/regress/regress.c writes it, with a hostile variant. */
static json_t *verdict(void)
{
    json_error_t je;
    json_t *g = json_loads(
        "{\"schema\":\"mbench.gate/1\",\"verdict\":\"regression\","
        "\"exit_code\":1,\"baseline\":{\"source\":\"base.json\"},"
        "\"current\":{\"source\":\"cur.json\"},"
        "\"method\":{\"unit\":\"process\",\"test\":\"Welch t\","
        "\"alpha\":0.01},"
        "\"counts\":{\"pass\":1,\"regression\":1,\"improvement\":0,"
        "\"inconclusive\":0},"
        "\"comparisons\":[{\"model\":\"m.onnx\",\"variant\":\"" EVIL "\","
        "\"batch_size\":4,\"metrics\":["
        "{\"metric\":\"p50\",\"baseline\":1000000,\"current\":1500000,"
        "\"ratio\":1.5,\"ci95\":[1.4,1.6],\"p_value\":1e-20,"
        "\"verdict\":\"regression\",\"reason\":\"p50 +50% beyond +5%\"},"
        "{\"metric\":\"memory\",\"baseline\":52428800,\"current\":52428800,"
        "\"ratio\":1.0,\"verdict\":\"pass\"}]}],"
        "\"accuracy\":[],\"unmatched\":[],\"warnings\":[\"w1\"]}",
        0, &je);
    if (!g)
        printf("#   fixture: %s\n", je.text);
    return g;
}

static void gate_console_prints_each_metric_with_change_ci_and_p(void)
{
    json_t *g = verdict();
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__report_gate_console(g, &b, &err), MB_OK);
    EXPECT_CONTAINS(b.data, "mbench gate: REGRESSION  (baseline base.json, "
                            "current cur.json)");
    EXPECT_CONTAINS(b.data, "1.000 ms     1.500 ms   +50.0%");
    EXPECT_CONTAINS(b.data, "+40.0%..+60.0%   <1e-16  regression");
    EXPECT_CONTAINS(b.data, "50.00 MiB");
    EXPECT_CONTAINS(b.data, "warning: w1");
    mb__buf_free(&b);
    json_decref(g);
}

static void gate_markdown_and_html_escape_a_hostile_variant(void)
{
    json_t *g = verdict();
    mb__buf md = MB_BUF_INIT, html = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__report_gate_md(g, &md, &err), MB_OK);
    EXPECT_EQ_INT(mb__report_gate_html(g, &html, &err), MB_OK);
    EXPECT(strstr(md.data, EVIL) == NULL);
    EXPECT_CONTAINS(md.data, "&lt;script&gt;x\\|y\\*z&lt;/script&gt;");
    EXPECT_CONTAINS(md.data, "| 4 | p50 | 1.000 ms | 1.500 ms | +50.0% |");
    EXPECT_CONTAINS(md.data, "**regression** |");
    EXPECT_CONTAINS(md.data, "- Test: Welch t");
    /* in the page the name is text, and the embedded JSON cannot close
     * its <script> */
    EXPECT(strstr(html.data, "<script>x") == NULL);
    EXPECT_CONTAINS(html.data, "&lt;script&gt;x|y*z&lt;/script&gt;");
    EXPECT_CONTAINS(html.data, "REGRESSION");
    mb__buf_free(&md);
    mb__buf_free(&html);
    json_decref(g);
}

static void gate_writers_refuse_a_document_that_is_not_a_verdict(void)
{
    json_t *d = json_pack("{s:s}", "schema", "mbench.result/1");
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__report_gate_md(d, &b, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "gate verdict");
    mb__buf_free(&b);
    json_decref(d);
}

static void code_spans_survive_backticks_and_newlines(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__md_code(&b, "a`b\nc");
    EXPECT_STR(b.data, "``a`b c``");
    mb__buf_free(&b);
    mb__md_code(&b, "`x");
    EXPECT_STR(b.data, "`` `x ``");
    mb__buf_free(&b);
}

static void html_escape_folds_control_characters(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__html_escape(&b, "a\001b\033c");
    EXPECT_STR(b.data, "a b c");
    mb__buf_free(&b);
}

static void metric_figures_pick_their_unit(void)
{
    char t[32];
    EXPECT_STR(mb__fmt_metric("p50", 1234567, t, sizeof t), "1.235 ms");
    EXPECT_STR(mb__fmt_metric("p99", 2.5e9, t, sizeof t), "2.500 s");
    EXPECT_STR(mb__fmt_metric("memory", 512, t, sizeof t), "512 B");
    EXPECT_STR(mb__fmt_metric("size", 3 * 1048576.0, t, sizeof t), "3.00 MiB");
    EXPECT_STR(mb__fmt_metric("throughput", 12.34, t, sizeof t), "12.3/s");
    EXPECT_STR(mb__fmt_metric("p50", NAN, t, sizeof t), "-");
    EXPECT_STR(mb__fmt_change(0.9, t, sizeof t), "-10.0%");
    EXPECT_STR(mb__fmt_change_ci(0.9, 1.1, t, sizeof t), "-10.0%..+10.0%");
    EXPECT_STR(mb__fmt_p_short(1e-30, t, sizeof t), "<1e-16");
}

static void the_output_manager_writes_every_format_of_a_verdict(void)
{
    char dir[] = "/tmp/mbench-test-writers-XXXXXX";
    if (!mkdtemp(dir))
        return;
    char js[128], md[128], html[128], csv[128];
    snprintf(js, sizeof js, "%s/sub/g.json", dir);
    snprintf(md, sizeof md, "%s/g.md", dir);
    snprintf(html, sizeof html, "%s/g.html", dir);
    snprintf(csv, sizeof csv, "%s/g.csv", dir);
    json_t *g = verdict();
    mb__outset o = {.json = js, .md = md, .html = html};
    EXPECT_EQ_INT(mb__output_all(&o, g, NULL, NULL), MB_OK);
    json_t *back = json_load_file(js, 0, NULL);
    EXPECT(json_equal(back, g));
    EXPECT(mb__file_size(md) > 0);
    EXPECT(mb__file_size(html) > 0);
    /* CSV: a header and one line per metric, figures unformatted */
    mb__outset o2 = {.csv = csv};
    EXPECT_EQ_INT(mb__output_all(&o2, g, NULL, NULL), MB_OK);
    char text[2048] = {0};
    FILE *f = fopen(csv, "r");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    EXPECT(got > 0);
    EXPECT(!strncmp(text,
                    "model,variant,batch,metric,unit,baseline,current,ratio,"
                    "ratio_ci95_lo,ratio_ci95_hi,p,verdict,reason\n",
                    100));
    EXPECT_CONTAINS(text, ",4,p50,ns,1000000,1500000,1.5,1.4,1.6,1e-20,"
                          "regression,p50 +50% beyond +5%\n");
    EXPECT_CONTAINS(text, ",4,memory,bytes,52428800,52428800,1,,,,pass,");
    /* written again, the verdict replaces the file (it is not a log) */
    EXPECT_EQ_INT(mb__output_all(&o2, g, NULL, NULL), MB_OK);
    EXPECT_EQ_INT((int)mb__file_size(csv), (int)got);
    json_decref(back);
    json_decref(g);
    unlink(js);
    unlink(md);
    unlink(html);
    unlink(csv);
    char sub[160];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    rmdir(sub);
    rmdir(dir);
}

static void console_fields_escape_control_characters(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__console_put(&b, "a\nb\tc\r\033[31mred\x7f\x01 \xc2\x9b x \xc3\xa9");
    mb__buf_putc(&b, '\0');
    EXPECT_STR(b.data, "a\\nb\\tc\\r\\e[31mred\\x7F\\x01 \\u009B x \xc3\xa9");
    mb__buf_free(&b);
    char small[8];
    EXPECT_STR(mb__console_safe("ab\ncdefgh", small, sizeof small), "ab\\ncde");
    EXPECT_STR(mb__console_safe(NULL, small, sizeof small), "");
}

static const char *kind_of(const char *text, unsigned fmt)
{
    json_t *d = json_loads(text, 0, NULL);
    const json_t *docs[1] = {d};
    const char *k = d ? mb__writers_for(docs, 1, fmt)->kind : "(bad JSON)";
    json_decref(d);
    return k;
}

static void the_writer_table_names_each_kind_of_document(void)
{
    json_t *g = verdict();
    const json_t *gd[1] = {g};
    EXPECT_STR(mb__writers_for(gd, 1, MB__W_MD)->kind, "gate verdict");
    EXPECT_EQ_INT(mb__writers_for(gd, 1, 0)->json_digits, 10);
    EXPECT(!mb__writers_for(gd, 1, 0)->csv_appends);
    json_decref(g);
    EXPECT_STR(kind_of("{\"schema\":\"mbench.diff/1\"}", MB__W_HTML),
               "tensor-set diff");
    EXPECT_STR(kind_of("{\"kind\":\"load\",\"load\":{}}", 0), "load");
    EXPECT_STR(kind_of("{\"kind\":\"validate\",\"validation\":{}}", 0),
               "validation");
    EXPECT_STR(kind_of("{\"kind\":\"run\",\"runs\":[]}", MB__W_MD), "result");
}

/* A load document that also holds a "validation" member (hand-edited):
 * Markdown used to take it for a validation and HTML for a load run. */
static void a_document_is_the_same_kind_in_every_format(void)
{
    json_t *d = json_loads("{\"schema\":\"mbench.result/1\",\"kind\":"
                           "\"load\",\"load\":{\"steps\":[]},"
                           "\"validation\":{\"passed\":true}}",
                           0, NULL);
    const json_t *docs[1] = {d};
    mb__buf md = MB_BUF_INIT, html = MB_BUF_INIT, want = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_STR(mb__writers_for(docs, 1, MB__W_MD)->kind, "load");
    mb__report_md(docs, 1, &md, &err);
    mb__report_load_md(d, &want);
    EXPECT_STR(md.data ? md.data : "", want.data ? want.data : "");
    mb__buf_free(&want);
    mb__report_html(docs, 1, &html, &err);
    mb__report_load_html(d, &want, &err);
    EXPECT_STR(html.data ? html.data : "", want.data ? want.data : "");
    mb__buf_free(&md);
    mb__buf_free(&html);
    mb__buf_free(&want);
    json_decref(d);
}

/* mb__report_csv of a gate verdict is the verdict's CSV, as the output
 * manager writes it, not the empty rows of a result. */
static void the_csv_of_a_verdict_is_the_verdicts_everywhere(void)
{
    json_t *g = verdict();
    mb__buf a = MB_BUF_INIT, b = MB_BUF_INIT;
    mb_err err = {0};
    mb__report_csv(g, 1, &a);
    EXPECT_EQ_INT(mb__report_gate_csv(g, &b, &err), MB_OK);
    EXPECT(b.len > 0);
    EXPECT_STR(a.data ? a.data : "", b.data ? b.data : "");
    mb__buf_free(&a);
    mb__buf_free(&b);
    json_decref(g);
}

int main(void)
{
    RUN(gate_console_prints_each_metric_with_change_ci_and_p);
    RUN(gate_markdown_and_html_escape_a_hostile_variant);
    RUN(gate_writers_refuse_a_document_that_is_not_a_verdict);
    RUN(code_spans_survive_backticks_and_newlines);
    RUN(console_fields_escape_control_characters);
    RUN(html_escape_folds_control_characters);
    RUN(metric_figures_pick_their_unit);
    RUN(the_output_manager_writes_every_format_of_a_verdict);
    RUN(the_writer_table_names_each_kind_of_document);
    RUN(a_document_is_the_same_kind_in_every_format);
    RUN(the_csv_of_a_verdict_is_the_verdicts_everywhere);
    return T_DONE();
}
