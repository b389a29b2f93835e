/* test_site.c - the promise of mb_site (mbench.h) and the engine behind
 * `mbench site`: a store of twelve commits with a step at the seventh, on
 * two machines, with a failed requirement from the step on and a hostile
 * variant name, gives a site whose regressions.json names the step at the
 * seventh commit once per machine (series are never mixed), whose pages
 * escape every name, which is byte-identical when written twice, and
 * which an unchanged store does not rewrite; bad requests fail with a
 * message and also with err == NULL. */
#include "t.h"

#include "mbench.h"

#include "core/fileio.h"
#include "store/store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

static json_t *make_doc(int k, const char *cpu, const char *host,
                        const char *variant)
{
    double med = (k < 7 ? 1.0e6 : 1.3e6) * (1 + 0.002 * ((k * 7) % 5));
    char created[32];
    snprintf(created, sizeof created, "2026-11-%02dT00:00:00Z", k);
    int passed = med < 1.1e6;
    return json_pack(
        "{s:s,s:s,s:s,s:{s:s,s:s,s:i,s:I,s:s},s:[{s:s,s:s,s:{s:s,s:s,s:s},s:s,"
        "s:i,"
        "s:{s:s,s:f,s:f,s:f}}],s:[{s:s,s:b,s:[{s:s,s:b,s:s}]}]}",
        "schema", "mbench.result/1", "kind", "run", "created_utc", created,
        "environment", "cpu_model", cpu, "hostname", host, "logical_cores", 8,
        "memory_bytes", (json_int_t)16 << 30, "arch", "x86_64", "runs",
        "status", "ok", "variant", variant, "model", "name", "m.onnx", "path",
        "/models/m.onnx", "sha256",
        "abababababababababababababababababababababababababababababababab",
        "backend", "null", "batch_size", 1, "latency", "unit", "ns", "median",
        med, "p99", med * 1.2, "mean", med * 1.05, "requirements",
        "requirement", "p50<=1.1ms", "passed", passed, "results", "variant",
        variant, "passed", passed, "value_text", passed ? "1 ms" : "1.3 ms");
}

static void commit_of(int k, char out[41])
{
    for (int i = 0; i < 40; i++)
        out[i] = "0123456789abcdef"[(k * 31 + i * 7) % 16];
    out[40] = '\0';
}

static int fill_store(const char *db)
{
    mb__store *s = NULL;
    mb_err e = {0};
    if (mb__store_open(db, &s, &e))
        return 0;
    static const char *const cpus[2][2] = {{"CPU A", "host-a"},
                                           {"CPU B", "host-b"}};
    int ok = 1;
    for (int m = 0; m < 2; m++)
        for (int k = 1; k <= 12; k++)
            for (int v = 0; v < 2; v++) {
                char sha[41], date[32];
                commit_of(k, sha);
                snprintf(date, sizeof date, "2026-11-%02dT00:00:00Z", k);
                json_t *doc =
                    make_doc(k, cpus[m][0], cpus[m][1],
                             v ? "<img src=x onerror=alert(1)>" : "plain");
                json_t *git =
                    json_pack("{s:s,s:s,s:b,s:s}", "commit", sha, "branch",
                              "main", "dirty", 0, "commit_date", date);
                ok &= doc && git && mb__store_put(s, doc, git, &e) == MB_OK;
                json_decref(doc);
                json_decref(git);
            }
    mb__store_close(s);
    return ok;
}

static char *slurp(const char *dir, const char *rel)
{
    char p[512], *d = NULL;
    size_t n;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return mb__read_file(p, &d, &n, NULL) ? NULL : d;
}

static void the_step_is_found_once_per_machine(const char *site, const char *db)
{
    (void)db;
    char *text = slurp(site, "regressions.json");
    json_t *reg = text ? json_loads(text, 0, NULL) : NULL;
    char c7[41];
    commit_of(7, c7);
    size_t i, steps = 0, gates = 0;
    json_t *e;
    const char *machines[2] = {NULL, NULL};
    json_array_foreach(json_object_get(reg, "entries"), i, e)
    {
        const json_t *s = json_object_get(e, "series");
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type && !strcmp(type, "gate"))
            gates++;
        if (!type || strcmp(type, "change_point") ||
            strcmp(json_string_value(json_object_get(s, "metric")), "p50"))
            continue;
        EXPECT_STR(json_string_value(json_object_get(e, "commit")), c7);
        EXPECT_STR(json_string_value(json_object_get(e, "direction")),
                   "regression");
        EXPECT_NEAR(json_number_value(json_object_get(e, "change")), 0.3, 0.02);
        if (steps < 2)
            machines[steps] = json_string_value(json_object_get(s, "machine"));
        steps++;
    }
    EXPECT_EQ_INT(steps, 4); /* 2 variants x 2 machines */
    EXPECT(machines[0] && machines[1] && strcmp(machines[0], machines[1]) != 0);
    /* 6 failing commits x 2 variants x 2 machines, listed once (with the
     * p50 series) though every series of the run is marked */
    EXPECT_EQ_INT(gates, 6 * 2 * 2);
    EXPECT_EQ_INT(json_array_size(json_object_get(reg, "machines")), 2);
    json_decref(reg);
    free(text);
}

static void names_are_escaped(const char *site)
{
    static const char *const pages[] = {"index.html", "regressions.html",
                                        "branches.html"};
    for (size_t i = 0; i < 3; i++) {
        char *t = slurp(site, pages[i]);
        EXPECT(t != NULL);
        EXPECT(t && strstr(t, "<img src=x") == NULL);
        EXPECT(t && strstr(t, "&lt;img src=x onerror=alert(1)&gt;") != NULL);
        free(t);
    }
}

/* Every file of a equals its namesake in b (the manifest lists them). */
static int same_sites(const char *a, const char *b)
{
    char *ma = slurp(a, ".mbench-site.json"),
         *mb = slurp(b, ".mbench-site.json");
    json_t *m = ma ? json_loads(ma, 0, NULL) : NULL;
    int same = ma && mb && !strcmp(ma, mb) &&
               json_object_size(json_object_get(m, "files")) > 10;
    const char *rel;
    json_t *v;
    json_object_foreach(json_object_get(m, "files"), rel, v)
    {
        char *x = slurp(a, rel), *y = slurp(b, rel);
        same &= x && y && !strcmp(x, y);
        free(x);
        free(y);
    }
    json_decref(m);
    free(ma);
    free(mb);
    return same;
}

#define FAILS_BOTH_WAYS(want, CALL)                                            \
    do {                                                                       \
        mb_err e_ = {0}, *ERR = &e_;                                           \
        EXPECT_EQ_INT((CALL), (want));                                         \
        EXPECT(e_.msg[0] != '\0');                                             \
        ERR = NULL;                                                            \
        EXPECT_EQ_INT((CALL), (want));                                         \
    } while (0)

static void bad_requests_fail(const char *db, const char *site)
{
    const char *bad_key[] = {"colour=blue"}, *no_eq[] = {"branch"};
    const char *no_branch[] = {"branch=nope"},
               *bad_url[] = {"commit-url=javascript:{sha}"};
    const char *bad_base[] = {"baseline=fffffff"};
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.db", tmp);
    FAILS_BOTH_WAYS(MB_EINVAL, mb_site(db, site, bad_key, 1, NULL, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_site(db, site, no_eq, 1, NULL, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_site(db, site, no_branch, 1, NULL, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_site(db, site, bad_url, 1, NULL, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_site(db, site, bad_base, 1, NULL, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_site(db, site, NULL, 1, NULL, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_site(db, NULL, NULL, 0, NULL, ERR));
    FAILS_BOTH_WAYS(MB_EIO, mb_site(missing, site, NULL, 0, NULL, ERR));
    EXPECT(access(missing, F_OK) != 0);
}

static char db[300], site_a[300], site_b[300];
static const char *const url[] = {"commit-url=https://forge.example/c/{sha}"};
static size_t written_a;

static void a_store_of_12_commits_on_two_machines_is_filled(void)
{
    EXPECT(fill_store(db));
}

static void mb_site_writes_the_site(void)
{
    mb_err e = {0};
    EXPECT_EQ_INT(mb_site(db, site_a, url, 1, &written_a, &e), MB_OK);
    if (e.msg[0])
        printf("#   %s\n", e.msg);
    EXPECT(written_a > 10);
}

static void regressions_json_has_the_step_at_the_7th_commit_per_machine(void)
{
    the_step_is_found_once_per_machine(site_a, db);
}

static void every_page_escapes_a_hostile_variant_name(void)
{
    names_are_escaped(site_a);
}

static void commits_link_through_the_template(void)
{
    char *t = slurp(site_a, "regressions.html");
    char c7[41], want[128];
    commit_of(7, c7);
    snprintf(want, sizeof want, "https://forge.example/c/%s", c7);
    EXPECT_CONTAINS(t, want);
    free(t);
}

static void the_same_store_gives_byte_identical_files(void)
{
    size_t w = 0;
    EXPECT_EQ_INT(mb_site(db, site_b, url, 1, &w, NULL), MB_OK);
    EXPECT_EQ_INT(w, written_a);
    EXPECT(same_sites(site_a, site_b));
}

static void an_unchanged_store_rewrites_nothing(void)
{
    size_t w = 99;
    EXPECT_EQ_INT(mb_site(db, site_a, url, 1, &w, NULL), MB_OK);
    EXPECT_EQ_INT(w, 0);
}

/* A stored "commit" is user data: one that is not a commit id never
 * becomes a link, whatever the template. */
static void a_commit_that_is_no_id_makes_no_link(void)
{
    char hdb[320], hsite[320];
    snprintf(hdb, sizeof hdb, "%s/h.db", tmp);
    snprintf(hsite, sizeof hsite, "%s/h", tmp);
    mb__store *s = NULL;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__store_open(hdb, &s, &e), MB_OK);
    for (int k = 1; k <= 2; k++) {
        json_t *doc = make_doc(k, "CPU A", "host-a", "plain");
        json_t *git =
            json_pack("{s:s,s:s,s:b,s:s}", "commit",
                      k == 1 ? "javascript:alert(1)" : "abcdef0123", "branch",
                      "main", "dirty", 0, "commit_date",
                      k == 1 ? "2026-11-01T00:00:00Z" : "2026-11-02T00:00:00Z");
        EXPECT_EQ_INT(mb__store_put(s, doc, git, &e), MB_OK);
        json_decref(doc);
        json_decref(git);
    }
    mb__store_close(s);
    const char *opts[] = {"commit-url={sha}"};
    EXPECT_EQ_INT(mb_site(hdb, hsite, opts, 1, NULL, &e), MB_OK);
    char *idx = slurp(hsite, ".mbench-site.json");
    json_t *m = idx ? json_loads(idx, 0, NULL) : NULL;
    const char *rel;
    json_t *v;
    size_t pages = 0;
    json_object_foreach(json_object_get(m, "files"), rel, v)
    {
        char *t = slurp(hsite, rel);
        EXPECT(t && strstr(t, "href=\"javascript") == NULL);
        pages += t && strstr(t, "href=\"abcdef0123\"") != NULL;
        free(t);
    }
    EXPECT(pages > 0); /* the real commit id is linked */
    json_decref(m);
    free(idx);
}

static void bad_requests_fail_with_a_message_and_with_err_null(void)
{
    bad_requests_fail(db, site_a);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "%s/mbench-site-XXXXXX",
             getenv("MBENCH_TEST_TMP") ? getenv("MBENCH_TEST_TMP") : "/tmp");
    if (!mkdtemp(tmp)) {
        printf("not ok 1 - a scratch directory\n1..1\n");
        return 1;
    }
    snprintf(db, sizeof db, "%s/s.db", tmp);
    snprintf(site_a, sizeof site_a, "%s/a", tmp);
    snprintf(site_b, sizeof site_b, "%s/b", tmp);
    RUN(a_store_of_12_commits_on_two_machines_is_filled);
    RUN(mb_site_writes_the_site);
    RUN(regressions_json_has_the_step_at_the_7th_commit_per_machine);
    RUN(every_page_escapes_a_hostile_variant_name);
    RUN(commits_link_through_the_template);
    RUN(the_same_store_gives_byte_identical_files);
    RUN(an_unchanged_store_rewrites_nothing);
    RUN(a_commit_that_is_no_id_makes_no_link);
    RUN(bad_requests_fail_with_a_message_and_with_err_null);
    return T_DONE();
}
