/* cmd_info.c - mbench info: what an ONNX model holds (inputs, outputs,
 * opsets, parameters by element type, external data, op types), read from
 * the file without ONNX Runtime and without loading the weights. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "backend/inspect.h"
#include "model/onnx.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(info, cmd_info,
               "describe an ONNX model: inputs, outputs, opsets, parameters")
MBENCH_OPTIONS(info, mb_cmd_info)

const mb_cmd mb_cmd_info = {
    "info",
    "MODEL",
    "describe an ONNX model: inputs, outputs, opsets, parameters",
    "Describes MODEL (an ONNX file) without running it and without loading "
    "its weights: inputs and outputs (symbolic dims by name), opsets, "
    "producer, IR version, file size, parameter count and bytes by element "
    "type (subgraphs and external data included), node count and the most "
    "frequent op types.  A TorchScript model (.pt, .pth), or any MODEL with "
    "--backend NAME, is described through its backend plugin instead: "
    "inputs, outputs, parameters, operators and the runtime, as the plugin "
    "reports them (docs/FRAMEWORKS.md).",
    (const mb_opt[]){{"json", 0, MB_OPT_OUTFILE, "FILE",
                      "also write the description as JSON (schema "
                      "mbench.info/1; '-' for stdout instead of the report)",
                      NULL, NULL, 0, 0, MB_OPT_DASH, 0},
                     {"backend", 0, MB_OPT_STRING, "NAME",
                      "describe MODEL through this backend plugin (torch, or "
                      "a plugin's path)",
                      NULL, NULL, 0, 0, 0, 1}},
    2,
    0,
    1,
    1,
    "Exit codes: 0 success, 2 usage error, 3 missing, unreadable or corrupt "
    "model."};

struct info_args {
    const char *json_path, *backend;
};

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    struct info_args *a = user;
    if (o->id == 1)
        a->backend = v->str;
    else
        a->json_path = v->str;
    return 0;
}

static const char *jget_str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_int_t jget_int(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* "1,234,567" into buf. */
static const char *grouped(uint64_t v, char *buf, size_t len)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = tmp[i];
    }
    buf[k] = '\0';
    return buf;
}

/* "3.4 MiB" style (binary units) into buf. */
static const char *human_bytes(uint64_t v, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)v;
    int u = 0;
    while (x >= 1024 && u < 4)
        x /= 1024, u++;
    if (u == 0)
        snprintf(buf, len, "%" PRIu64 " B", v);
    else
        snprintf(buf, len, "%.1f %s", x, units[u]);
    return buf;
}

/* "12.3 M" style counts. */
static const char *human_count(uint64_t v, char *buf, size_t len)
{
    if (v >= 1000000000)
        snprintf(buf, len, "%.2f G", (double)v / 1e9);
    else if (v >= 1000000)
        snprintf(buf, len, "%.2f M", (double)v / 1e6);
    else if (v >= 1000)
        snprintf(buf, len, "%.1f k", (double)v / 1e3);
    else
        snprintf(buf, len, "%" PRIu64, v);
    return buf;
}

static void print_values(FILE *f, const char *title, const json_t *arr)
{
    size_t i, width = 4;
    json_t *v;
    fprintf(f, "%s (%zu)\n", title, json_array_size(arr));
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
        fprintf(f, "  %-*s  %-9s ", (int)width, jget_str(v, "name"),
                jget_str(v, "dtype"));
        const json_t *shape = json_object_get(v, "shape");
        if (!json_is_array(shape)) {
            fputs("shape unknown\n", f);
            continue;
        }
        fputc('[', f);
        size_t j;
        json_t *d;
        json_array_foreach(shape, j, d)
        {
            if (j)
                fputs(", ", f);
            if (json_is_integer(d))
                fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(d));
            else if (json_is_string(d))
                fputs(json_string_value(d), f);
            else
                fputc('?', f);
        }
        fputs("]\n", f);
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

static void print_ops(FILE *f, const char *title, const json_t *ops)
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
    fputs(title, f);
    for (size_t i = 0; i < k && i < 12; i++)
        fprintf(f, "%s%s %" JSON_INTEGER_FORMAT, i ? ", " : "", v[i].op,
                v[i].n);
    if (k > 12)
        fprintf(f, ", ... (%zu kinds)", k);
    fputc('\n', f);
    free(v);
}

static void print_report(FILE *f, const json_t *o)
{
    char a[64], b[64], c[64];
    uint64_t fb = (uint64_t)jget_int(o, "file_bytes");
    fprintf(f, "model     %s\n", jget_str(o, "path"));
    fprintf(f, "file      %s (%s bytes)", human_bytes(fb, a, sizeof a),
            grouped(fb, b, sizeof b));
    uint64_t tb = (uint64_t)jget_int(o, "total_bytes");
    if (tb > fb)
        fprintf(f, "; %s (%s bytes) with its external data",
                human_bytes(tb, a, sizeof a), grouped(tb, b, sizeof b));
    fputc('\n', f);
    const json_t *ir = json_object_get(o, "ir_version");
    fprintf(f, "format    ONNX, IR version ");
    if (json_is_integer(ir))
        fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(ir));
    else
        fputs("unknown", f);
    if (*jget_str(o, "producer_name") || *jget_str(o, "producer_version"))
        fprintf(f, ", produced by %s %s", jget_str(o, "producer_name"),
                jget_str(o, "producer_version"));
    if (*jget_str(o, "domain"))
        fprintf(f, ", domain %s", jget_str(o, "domain"));
    if (jget_int(o, "model_version"))
        fprintf(f, ", model version %" JSON_INTEGER_FORMAT,
                jget_int(o, "model_version"));
    fputc('\n', f);
    fputs("opsets    ", f);
    size_t i;
    json_t *v;
    const json_t *opsets = json_object_get(o, "opsets");
    json_array_foreach(opsets, i, v)
    {
        const char *d = jget_str(v, "domain");
        fprintf(f, "%s%s %" JSON_INTEGER_FORMAT, i ? ", " : "",
                *d ? d : "ai.onnx", jget_int(v, "version"));
    }
    fputs(json_array_size(opsets) ? "\n" : "none\n", f);
    fprintf(f, "graph     %s: %" JSON_INTEGER_FORMAT " nodes",
            *jget_str(o, "graph_name") ? jget_str(o, "graph_name")
                                       : "(unnamed)",
            jget_int(o, "nodes"));
    if (jget_int(o, "subgraphs"))
        fprintf(f,
                ", %" JSON_INTEGER_FORMAT
                " subgraphs with %" JSON_INTEGER_FORMAT " more nodes",
                jget_int(o, "subgraphs"), jget_int(o, "subgraph_nodes"));
    fputc('\n', f);
    print_ops(f, "op types  ", json_object_get(o, "op_types"));
    print_ops(f,
              "  in subgraphs (If/Loop/Scan bodies, not in the counts "
              "above): ",
              json_object_get(o, "subgraph_op_types"));
    print_values(f, "inputs", json_object_get(o, "inputs"));
    print_values(f, "outputs", json_object_get(o, "outputs"));
    uint64_t p = (uint64_t)jget_int(o, "params");
    uint64_t pb = (uint64_t)jget_int(o, "param_bytes");
    char hc[80] = "";
    if (p >= 1000)
        snprintf(hc, sizeof hc, " (%s)", human_count(p, c, sizeof c));
    fprintf(f,
            "parameters %s%s in %" JSON_INTEGER_FORMAT
            " initializers, %s (%s bytes)\n",
            grouped(p, a, sizeof a), hc, jget_int(o, "initializers"),
            human_bytes(pb, b, sizeof b), grouped(pb, a + 32, 32));
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)json_object_get(o, "params_by_dtype"), key, e)
    {
        fprintf(f, "  %-10s %16s params %12s\n", key,
                grouped((uint64_t)jget_int(e, "count"), a, sizeof a),
                human_bytes((uint64_t)jget_int(e, "bytes"), b, sizeof b));
    }
    const json_t *k = json_object_get(o, "constants");
    if (jget_int(k, "tensors"))
        fprintf(f,
                "constants %" JSON_INTEGER_FORMAT " tensors in node "
                "attributes (Constant values), %s values, %s (not counted "
                "as parameters)\n",
                jget_int(k, "tensors"),
                grouped((uint64_t)jget_int(k, "values"), a, sizeof a),
                human_bytes((uint64_t)jget_int(k, "bytes"), b, sizeof b));
    const json_t *ext = json_object_get(o, "external_data");
    const json_t *files = json_object_get(ext, "files");
    if (json_array_size(files)) {
        fprintf(f, "external  %s in",
                human_bytes((uint64_t)jget_int(ext, "bytes"), a, sizeof a));
        json_array_foreach(files, i, v)
            fprintf(f, "%s %s", i ? "," : "", json_string_value(v));
        fputc('\n', f);
        const json_t *missing = json_object_get(ext, "missing");
        if (json_array_size(missing)) {
            fputs("          MISSING:", f);
            json_array_foreach(missing, i, v)
                fprintf(f, "%s %s", i ? "," : "", json_string_value(v));
            fputs(" (put them beside the model)\n", f);
        }
    }
    const json_t *meta = json_object_get(o, "metadata_props");
    if (json_object_size(meta)) {
        fputs("metadata ", f);
        int first = 1;
        json_object_foreach((json_t *)meta, key, v)
        {
            fprintf(f, "%s %s=%s", first ? "" : ",", key, json_string_value(v));
            first = 0;
        }
        fputc('\n', f);
    }
}

/* A model described by its backend plugin (TorchScript): what the plugin
 * reported, in the layout of the ONNX report. */
static void print_backend_report(FILE *f, const json_t *o)
{
    char a[64], b[64], c[64];
    const json_t *rt = json_object_get(o, "runtime");
    const json_t *facts = json_object_get(o, "facts");
    uint64_t fb = (uint64_t)jget_int(o, "file_bytes");
    fprintf(f, "model     %s\n", jget_str(o, "path"));
    fprintf(f, "file      %s (%s bytes)\n", human_bytes(fb, a, sizeof a),
            grouped(fb, b, sizeof b));
    fprintf(f, "format    %s, read by %s %s (backend %s)\n",
            *jget_str(o, "format") ? jget_str(o, "format") : "unknown",
            jget_str(rt, "name"), jget_str(rt, "version"),
            jget_str(o, "backend"));
    if (*jget_str(facts, "class"))
        fprintf(f, "module    %s, %s submodules, methods %s\n",
                jget_str(facts, "class"), jget_str(facts, "submodules"),
                jget_str(facts, "methods"));
    if (json_is_integer(json_object_get(o, "nodes")))
        fprintf(f, "graph     forward: %" JSON_INTEGER_FORMAT
                " operators (submodules inlined)\n",
                jget_int(o, "nodes"));
    print_ops(f, "op types  ", json_object_get(o, "op_types"));
    print_values(f, "inputs", json_object_get(o, "inputs"));
    if (*jget_str(facts, "inputs_from"))
        fprintf(f, "  (from %s)\n", jget_str(facts, "inputs_from"));
    print_values(f, "outputs", json_object_get(o, "outputs"));
    fputs("  (shapes are known after a run: see mbench run --json)\n", f);
    uint64_t p = (uint64_t)jget_int(o, "params");
    uint64_t pb = (uint64_t)jget_int(o, "param_bytes");
    char hc[80] = "";
    if (p >= 1000)
        snprintf(hc, sizeof hc, " (%s)", human_count(p, c, sizeof c));
    fprintf(f, "parameters %s%s, %s (%s bytes)", grouped(p, a, sizeof a), hc,
            human_bytes(pb, b, sizeof b), grouped(pb, a + 32, 32));
    if (atoll(jget_str(facts, "buffer_values")) > 0)
        fprintf(f, "; buffers %s values (BatchNorm statistics and the "
                "like)", jget_str(facts, "buffer_values"));
    fputc('\n', f);
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)json_object_get(o, "params_by_dtype"), key, e) {
        fprintf(f, "  %-10s %16s params %12s\n", key,
                grouped((uint64_t)jget_int(e, "count"), a, sizeof a),
                human_bytes((uint64_t)jget_int(e, "bytes"), b, sizeof b));
    }
    fprintf(f, "runtime   %s %s, %s intra-op / %s inter-op threads, executor "
            "%s\n",
            jget_str(rt, "name"), jget_str(rt, "version"),
            jget_str(rt, "threads"), jget_str(rt, "inter_threads"),
            jget_str(rt, "executor"));
}

int cmd_info(int argc, char **argv)
{
    struct info_args args = {NULL, NULL};
    mb_opt_ctx ctx = {NULL, NULL, on_opt, &args, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_info, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    const char *json_path = args.json_path, *backend = args.backend;
    json_t *o = NULL;
    mb_err err = {0};
    if (!backend && strcmp(mb_backend_for_model(ctx.args[0]), "ort") != 0)
        backend = mb_backend_for_model(ctx.args[0]);
    int by_backend = backend && strcmp(backend, "ort") != 0 &&
                     strcmp(backend, "onnxruntime") != 0;
    if (by_backend ? mb__backend_inspect(backend, ctx.args[0], &o, &err)
                   : mb__onnx_inspect(ctx.args[0], &o, &err))
        return mb_cli_fail(&err);
    int to_stdout = json_path && strcmp(json_path, "-") == 0;
    if (!to_stdout && !ctx.quiet)
        (by_backend ? print_backend_report : print_report)(stdout, o);
    if (json_path) {
        json_t *doc = json_object();
        json_object_set_new(doc, "schema", json_string("mbench.info/1"));
        json_object_update(doc, o);
        char *text = json_dumps(doc, JSON_INDENT(2));
        json_decref(doc);
        if (!text) {
            rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory rendering JSON");
        } else if (to_stdout) {
            fputs(text, stdout);
            fputc('\n', stdout);
        } else {
            mb_buf b = MB_BUF_INIT;
            mb__buf_puts(&b, text);
            mb__buf_putc(&b, '\n');
            if (b.oom)
                rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
            else if (mb__write_file_atomic(json_path, b.data, b.len, &err))
                rc = mb_cli_fail(&err);
            mb__buf_free(&b);
        }
        free(text);
    }
    json_decref(o);
    return rc;
}
