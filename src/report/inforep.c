/* inforep.c - the console description of an ONNX model, written over
 * the info document of mb__onnx_inspect (inforep.h). */
#include "report/inforep.h"

#include "report/console.h"
#include "report/rutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *jget_str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_int_t jget_int(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* One line per dtype of the parameters: count and bytes. */
static void params_by_dtype(mb__buf *b, const json_t *o)
{
    char x[64], y[64];
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)json_object_get(o, "params_by_dtype"), key, e)
        mb__buf_printf(
            b, "  %-10s %16s params %12s\n", key,
            mb__fmt_grouped((uint64_t)jget_int(e, "count"), x, sizeof x),
            mb__fmt_bytes((double)jget_int(e, "bytes"), y, sizeof y));
}

static void print_values(mb__buf *b, const char *title, const json_t *arr)
{
    size_t i, width = 4;
    json_t *v;
    mb__buf_printf(b, "%s (%zu)\n", title, json_array_size(arr));
    json_array_foreach(arr, i, v)
    {
        size_t w = strlen(jget_str(v, "name"));
        if (w > width)
            width = w;
    }
    if (width > 40)
        width = 40;
    json_array_foreach(arr, i, v)
    {
        char nm[256];
        mb__buf_printf(b, "  %-*s  %-9s ", (int)width,
                       mb__console_safe(jget_str(v, "name"), nm, sizeof nm),
                       jget_str(v, "dtype"));
        const json_t *shape = json_object_get(v, "shape");
        if (!json_is_array(shape)) {
            mb__buf_puts(b, "shape unknown\n");
            continue;
        }
        mb__buf_putc(b, '[');
        size_t j;
        json_t *d;
        json_array_foreach(shape, j, d)
        {
            if (j)
                mb__buf_puts(b, ", ");
            if (json_is_integer(d))
                mb__buf_printf(b, "%" JSON_INTEGER_FORMAT,
                               json_integer_value(d));
            else if (json_is_string(d))
                mb__buf_puts(b, json_string_value(d));
            else
                mb__buf_putc(b, '?');
        }
        mb__buf_puts(b, "]\n");
    }
}

struct op_count {
    const char *op;
    json_int_t n;
};

static int by_count(const void *a, const void *b)
{
    const struct op_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->op, y->op);
}

static void print_ops(mb__buf *b, const char *title, const json_t *ops)
{
    size_t n = json_object_size(ops), k = 0;
    if (n == 0)
        return;
    struct op_count *v = calloc(n, sizeof *v);
    if (!v)
        return;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)ops, key, val)
    {
        v[k].op = key;
        v[k++].n = json_integer_value(val);
    }
    qsort(v, k, sizeof *v, by_count);
    mb__buf_puts(b, title);
    for (size_t i = 0; i < k && i < 12; i++) {
        mb__buf_puts(b, i ? ", " : "");
        mb__console_put(b, v[i].op);
        mb__buf_printf(b, " %" JSON_INTEGER_FORMAT, v[i].n);
    }
    if (k > 12)
        mb__buf_printf(b, ", ... (%zu kinds)", k);
    mb__buf_putc(b, '\n');
    free(v);
}

/* " a, b, c" */
static void names(mb__buf *b, const json_t *arr)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        mb__buf_puts(b, i ? ", " : " ");
        mb__console_put(b, json_string_value(v));
    }
}

/* The model path and its file size (with external data). */
static void file_line(mb__buf *b, const json_t *o)
{
    char x[64], y[64];
    uint64_t fb = (uint64_t)jget_int(o, "file_bytes");
    mb__buf_puts(b, "model     ");
    mb__console_put(b, jget_str(o, "path"));
    mb__buf_putc(b, '\n');
    mb__buf_printf(b, "file      %s (%s bytes)",
                   mb__fmt_bytes((double)fb, x, sizeof x),
                   mb__fmt_grouped(fb, y, sizeof y));
    uint64_t tb = (uint64_t)jget_int(o, "total_bytes");
    if (tb > fb)
        mb__buf_printf(b, "; %s (%s bytes) with its external data",
                       mb__fmt_bytes((double)tb, x, sizeof x),
                       mb__fmt_grouped(tb, y, sizeof y));
    mb__buf_putc(b, '\n');
}

/* The format: IR version, producer, domain, model version. */
static void format_line(mb__buf *b, const json_t *o)
{
    const json_t *ir = json_object_get(o, "ir_version");
    mb__buf_printf(b, "format    ONNX, IR version ");
    if (json_is_integer(ir))
        mb__buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(ir));
    else
        mb__buf_puts(b, "unknown");
    if (*jget_str(o, "producer_name") || *jget_str(o, "producer_version"))
        mb__buf_printf(b, ", produced by %s %s", jget_str(o, "producer_name"),
                       jget_str(o, "producer_version"));
    if (*jget_str(o, "domain"))
        mb__buf_printf(b, ", domain %s", jget_str(o, "domain"));
    if (jget_int(o, "model_version"))
        mb__buf_printf(b, ", model version %" JSON_INTEGER_FORMAT,
                       jget_int(o, "model_version"));
    mb__buf_putc(b, '\n');
}

/* The opsets, one per domain. */
static void opsets_line(mb__buf *b, const json_t *o)
{
    size_t i;
    json_t *v;
    mb__buf_puts(b, "opsets    ");
    const json_t *opsets = json_object_get(o, "opsets");
    json_array_foreach(opsets, i, v)
    {
        const char *d = jget_str(v, "domain");
        mb__buf_puts(b, i ? ", " : "");
        mb__console_put(b, *d ? d : "ai.onnx");
        mb__buf_printf(b, " %" JSON_INTEGER_FORMAT, jget_int(v, "version"));
    }
    mb__buf_puts(b, json_array_size(opsets) ? "\n" : "none\n");
}

/* The graph: name, nodes and subgraphs. */
static void graph_line(mb__buf *b, const json_t *o)
{
    char gn[256];
    mb__buf_printf(
        b, "graph     %s: %" JSON_INTEGER_FORMAT " nodes",
        *jget_str(o, "graph_name")
            ? mb__console_safe(jget_str(o, "graph_name"), gn, sizeof gn)
            : "(unnamed)",
        jget_int(o, "nodes"));
    if (jget_int(o, "subgraphs"))
        mb__buf_printf(b,
                       ", %" JSON_INTEGER_FORMAT
                       " subgraphs with %" JSON_INTEGER_FORMAT " more nodes",
                       jget_int(o, "subgraphs"), jget_int(o, "subgraph_nodes"));
    mb__buf_putc(b, '\n');
}

/* The parameters: count, bytes, initializers and constants. */
static void params_line(mb__buf *b, const json_t *o)
{
    char x[64], y[64], z[64];
    uint64_t p = (uint64_t)jget_int(o, "params");
    uint64_t pb = (uint64_t)jget_int(o, "param_bytes");
    char hc[80] = "";
    if (p >= 1000) {
        mb__fmt_count((double)p, z, sizeof z);
        snprintf(hc, sizeof hc, " (%s)", z);
    }
    const json_t *k = json_object_get(o, "constants");
    uint64_t cv = (uint64_t)jget_int(k, "values");
    if (!jget_int(k, "tensors"))
        mb__buf_printf(b,
                       "parameters %s%s in %" JSON_INTEGER_FORMAT
                       " initializers, %s (%s bytes)\n",
                       mb__fmt_grouped(p, x, sizeof x), hc,
                       jget_int(o, "initializers"),
                       mb__fmt_bytes((double)pb, y, sizeof y),
                       mb__fmt_grouped(pb, x + 32, 32));
    else /* weights in Constant nodes count, and the split is shown */
        mb__buf_printf(
            b,
            "parameters %s%s, %s (%s bytes): %s in %" JSON_INTEGER_FORMAT
            " initializers, %s in %" JSON_INTEGER_FORMAT
            " constants (tensors in node attributes: Constant "
            "values)\n",
            mb__fmt_grouped(p, x, sizeof x), hc,
            mb__fmt_bytes((double)pb, y, sizeof y),
            mb__fmt_grouped(pb, x + 32, 32),
            mb__fmt_grouped(p >= cv ? p - cv : 0, z, sizeof z),
            jget_int(o, "initializers"), mb__fmt_grouped(cv, y + 32, 32),
            jget_int(k, "tensors"));
    const json_t *imp = json_object_get(o, "impossible_tensors");
    if (jget_int(imp, "count") > 0) {
        const json_t *f = json_object_get(imp, "first");
        mb__buf_printf(b,
                       "IMPOSSIBLE %" JSON_INTEGER_FORMAT
                       " tensor(s) whose data cannot hold what their dims "
                       "declare, not counted as parameters (first: ",
                       jget_int(imp, "count"));
        mb__console_put(b, jget_str(f, "name"));
        mb__buf_printf(b,
                       ", %" JSON_INTEGER_FORMAT
                       " elements declared, %" JSON_INTEGER_FORMAT
                       " bytes of data); ONNX Runtime will not load it\n",
                       jget_int(f, "declared_elements"),
                       jget_int(f, "data_bytes"));
    }
}

/* External data: the files, the missing and the refused ones. */
static void external_lines(mb__buf *b, const json_t *o)
{
    char x[64];
    const json_t *ext = json_object_get(o, "external_data");
    const json_t *files = json_object_get(ext, "files");
    if (json_array_size(files)) {
        mb__buf_printf(b, "external  %s in",
                       mb__fmt_bytes((double)(uint64_t)jget_int(ext, "bytes"),
                                     x, sizeof x));
        names(b, files);
        mb__buf_putc(b, '\n');
        const json_t *missing = json_object_get(ext, "missing");
        if (json_array_size(missing)) {
            mb__buf_puts(b, "          MISSING:");
            names(b, missing);
            mb__buf_puts(b, " (put them beside the model)\n");
        }
    }
    const json_t *refused = json_object_get(ext, "refused");
    if (json_array_size(refused)) {
        mb__buf_puts(b, "external  REFUSED (not read, not counted; ONNX "
                        "Runtime will not load this model):");
        size_t j;
        const json_t *r;
        json_array_foreach(refused, j, r)
        {
            mb__buf_puts(b, j ? "; " : " ");
            mb__console_put(b, jget_str(r, "location"));
            mb__buf_printf(b, ": %s", jget_str(r, "reason"));
        }
        mb__buf_putc(b, '\n');
    }
}

/* The metadata properties, key=value. */
static void metadata_line(mb__buf *b, const json_t *o)
{
    json_t *v;
    const json_t *meta = json_object_get(o, "metadata_props");
    if (json_object_size(meta)) {
        mb__buf_puts(b, "metadata ");
        int first = 1;
        const char *key;
        json_object_foreach((json_t *)meta, key, v)
        {
            mb__buf_puts(b, first ? " " : ", ");
            mb__console_put(b, key);
            mb__buf_putc(b, '=');
            mb__console_put(b, json_string_value(v));
            first = 0;
        }
        mb__buf_putc(b, '\n');
    }
}

void mb__info_console(mb__buf *b, const json_t *o)
{
    file_line(b, o);
    format_line(b, o);
    opsets_line(b, o);
    graph_line(b, o);
    print_ops(b, "op types  ", json_object_get(o, "op_types"));
    print_ops(b,
              "  in subgraphs (If/Loop/Scan bodies, not in the counts "
              "above): ",
              json_object_get(o, "subgraph_op_types"));
    print_values(b, "inputs", json_object_get(o, "inputs"));
    print_values(b, "outputs", json_object_get(o, "outputs"));
    params_line(b, o);
    params_by_dtype(b, o);
    external_lines(b, o);
    metadata_line(b, o);
}

/* A model described by its backend plugin (TorchScript): what the plugin
 * reported, in the layout of the ONNX report. */
void mb__info_backend_console(mb__buf *b, const json_t *o)
{
    char x[64], y[64], z[64];
    const json_t *rt = json_object_get(o, "runtime");
    const json_t *facts = json_object_get(o, "facts");
    uint64_t fb = (uint64_t)jget_int(o, "file_bytes");
    mb__buf_printf(b, "model     %s\n", jget_str(o, "path"));
    mb__buf_printf(b, "file      %s (%s bytes)\n",
                   mb__fmt_bytes((double)fb, x, sizeof x),
                   mb__fmt_grouped(fb, y, sizeof y));
    mb__buf_printf(b, "format    %s, read by %s %s (backend %s)\n",
                   *jget_str(o, "format") ? jget_str(o, "format") : "unknown",
                   jget_str(rt, "name"), jget_str(rt, "version"),
                   jget_str(o, "backend"));
    if (*jget_str(facts, "class"))
        mb__buf_printf(b, "module    %s, %s submodules, methods %s\n",
                       jget_str(facts, "class"), jget_str(facts, "submodules"),
                       jget_str(facts, "methods"));
    if (json_is_integer(json_object_get(o, "nodes")))
        mb__buf_printf(b,
                       "graph     forward: %" JSON_INTEGER_FORMAT
                       " operators (submodules inlined)\n",
                       jget_int(o, "nodes"));
    print_ops(b, "op types  ", json_object_get(o, "op_types"));
    print_values(b, "inputs", json_object_get(o, "inputs"));
    if (*jget_str(facts, "inputs_from"))
        mb__buf_printf(b, "  (from %s)\n", jget_str(facts, "inputs_from"));
    print_values(b, "outputs", json_object_get(o, "outputs"));
    mb__buf_puts(b,
                 "  (shapes are known after a run: see mbench run --json)\n");
    uint64_t p = (uint64_t)jget_int(o, "params");
    uint64_t pb = (uint64_t)jget_int(o, "param_bytes");
    mb__buf_printf(b, "parameters %s", mb__fmt_grouped(p, x, sizeof x));
    if (p >= 1000)
        mb__buf_printf(b, " (%s)", (mb__fmt_count((double)p, z, sizeof z), z));
    mb__buf_printf(b, ", %s (%s bytes)", mb__fmt_bytes((double)pb, x, sizeof x),
                   mb__fmt_grouped(pb, y, sizeof y));
    if (atoll(jget_str(facts, "buffer_values")) > 0)
        mb__buf_printf(b,
                       "; buffers %s values (BatchNorm statistics and the "
                       "like)",
                       jget_str(facts, "buffer_values"));
    mb__buf_putc(b, '\n');
    params_by_dtype(b, o);
    mb__buf_printf(b, "runtime   %s %s", jget_str(rt, "name"),
                   jget_str(rt, "version"));
    /* the facts this runtime gives (LibTorch: threads and executor) */
    if (*jget_str(rt, "threads"))
        mb__buf_printf(b, ", %s intra-op / %s inter-op threads",
                       jget_str(rt, "threads"), jget_str(rt, "inter_threads"));
    if (*jget_str(rt, "executor"))
        mb__buf_printf(b, ", executor %s", jget_str(rt, "executor"));
    if (*jget_str(facts, "device"))
        mb__buf_printf(b, ", device %s", jget_str(facts, "device"));
    mb__buf_putc(b, '\n');
}

void mb__info_json(mb__buf *b, const json_t *info)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("mbench.info/1"));
    json_object_update(doc, (json_t *)info);
    char *text = json_dumps(doc, JSON_INDENT(2));
    json_decref(doc);
    if (!text) {
        b->oom = 1;
        return;
    }
    mb__buf_puts(b, text);
    mb__buf_putc(b, '\n');
    free(text);
}
