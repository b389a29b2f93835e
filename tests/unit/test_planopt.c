/* test_planopt.c - the plan's option table (plan/planopt.h) through the
 * public API: the values of tests/fixtures/options/plan_values.tsv are
 * accepted or rejected as the CLI does (tests/integration/options.sh runs
 * the same file through `mbench run`), --dim and --backend work in either
 * order, and backends' capabilities read safely from older plugins. */
#include "t.h"

#include "mbench.h"
#include "backend/registry.h"
#include "plan/plan.h"
#include "plan/planopt.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* set(key, value) after backend=null processes=1 iterations=5, then a run:
 * MB_OK when both worked.  *doc gets the result (caller frees) or NULL. */
static mb_status set_and_run(const char *const *kv, size_t n, json_t **doc,
                             mb_err *e)
{
    mb_runner *r = mb_runner_new();
    mb_status s = mb_runner_set(r, "backend", "null", e);
    if (!s)
        s = mb_runner_set(r, "processes", "1", e);
    if (!s)
        s = mb_runner_set(r, "iterations", "5", e);
    for (size_t i = 0; !s && i + 1 < n; i += 2)
        s = mb_runner_set(r, kv[i], kv[i + 1], e);
    char *json = NULL;
    if (!s)
        s = mb_runner_run(r, "none", &json, e);
    if (doc)
        *doc = json ? json_loads(json, 0, NULL) : NULL;
    free(json);
    mb_runner_free(r);
    return s;
}

static void the_api_accepts_and_rejects_the_values_the_cli_does(void)
{
    const char *root = getenv("MBENCH_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/options/plan_values.tsv",
             root ? root : ".");
    FILE *f = fopen(path, "r");
    if (!f) {
        T_FAIL_("cannot open %s (set MBENCH_ROOT)", path);
        return;
    }
    char line[512];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *key = line, *value = strchr(key, '\t');
        char *want = value ? strchr(value + 1, '\t') : NULL;
        if (!value || !want) {
            T_FAIL_("malformed line: %s", line);
            continue;
        }
        *value++ = '\0';
        *want++ = '\0';
        const char *kv[2] = {key, value};
        mb_err e = {0};
        mb_status s = set_and_run(kv, 2, NULL, &e);
        int ok = s == MB_OK;
        if (ok != (strcmp(want, "ok") == 0))
            T_FAIL_("%s=%s: expected %s, got status %d (%s)", key, value, want,
                    (int)s, e.msg);
        if (!ok && strstr(e.msg, "invalid value") && !strstr(e.msg, key))
            T_FAIL_("%s=%s: the message does not name the key: %s", key, value,
                    e.msg);
        cases++;
    }
    fclose(f);
    EXPECT(cases >= 40);
}

static void target_ci_takes_a_percentage_as_on_the_command_line(void)
{
    const char *kv[] = {"target-ci", "2.5%"};
    mb_err e = {0};
    json_t *doc = NULL;
    EXPECT_EQ_INT(set_and_run(kv, 2, &doc, &e), MB_OK);
    json_t *cfg = json_object_get(
        json_array_get(json_object_get(doc, "runs"), 0), "config");
    EXPECT_NEAR(json_number_value(json_object_get(cfg, "target_ci")), 0.025,
                1e-12);
    json_decref(doc);
}

static void a_percentile_is_not_forwarded_to_the_backend(void)
{
    const char *kv[] = {"percentile", "99.9"};
    mb_err e = {0};
    json_t *doc = NULL;
    EXPECT_EQ_INT(set_and_run(kv, 2, &doc, &e), MB_OK);
    json_t *cfg = json_object_get(
        json_array_get(json_object_get(doc, "runs"), 0), "config");
    EXPECT_EQ_INT(json_object_size(json_object_get(cfg, "backend_options")), 0);
    json_decref(doc);
}

static void dim_before_or_after_backend_gives_the_same_run(void)
{
    /* the dimension of the null backend's input is called "batch" */
    mb_err e = {0};
    mb_runner *a = mb_runner_new(), *b = mb_runner_new();
    EXPECT_EQ_INT(mb_runner_set(a, "dim", "batch=4", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(a, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(b, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(b, "dim", "batch=4", &e), MB_OK);
    mb_runner *both[] = {a, b};
    for (int i = 0; i < 2; i++) {
        char *json = NULL;
        mb_runner_set(both[i], "processes", "1", &e);
        mb_runner_set(both[i], "iterations", "5", &e);
        EXPECT_EQ_INT(mb_runner_run(both[i], "none", &json, &e), MB_OK);
        json_t *doc = json ? json_loads(json, 0, NULL) : NULL;
        json_t *cfg = json_object_get(
            json_array_get(json_object_get(doc, "runs"), 0), "config");
        /* null declares no dim overrides: nothing reaches its open() */
        EXPECT(json_object_get(json_object_get(cfg, "backend_options"),
                               "dim:batch") == NULL);
        json_decref(doc);
        free(json);
        mb_runner_free(both[i]);
    }
}

static void dims_reach_only_backends_that_declare_dim_overrides(void)
{
    mb__plan p;
    mb__plan_defaults(&p);
    mb_err e = {0};
    EXPECT_EQ_INT(
        mb__planopt_set(&p, mb__planopt_find("dim"), "dim", "seq=128", &e),
        MB_OK);
    EXPECT_EQ_INT(
        mb__planopt_set(&p, mb__planopt_find("threads"), "threads", "2", &e),
        MB_OK);
    mb_kv *kv = NULL;
    size_t n = 0;
    EXPECT(mb__plan_backend_opts(&p, 0, &kv, &n));
    EXPECT_EQ_INT(n, 1);
    free(kv);
    EXPECT(mb__plan_backend_opts(&p, MB_BACKEND_CAP_DIM_OVERRIDE, &kv, &n));
    EXPECT_EQ_INT(n, 2);
    if (n == 2) {
        EXPECT_STR(kv[1].key, "dim:seq");
        EXPECT_STR(kv[1].value, "128");
    }
    free(kv);
    EXPECT(mb__backend_caps(mb__backend_builtin(0)) &
           MB_BACKEND_CAP_DIM_OVERRIDE);
    EXPECT(mb__backend_accepts(mb__backend_builtin(0), "dim:seq"));
    EXPECT(!mb__backend_accepts(mb__backend_builtin(1), "threads"));
    mb__plan_free(&p);
}

static void a_plugin_built_before_capabilities_reads_as_none(void)
{
    mb_backend old;
    memcpy(&old, mb__backend_builtin(0), sizeof old);
    old.struct_size = (uint32_t)offsetof(mb_backend, caps);
    EXPECT_EQ_INT(mb__backend_caps(&old), 0);
    EXPECT(mb__backend_options(&old) == NULL);
    EXPECT(!mb__backend_accepts(&old, "threads"));
}

static void every_table_entry_is_documented(void)
{
    size_t n;
    const mb__planopt *t = mb__planopt_table(&n);
    EXPECT(n >= 30);
    for (size_t i = 0; i < n; i++) {
        if (!t[i].name || !t[i].help || !t[i].expect || !t[i].group)
            T_FAIL_("entry %zu (%s) lacks a name, help, expect or group", i,
                    t[i].name ? t[i].name : "?");
        if ((t[i].type == MB__PO_SWITCH) != (t[i].metavar == NULL))
            T_FAIL_("%s: a metavariable exactly when it takes a value",
                    t[i].name);
        if (mb__planopt_find(t[i].name) != &t[i])
            T_FAIL_("%s: found twice or not at all", t[i].name);
    }
}

int main(void)
{
    RUN(the_api_accepts_and_rejects_the_values_the_cli_does);
    RUN(target_ci_takes_a_percentage_as_on_the_command_line);
    RUN(a_percentile_is_not_forwarded_to_the_backend);
    RUN(dim_before_or_after_backend_gives_the_same_run);
    RUN(dims_reach_only_backends_that_declare_dim_overrides);
    RUN(a_plugin_built_before_capabilities_reads_as_none);
    RUN(every_table_entry_is_documented);
    return T_DONE();
}
