/* fuzz_site.c - libFuzzer harness for the engine and writers of `mbench
 * site` (src/regress/site.c, src/report/sitewr.c): the input is a stored
 * result document (JSON, as `db import` would store it, or anything
 * else); six store rows are made from its runs (names, variants, figures,
 * branches and commits as the store would return them, text cells) on two
 * branches and two machines, and the document is the one whose exec
 * phases, counters and requirements the engine reads.  Every page is
 * rendered.  Invariants: no crash, leak or undefined behaviour; no name
 * from the document ever makes an element: each page holds exactly the
 * script elements mbench writes.  Built by `make fuzz`. */
#include "regress/site.h"
#include "report/sitewr.h"
#include "store/siteq.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *text_of(const json_t *v)
{
    char buf[64];
    if (json_is_string(v))
        return json_string(json_string_value(v));
    if (json_is_number(v)) {
        snprintf(buf, sizeof buf, "%.17g", json_number_value(v));
        return json_string(buf);
    }
    return json_null();
}

static json_t *row_of(const json_t *doc, int k)
{
    const json_t *run =
        json_array_get(json_object_get(doc, "runs"), (size_t)(k % 3));
    const json_t *lat = json_object_get(run, "latency");
    json_t *r = json_array();
    char id[16], ix[16], commit[41], date[32];
    snprintf(id, sizeof id, "%d", k + 1);
    snprintf(ix, sizeof ix, "%d", k % 3);
    for (int i = 0; i < 40; i++)
        commit[i] = "0123456789abcdef"[(k * 5 + i) % 16];
    commit[40] = '\0';
    snprintf(date, sizeof date, "2026-01-%02dT00:00:00Z", 1 + k % 28);
    json_t *cells[MB_SR_COUNT] = {
        json_string(id),
        json_string("1"),
        json_string(ix),
        json_string(commit),
        json_string(k % 2 ? "feature <b>x</b>" : "main"),
        json_string(date),
        json_string(date),
        json_string("ok"),
        text_of(json_object_get(doc, "kind")),
        text_of(json_object_get(json_object_get(run, "model"), "name")),
        text_of(json_object_get(run, "variant")),
        json_is_string(json_object_get(run, "backend"))
            ? text_of(json_object_get(run, "backend"))
            : json_string("exec"),
        text_of(json_object_get(run, "batch_size")),
        text_of(json_object_get(lat, "median")),
        text_of(json_object_get(lat, "p99")),
        json_null(),
        json_null(),
        text_of(json_object_get(json_object_get(run, "throughput"),
                                "inferences_per_s")),
        text_of(
            json_object_get(json_object_get(run, "memory"), "rss_peak_bytes")),
        json_string(k < 3 ? "<script>cpu</script>" : "CPU B"),
        json_string("x86_64"),
        json_string("8"),
        json_string("17179869184"),
        json_string("host")};
    for (int c = 0; c < MB_SR_COUNT; c++)
        json_array_append_new(r, cells[c]);
    return r;
}

static size_t count(const mb__buf *b, const char *needle)
{
    size_t n = 0;
    for (const char *p = b->data; p && (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void render_all(const json_t *site)
{
    mb__site_ctx c = {site, "https://forge.example/c/{sha}"};
    mb__buf b = MB_BUF_INIT;
    mb__site_index_html(&c, &b);
    if (count(&b, "<script") != 2)
        abort();
    mb__buf_free(&b);
    mb__site_regressions_html(&c, &b);
    if (count(&b, "<script") != 2)
        abort();
    mb__buf_free(&b);
    mb__site_branches_html(&c, &b);
    if (count(&b, "<script") != 3)
        abort();
    mb__buf_free(&b);
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(site, "series"), i, s)
    {
        mb__site_series_html(&c, s, &b);
        if (count(&b, "<script") != 2)
            abort();
        mb__buf_free(&b);
    }
    json_decref(mb__site_regressions_json(site));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, size, 0, &je);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return 0;
    }
    json_t *rows = json_array(), *docs = json_object();
    for (int k = 0; k < 6; k++)
        json_array_append_new(rows, row_of(doc, k));
    json_object_set(docs, "1", doc);
    json_t *order = json_object();
    json_object_set_new(order, "00000000", json_integer(0));
    mb__site_opts o = {NULL, NULL, NULL, order};
    json_t *site = NULL;
    mb_err err = {0};
    if (mb__site_build(rows, docs, &o, &site, &err) == MB_OK)
        render_all(site);
    json_decref(site);
    json_decref(order);
    json_decref(rows);
    json_decref(docs);
    json_decref(doc);
    return 0;
}
