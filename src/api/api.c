/* api.c - the public runner API (include/mbench.h): the front end alone on
 * top of the engines (runner, accuracy, profile, load), over mb__plan and
 * mb__run_plan. */
#include "mbench.h"

#include "accuracy/valrun.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/parse.h"
#include "profile/engine.h"
#include "load/load.h"
#include "plan/planopt.h"
#include "request/compare.h"
#include "report/render.h"
#include "core/buf.h"
#include "runner/runner.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every public call may get err == NULL (mbench.h): it then works with a
 * local mb_err, so that the library below always has one to fill. */
#define MB_ERR_OR_LOCAL(err)                                                   \
    mb_err err##_local_ = {0};                                                 \
    if (!(err))                                                                \
    (err) = &err##_local_

struct mb_runner {
    mb__plan plan;
    /* compare only */
    char *baseline, *labels, *output;
    double tolerance, threshold;
    /* profile only */
    int no_timing, no_counters, no_peak;
    /* validate only: "key=value" of mb__val_set keys and candidate-opt */
    char **val_kv;
    size_t n_val_kv;
};

/* The runner's own string options (compare and validate), one list for
 * setting and freeing them. */
static const struct {
    const char *key;
    size_t offset;
} str_opts[] = {{"baseline", offsetof(mb_runner, baseline)},
                {"labels", offsetof(mb_runner, labels)},
                {"output", offsetof(mb_runner, output)}};
static const size_t n_str_opts = sizeof str_opts / sizeof str_opts[0];

static char **str_opt(mb_runner *r, size_t i)
{
    return (char **)((char *)r + str_opts[i].offset);
}

mb_runner *mb_runner_new(void)
{
    mb_runner *r = mb__calloc(1, sizeof *r);
    if (r) {
        mb__compare_req d; /* tolerance and threshold start as compare's */
        mb__compare_req_defaults(&d);
        mb__plan_defaults(&r->plan);
        r->tolerance = d.tolerance;
        r->threshold = d.threshold;
    }
    return r;
}

void mb_runner_free(mb_runner *r)
{
    if (!r)
        return;
    mb__plan_free(&r->plan);
    for (size_t i = 0; i < n_str_opts; i++)
        free(*str_opt(r, i));
    for (size_t i = 0; i < r->n_val_kv; i++)
        free(r->val_kv[i]);
    free(r->val_kv);
    free(r);
}

static mb_status bad(mb_err *err, const char *key, const char *value,
                     const char *expect)
{
    return mb__fail(err, MB_EINVAL, "invalid value '%s' for %s: expected %s",
                    value ? value : "", key, expect);
}

static mb_status set_str(char **dst, const char *v, mb_err *err)
{
    char *c = mb__strdup(v);
    if (!c)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    free(*dst);
    *dst = c;
    return MB_OK;
}

/* Checks a validate option now (so a bad value fails mb_runner_set) and
 * keeps "key=value" for mb_runner_validate. */
static mb_status add_val_kv(mb_runner *r, const char *key, const char *value,
                            mb_err *err)
{
    if (!strcmp(key, "candidate-opt")) {
        const char *eq = strchr(value, '=');
        if (!eq || eq == value)
            return bad(err, key, value, "KEY=VALUE, e.g. opt-level=all");
    } else {
        mb__val_req tmp;
        mb__val_req_defaults(&tmp);
        mb_status s = mb__val_set(&tmp, key, value, err);
        if (s)
            return s;
    }
    size_t len = strlen(key) + strlen(value) + 2;
    char *kv = mb__calloc(len, 1);
    char **n = mb__realloc_array(r->val_kv, r->n_val_kv + 1, sizeof *n);
    if (!kv || !n) {
        free(kv);
        if (n)
            r->val_kv = n;
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    snprintf(kv, len, "%s=%s", key, value);
    r->val_kv = n;
    r->val_kv[r->n_val_kv++] = kv;
    return MB_OK;
}

/* The plan's options go through the one table the CLI uses too
 * (plan/planopt.h), so both accept and reject the same values; then
 * profile's and compare's own keys; anything else is a backend option, which
 * the backend validates when it opens (an unknown key fails there). */
void mb_runner_set_log(mb_runner *r, mb_log_fn fn, void *user)
{
    if (r) {
        r->plan.log = fn;
        r->plan.log_user = fn ? user : NULL;
    }
}

mb_status mb_runner_set(mb_runner *r, const char *key, const char *value,
                        mb_err *err)
{
    MB_ERR_OR_LOCAL(err);
    double d;
    if (!r || !key || !value)
        return mb__fail(err, MB_EINVAL,
                        "mb_runner_set needs a runner, a key and a value");
    const mb__planopt *o = mb__planopt_find(key);
    if (o)
        return mb__planopt_set(&r->plan, o, key, value, err);
    if (!strcmp(key, "no-timing") || !strcmp(key, "no-counters") ||
        !strcmp(key, "no-peak")) { /* profile only */
        int64_t v;
        if (!mb__parse_i64(value, 0, 1, &v))
            return bad(err, key, value, "0 or 1");
        *(key[3] == 't'   ? &r->no_timing
          : key[3] == 'c' ? &r->no_counters
                          : &r->no_peak) = (int)v;
        return MB_OK;
    }
    for (size_t i = 0; i < n_str_opts; i++)
        if (!strcmp(key, str_opts[i].key))
            return set_str(str_opt(r, i), value, err);
    if (!strcmp(key, "tolerance") || !strcmp(key, "threshold")) {
        if (!mb__parse_double(value, 0, 1, &d))
            return bad(err, key, value, "a fraction such as 0.01");
        *(key[0] == 't' && key[1] == 'o' ? &r->tolerance : &r->threshold) = d;
        return MB_OK;
    }
    if (mb__val_is_option(key) || !strcmp(key, "candidate-opt"))
        return add_val_kv(r, key, value, err);
    if (!mb__plan_set_opt(&r->plan, key, value))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    return MB_OK;
}

/* Sets the model of the runner's plan and finishes the plan (defaults
 * that depend on other options); what mb__planopt_finish fails with. */
static mb_status use_model(mb_runner *r, const char *model, mb_err *err)
{
    mb_status s = set_str(&r->plan.model_path, model, err);
    return s ? s : mb__planopt_finish(&r->plan, "", err);
}

/* The document as the indented JSON text the API hands out in *json
 * (caller frees); MB_ENOMEM when it cannot be rendered. */
static mb_status dump_doc(const json_t *doc, char **json, mb_err *err)
{
    *json = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    return *json ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
}

/* The checks every call that hands out a document makes first. */
static mb_status check_call(const char *call, const mb_runner *r,
                            const void *what, char **json, mb_err *err)
{
    if (json)
        *json = NULL;
    if (!r || !what || !json)
        return mb__fail(err, MB_EINVAL,
                        "%s needs a runner, a model and a place for the "
                        "document (json), got NULL",
                        call);
    return MB_OK;
}

mb_status mb_runner_run(mb_runner *r, const char *model, char **json,
                        mb_err *err)
{
    MB_ERR_OR_LOCAL(err);
    mb_status s = check_call("mb_runner_run", r, model, json, err);
    if (s)
        return s;
    s = use_model(r, model, err);
    if (s)
        return s;
    json_t *doc = NULL;
    s = mb__run_plan(&r->plan, &doc, err);
    if (s)
        return s;
    s = dump_doc(doc, json, err);
    json_decref(doc);
    return s;
}

/* The variants through the request layer the CLI uses too
 * (request/compare.h: the same parser, checks and messages as `mbench
 * compare`), the runner's options, then the engine. */
static mb_status compare_variants(mb_runner *r, const char *const *variants,
                                  size_t n, json_t **doc, mb_err *err)
{
    mb__compare_call c;
    mb__compare_call_init(&c);
    c.rq.processes = r->plan.processes;
    c.rq.labels_path = r->labels;
    c.rq.output = r->output;
    c.rq.tolerance = r->tolerance;
    c.rq.threshold = r->threshold;
    c.rq.cancel = r->plan.cancel;
    /* the "map" keys (BASE=CAND, checked when set) serve compare too */
    mb__outmap maps[MB__MAX_OUTMAPS];
    size_t n_maps = 0;
    for (size_t i = 0; i < r->n_val_kv && n_maps < MB__MAX_OUTMAPS; i++)
        if (!strncmp(r->val_kv[i], "map=", 4) &&
            !mb__outmap_parse(r->val_kv[i] + 4, &maps[n_maps], NULL))
            n_maps++;
    c.rq.maps = maps;
    c.rq.n_maps = n_maps;
    mb_status s = mb__compare_prepare(&c, variants, n, &r->plan, r->baseline,
                                      "baseline", err);
    if (!s)
        s = mb__compare_run(&c.rq, doc, err);
    mb__compare_call_free(&c);
    return s;
}

mb_status mb_runner_compare(mb_runner *r, const char *const *variants, size_t n,
                            char **json, mb_err *err)
{
    MB_ERR_OR_LOCAL(err);
    mb_status s = check_call("mb_runner_compare", r, variants, json, err);
    if (s)
        return s;
    json_t *doc = NULL;
    s = compare_variants(r, variants, n, &doc, err);
    if (!s)
        s = dump_doc(doc, json, err);
    json_decref(doc);
    return s;
}

mb_status mb_runner_profile(mb_runner *r, const char *model, char **json,
                            mb_err *err)
{
    MB_ERR_OR_LOCAL(err);
    mb_status s = check_call("mb_runner_profile", r, model, json, err);
    if (s)
        return s;
    s = use_model(r, model, err);
    if (s)
        return s;
    mb__profile_opts o = {0};
    o.no_timing = r->no_timing;
    o.no_counters = r->no_counters;
    o.no_peak = r->no_peak;
    mb__profile_result res;
    s = mb__profile_model(&r->plan, &o, &res, err);
    if (s)
        return s;
    s = dump_doc(res.doc, json, err);
    mb__profile_result_free(&res);
    return s;
}

mb_status mb_runner_validate(mb_runner *r, const char *baseline,
                             const char *candidate, int *passed, char **json,
                             mb_err *err)
{
    MB_ERR_OR_LOCAL(err);
    if (passed)
        *passed = 0;
    mb_status s0 = check_call("mb_runner_validate", r, baseline, json, err);
    if (s0)
        return s0;
    if (!candidate)
        return mb__fail(err, MB_EINVAL,
                        "validate needs a baseline and a "
                        "candidate model");
    mb__val_req rq;
    mb__val_req_defaults(&rq);
    rq.labels = r->labels;
    rq.output = r->output;
    rq.tolerance = r->tolerance;
    /* The baseline runs with the runner's options, the candidate with
     * those and then its candidate-opt ones. */
    mb_runner *ar = mb_runner_new(), *cr = mb_runner_new();
    mb_status s = ar && cr ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
    for (int k = 0; !s && k < 2; k++) {
        mb_runner *x = k ? cr : ar;
        mb__plan_free(&x->plan);
        if (!mb__plan_copy(&x->plan, &r->plan))
            s = mb__fail(err, MB_ENOMEM, "out of memory");
        else
            s = set_str(&x->plan.model_path, k ? candidate : baseline, err);
    }
    for (size_t i = 0; !s && i < r->n_val_kv; i++) {
        char *kv = r->val_kv[i], *eq = strchr(kv, '=');
        *eq = '\0'; /* restored below */
        if (!strcmp(kv, "candidate-opt")) {
            char *v = eq + 1, *e2 = strchr(v, '=');
            *e2 = '\0';
            s = mb_runner_set(cr, v, e2 + 1, err);
            *e2 = '=';
        } else {
            s = mb__val_set(&rq, kv, eq + 1, err);
        }
        *eq = '=';
    }
    json_t *doc = NULL;
    if (!s) {
        rq.baseline = &ar->plan;
        rq.candidate = &cr->plan;
        s = mb__validate_run(&rq, &doc, err);
    }
    if (!s) {
        s = dump_doc(doc, json, err);
        if (!s && passed)
            *passed = json_is_true(
                json_object_get(json_object_get(doc, "validation"), "passed"));
    }
    json_decref(doc);
    mb_runner_free(ar);
    mb_runner_free(cr);
    return s;
}

mb_status mb_runner_load(mb_runner *r, const char *model,
                         const char *const *load_opts, size_t n, char **json,
                         mb_err *err)
{
    MB_ERR_OR_LOCAL(err);
    mb_status s0 = check_call("mb_runner_load", r, model, json, err);
    if (s0)
        return s0;
    if (n && !load_opts)
        return mb__fail(err, MB_EINVAL, "mb_runner_load: load_opts is NULL");
    mb__load_req rq;
    mb__load_req_defaults(&rq);
    for (size_t i = 0; i < n; i++) {
        const char *eq = load_opts[i] ? strchr(load_opts[i], '=') : NULL;
        if (!eq || eq == load_opts[i])
            return mb__fail(err, MB_EINVAL,
                            "invalid load option '%s': "
                            "expected KEY=VALUE",
                            load_opts[i] ? load_opts[i] : "");
        char *key = mb__strndup(load_opts[i], (size_t)(eq - load_opts[i]));
        if (!key)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        int rc = mb__load_req_set(&rq, key, eq + 1, err);
        if (rc == 1)
            mb__fail(err, MB_EINVAL,
                     "unknown load option '%s' (see "
                     "docs/LOAD.md)",
                     key);
        free(key);
        if (rc)
            return MB_EINVAL;
    }
    mb_status s = set_str(&r->plan.model_path, model, err);
    json_t *doc = NULL;
    if (!s)
        s = mb__load_run(&r->plan, &rq, &doc, err);
    if (s)
        return s;
    s = dump_doc(doc, json, err);
    json_decref(doc);
    return s;
}

/* doc rendered by the writers of format into b; MB_EINVAL for a format
 * that is none of md, html, csv and json. */
static mb_status render_doc(const json_t *doc, const char *format, mb__buf *b,
                            mb_err *err)
{
    if (!strcmp(format, "md"))
        return mb__report_md(&doc, 1, b, err);
    if (!strcmp(format, "html"))
        return mb__report_html(&doc, 1, b, err);
    if (!strcmp(format, "csv")) {
        mb__report_csv(doc, 1, b);
        return MB_OK;
    }
    if (!strcmp(format, "json")) {
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        if (!text)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        mb__buf_puts(b, text);
        free(text);
        return MB_OK;
    }
    return mb__fail(err, MB_EINVAL,
                    "unknown format '%s': expected md, html, csv or json",
                    format);
}

mb_status mb_render(const char *json, const char *format, char **out,
                    mb_err *err)
{
    MB_ERR_OR_LOCAL(err);
    if (out)
        *out = NULL;
    if (!json || !format || !out)
        return mb__fail(err, MB_EINVAL,
                        "mb_render needs a document, a format and a place "
                        "for the text (out), got NULL");
    json_error_t je;
    json_t *doc = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return mb__fail(err, MB_EINVAL,
                        "mb_render: not a result document (a JSON object): "
                        "%s at line %d",
                        doc ? "not an object" : je.text, je.line);
    }
    mb__buf b = MB_BUF_INIT;
    mb_status s = render_doc(doc, format, &b, err);
    json_decref(doc);
    if (!s && b.oom)
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!s)
        *out = mb__strndup(b.data ? b.data : "", b.len);
    if (!s && !*out)
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    mb__buf_free(&b);
    return s;
}
