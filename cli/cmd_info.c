/* cmd_info.c - mbench info: what an ONNX model holds, read from the file
 * without ONNX Runtime or its weights (model/onnx.h), described by
 * report/inforep.h. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "backend/inspect.h"
#include "model/onnx.h"
#include "report/inforep.h"

#include <stdio.h>
#include <string.h>

MBENCH_COMMAND(info, cmd_info,
               "describe an ONNX model: inputs, outputs, opsets, parameters")
MBENCH_OPTIONS(info, mb_cmd_info)

/* clang-format off */
static const mb_opt info_opts[] = {
    {"json", 0, MB_OPT_OUTFILE, "FILE", "also write the description as JSON (schema mbench.info/1; '-' for stdout instead of the report)", NULL, NULL, 0, 0, MB_OPT_DASH, 0},
    {"backend", 0, MB_OPT_STRING, "NAME", "describe MODEL through this backend plugin (torch, or a plugin's path)", NULL, NULL, 0, 0, 0, 1},
};

const mb_cmd mb_cmd_info = {"info", "MODEL", "describe an ONNX model: inputs, outputs, opsets, parameters",
    "Describes MODEL (an ONNX file) without running it and without loading its weights: inputs and "
    "outputs (symbolic dims by name), opsets, producer, IR version, file size, parameter count and "
    "bytes by element type (subgraphs and external data included), node count and the most frequent "
    "op types.  A TorchScript model (.pt, .pth), or any MODEL with --backend NAME, is described "
    "through its backend plugin instead: inputs, outputs, parameters, operators and the runtime, as "
    "the plugin reports them (docs/FRAMEWORKS.md).",
    info_opts, 2, 0, 1, 1, "Exit codes: 0 success, 2 usage error, 3 missing, unreadable or corrupt model."};
/* clang-format on */

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
    mb_buf b = MB_BUF_INIT;
    if (!to_stdout && !ctx.quiet)
        (by_backend ? mb__info_backend_console : mb__info_console)(&b, o);
    if (to_stdout)
        mb__info_json(&b, o);
    if (b.oom)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    else
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
    mb__buf_free(&b);
    if (json_path && !to_stdout && !rc) {
        mb__info_json(&b, o);
        rc = mb_cli_write_buf(json_path, &b);
    }
    json_decref(o);
    return rc;
}
