/* test_execprint.c - the console form of exec and suite documents
 * (report/execprint.h, report/suiterep.h): the bytes are those the CLI
 * printed before the rendering moved into the library (the golden files
 * of tests/fixtures/exec/console, see its README), and the unit ladders
 * pick their units at the boundaries. */
#include "t.h"

#include "core/buf.h"
#include "report/execprint.h"
#include "report/suiterep.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *name)
{
    const char *root = getenv("MBENCH_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/exec/console/%s",
             root ? root : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("#   cannot open %s\n", path);
        return NULL;
    }
    mb__buf b = MB_BUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        mb__buf_append(&b, chunk, n);
    fclose(f);
    mb__buf_putc(&b, '\0');
    return mb__buf_take(&b, NULL);
}

static json_t *load(const char *name)
{
    char *text = slurp(name);
    json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return doc;
}

static void exec_console_matches_the_cli_output_it_replaces(void)
{
    json_t *doc = load("doc.json");
    char *want = slurp("doc.txt");
    mb__buf b = MB_BUF_INIT;
    EXPECT(doc && want);
    mb__exec_doc_console(&b, doc);
    mb__buf_putc(&b, '\0');
    EXPECT_STR(b.data, want ? want : "");
    mb__buf_free(&b);
    free(want);
    json_decref(doc);
}

static void suite_tasks_and_comparison_match_the_cli_output(void)
{
    json_t *doc = load("suite.json");
    char *want = slurp("suite.txt");
    const json_t *runs = json_object_get(doc, "runs");
    mb__buf b = MB_BUF_INIT;
    EXPECT(doc && want);
    for (size_t i = 0; i < json_array_size(runs); i++)
        mb__suite_run_console(&b, i + 1, json_array_size(runs),
                              json_array_get(runs, i));
    mb__suite_comparison_console(&b, json_object_get(doc, "comparison"));
    mb__buf_putc(&b, '\0');
    EXPECT_STR(b.data, want ? want : "");
    mb__buf_free(&b);
    free(want);
    json_decref(doc);
}

static void durations_and_sizes_pick_their_unit_at_the_boundaries(void)
{
    static const struct {
        double ns;
        const char *want;
    } cases[] = {{NAN, "-"},          {-5, "-5 ns"},         {999, "999 ns"},
                 {1000, "1.0 us"},    {999999, "1000.0 us"}, {1e6, "1.00 ms"},
                 {1.53e9, "1.530 s"}, {59.9e9, "59.900 s"},  {60e9, "1.0 min"},
                 {90e9, "1.5 min"}};
    char t[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(mb__fmt_ns(cases[i].ns, t, sizeof t), cases[i].want);
    /* a ladder whose last step starts at 0 refuses negatives */
    static const mb__unit_step kib[] = {
        {1024, 1024, "%.0f KiB"}, {0, 1, "%.0f B"}, {0, 0, NULL}};
    EXPECT_STR(mb__fmt_steps(2048, kib, t, sizeof t), "2 KiB");
    EXPECT_STR(mb__fmt_steps(0, kib, t, sizeof t), "0 B");
    EXPECT_STR(mb__fmt_steps(-1, kib, t, sizeof t), "-");
    EXPECT_STR(mb__fmt_steps(INFINITY, kib, t, sizeof t), "-");
}

static void suite_summary_says_shard_and_interruption(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__suite_summary_console(&b, 3, 4, 1, 1, 1);
    mb__suite_summary_console(&b, 2, 2, 0, 0, 0);
    mb__buf_putc(&b, '\0');
    EXPECT_STR(b.data, "\n3 of 4 task(s) run in this shard, 1 FAILED, "
                       "interrupted\n\n2 of 2 task(s) run, 0 FAILED\n");
    mb__buf_free(&b);
}

int main(void)
{
    RUN(exec_console_matches_the_cli_output_it_replaces);
    RUN(suite_tasks_and_comparison_match_the_cli_output);
    RUN(durations_and_sizes_pick_their_unit_at_the_boundaries);
    RUN(suite_summary_says_shard_and_interruption);
    return T_DONE();
}
