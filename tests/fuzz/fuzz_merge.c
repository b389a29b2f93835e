/* fuzz_merge.c - libFuzzer harness for `mbench merge` (mb__merge_docs,
 * src/exec/merge.c over mb__suite_merge): the input is up to four JSON
 * shard documents separated by NUL bytes, parsed by jansson (not ours to
 * fuzz) and merged; a merged document must serialize, and so must the
 * suite comparison of its runs (mb__suite_comparison: groups, machines,
 * interleaved pairs).  Built by `make fuzz`. */
#include "exec/merge.h"
#include "exec/suite.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *docs[4];
    const char *names[4] = {"shard0.json", "shard1.json", "shard2.json",
                            "shard3.json"};
    size_t n = 0;
    const uint8_t *p = data, *end = data + size;
    while (n < 4 && p < end) {
        const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
        size_t len = nul ? (size_t)(nul - p) : (size_t)(end - p);
        json_t *j = json_loadb((const char *)p, len, 0, NULL);
        if (j)
            docs[n++] = j;
        p += len + 1;
    }
    json_t *out = NULL;
    mb_err err;
    if (n && mb__merge_docs(docs, names, n, &out, &err) == MB_OK) {
        char *text = json_dumps(out, JSON_COMPACT);
        json_t *cmp = mb__suite_comparison(json_object_get(out, "runs"), 1);
        char *ctext = cmp ? json_dumps(cmp, JSON_COMPACT) : NULL;
        if (!text || !ctext)
            abort();
        free(text);
        free(ctext);
        json_decref(cmp);
        json_decref(out);
    }
    for (size_t i = 0; i < n; i++)
        json_decref(docs[i]);
    return 0;
}
