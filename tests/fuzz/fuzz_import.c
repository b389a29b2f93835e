/* fuzz_import.c - libFuzzer harness for `mbench db import` documents
 * (mb__store_import_json, src/store/transfer.c and store.c): an export
 * file or a plain result document, parsed by jansson, checked and stored
 * into a SQLite store in memory (":memory:"); every 8th stored document
 * is read back as history and as a baseline, and the rows counted.  The store
 * is made anew every 100 inputs so it stays small.  Built by `make fuzz`. */
#include "store/store.h"
#include "store/transfer.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mb__store *g_store;
static unsigned g_uses;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb_err err;
    if (!g_store || ++g_uses % 100 == 0) {
        mb__store_close(g_store);
        g_store = NULL;
        if (mb__store_open(":memory:", &g_store, &err) != MB_OK)
            abort();
    }
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    if (!j)
        return 0;
    mb__transfer_count c = {0, 0};
    json_t *git =
        json_pack("{s:s,s:s,s:b,s:s}", "commit",
                  "0123456789abcdef0123456789abcdef01234567", "branch", "main",
                  "dirty", 0, "commit_date", "2026-11-01T00:00:00Z");
    /* reading back costs more than storing: every 8th stored input */
    static unsigned stored;
    if (mb__store_import_json(g_store, j, "fuzz.json", git, &c, &err) ==
            MB_OK &&
        c.added && ++stored % 8 == 0) {
        json_t *rows = NULL;
        mb__store_filter f = {0};
        if (mb__store_history(g_store, &f, &rows, &err) == MB_OK)
            json_decref(rows);
        json_t *doc = NULL;
        if (mb__store_baseline(g_store, "main", NULL, j, &doc, &err) == MB_OK)
            json_decref(doc);
        int64_t counts[3];
        (void)mb__store_counts(g_store, counts, &err);
    }
    json_decref(git);
    json_decref(j);
    return 0;
}
