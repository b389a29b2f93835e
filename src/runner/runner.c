/* runner.c - the model session: a stepwise bench (open, inputs, iterate,
 * outputs, close) and the facts its backend tells about the model and the
 * session.  The result document is built in rundoc.c, the `mbench run`
 * flow in run.c. */
#include "runner/runner.h"

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

struct mb__bench {
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
    mb__dataset *data;
    mb__phases phases;
    json_t *runtime;
    const mb__plan *plan;
    mb__plan own_plan; /* plan with a bare --shape named (has_own) */
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

static void free_inputs(mb__bench *b)
{
    for (size_t i = 0; b->inputs && i < b->n_in; i++)
        mb_tensor_clear(&b->inputs[i]);
}

/* A first inference that fails on synthetic integer inputs is often an
 * embedding lookup out of range: name the inputs and the fix. */
static void hint_integer_inputs(const mb__bench *b, mb_err *err)
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
static mb_status check_dim_names(const mb__bench *b, const mb__plan *plan,
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
    mb__bench *b = user;
    if (strcmp(key, "compile_ns") == 0)
        b->phases.compile_ns = strtoll(value, NULL, 10);
    else
        add_fact(b->runtime, key, value);
}

static void take_session_facts(mb__bench *b)
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
static void free_named_sizes(const mb__bench *b, mb_io_desc *d)
{
    if (mb__backend_caps(b->be) & MB_BACKEND_CAP_DIM_OVERRIDE)
        return;
    for (size_t k = 0; k < b->plan->n_shapes; k++) {
        const mb__shape_override *o = &b->plan->shapes[k];
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
static mb_status effective_inputs(mb__bench *b, const mb_io_desc *in, size_t n,
                                  mb_err *err)
{
    const mb__plan *p = b->plan;
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
            const mb__shape_override *o = &p->shapes[k];
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
static mb_status make_inputs(mb__bench *b, int64_t batch, mb_err *err)
{
    free_inputs(b);
    mb_status s = MB_OK;
    if (b->data) {
        s = mb__dataset_batch(b->data, 0, batch, b->inputs, err);
    } else {
        mb__rng rng;
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
static mb_status load_backend(mb__bench *b, mb_err *err)
{
    const mb__plan *plan = b->plan;
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
static mb_status open_session(mb__bench *b, mb_err *err)
{
    const mb__plan *plan = b->plan;
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
static mb_status name_bare_shape(mb__bench *b, const mb_io_desc *in, size_t n,
                                 mb_err *err)
{
    const mb__plan *p = b->plan;
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
    mb__plan *q = &b->own_plan;
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
static mb_status prepare_inputs(mb__bench *b, int64_t batch, mb_err *err)
{
    const mb_io_desc *model_in = NULL;
    mb_status s = b->be->describe(b->session, &model_in, &b->n_in, &b->out,
                                  &b->n_out, err);
    if (!s)
        s = name_bare_shape(b, model_in, b->n_in, err);
    const mb__plan *plan = b->plan;
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
static mb_status first_inference(mb__bench *b, mb_err *err)
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

mb_status mb__bench_open(const mb__plan *plan, int64_t batch, mb__bench **out,
                         mb_err *err)
{
    *out = NULL;
    mb__bench *b = mb__calloc(1, sizeof *b);
    if (!b)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    b->plan = plan;
    b->phases = (mb__phases){-1, -1, -1, -1};
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

mb_status mb__bench_iterate(mb__bench *b, int64_t n, int64_t *samples,
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

mb_status mb__bench_set_batch(mb__bench *b, int64_t batch, mb_err *err)
{
    mb_status s = make_inputs(b, batch, err);
    if (!s)
        take_session_facts(b);
    return s;
}

mb_status mb__bench_set_inputs(mb__bench *b, const mb_tensor *inputs, size_t n,
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

const mb_io_desc *mb__bench_describe(const mb__bench *b, int outputs, size_t *n)
{
    *n = outputs ? b->n_out : b->n_in;
    return outputs ? b->out : b->in;
}

static mb_status outputs(mb__bench *b, mb_tensor **outs, size_t *n, int lenient,
                         mb_err *err);

mb_status mb__bench_outputs(mb__bench *b, mb_tensor **outs, size_t *n,
                            mb_err *err)
{
    return outputs(b, outs, n, 0, err);
}

mb_status mb__bench_outputs_lenient(mb__bench *b, mb_tensor **outs, size_t *n,
                                    mb_err *err)
{
    return outputs(b, outs, n, 1, err);
}

static mb_status outputs(mb__bench *b, mb_tensor **outs, size_t *n, int lenient,
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

size_t mb__bench_data_samples(const mb__bench *b)
{
    return b->data ? mb__dataset_count(b->data) : 0;
}

mb_status mb__bench_bind_data(mb__bench *b, size_t first, mb_err *err)
{
    if (!b->data)
        return mb__fail(err, MB_EINVAL, "no --data set is loaded");
    free_inputs(b);
    mb_status s = mb__dataset_batch(b->data, first, b->batch, b->inputs, err);
    if (s)
        return s;
    return (mb_status)b->be->prepare(b->session, b->inputs, b->n_in, err);
}

int64_t mb__bench_batch(const mb__bench *b)
{
    return b->batch;
}

const mb_tensor *mb__bench_inputs(const mb__bench *b, size_t *n)
{
    *n = b->n_in;
    return b->inputs;
}

const mb__phases *mb__bench_phases(const mb__bench *b)
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

json_t *mb__bench_io_json(const mb__bench *b)
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

json_t *mb__bench_runtime_json(const mb__bench *b)
{
    return json_deep_copy(b->runtime);
}

void *mb__bench_session(const mb__bench *b, const mb_backend **be)
{
    *be = b->be;
    return b->session;
}

void mb__bench_close(mb__bench *b)
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
void mb__bench_model_facts(mb__bench *b, json_t *model)
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

void mb__bench_session_facts(mb__bench *b, json_t *run)
{
    if (MB_BACKEND_HAS(b->be, model_info) && b->session)
        b->be->model_info(b->session, add_session_fact, run);
}

json_t *mb__bench_runtime_now(mb__bench *b)
{
    json_t *r0 = mb__bench_runtime_json(b);
    json_t *run =
        json_pack("{s:o, s:{}}", "runtime", r0 ? r0 : json_object(), "phases");
    if (run && MB_BACKEND_HAS(b->be, model_info) && b->session)
        b->be->model_info(b->session, add_session_fact, run);
    json_t *rt = json_incref(json_object_get(run, "runtime"));
    json_decref(run);
    return rt;
}

const mb_kv *mb__bench_opts(const mb__bench *b, size_t *n)
{
    *n = b ? b->n_opts : 0;
    return b ? b->opts : NULL;
}

const char *mb__plan_backend(const mb__plan *p)
{
    return p->backend ? p->backend : mb_backend_for_model(p->model_path);
}
