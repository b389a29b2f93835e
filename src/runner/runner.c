/* runner.c - the measurement core: a stepwise bench session and the whole
 * `mbench run` flow (warmup, adaptive stopping, memory, statistics). */
#include "runner/runner.h"
#include "runner/replicate.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/sysinfo.h"
#include "data/dataset.h"
#include "data/synthetic.h"
#include "model/onnx.h"
#include "backend/registry.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mb_bench {
    const mb_backend *be;
    void *state;
    void *session;
    const mb_io_desc *in, *out; /* in: the runner's view (effective_inputs) */
    size_t n_in, n_out;
    mb_io_desc *in_eff;    /* owned; names borrowed from the backend or plan */
    const char **in_model; /* the model's own name of input i */
    mb_tensor *inputs;
    int64_t batch;
    int from_data;
    mb_dataset *data;
    mb_phases phases;
    json_t *runtime;
    const mb_plan *plan;
    mb_plan own_plan; /* plan with a bare --shape named (has_own) */
    int has_own;
    mb_kv *opts; /* what open() was given (mb__plan_backend_opts) */
    size_t n_opts;
};

static void add_fact(void *user, const char *key, const char *value)
{
    json_t *o = user;
    if (strcmp(key, "providers") == 0) {
        json_t *a = json_array();
        char *copy = mb__strdup(value ? value : "");
        char *save = NULL;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
             t = strtok_r(NULL, ",", &save))
            json_array_append_new(a, json_string(t));
        free(copy);
        json_object_set_new(o, key, a);
    } else {
        json_object_set_new(o, key, json_string(value ? value : ""));
    }
}

static void log_to_stderr(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    fprintf(stderr, "%s\n", msg);
}

static void free_inputs(mb_bench *b)
{
    for (size_t i = 0; b->inputs && i < b->n_in; i++)
        mb_tensor_clear(&b->inputs[i]);
}

/* A first inference that fails on synthetic integer inputs is often an
 * embedding lookup out of range: name the inputs and the fix. */
static void hint_integer_inputs(const mb_bench *b, mb_err *err)
{
    char names[512] = "", first[128] = "";
    for (size_t i = 0; i < b->n_in; i++) {
        mb_dtype t = b->in[i].dtype;
        double lo, hi;
        if ((t == MB_DTYPE_INT64 || t == MB_DTYPE_INT32) &&
            !mb__input_range(b->plan, b->in[i].name, t, &lo, &hi)) {
            mb__list_add(names, sizeof names, b->in[i].name);
            if (!*first)
                snprintf(first, sizeof first, "%s", b->in[i].name);
        }
    }
    if (!*names)
        return;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg,
             "%s (synthetic integer inputs %s are drawn "
             "from [0, 9]; if one indexes a table or must be a valid id, set "
             "its range, e.g. --input-range %s=0:1, or feed real inputs with "
             "--data)",
             err->msg, names, first);
    mb__fail(err, err->code ? err->code : MB_EBACKEND, "%s", msg);
}

/* --dim NAME must name a symbolic dimension of the model: from the
 * runtime's descriptions, or from the ONNX file (the runtime may already
 * have fixed a dimension it was told about).  A misspelt name would be
 * ignored silently otherwise. */
static mb_status check_dim_names(const mb_bench *b, const mb_plan *plan,
                                 mb_err *err)
{
    if (!plan->n_dims)
        return MB_OK;
    char syms[1024] = "", hint[128];
    for (size_t i = 0; i < b->n_in; i++)
        for (int a = 0; a < b->in[i].rank; a++)
            if (b->in[i].dim_names[a] && b->in[i].dim_names[a][0])
                mb__list_add(syms, sizeof syms, b->in[i].dim_names[a]);
    json_t *info = NULL;
    mb_err e = {0};
    char bsym[256] = ""; /* the model's batch symbol, as the file has it */
    if (plan->model_path && !mb__onnx_inspect(plan->model_path, &info, &e)) {
        size_t i, k;
        const json_t *in, *d;
        json_array_foreach(json_object_get(info, "inputs"), i, in)
            json_array_foreach(json_object_get(in, "shape"), k, d)
        {
            if (!json_is_string(d))
                continue;
            mb__list_add(syms, sizeof syms, json_string_value(d));
            if (k == 0 && !bsym[0])
                snprintf(bsym, sizeof bsym, "%s", json_string_value(d));
        }
    }
    json_decref(info);
    for (size_t k = 0; bsym[0] && k < plan->n_dims; k++)
        if (!strcmp(plan->dims[k].name, bsym)) {
            return mb__fail(err, MB_EINVAL,
                            "--dim %s=%lld sets the batch axis: use --batch "
                            "%lld instead (so that the batch size, samples/s "
                            "and the inputs are recorded as such)",
                            bsym, (long long)plan->dims[k].value,
                            (long long)plan->dims[k].value);
        }
    for (size_t k = 0; k < plan->n_dims; k++) {
        const char *nm = plan->dims[k].name;
        char probe[1024];
        snprintf(probe, sizeof probe, "%s", syms);
        mb__list_add(probe, sizeof probe, nm);
        if (!strcmp(probe, syms))
            continue; /* already there */
        const char *near = mb__nearest_name(syms, nm, hint, sizeof hint);
        return mb__fail(err, MB_EINVAL,
                        "--dim %s: no input has a dimension named '%s'%s%s%s "
                        "(the symbolic dimensions are: %s)",
                        nm, nm, near ? "; did you mean '" : "",
                        near ? near : "", near ? "'?" : "",
                        *syms ? syms : "none");
    }
    return MB_OK;
}

/* Phase and runtime facts the backend knows once inputs are prepared
 * (session_info): compile time, and the framework of a Python model. */
static void take_fact(void *user, const char *key, const char *value)
{
    mb_bench *b = user;
    if (strcmp(key, "compile_ns") == 0)
        b->phases.compile_ns = strtoll(value, NULL, 10);
    else
        add_fact(b->runtime, key, value);
}

static void take_session_facts(mb_bench *b)
{
    b->phases.compile_ns = -1;
    if (MB_BACKEND_HAS(b->be, session_info))
        b->be->session_info(b->session, take_fact, b);
}

/* A size a backend describes with a name (a Python model's "height",
 * BACKENDS.md) is a default the model takes others than: a --shape of
 * that input's rank that gives another size there makes it dynamic.
 * Not for backends that take --dim (ONNX Runtime), whose named sizes are
 * the --dim values. */
static void free_named_sizes(const mb_bench *b, mb_io_desc *d)
{
    if (mb__backend_caps(b->be) & MB_BACKEND_CAP_DIM_OVERRIDE)
        return;
    for (size_t k = 0; k < b->plan->n_shapes; k++) {
        const mb_shape_override *o = &b->plan->shapes[k];
        if (strcmp(o->name, d->name) != 0 || o->rank != d->rank)
            continue;
        for (int a = 0; a < d->rank; a++)
            if (d->dims[a] >= 0 && d->dim_names[a] && *d->dim_names[a] &&
                o->dims[a] != d->dims[a])
                d->dims[a] = -1;
    }
}

/* The inputs as the runner sees them (b->in): an input of unknown rank
 * (a TorchScript or Python argument) given by --shape takes that rank,
 * axis 0 a batch axis named "batch" and the other sizes fixed, so that
 * --data and --batch treat it like any model's batched input; and
 * --input-name NAME=MODELNAME shows the model's MODELNAME as NAME. */
static mb_status effective_inputs(mb_bench *b, const mb_io_desc *in, size_t n,
                                  mb_err *err)
{
    const mb_plan *p = b->plan;
    b->in_eff = mb__calloc(n + 1, sizeof *b->in_eff);
    b->in_model = mb__calloc(n + 1, sizeof *b->in_model);
    if (!b->in_eff || !b->in_model)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        b->in_eff[i] = in[i];
        b->in_model[i] = in[i].name;
    }
    for (size_t k = 0; k < p->n_renames; k++) {
        size_t i = 0;
        while (i < n && strcmp(in[i].name, p->renames[k].value) != 0)
            i++;
        if (i == n) {
            char names[1024] = "";
            for (size_t j = 0; j < n; j++)
                mb__list_add(names, sizeof names, in[j].name);
            return mb__fail(err, MB_EINVAL,
                            "--input-name %s=%s: the model has no input "
                            "named '%s' (its inputs are: %s)",
                            p->renames[k].key, p->renames[k].value,
                            p->renames[k].value, names);
        }
        b->in_eff[i].name = p->renames[k].key;
    }
    for (size_t i = 0; i < n; i++)
        free_named_sizes(b, &b->in_eff[i]);
    for (size_t i = 0; i < n; i++) {
        mb_io_desc *d = &b->in_eff[i];
        for (size_t k = 0; k < p->n_shapes && d->rank < 0; k++) {
            const mb_shape_override *o = &p->shapes[k];
            if (strcmp(o->name, d->name) != 0 || o->rank < 1)
                continue;
            d->rank = o->rank;
            for (int a = 0; a < o->rank; a++) {
                d->dims[a] = a == 0 ? -1 : o->dims[a];
                d->dim_names[a] = a == 0 ? "batch" : "";
            }
        }
    }
    b->in = b->in_eff;
    return MB_OK;
}

/* Builds inputs for batch (synthetic or from data), and prepares them. */
static mb_status make_inputs(mb_bench *b, int64_t batch, mb_err *err)
{
    free_inputs(b);
    mb_status s = MB_OK;
    if (b->data) {
        s = mb__dataset_batch(b->data, 0, batch, b->inputs, err);
    } else {
        mb_rng rng;
        mb__rng_seed(&rng, b->plan->seed);
        s = mb__synthetic_inputs(b->in, b->n_in, batch, b->plan, &rng,
                                 b->inputs, err);
    }
    if (!s)
        s = b->be->prepare(b->session, b->inputs, b->n_in, err);
    if (!s)
        b->batch = batch;
    return s;
}

/* Finds and loads the plan's backend (timed as the library load) and
 * records its runtime facts. */
static mb_status load_backend(mb_bench *b, mb_err *err)
{
    const mb_plan *plan = b->plan;
    /* A plugin's runtime is loaded with the plugin (dlopen): the library
     * load phase counts from before finding it. */
    int64_t t0 = mb_now_ns();
    b->be = mb_backend_find(mb__plan_backend(plan), err);
    if (!b->be)
        return err ? err->code : MB_EINVAL;
    mb_backend_config cfg = {plan->ort_lib, plan->verbose,
                             plan->log ? plan->log : log_to_stderr,
                             plan->log ? plan->log_user : NULL, plan->seed};
    mb_status s = b->be->load(&cfg, &b->state, err);
    b->phases.library_load_ns = mb_now_ns() - t0;
    if (s)
        return s;
    b->runtime = json_object();
    json_object_set_new(b->runtime, "backend", json_string(b->be->name));
    b->be->info(b->state, add_fact, b->runtime);
    return MB_OK;
}

/* Opens the model (timed as the session creation), after the file checks
 * of file-based backends.  A file the runtime rejects is MB_EFORMAT when
 * our own reader can tell what is wrong with it. */
static mb_status open_session(mb_bench *b, mb_err *err)
{
    const mb_plan *plan = b->plan;
    /* Only file-based backends get the file checks (the null backend and
     * plugins may take any "model" string). */
    uint32_t caps = mb__backend_caps(b->be);
    int file_model = (caps & MB_BACKEND_CAP_MODEL_FILE) != 0;
    mb_status s;
    if (plan->model_path && file_model &&
        (s = mb__model_file_check(plan->model_path, "model file", err)))
        return s;
    if (!mb__plan_backend_opts(plan, caps, &b->opts, &b->n_opts))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    int64_t t0 = mb_now_ns();
    s = b->be->open(b->state, plan->model_path ? plan->model_path : "", b->opts,
                    b->n_opts, &b->session, err);
    b->phases.session_create_ns = mb_now_ns() - t0;
    if (!s)
        return MB_OK;
    b->session = NULL;
    /* (ONNX files only: not a plugin's format, such as TorchScript) */
    int is_onnx = plan->model_path &&
                  strcmp(mb_backend_for_model(plan->model_path), "ort") == 0;
    json_t *info = NULL;
    mb_err e2 = {0};
    if (s == MB_EMODEL && is_onnx &&
        mb__onnx_inspect(plan->model_path, &info, &e2) == MB_EFORMAT)
        return mb__fail(err, MB_EFORMAT, "%s", e2.msg);
    json_decref(info);
    return s;
}

/* A --shape without NAME= (stored with the name "") is the shape of the
 * model's only input: b->plan becomes a copy where it has that input's
 * name (its --input-name alias if it has one).  MB_EINVAL for a model
 * with several inputs. */
static mb_status name_bare_shape(mb_bench *b, const mb_io_desc *in, size_t n,
                                 mb_err *err)
{
    const mb_plan *p = b->plan;
    size_t k = 0;
    while (k < p->n_shapes && p->shapes[k].name[0])
        k++;
    if (k == p->n_shapes)
        return MB_OK;
    char given[256] = "", names[1024] = "";
    for (int a = 0; a < p->shapes[k].rank; a++)
        snprintf(given + strlen(given), sizeof given - strlen(given),
                 "%s%" PRId64, a ? "," : "", p->shapes[k].dims[a]);
    for (size_t i = 0; i < n; i++)
        mb__list_add(names, sizeof names, in[i].name);
    if (n != 1)
        return mb__fail(err, MB_EINVAL,
                        "--shape %s without NAME= needs a model with one "
                        "input, and this one has %zu (%s); give --shape "
                        "NAME=D0,D1,...",
                        given, n, names);
    const char *name = in[0].name;
    for (size_t r = 0; r < p->n_renames; r++)
        if (!strcmp(p->renames[r].value, in[0].name))
            name = p->renames[r].key;
    if (!mb__plan_copy(&b->own_plan, p))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    b->has_own = 1;
    b->plan = &b->own_plan;
    mb_plan *q = &b->own_plan;
    bool named = false; /* a NAME= for the input too: that one wins */
    for (size_t i = 0; i < q->n_shapes; i++)
        named |= !strcmp(q->shapes[i].name, name);
    char *nm = named ? NULL : mb__strdup(name);
    if (!named && !nm)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    free(q->shapes[k].name);
    if (named)
        q->shapes[k] = q->shapes[--q->n_shapes];
    else
        q->shapes[k].name = nm;
    return MB_OK;
}

/* The inputs as the runner sees them, checked against the plan's
 * options, and the first batch bound (from --data or synthetic). */
static mb_status prepare_inputs(mb_bench *b, int64_t batch, mb_err *err)
{
    const mb_io_desc *model_in = NULL;
    mb_status s = b->be->describe(b->session, &model_in, &b->n_in, &b->out,
                                  &b->n_out, err);
    if (!s)
        s = name_bare_shape(b, model_in, b->n_in, err);
    const mb_plan *plan = b->plan;
    if (!s)
        s = effective_inputs(b, model_in, b->n_in, err);
    if (!s) /* also with --data, where no input is synthesised */
        s = mb__check_option_names(b->in, b->n_in, plan, err);
    if (!s)
        s = check_dim_names(b, plan, err);
    if (!s) {
        b->inputs = mb__calloc(b->n_in + 1, sizeof *b->inputs);
        if (!b->inputs)
            s = mb__fail(err, MB_ENOMEM, "out of memory");
    }
    if (!s && plan->data_path) {
        s = mb__dataset_load_prep(plan->data_path, b->in, b->n_in,
                                  &plan->tlimit, &plan->image, &b->data, err);
        b->from_data = !s;
    }
    if (!s)
        s = make_inputs(b, batch, err);
    return s;
}

/* The first inference (timed on its own), then the outputs again: some
 * backends know them only from a result (Python). */
static mb_status first_inference(mb_bench *b, mb_err *err)
{
    take_session_facts(b);
    int64_t t0 = mb_now_ns();
    mb_status s = b->be->run(b->session, err);
    b->phases.first_inference_ns = mb_now_ns() - t0;
    if (s && !b->from_data && err)
        hint_integer_inputs(b, err);
    if (s)
        return s;
    const mb_io_desc *again;
    size_t n_again;
    return b->be->describe(b->session, &again, &n_again, &b->out, &b->n_out,
                           err);
}

mb_status mb__bench_open(const mb_plan *plan, int64_t batch, mb_bench **out,
                         mb_err *err)
{
    *out = NULL;
    mb_bench *b = mb__calloc(1, sizeof *b);
    if (!b)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    b->plan = plan;
    b->phases = (mb_phases){-1, -1, -1, -1};
    mb_status s = load_backend(b, err);
    if (s) {
        free(b);
        return s;
    }
    if ((s = open_session(b, err)) || (s = prepare_inputs(b, batch, err)) ||
        (s = first_inference(b, err))) {
        mb__bench_close(b);
        return s;
    }
    *out = b;
    return MB_OK;
}

mb_status mb__bench_iterate(mb_bench *b, int64_t n, int64_t *samples,
                            mb_err *err)
{
    int (*run)(void *, mb_err *) = b->be->run;
    void *sess = b->session;
    for (int64_t i = 0; i < n; i++) {
        int64_t t0 = mb_now_ns();
        int s = run(sess, err);
        int64_t t1 = mb_now_ns();
        if (s)
            return (mb_status)s;
        samples[i] = t1 - t0;
    }
    return MB_OK;
}

mb_status mb__bench_set_batch(mb_bench *b, int64_t batch, mb_err *err)
{
    mb_status s = make_inputs(b, batch, err);
    if (!s)
        take_session_facts(b);
    return s;
}

mb_status mb__bench_set_inputs(mb_bench *b, const mb_tensor *inputs, size_t n,
                               mb_err *err)
{
    if (n != b->n_in)
        return mb__fail(err, MB_EDATA, "the model takes %zu inputs, got %zu",
                        b->n_in, n);
    free_inputs(b);
    for (size_t i = 0; i < n; i++) {
        mb_status s = mb_tensor_copy(&b->inputs[i], &inputs[i], err);
        if (s)
            return s;
    }
    b->batch = n && inputs[0].rank > 0 ? inputs[0].dims[0] : 1;
    return b->be->prepare(b->session, b->inputs, b->n_in, err);
}

const mb_io_desc *mb__bench_describe(const mb_bench *b, int outputs, size_t *n)
{
    *n = outputs ? b->n_out : b->n_in;
    return outputs ? b->out : b->in;
}

static mb_status outputs(mb_bench *b, mb_tensor **outs, size_t *n, int lenient,
                         mb_err *err);

mb_status mb__bench_outputs(mb_bench *b, mb_tensor **outs, size_t *n,
                            mb_err *err)
{
    return outputs(b, outs, n, 0, err);
}

mb_status mb__bench_outputs_lenient(mb_bench *b, mb_tensor **outs, size_t *n,
                                    mb_err *err)
{
    return outputs(b, outs, n, 1, err);
}

static mb_status outputs(mb_bench *b, mb_tensor **outs, size_t *n, int lenient,
                         mb_err *err)
{
    *outs = NULL;
    *n = 0;
    mb_status s = b->be->run(b->session, err);
    if (s)
        return s;
    mb_tensor *o = mb__calloc(b->n_out + 1, sizeof *o);
    if (!o)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < b->n_out; i++) {
        s = b->be->fetch(b->session, i, &o[i], err);
        if (s == MB_EUNSUPPORTED && lenient) {
            memset(&o[i], 0, sizeof o[i]);
            o[i].name = mb__strdup(b->out[i].name);
            s = MB_OK;
            continue;
        }
        if (s) {
            for (size_t k = 0; k < i; k++)
                mb_tensor_clear(&o[k]);
            free(o);
            return s;
        }
    }
    *outs = o;
    *n = b->n_out;
    return MB_OK;
}

size_t mb__bench_data_samples(const mb_bench *b)
{
    return b->data ? mb__dataset_count(b->data) : 0;
}

mb_status mb__bench_bind_data(mb_bench *b, size_t first, mb_err *err)
{
    if (!b->data)
        return mb__fail(err, MB_EINVAL, "no --data set is loaded");
    free_inputs(b);
    mb_status s = mb__dataset_batch(b->data, first, b->batch, b->inputs, err);
    if (s)
        return s;
    return (mb_status)b->be->prepare(b->session, b->inputs, b->n_in, err);
}

int64_t mb__bench_batch(const mb_bench *b)
{
    return b->batch;
}

const mb_tensor *mb__bench_inputs(const mb_bench *b, size_t *n)
{
    *n = b->n_in;
    return b->inputs;
}

const mb_phases *mb__bench_phases(const mb_bench *b)
{
    return &b->phases;
}

/* bound: the bound tensor (its dims; its rank when the model declares
 * none, as for a TorchScript argument given by --shape), or NULL. */
static json_t *io_desc_json(const mb_io_desc *d, const mb_tensor *bound)
{
    json_t *o = json_object(), *shape = json_array(), *names = json_array();
    const int64_t *resolved = bound ? bound->dims : NULL;
    int rank = d->rank < 0 && bound ? bound->rank : d->rank;
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(
        o, "dtype",
        json_string(rank < 0 ? "non-tensor" : mb_dtype_name(d->dtype)));
    for (int i = 0; i < rank; i++) {
        json_array_append_new(
            shape, json_integer(resolved ? resolved[i] : d->dims[i]));
        json_array_append_new(names, d->dims[i] < 0 && d->dim_names[i] &&
                                             d->dim_names[i][0]
                                         ? json_string(d->dim_names[i])
                                         : json_null());
    }
    json_object_set_new(o, "shape", shape);
    json_object_set_new(o, "dim_names", names);
    return o;
}

json_t *mb__bench_io_json(const mb_bench *b)
{
    json_t *o = json_object(), *in = json_array(), *out = json_array();
    for (size_t i = 0; i < b->n_in; i++) {
        json_t *d =
            io_desc_json(&b->in[i], b->inputs[i].data ? &b->inputs[i] : NULL);
        json_object_set_new(d, "source",
                            json_string(b->from_data ? "data" : "synthetic"));
        if (b->in_model && strcmp(b->in_model[i], b->in[i].name) != 0)
            json_object_set_new(d, "model_name", json_string(b->in_model[i]));
        if (!b->from_data) {
            double lo, hi;
            mb__input_range(b->plan, b->in[i].name, b->in[i].dtype, &lo, &hi);
            json_object_set_new(d, "range", json_pack("[f,f]", lo, hi));
        }
        json_array_append_new(in, d);
    }
    for (size_t i = 0; i < b->n_out; i++)
        json_array_append_new(out, io_desc_json(&b->out[i], NULL));
    json_object_set_new(o, "inputs", in);
    json_object_set_new(o, "outputs", out);
    return o;
}

json_t *mb__bench_runtime_json(const mb_bench *b)
{
    return json_deep_copy(b->runtime);
}

void *mb__bench_session(const mb_bench *b, const mb_backend **be)
{
    *be = b->be;
    return b->session;
}

void mb__bench_close(mb_bench *b)
{
    if (!b)
        return;
    if (b->session)
        b->be->close(b->session);
    free_inputs(b);
    free(b->inputs);
    free(b->in_eff);
    free(b->in_model);
    free(b->opts);
    mb__dataset_free(b->data);
    if (b->state || b->be)
        b->be->unload(b->state);
    json_decref(b->runtime);
    if (b->has_own)
        mb__plan_free(&b->own_plan);
    free(b);
}

/* ---- the run flow -------------------------------------------------------- */

static json_t *num_or_null(double v, int ok)
{
    return ok && isfinite(v) ? json_real(v) : json_null();
}

json_t *mb__latency_json(const int64_t *samples, size_t n,
                         const double *extra_q, size_t n_extra)
{
    mb_summary s;
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_string("ns"));
    json_object_set_new(o, "count", json_integer((json_int_t)n));
    if (!mb__summarize_ns(samples, n, &s))
        return o;
    json_object_set_new(o, "min", json_real(s.min));
    json_object_set_new(o, "max", json_real(s.max));
    json_object_set_new(o, "mean", json_real(s.mean));
    json_object_set_new(o, "std", json_real(s.std));
    json_object_set_new(o, "cv", json_real(s.cv));
    json_object_set_new(o, "mad", json_real(s.mad));
    json_object_set_new(
        o, "robust_cv",
        json_real(s.median > 0 ? 1.4826 * s.mad / s.median : 0.0));
    json_object_set_new(o, "median", json_real(s.median));
    json_object_set_new(o, "p90", num_or_null(s.p90, s.p90_ok));
    json_object_set_new(o, "p95", num_or_null(s.p95, s.p95_ok));
    json_object_set_new(o, "p99", num_or_null(s.p99, s.p99_ok));
    json_object_set_new(o, "p99_9", num_or_null(s.p999, s.p999_ok));
    double *sorted = mb__calloc(n, sizeof *sorted);
    json_t *pcts = json_array();
    if (sorted) {
        for (size_t i = 0; i < n; i++)
            sorted[i] = (double)samples[i];
        qsort(sorted, n, sizeof *sorted, mb__cmp_double);
        static const double std_q[] = {50, 90, 95, 99, 99.9};
        for (size_t i = 0; i < 5 + n_extra; i++) {
            double q = i < 5 ? std_q[i] : extra_q[i - 5];
            int seen = 0; /* --percentile 99.9 is one of the standard ones */
            for (size_t j = 0; j < i; j++)
                seen |= (j < 5 ? std_q[j] : extra_q[j - 5]) == q;
            if (seen)
                continue;
            int ok = mb__percentile_supported(n, q) || q == 50;
            json_array_append_new(
                pcts,
                json_pack("{s:f,s:o,s:b}", "q", q, "value",
                          num_or_null(mb__percentile_sorted(sorted, n, q), ok),
                          "supported", ok));
        }
        free(sorted);
    }
    json_object_set_new(o, "percentiles", pcts);
    json_object_set_new(o, "median_ci95",
                        s.median_ci_ok
                            ? json_pack("{s:f,s:f,s:s}", "lo", s.median_ci_lo,
                                        "hi", s.median_ci_hi, "method",
                                        "binomial order statistics")
                            : json_null());
    json_object_set_new(o, "outliers",
                        json_pack("{s:s,s:f,s:I,s:I}", "method", "MAD",
                                  "threshold", 3.5, "low",
                                  (json_int_t)s.outliers_low, "high",
                                  (json_int_t)s.outliers_high));
    return o;
}

void mb__latency_apply_replication(json_t *lat, const json_t *rep)
{
    static const char *const figs[][2] = {{"median", "median_ci95"},
                                          {"p99", "p99_ci95"}};
    const char *unit = json_string_value(json_object_get(rep, "unit"));
    for (size_t f = 0; f < 2; f++) {
        const json_t *g = json_object_get(rep, figs[f][0]);
        const json_t *ci = json_object_get(g, "ci95");
        if (json_is_array(ci)) {
            json_object_set_new(
                lat, figs[f][1],
                json_pack("{s:O,s:O,s:O,s:O,s:s,s:O}", "lo",
                          json_array_get(ci, 0), "hi", json_array_get(ci, 1),
                          "estimate", json_object_get(g, "estimate"), "method",
                          json_object_get(g, "method"), "unit",
                          unit ? unit : "process", "replicates",
                          json_object_get(g, "replicates")));
        } else if (f == 1) {
            json_object_set_new(lat, figs[f][1], json_null());
        } else {
            json_t *m = json_object_get(lat, figs[f][1]);
            if (json_is_object(m))
                json_object_set_new(m, "method",
                                    json_string("binomial order statistics; "
                                                "assumes independent "
                                                "samples (too few samples "
                                                "for blocks)"));
        }
    }
}

json_t *mb__doc_new(const char *kind, const char *command_line)
{
    json_t *d = json_object();
    char ts[32];
    mb__utc_iso8601(ts, sizeof ts);
    mb_clock_info ci;
    mb__clock_measure(&ci);
    json_object_set_new(d, "schema", json_string("mbench.result/1"));
    json_object_set_new(d, "kind", json_string(kind));
    json_object_set_new(d, "created_utc", json_string(ts));
    json_object_set_new(d, "command_line",
                        json_string(command_line ? command_line : ""));
    json_object_set_new(d, "mbench",
                        json_pack("{s:s,s:s}", "version", mb_version(),
                                  "commit", mb_build_commit()));
    json_object_set_new(d, "environment", mb__sysinfo_json());
    json_object_set_new(d, "timer",
                        json_pack("{s:s,s:I,s:I,s:I}", "clock",
                                  "CLOCK_MONOTONIC", "resolution_ns",
                                  (json_int_t)ci.resolution_ns, "overhead_ns",
                                  (json_int_t)ci.overhead_ns, "min_step_ns",
                                  (json_int_t)ci.min_step_ns));
    json_object_set_new(
        d, "statistics",
        json_pack("{s:s,s:s,s:s,s:s,s:s}", "percentile_method",
                  "linear interpolation between order statistics (numpy "
                  "default)",
                  "median_ci",
                  "95%, over processes: Student t on the log per-process "
                  "medians (replication.median); with one process, over "
                  "blocks of consecutive samples (within-run noise only), "
                  "or below 250 samples binomial order statistics; each "
                  "run's latency.median_ci95.method says which",
                  "speedup_ci",
                  "compare: 95%, paired Student t on the log ratios of "
                  "per-process medians over blocks of consecutive rounds "
                  "(docs/STATISTICS.md)",
                  "outliers",
                  "|x - median| / (1.4826 MAD) > 3.5; counted, "
                  "never dropped",
                  "std", "sample standard deviation (n-1)"));
    json_object_set_new(d, "warnings", json_array());
    json_object_set_new(d, "interrupted", json_false());
    json_object_set_new(d, "runs", json_array());
    return d;
}

json_t *mb__model_json(const mb_plan *plan)
{
    json_t *m = json_object();
    const char *path = plan->model_path ? plan->model_path : "";
    json_object_set_new(m, "path", json_string(path));
    json_object_set_new(m, "name", json_string(mb__basename(path)));
    char hex[65];
    mb_err e;
    int64_t size = mb__file_size(path);
    json_object_set_new(m, "file_bytes",
                        size >= 0 ? json_integer(size) : json_null());
    json_object_set_new(m, "sha256",
                        size >= 0 && !mb__sha256_file(path, hex, &e)
                            ? json_string(hex)
                            : json_null());
    json_t *info = NULL;
    if (size > 0 && !mb__onnx_inspect(path, &info, &e)) {
        /* file_bytes is the .onnx file alone; a model with external data
         * takes total_bytes (docs/FORMATS.md), the figure to compare. */
        const json_t *ext = json_object_get(info, "external_data");
        json_object_set(m, "external_data_bytes",
                        json_object_get(ext, "file_bytes"));
        json_object_set(m, "external_data_files",
                        json_object_get(ext, "files"));
        json_object_set(m, "external_data_missing",
                        json_object_get(ext, "missing"));
        json_object_set(m, "total_bytes", json_object_get(info, "total_bytes"));
        json_object_set(m, "params", json_object_get(info, "params"));
        json_object_set(m, "param_bytes", json_object_get(info, "param_bytes"));
        json_object_set(m, "params_by_dtype",
                        json_object_get(info, "params_by_dtype"));
        json_object_set(m, "opsets", json_object_get(info, "opsets"));
        json_object_set(m, "producer_name",
                        json_object_get(info, "producer_name"));
        /* Weights some exporters keep in Constant nodes, not initializers. */
        json_object_set(m, "constants", json_object_get(info, "constants"));
        json_decref(info);
    } else {
        /* unknown external data: the .onnx file is all that is known */
        json_object_set_new(m, "external_data_bytes", json_null());
        json_object_set_new(m, "total_bytes",
                            size >= 0 ? json_integer(size) : json_null());
        json_object_set_new(m, "params", json_null());
        json_object_set_new(m, "param_bytes", json_null());
    }
    return m;
}

/* The preprocessing of image data as given (null: every default). */
static json_t *image_json(const mb_image_prep *m)
{
    static const mb_image_prep none = {0};
    if (!memcmp(m, &none, sizeof none))
        return json_null();
    json_t *mean = json_array(), *std = json_array();
    for (int k = 0; k < m->n_mean; k++)
        json_array_append_new(mean, json_real(m->mean[k]));
    for (int k = 0; k < m->n_std; k++)
        json_array_append_new(std, json_real(m->std[k]));
    return json_pack(
        "{s:[I,I], s:[I,I], s:o, s:o, s:o, s:s, s:s}", "resize",
        (json_int_t)m->resize_h, (json_int_t)m->resize_w, "center_crop",
        (json_int_t)m->crop_h, (json_int_t)m->crop_w, "scale",
        m->have_scale ? json_real(m->scale) : json_null(), "mean", mean, "std",
        std, "channel_order", m->bgr ? "bgr" : "rgb", "layout",
        m->layout == 1   ? "nchw"
        : m->layout == 2 ? "nhwc"
                         : "from the input's shape");
}

static json_t *config_json(const mb_plan *p, const mb_bench *b)
{
    json_t *c = json_object(), *be = json_object();
    /* what the backend was given, --dim included where it takes them */
    const mb_kv *kv = b && b->opts ? b->opts : p->opts;
    size_t n = b && b->opts ? b->n_opts : p->n_opts;
    for (size_t i = 0; i < n; i++)
        json_object_set_new(be, kv[i].key, json_string(kv[i].value));
    json_object_set_new(c, "backend_options", be);
    json_object_set_new(c, "seed", json_integer((json_int_t)p->seed));
    json_object_set_new(c, "data",
                        p->data_path ? json_string(p->data_path) : json_null());
    json_object_set_new(c, "image", image_json(&p->image));
    json_object_set_new(c, "warmup_iters", json_integer(p->warmup_iters));
    json_object_set_new(c, "warmup_time_ns", json_integer(p->warmup_time_ns));
    json_object_set_new(c, "min_iters", json_integer(p->min_iters));
    json_object_set_new(c, "min_time_ns", json_integer(p->min_time_ns));
    json_object_set_new(c, "max_iters", json_integer(p->max_iters));
    json_object_set_new(c, "max_time_ns", json_integer(p->max_time_ns));
    json_object_set_new(c, "fixed_iters", json_integer(p->fixed_iters));
    json_object_set_new(c, "target_ci", json_real(p->target_ci));
    return c;
}

static const char *device_of(const mb_plan *p)
{
    const char *ep = mb__plan_get_opt(p, "ep");
    return ep ? ep : "cpu";
}

/* Measures one batch size on an open bench; adds fields to run. */
/* What measure's phases share: the samples, the scratch of the CI
 * checks, the RSS points of --leak-check and the phase clocks. */
typedef struct meas {
    mb_bench *b;
    const mb_plan *p;
    int64_t *samples;
    size_t n, cap;
    double *scratch; /* for the CI checks, kept for the whole loop */
    size_t scap;
    double *rss_x, *rss_y; /* --leak-check: iterations, RSS */
    size_t rss_n, rss_cap;
    int64_t last_rss_t;
    size_t next_check; /* sample count of the next CI check */
    double ci_rel;
    int64_t warm, warmup_ns, measure_ns, rss_start;
    int peak_reset;
    const char *rule; /* why the loop stopped */
} meas;

/* Warmup: by count, then by time if asked. */
static mb_status warm_up(meas *m, mb_err *err)
{
    const mb_plan *p = m->p;
    int64_t t_w = mb_now_ns(), dummy;
    mb_status s = MB_OK;
    while (!s && (m->warm < p->warmup_iters ||
                  mb_now_ns() - t_w < p->warmup_time_ns)) {
        s = mb__bench_iterate(m->b, 1, &dummy, err);
        m->warm++;
        if ((p->cancel && *p->cancel) ||
            (MB_WARMUP_DONE(p, m->warm, mb_now_ns() - t_w) &&
             mb_now_ns() - t_w >= p->warmup_time_ns))
            break;
    }
    m->warmup_ns = mb_now_ns() - t_w;
    return s;
}

/* The sample and scratch buffers.  With --leak-check they are sized and
 * touched up front (up to 2^21 samples, 16 MiB), so that their own growth
 * does not show up as a leak in the RSS slope. */
static mb_status alloc_samples(meas *m, mb_err *err)
{
    const mb_plan *p = m->p;
    m->cap = 1024;
    if (p->leak_check) {
        int64_t want = p->fixed_iters > 0 ? p->fixed_iters : p->max_iters;
        m->cap = want > (1 << 21) ? (size_t)1 << 21 : (size_t)want + 16;
    }
    m->samples = mb__calloc(m->cap, sizeof *m->samples);
    /* Allocating and freeing n doubles per check would grow the heap with
     * n. */
    m->scap = m->cap;
    m->scratch = mb__calloc(m->scap, sizeof *m->scratch);
    if (m->samples && m->scratch && p->leak_check) {
        memset(m->samples, 1, m->cap * sizeof *m->samples);
        memset(m->scratch, 1, m->scap * sizeof *m->scratch);
    }
    if (!m->samples || !m->scratch)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    return MB_OK;
}

/* --leak-check: an RSS point every 10 ms. */
static void sample_rss(meas *m, int64_t now)
{
    if (!m->p->leak_check || now - m->last_rss_t <= 10000000)
        return;
    m->last_rss_t = now;
    size_t cap_y = m->rss_cap;
    if (mb__grow((void **)&m->rss_x, &m->rss_cap, m->rss_n + 1,
                 sizeof *m->rss_x) &&
        mb__grow((void **)&m->rss_y, &cap_y, m->rss_cap, sizeof *m->rss_y)) {
        m->rss_x[m->rss_n] = (double)m->n;
        m->rss_y[m->rss_n++] = (double)mb__rss_bytes();
    }
}

/* "target_ci" when the median's CI is narrow enough (and the minimums are
 * met).  The CI is recomputed at geometrically spaced counts (cost
 * O(n log n) each, so O(n log n) overall), outside timing. */
static const char *ci_rule(meas *m, int64_t elapsed)
{
    const mb_plan *p = m->p;
    const char *rule = NULL;
    size_t n = m->n;
    if (n > m->scap &&
        mb__grow((void **)&m->scratch, &m->scap, n, sizeof *m->scratch) == 0)
        m->scap = 0; /* keeps the old buffer; skip this check */
    if (n <= m->scap) {
        for (size_t i = 0; i < n; i++)
            m->scratch[i] = (double)m->samples[i];
        m->ci_rel = mb__median_ci_rel_inplace(m->scratch, n);
        if (m->ci_rel <= p->target_ci && (int64_t)n >= p->min_iters &&
            elapsed >= p->min_time_ns)
            rule = "target_ci";
    }
    m->next_check = n + n / 8 + 16;
    return rule;
}

/* Why the measurement stops now, or NULL to go on. */
static const char *stop_rule(meas *m, int64_t elapsed)
{
    const mb_plan *p = m->p;
    if (p->cancel && *p->cancel)
        return "interrupted";
    if (p->fixed_iters > 0)
        return (int64_t)m->n >= p->fixed_iters ? "fixed_iterations" : NULL;
    if ((int64_t)m->n >= p->max_iters)
        return "max_iterations";
    if (elapsed >= p->max_time_ns)
        return "max_time";
    return m->n >= m->next_check ? ci_rule(m, elapsed) : NULL;
}

/* Iterates in chunks until a stop rule holds (m->rule). */
static mb_status sample_loop(meas *m, mb_err *err)
{
    const mb_plan *p = m->p;
    int64_t limit = p->fixed_iters > 0 ? p->fixed_iters : p->max_iters;
    m->next_check = 32;
    m->ci_rel = INFINITY;
    int64_t t0 = mb_now_ns();
    mb_status s = MB_OK;
    while (!m->rule) {
        if (m->n == m->cap && !mb__grow((void **)&m->samples, &m->cap,
                                        m->cap * 2, sizeof *m->samples)) {
            s = mb__fail(err, MB_ENOMEM, "out of memory for samples");
            break;
        }
        /* Run in small chunks so the stop checks stay off the hot path. */
        int64_t chunk = 16;
        if ((int64_t)m->n + chunk > limit)
            chunk = limit - (int64_t)m->n;
        if ((size_t)chunk > m->cap - m->n)
            chunk = (int64_t)(m->cap - m->n);
        s = mb__bench_iterate(m->b, chunk, m->samples + m->n, err);
        if (s)
            break;
        m->n += (size_t)chunk;
        int64_t now = mb_now_ns(), elapsed = now - t0;
        sample_rss(m, now);
        m->rule = stop_rule(m, elapsed);
        if (p->progress)
            p->progress(p->progress_user, m->b->batch, (int64_t)m->n, elapsed,
                        m->ci_rel);
    }
    m->measure_ns = mb_now_ns() - t0;
    return s;
}

/* The phases, stop rule, latency, replication and throughput into
 * run. */
static void record_latency(meas *m, json_t *run)
{
    const mb_plan *p = m->p;
    json_t *ph = json_object_get(run, "phases");
    json_object_set_new(ph, "warmup_ns", json_integer(m->warmup_ns));
    json_object_set_new(ph, "warmup_iters", json_integer(m->warm));
    json_object_set_new(ph, "measure_ns", json_integer(m->measure_ns));
    json_object_set_new(run, "iterations", json_integer((json_int_t)m->n));
    json_object_set_new(run, "stop_rule", json_string(m->rule));
    if (strcmp(m->rule, "interrupted") == 0)
        json_object_set_new(run, "status", json_string("interrupted"));
    json_t *lat =
        mb__latency_json(m->samples, m->n, p->percentiles, p->n_percentiles);
    json_t *rep = mb__replication_json(m->samples, &m->n, 1);
    mb__latency_apply_replication(lat, rep);
    json_object_set_new(run, "latency", lat);
    json_object_set_new(run, "replication", rep);
    double secs = (double)m->measure_ns / 1e9, n = (double)m->n;
    json_object_set_new(
        run, "throughput",
        json_pack("{s:f,s:f}", "inferences_per_s", secs > 0 ? n / secs : 0.0,
                  "samples_per_s",
                  secs > 0 ? n * (double)m->b->batch / secs : 0.0));
}

/* The RSS peak and start and, with --leak-check, the leak judgement into
 * run's "memory". */
static void record_memory(const meas *m, json_t *run)
{
    json_t *mem = json_object_get(run, "memory");
    int64_t peak = mb__rss_peak_bytes();
    json_object_set_new(mem, "rss_peak_bytes", json_integer(peak));
    json_object_set_new(mem, "rss_start_bytes", json_integer(m->rss_start));
    json_object_set_new(
        mem, "peak_method",
        json_string(m->peak_reset ? "clear_refs" : "process_lifetime"));
    if (!m->p->leak_check)
        return;
    size_t rss_n = m->rss_n;
    double slope = rss_n >= 3 ? mb__slope(m->rss_x, m->rss_y, rss_n) : 0;
    double growth = rss_n >= 2 ? m->rss_y[rss_n - 1] - m->rss_y[0] : 0;
    /* Suspected when RSS keeps growing: > 1 KiB per 1000 iterations and
     * more than 1 MiB in total over the measurement. */
    int suspected = rss_n >= 3 && slope * 1000 > 1024 && growth > 1048576;
    json_object_set_new(mem, "leak",
                        json_pack("{s:f,s:f,s:I,s:b}", "slope_bytes_per_iter",
                                  slope, "growth_bytes", growth, "rss_points",
                                  (json_int_t)rss_n, "suspected", suspected));
}

/* Warms up, measures until a stop rule holds and records the run's
 * latency, throughput and memory into run. */
static mb_status measure(mb_bench *b, const mb_plan *p, json_t *run,
                         mb_err *err)
{
    meas m = {.b = b, .p = p};
    mb_status s = warm_up(&m, err);
    if (s)
        return s;
    m.peak_reset = mb__rss_peak_reset();
    m.rss_start = mb__rss_bytes();
    s = alloc_samples(&m, err);
    if (!s)
        s = sample_loop(&m, err);
    free(m.scratch);
    m.scratch = NULL;
    if (!s) {
        record_latency(&m, run);
        record_memory(&m, run); /* the peak before samples_ns is built */
    }
    if (!s && p->save_samples) {
        json_t *a = json_array();
        for (size_t i = 0; i < m.n; i++)
            json_array_append_new(a, json_integer(m.samples[i]));
        json_object_set_new(run, "samples_ns", a);
    }
    free(m.samples);
    free(m.rss_x);
    free(m.rss_y);
    return s;
}

const char *mb__plan_backend(const mb_plan *p)
{
    return p->backend ? p->backend : mb_backend_for_model(p->model_path);
}

static void add_model_fact(void *user, const char *key, const char *value)
{
    json_t *m = user;
    if (!strcmp(key, "format")) {
        json_object_set_new(m, "format", json_string(value));
    } else if (!strcmp(key, "params") || !strcmp(key, "param_bytes")) {
        json_object_set_new(m, key, json_integer(strtoll(value, NULL, 10)));
    } else if (!strncmp(key, "params_by_dtype:", 16)) {
        json_t *by = json_object_get(m, "params_by_dtype");
        if (!json_is_object(by)) {
            by = json_object();
            json_object_set_new(m, "params_by_dtype", by);
        }
        long long count = 0, bytes = 0;
        if (sscanf(value, "%lld %lld", &count, &bytes) == 2)
            json_object_set_new(by, key + 16,
                                json_pack("{s:I,s:I}", "count",
                                          (json_int_t)count, "bytes",
                                          (json_int_t)bytes));
    }
}

/* Parameter counts of a model the ONNX reader cannot see (a plugin's
 * format), from the backend's model_info; once per model object. */
static void add_model_facts(mb_bench *b, json_t *model)
{
    if (!model || !json_is_null(json_object_get(model, "params")) ||
        !MB_BACKEND_HAS(b->be, model_info) || !b->session)
        return;
    b->be->model_info(b->session, add_model_fact, model);
}

/* A backend's facts about its session that belong to the run, not the
 * model: "phase:NAME" (integer ns) joins the run's phases, "session:NAME"
 * the runtime's "session" object (settings the runtime chose). */
static void add_session_fact(void *user, const char *key, const char *value)
{
    json_t *run = user;
    if (!strncmp(key, "phase:", 6) && key[6]) {
        char *end;
        long long v = strtoll(value, &end, 10);
        if (*value && !*end)
            json_object_set_new(json_object_get(run, "phases"), key + 6,
                                json_integer(v));
    } else if (!strncmp(key, "session:", 8) && key[8]) {
        json_t *rt = json_object_get(run, "runtime");
        json_t *ss = json_object_get(rt, "session");
        if (!ss && json_is_object(rt)) {
            ss = json_object();
            json_object_set_new(rt, "session", ss);
        }
        json_object_set_new(ss, key + 8, json_string(value));
    }
}

json_t *mb__bench_run_skeleton(const mb_plan *p, mb_bench *b, int64_t batch,
                               json_t *model, int64_t rss_before,
                               int64_t rss_after)
{
    json_t *run = json_object();
    const char *name =
        p->variant ? p->variant
                   : mb__basename(p->model_path ? p->model_path : "model");
    json_object_set_new(run, "status", json_string("ok"));
    json_object_set_new(run, "variant", json_string(name));
    json_object_set(run, "model", model);
    json_object_set_new(run, "backend", json_string(mb__plan_backend(p)));
    add_model_facts(b, model);
    json_object_set_new(run, "runtime", mb__bench_runtime_json(b));
    const char *dev = device_of(p);
    json_object_set_new(run, "device", json_string(dev));
    json_object_set_new(run, "device_type",
                        json_string(strcmp(dev, "cpu") == 0 ? "cpu" : dev));
    json_object_set_new(run, "config", config_json(p, b));
    json_object_set_new(run, "batch_size", json_integer(batch));
    json_t *io = mb__bench_io_json(b);
    json_object_set(run, "inputs", json_object_get(io, "inputs"));
    json_object_set(run, "outputs", json_object_get(io, "outputs"));
    json_decref(io);
    const mb_phases *ph = mb__bench_phases(b);
    json_object_set_new(
        run, "phases",
        json_pack("{s:I,s:I,s:I,s:o}", "library_load_ns",
                  (json_int_t)ph->library_load_ns, "session_create_ns",
                  (json_int_t)ph->session_create_ns, "first_inference_ns",
                  (json_int_t)ph->first_inference_ns, "compile_ns",
                  ph->compile_ns >= 0 ? json_integer(ph->compile_ns)
                                      : json_null()));
    json_object_set_new(
        run, "memory",
        json_pack("{s:I,s:I}", "rss_before_load_bytes", (json_int_t)rss_before,
                  "rss_after_session_bytes", (json_int_t)rss_after));
    if (MB_BACKEND_HAS(b->be, model_info) && b->session)
        b->be->model_info(b->session, add_session_fact, run);
    return run;
}

static void add_input_warning(const mb_plan *plan, json_t *doc)
{
    json_t *warn = json_object_get(doc, "warnings");
    mb_err e = {0};
    const mb_backend *be = mb_backend_find(mb__plan_backend(plan), &e);
    if (!plan->data_path && !(mb__backend_caps(be) & MB_BACKEND_CAP_SIMULATED))
        json_array_append_new(
            warn, json_string("inputs are random (synthetic, seeded): "
                              "latency is representative, but no accuracy "
                              "conclusion can be drawn; use --data for real "
                              "inputs"));
}

static void repl_progress(void *user, size_t round, size_t rounds,
                          int64_t elapsed_ns)
{
    const mb_plan *p = user;
    if (p->progress_rounds)
        p->progress_rounds(p->progress_user, round, rounds, elapsed_ns);
}

/* `run` over K processes: every batch size is an arm of mb__replicate. */
static mb_status run_replicated(const mb_plan *plan, int k, json_t **doc_out,
                                mb_err *err)
{
    int64_t one = 1;
    const int64_t *batches = plan->n_batches ? plan->batches : &one;
    size_t nb = plan->n_batches ? plan->n_batches : 1;
    mb__arm *arms = mb__calloc(nb, sizeof *arms);
    if (!arms)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < nb; i++) {
        arms[i].plan = plan;
        arms[i].batch = batches[i];
    }
    int used = k;
    mb__repl_opts o =
        mb__repl_opts_for(k, plan->processes, &used, plan->cancel);
    o.progress = repl_progress;
    o.progress_user = (void *)plan;
    int64_t start_ns = 0;
    o.round_start_ns = &start_ns;
    mb_status s = mb__replicate(arms, nb, &o, err);
    size_t failed = 0;
    for (size_t i = 0; i < nb; i++)
        failed += arms[i].error != NULL && arms[i].n == 0;
    if (!s && failed == nb) { /* nothing ran: the first error is the answer */
        s = mb__fail(err, arms[0].error_code, "%s", arms[0].error);
    }
    if (s) {
        for (size_t i = 0; i < nb; i++)
            mb__arm_clear(&arms[i]);
        free(arms);
        return s;
    }
    int cancelled = plan->cancel && *plan->cancel;
    json_t *doc = mb__doc_new("run", NULL);
    json_t *runs = json_object_get(doc, "runs");
    for (size_t i = 0; i < nb; i++) {
        mb__arm *a = &arms[i];
        json_t *run;
        if (a->error || !a->run) {
            run = json_pack("{s:s,s:s,s:s,s:I}", "status", "failed", "variant",
                            plan->variant ? plan->variant
                                          : mb__basename(plan->model_path
                                                             ? plan->model_path
                                                             : "model"),
                            "error", a->error ? a->error : "interrupted",
                            "batch_size", (json_int_t)a->batch);
        } else {
            run = mb__arm_run_json(a,
                                   cancelled               ? "interrupted"
                                   : plan->fixed_iters > 0 ? "fixed_iterations"
                                                           : "fixed_budget",
                                   plan->save_samples);
            if (cancelled)
                json_object_set_new(run, "status", json_string("interrupted"));
            /* each batch size ran in processes of its own, each with
             * its own cold run: first_inference_ns is theirs */
        }
        json_array_append_new(runs, run);
        mb__warn_load_changed(doc, a[0].rounds, a[0].n_rounds);
        mb__arm_clear(&a[0]);
    }
    free(arms);
    if (cancelled)
        json_object_set_new(doc, "interrupted", json_true());
    add_input_warning(plan, doc);
    mb__warn_processes_lowered(doc, k, used, start_ns);
    *doc_out = doc;
    return MB_OK;
}

void mb__warn_processes_lowered(json_t *doc, int asked, int used,
                                int64_t start_ns)
{
    if (used >= asked)
        return;
    char w[400];
    double budget = used < MB_MIN_AUTO_PROCESSES
                        ? (double)MB_SLOW_START_BUDGET_NS / 1e9
                        : (double)MB_START_BUDGET_NS / 1e9;
    snprintf(w, sizeof w,
             "measured in %d processes, not the default %d: starting one "
             "round of processes (runtime load or Python import, session "
             "or model build, compile, warmup) took %.1f s, so %d would "
             "spend over %.0f s on it; the CIs are wider for it; set "
             "--processes to choose",
             used, asked, (double)start_ns / 1e9,
             used < MB_MIN_AUTO_PROCESSES ? MB_MIN_AUTO_PROCESSES : asked,
             budget);
    json_array_append_new(json_object_get(doc, "warnings"), json_string(w));
}

int mb__plan_processes(const mb_plan *plan)
{
    if (plan->leak_check)
        return 1; /* a leak shows in one long process */
    int k = plan->processes > 0 ? plan->processes : MB_DEFAULT_PROCESSES;
    /* Every process measures at least one iteration. */
    if (plan->fixed_iters > 0 && plan->fixed_iters < k)
        k = (int)plan->fixed_iters;
    return k;
}

mb_status mb__run_plan(const mb_plan *plan, json_t **doc_out, mb_err *err)
{
    *doc_out = NULL;
    int k = mb__plan_processes(plan);
    if (k > 1)
        return run_replicated(plan, k, doc_out, err);
    int64_t one = 1;
    const int64_t *batches = plan->n_batches ? plan->batches : &one;
    size_t nb = plan->n_batches ? plan->n_batches : 1;
    int64_t rss_before = mb__rss_bytes();
    mb_bench *b = NULL;
    mb_status s = mb__bench_open(plan, batches[0], &b, err);
    if (s)
        return s;
    int64_t rss_after = mb__rss_bytes();
    json_t *doc = mb__doc_new("run", NULL);
    json_t *runs = json_object_get(doc, "runs");
    json_t *model = mb__model_json(plan);
    for (size_t i = 0; i < nb; i++) {
        mb_err e = {0};
        json_t *run = NULL;
        s = i == 0 ? MB_OK : mb__bench_set_batch(b, batches[i], &e);
        if (!s && i > 0) {
            int64_t t0 = mb_now_ns(), dummy;
            s = mb__bench_iterate(b, 1, &dummy, &e);
            (void)t0;
        }
        run = mb__bench_run_skeleton(plan, b, batches[i], model, rss_before,
                                     rss_after);
        if (i > 0) /* the cold run belongs to the first batch size only */
            json_object_set_new(json_object_get(run, "phases"),
                                "first_inference_ns", json_null());
        if (!s)
            s = measure(b, plan, run, &e);
        if (s) {
            json_object_set_new(run, "status", json_string("failed"));
            json_object_set_new(run, "error", json_string(e.msg));
        }
        json_array_append_new(runs, run);
        if (plan->cancel && *plan->cancel) {
            json_object_set_new(doc, "interrupted", json_true());
            break;
        }
    }
    add_input_warning(plan, doc);
    json_decref(model);
    mb__bench_close(b);
    *doc_out = doc;
    return MB_OK;
}
