/* api_profile.c - profile a model through libmbench's public API: where the
 * time goes per operator type, like `mbench profile MODEL --json`.
 *
 *   cc api_profile.c $(pkg-config --cflags --libs mbench) -o api_profile
 *   ./api_profile model.onnx                  (ONNX Runtime)
 *
 * The result document (docs/PROFILE.md) holds runs[0].profile with
 * op_types sorted by time, nodes, FLOPs and the reconciliation with a
 * separate, non-profiled timing pass. */
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
    if (argc != 2) {
        fprintf(stderr, "usage: api_profile MODEL.onnx\n");
        return 2;
    }
    mb_err err = {0};
    mb_runner *r = mb_runner_new();
    if (!r)
        return 1;
    /* 20 profiled runs after 2 warmup runs; no hardware counters, and no
     * machine peaks (measuring them takes about two seconds, once). */
    if (mb_runner_set(r, "iterations", "20", &err) ||
        mb_runner_set(r, "warmup", "2", &err) ||
        mb_runner_set(r, "threads", "1", &err) ||
        mb_runner_set(r, "no-counters", "1", &err) ||
        mb_runner_set(r, "no-peak", "1", &err))
        return fail("set", &err);
    char *json = NULL;
    if (mb_runner_profile(r, argv[1], &json, &err))
        return fail("profile", &err);
    /* op_types are sorted by total time: the first is the costliest. */
    const char *ops = strstr(json, "\"op_types\"");
    const char *op = ops ? strstr(ops, "\"op_type\": \"") : NULL;
    int n = 0;
    if (op)
        for (op += 12; op[n] && op[n] != '"'; n++)
            ;
    printf("profile: %zu bytes; costliest op type: %.*s\n", strlen(json),
           n ? n : 1, n ? op : "?");
    free(json);
    mb_runner_free(r);
    return 0;
}
