/* test_report.c - the Markdown, HTML and terminal-histogram writers:
 * escaping of hostile names, structure, and the fixtures of
 * tests/fixtures/report (made by make_fixtures.py). */
#include "t.h"

#include "core/buf.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/rutil.h"
#include "report/termhist.h"

#include <jansson.h>
#include <stdlib.h>

#define EVIL "<script>alert(1)</script>"

static json_t *fixture(const char *name)
{
    char path[4096];
    const char *root = getenv("MBENCH_ROOT");
    snprintf(path, sizeof path, "%s/tests/fixtures/report/%s",
             root ? root : ".", name);
    json_error_t je;
    json_t *d = json_load_file(path, 0, &je);
    if (!d)
        printf("#   cannot load %s: %s\n", path, je.text);
    return d;
}

static char *render(int html, const char *name)
{
    json_t *d = fixture(name);
    if (!d)
        return NULL;
    const json_t *docs[1] = {d};
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    mb_status st = html ? mb__report_html(docs, 1, &b, &err)
                        : mb__report_md(docs, 1, &b, &err);
    json_decref(d);
    if (st != MB_OK) {
        printf("#   render failed: %s\n", err.msg);
        mb__buf_free(&b);
        return NULL;
    }
    return mb__buf_take(&b, NULL);
}

static void html_escape_turns_markup_into_entities(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__html_escape(&b, "<a href=\"x\">'&'</a>");
    EXPECT_STR(b.data, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    mb__buf_free(&b);
}

static void markdown_escape_neutralises_pipes_and_emphasis(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__md_escape(&b, "a|b*c_d`e<f>&\nz");
    EXPECT_STR(b.data, "a\\|b\\*c\\_d\\`e&lt;f&gt;&amp; z");
    mb__buf_free(&b);
}

static void embedded_json_has_no_angle_brackets_and_parses_back(void)
{
    json_t *d = json_pack("{s:s, s:s}", "name", EVIL "</script ", "amp",
                          "a&b\xe2\x80\xa8");
    mb__buf b = MB_BUF_INIT;
    mb__json_script_embed(&b, d);
    EXPECT(b.data && !strchr(b.data, '<') && !strchr(b.data, '>') &&
           !strchr(b.data, '&'));
    json_t *back = json_loads(b.data ? b.data : "", 0, NULL);
    EXPECT(back && json_equal(back, d));
    json_decref(back);
    json_decref(d);
    mb__buf_free(&b);
}

static void milliseconds_are_formatted_to_four_significant_digits(void)
{
    char t[32];
    EXPECT_STR(mb__fmt_ms(1234567, t, sizeof t), "1.235");
    EXPECT_STR(mb__fmt_ms(12345678, t, sizeof t), "12.35");
    EXPECT_STR(mb__fmt_ms(NAN, t, sizeof t), "-");
    EXPECT_STR(mb__fmt_bytes(96.0 * 1048576, t, sizeof t), "96.0 MiB");
}

static void markdown_of_a_compare_shows_speedups_and_escapes_names(void)
{
    char *md = render(0, "compare.json");
    EXPECT_CONTAINS(md, "### Speedups");
    EXPECT_CONTAINS(md, "2.10x [1.90, 2.30]");
    EXPECT_CONTAINS(md, "&lt;script&gt;alert(1)&lt;/script&gt;");
    EXPECT_CONTAINS(md, "int4\\|\\*bold\\*\\_x\\_");
    EXPECT_CONTAINS(md, "**FAILED**");
    EXPECT_CONTAINS(md, "**Verdict:**");
    EXPECT_CONTAINS(md, "### Accuracy");
    EXPECT(md && !strstr(md, EVIL));
    free(md);
}

static void
markdown_of_a_run_lists_each_batch_and_warns_about_noise_and_leaks(void)
{
    char *md = render(0, "run_batches.json");
    EXPECT_CONTAINS(md, "| mobilenet | mobilenet.onnx | 1 |");
    EXPECT_CONTAINS(md, "| mobilenet | mobilenet.onnx | 4 |");
    EXPECT_CONTAINS(md, "noisy run");
    EXPECT_CONTAINS(md, "leak suspected");
    EXPECT_CONTAINS(md, "inputs are random");
    EXPECT(md && !strstr(md, "### Speedups"));
    free(md);
}

static void html_of_a_compare_never_contains_the_raw_hostile_name(void)
{
    char *h = render(1, "compare.json");
    EXPECT(h != NULL);
    EXPECT(h && !strstr(h, EVIL));
    EXPECT(h && !strstr(h, "\"quotes\" & <tags>"));
    EXPECT_CONTAINS(h, "&lt;script&gt;alert(1)&lt;/script&gt;");
    EXPECT_CONTAINS(h, "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e");
    free(h);
}

static void html_of_a_compare_draws_every_chart(void)
{
    char *h = render(1, "compare.json");
    const char *ids[] = {"chart-dist",   "chart-ecdf", "chart-speedup",
                         "chart-mem",    "chart-size", "chart-acc",
                         "chart-outputs"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        char want[64];
        snprintf(want, sizeof want, "<svg id=\"%s\"", ids[i]);
        EXPECT_CONTAINS(h, want);
    }
    EXPECT_CONTAINS(h, "data-expect=\"chart-dist chart-ecdf chart-speedup "
                       "chart-mem chart-size chart-acc chart-outputs\"");
    free(h);
}

static void
html_of_a_batch_sweep_draws_throughput_and_latency_against_batch(void)
{
    char *h = render(1, "run_batches.json");
    EXPECT_CONTAINS(h, "<svg id=\"chart-batch-thr\"");
    EXPECT_CONTAINS(h, "<svg id=\"chart-batch-lat\"");
    EXPECT(h && !strstr(h, "chart-speedup"));
    free(h);
}

static void html_without_samples_says_it_draws_from_percentiles(void)
{
    char *h = render(1, "no_samples.json");
    EXPECT_CONTAINS(h, "drawn from their percentiles");
    EXPECT_CONTAINS(h, "<svg id=\"chart-ecdf\"");
    free(h);
}

static void html_makes_no_network_reference(void)
{
    char *h = render(1, "compare.json");
    EXPECT(h && !strstr(h, "http://") && !strstr(h, "https://") &&
           !strstr(h, "//cdn"));
    EXPECT_CONTAINS(h, "default-src 'none'");
    free(h);
}

/* compare.json with a second output whose PSNR is infinite (identical)
 * and a heat map embedded in the variant's agreement. */
static char *render_identical_and_heatmap(void)
{
    json_t *d = fixture("compare.json");
    if (!d)
        return NULL;
    json_t *vs = json_object_get(json_object_get(d, "comparison"), "variants");
    json_t *ag = json_object_get(json_array_get(vs, 1), "agreement");
    json_array_append_new(json_object_get(ag, "outputs"),
                          json_pack("{s:s, s:s, s:f, s:f, s:f}", "name",
                                    "same_out", "psnr", "inf", "cosine", 1.0,
                                    "mae", 0.0, "max_abs", 0.0));
    /* a 1x1 PNG is enough: the writer embeds what the engine drew */
    json_object_set_new(
        ag, "heatmap",
        json_pack("{s:s, s:i, s:i, s:s, s:f, s:i, s:i, s:s}", "output",
                  "logits<0>", "sample", 17, "samples", 32, "chosen",
                  "worst sample", "max_abs", 0.041, "width", 8, "height", 8,
                  "png_base64",
                  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1Pe"
                  "AAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"));
    const json_t *docs[1] = {d};
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    mb_status st = mb__report_html(docs, 1, &b, &err);
    json_decref(d);
    if (st) {
        printf("#   render failed: %s\n", err.msg);
        mb__buf_free(&b);
        return NULL;
    }
    return mb__buf_take(&b, NULL);
}

static void html_reads_an_infinite_psnr_as_identical(void)
{
    char *h = render_identical_and_heatmap();
    /* the chart draws the longest bar, marked, not an empty row */
    EXPECT_CONTAINS(h, "class=\"identical\">identical</text>");
    EXPECT_CONTAINS(h, "same_out: PSNR infinite (identical) dB");
    /* the outputs table says so too */
    EXPECT_CONTAINS(h, ">identical</td>");
    free(h);
}

static void html_of_a_compare_embeds_the_heatmap_of_each_variant(void)
{
    char *h = render_identical_and_heatmap();
    EXPECT_CONTAINS(h, "<figure class=\"heatmap\"><img alt=\"heatmap\"");
    EXPECT_CONTAINS(h, "src=\"data:image/png;base64,iVBORw0KGgo");
    EXPECT_CONTAINS(h, "of logits&lt;0&gt;, sample 17 of 32 (the worst)");
    EXPECT_CONTAINS(h, "img-src data:");
    free(h);
}

static void console_text_wraps_at_the_width_counting_characters(void)
{
    mb__buf b = MB_BUF_INIT;
    /* "✓" is 3 bytes and one column; the long word is cut */
    mb__console_wrap(&b, "aaa bbb ✓✓✓ ccc 0123456789012345678901", 14, 2, 2);
    EXPECT_STR(b.data, "aaa bbb ✓✓✓\n  ccc\n  012345678901\n  2345678901\n");
    mb__buf_free(&b);
    mb__console_wrap(&b, "x\ty", 80, 0, 0);
    EXPECT_STR(b.data, "x\\ty\n");
    mb__buf_free(&b);
}

static void console_fit_wraps_only_the_lines_wider_than_the_terminal(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__buf_puts(&b, "head\n");
    size_t from = b.len;
    /* the colour escapes take no column: this line is 20 wide */
    mb__buf_puts(&b, "\033[33m! aaaa bbbb cccc dd\033[0m\nshort\n"
                     "  note: one two three four\n");
    mb__console_fit(&b, from, 20);
    EXPECT_STR(b.data, "head\n\033[33m! aaaa bbbb cccc dd\033[0m\nshort\n"
                       "  note: one two\n    three four\n");
    mb__buf_free(&b);
}

static void writers_reject_an_empty_document_list(void)
{
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__report_md(NULL, 0, &b, &err), MB_EINVAL);
    EXPECT_EQ_INT(mb__report_html(NULL, 0, &b, &err), MB_EINVAL);
    mb__buf_free(&b);
}

static void terminal_histogram_marks_the_percentiles(void)
{
    int64_t s[200];
    for (int i = 0; i < 200; i++)
        s[i] = 1000000 + (int64_t)(i % 50) * 10000 + (i == 199 ? 5000000 : 0);
    mb__buf b = MB_BUF_INIT;
    mb__report_term_histogram(s, 200, 80, 0, &b);
    EXPECT_CONTAINS(b.data, "200 samples");
    EXPECT_CONTAINS(b.data, "p50");
    EXPECT_CONTAINS(b.data, "p99");
    EXPECT_CONTAINS(b.data, "█");
    EXPECT(b.data && !strchr(b.data, '\033'));
    mb__buf_free(&b);
}

static void terminal_histogram_uses_colour_only_when_asked(void)
{
    int64_t s[3] = {5, 5, 5};
    mb__buf b = MB_BUF_INIT;
    mb__report_term_histogram(s, 3, 60, 1, &b);
    EXPECT_CONTAINS(b.data, "\033[36m");
    mb__buf_free(&b);
    mb__report_term_histogram(s, 0, 60, 1, &b);
    EXPECT_CONTAINS(b.data, "no samples");
    mb__buf_free(&b);
}

int main(void)
{
    RUN(html_escape_turns_markup_into_entities);
    RUN(markdown_escape_neutralises_pipes_and_emphasis);
    RUN(embedded_json_has_no_angle_brackets_and_parses_back);
    RUN(milliseconds_are_formatted_to_four_significant_digits);
    RUN(markdown_of_a_compare_shows_speedups_and_escapes_names);
    RUN(markdown_of_a_run_lists_each_batch_and_warns_about_noise_and_leaks);
    RUN(html_of_a_compare_never_contains_the_raw_hostile_name);
    RUN(html_of_a_compare_draws_every_chart);
    RUN(html_of_a_batch_sweep_draws_throughput_and_latency_against_batch);
    RUN(html_without_samples_says_it_draws_from_percentiles);
    RUN(html_makes_no_network_reference);
    RUN(html_reads_an_infinite_psnr_as_identical);
    RUN(html_of_a_compare_embeds_the_heatmap_of_each_variant);
    RUN(console_text_wraps_at_the_width_counting_characters);
    RUN(console_fit_wraps_only_the_lines_wider_than_the_terminal);
    RUN(writers_reject_an_empty_document_list);
    RUN(terminal_histogram_marks_the_percentiles);
    RUN(terminal_histogram_uses_colour_only_when_asked);
    return T_DONE();
}
