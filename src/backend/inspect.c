/* inspect.c - a model described by its backend (see inspect.h). */
#include "backend/inspect.h"
#include "backend/registry.h"

#include "core/err.h"
#include "core/fileio.h"

#include <stdlib.h>
#include <string.h>

static void runtime_fact(void *user, const char *key, const char *value)
{
    json_object_set_new(user, key, json_string(value ? value : ""));
}

/* Facts into the document: counts become numbers, op:NAME an op_types
 * entry, params_by_dtype:DTYPE an object; all are kept as text in facts. */
static void model_fact(void *user, const char *key, const char *value)
{
    json_t *o = user;
    value = value ? value : "";
    json_object_set_new(json_object_get(o, "facts"), key, json_string(value));
    if (!strcmp(key, "format")) {
        json_object_set_new(o, "format", json_string(value));
    } else if (!strcmp(key, "params") || !strcmp(key, "param_bytes") ||
               !strcmp(key, "nodes")) {
        json_object_set_new(o, key, json_integer(strtoll(value, NULL, 10)));
    } else if (!strncmp(key, "op:", 3)) {
        json_object_set_new(json_object_get(o, "op_types"), key + 3,
                            json_integer(strtoll(value, NULL, 10)));
    } else if (!strncmp(key, "params_by_dtype:", 16)) {
        char *end;
        long long count = strtoll(value, &end, 10);
        long long bytes = strtoll(end, NULL, 10);
        json_object_set_new(json_object_get(o, "params_by_dtype"), key + 16,
                            json_pack("{s:I,s:I}", "count", (json_int_t)count,
                                      "bytes", (json_int_t)bytes));
    }
}

static json_t *io_json(const mb_io_desc *d, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *shape = json_null();
        if (d[i].rank >= 0) {
            shape = json_array();
            for (int k = 0; k < d[i].rank; k++) {
                const char *sym = d[i].dim_names[k];
                json_array_append_new(shape, d[i].dims[k] >= 0
                                                 ? json_integer(d[i].dims[k])
                                             : sym && *sym ? json_string(sym)
                                                           : json_null());
            }
        }
        json_array_append_new(a, json_pack("{s:s,s:s,s:o}", "name",
                                           d[i].name ? d[i].name : "", "dtype",
                                           d[i].rank < 0 && d[i].dtype == 0
                                               ? "unknown"
                                               : mb_dtype_name(d[i].dtype),
                                           "shape", shape));
    }
    return a;
}

mb_status mb__backend_inspect(const char *name, const char *path, json_t **out,
                              mb_err *err)
{
    *out = NULL;
    const mb_backend *be = mb_backend_find(name, err);
    if (!be)
        return err ? err->code : MB_EBACKEND;
    /* a file for file backends; a Python model spec is not one */
    int64_t size = mb__file_size(path);
    if (size < 0 && (mb__backend_caps(be) & MB_BACKEND_CAP_MODEL_FILE))
        return mb__fail(err, MB_EIO,
                        "model file %s does not exist; check "
                        "the path",
                        path);
    mb_backend_config cfg = {NULL, 0, NULL, NULL, 1};
    void *state = NULL, *sess = NULL;
    mb_status s = (mb_status)be->load(&cfg, &state, err);
    if (s)
        return s;
    s = (mb_status)be->open(state, path, NULL, 0, &sess, err);
    const mb_io_desc *in = NULL, *outs = NULL;
    size_t n_in = 0, n_out = 0;
    if (!s)
        s = (mb_status)be->describe(sess, &in, &n_in, &outs, &n_out, err);
    if (!s) {
        json_t *o = json_object(), *rt = json_object();
        json_object_set_new(o, "path", json_string(path));
        json_object_set_new(o, "file_bytes",
                            size >= 0 ? json_integer(size) : json_null());
        json_object_set_new(o, "total_bytes",
                            size >= 0 ? json_integer(size) : json_null());
        json_object_set_new(o, "backend", json_string(be->name));
        json_object_set_new(o, "inputs", io_json(in, n_in));
        json_object_set_new(o, "outputs", io_json(outs, n_out));
        json_object_set_new(o, "facts", json_object());
        json_object_set_new(o, "op_types", json_object());
        json_object_set_new(o, "params_by_dtype", json_object());
        if (MB_BACKEND_HAS(be, model_info))
            be->model_info(sess, model_fact, o);
        be->info(state, runtime_fact, rt);
        if (MB_BACKEND_HAS(be, session_info)) /* a Python model's framework */
            be->session_info(sess, runtime_fact, rt);
        json_object_set_new(o, "runtime", rt);
        *out = o;
    }
    if (sess)
        be->close(sess);
    be->unload(state);
    return s;
}
