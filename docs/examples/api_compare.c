/* api_compare.c - benchmark and compare through libmbench's public API.
 *
 *   cc api_compare.c $(pkg-config --cflags --libs mbench) -o api_compare
 *   ./api_compare model.onnx other.onnx      (ONNX Runtime)
 *   ./api_compare                            (the null backend: no model)
 *
 * A run and a compare return the same result documents as `mbench run
 * --json` and `mbench compare --json` (docs/FORMATS.md). */
#include <mbench.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const mb_err *e)
{
    fprintf(stderr, "%s: %s (%s)\n", what, e->msg, mb_status_name(e->code));
    return 1;
}

int main(int argc, char **argv)
{
    mb_err err = {0};
    mb_runner *r = mb_runner_new();
    if (!r)
        return 1;
    /* Options are the run flags without dashes (docs/CLI.md). */
    if (mb_runner_set(r, "processes", "5", &err) ||
        mb_runner_set(r, "min-time", "0.5s", &err))
        return fail("set", &err);
    char a[4096], b[4096];
    if (argc == 3) {
        snprintf(a, sizeof a, "base=%s", argv[1]);
        snprintf(b, sizeof b, "other=%s", argv[2]);
    } else {
        if (mb_runner_set(r, "backend", "null", &err))
            return fail("set", &err);
        snprintf(a, sizeof a, "base=none,delay=20000");
        snprintf(b, sizeof b, "other=none,delay=24000");
    }
    char *json = NULL;
    if (mb_runner_run(r, argc == 3 ? argv[1] : "none", &json, &err))
        return fail("run", &err);
    printf("run: %zu bytes of result document\n", strlen(json));
    free(json);
    const char *variants[] = {a, b};
    if (mb_runner_compare(r, variants, 2, &json, &err))
        return fail("compare", &err);
    /* The verdict is in comparison.variants[1].significance.verdict. */
    const char *v = strstr(json, "\"verdict\": \"");
    printf("compare: %zu bytes; other vs base: %.40s\n", strlen(json),
           v ? v + 12 : "?");
    free(json);
    mb_runner_free(r);
    return 0;
}
