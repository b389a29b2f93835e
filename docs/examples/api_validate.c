/* api_validate.c - validate a candidate model against a baseline through
 * libmbench's public API.
 *
 *   cc api_validate.c $(pkg-config --cflags --libs mbench) -o api_validate
 *   ./api_validate base.onnx candidate.onnx [data.npy [labels.npy]]
 *
 * Prints the verdict ("verdict: PASS" or "verdict: FAIL") and the size of
 * the result document, which is the same as `mbench validate --json`
 * writes (docs/ACCURACY.md).  Exit status: 0 when the call succeeded
 * (whatever the verdict), 1 when it failed. */
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
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: %s BASELINE CANDIDATE [DATA [LABELS]]\n",
                argv[0]);
        return 2;
    }
    mb_err err = {0};
    mb_runner *r = mb_runner_new();
    if (!r)
        return 1;
    /* Options are the flags of `mbench validate` without dashes. */
    if (mb_runner_set(r, "threads", "1", &err) ||
        mb_runner_set(r, "tolerance", "0.01", &err) ||
        (argc > 3 && mb_runner_set(r, "data", argv[3], &err)) ||
        (argc > 4 && mb_runner_set(r, "labels", argv[4], &err)) ||
        (argc <= 3 && mb_runner_set(r, "samples", "4", &err)))
        return fail("set", &err);
    /* A bad value is refused when set, not when the models run. */
    if (mb_runner_set(r, "gate", "cosine>>1", &err) == MB_OK) {
        fprintf(stderr, "a malformed gate was accepted\n");
        return 1;
    }
    int passed = 0;
    char *json = NULL;
    if (mb_runner_validate(r, argv[1], argv[2], &passed, &json, &err))
        return fail("validate", &err);
    /* The rule that judged the class scores is validation.rule. */
    const char *rule = strstr(json, "\"rule\": \"");
    printf("verdict: %s (rule %.*s); %zu bytes of result document\n",
           passed ? "PASS" : "FAIL", rule ? (int)strcspn(rule + 9, "\"") : 1,
           rule ? rule + 9 : "?", strlen(json));
    free(json);
    mb_runner_free(r);
    return 0;
}
