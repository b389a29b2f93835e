/* fuzz_require.c - libFuzzer harness for the --require expression parser
 * (mb__require_parse) and the judge (mb__require_judge).  The input up to
 * the first NUL is the expression; what follows, when it parses as JSON,
 * is the result document it is judged on (else a small built-in one).
 * Built by `make fuzz`. */
#include "regress/require.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = size ? memchr(data, '\0', size) : NULL;
    size_t n = nul ? (size_t)(nul - data) : size;
    char *text = malloc(n + 1);
    if (!text)
        return 0;
    memcpy(text, data, n);
    text[n] = '\0';
    mb__require r;
    mb_err err;
    if (mb__require_parse(text, &r, &err) == MB_OK) {
        json_t *doc = NULL;
        if (nul)
            doc = json_loadb((const char *)nul + 1, size - n - 1, 0, NULL);
        if (!doc)
            doc =
                json_pack("{s:[{s:s,s:s,s:{s:f,s:{s:f,s:f,s:f}},s:{s:I},"
                          "s:{s:{s:{s:f}},s:{s:{s:f}}}}]}",
                          "runs", "variant", "a", "status", "ok", "latency",
                          "median", 1e6, "median_ci95", "lo", 9e5, "hi", 1.1e6,
                          "estimate", 1e6, "memory", "rss_peak_bytes",
                          (json_int_t)1 << 20, "exec", "metrics", "psnr",
                          "median", 31.0, "phases", "epoch", "median_ns", 2e6);
        json_t *out = NULL;
        size_t unmet = 0;
        if (mb__require_judge(doc, &r, 1, &out, &unmet, &err) == MB_OK)
            json_decref(out);
        json_decref(mb__require_figures(doc));
        json_decref(doc);
        mb__require_free(&r);
    }
    free(text);
    return 0;
}
