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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(info, cmd_info,
               "describe an ONNX model: inputs, outputs, opsets, parameters")
MBENCH_OPTIONS(info, mb_cmd_info)

/* clang-format off */
static const mb__opt info_opts[] = {
    {.name = "json", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "also write the description as JSON (schema mbench.info/1; '-' for stdout instead of the report)", .flags = MB_OPT_DASH},
    {.name = "backend", .type = MB_OPT_STRING, .metavar = "NAME", .help = "describe MODEL through this backend plugin (torch, or a plugin's path)", .id = 1},
};

const mb__cmd mb_cmd_info = {"info", "MODEL", "describe an ONNX model: inputs, outputs, opsets, parameters",
    "Describes MODEL (an ONNX file) without running it and without loading its weights: inputs and "
    "outputs (symbolic dims by name), opsets, producer, IR version, file size, parameter count and "
    "bytes by element type (subgraphs and external data included), node count and the most frequent "
    "op types.  A TorchScript model (.pt, .pth), or any MODEL with --backend NAME, is described "
    "through its backend plugin instead: inputs, outputs, parameters, operators and the runtime, as "
    "the plugin reports them (docs/FRAMEWORKS.md).  MODEL '-' reads the model from standard input.",
    info_opts, 2, 0, 1, 1, "Exit codes: 0 success, 2 usage error, 3 missing, unreadable or corrupt model."};
/* clang-format on */

struct info_args {
    const char *json_path, *backend;
};

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    struct info_args *a = user;
    if (o->id == 1)
        a->backend = v->str;
    else
        a->json_path = v->str;
    return 0;
}

/* MODEL "-": standard input, copied to a temporary file (the inspector
 * reads a file); path gets its name.  0, or an exit code after printing. */
static int spool_stdin(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/mbench-info-stdin.XXXXXX",
             dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return mb_cli_error(MB_EXIT_RUNTIME,
                            "cannot create a temporary file for standard "
                            "input in %s: %s; set TMPDIR to a writable "
                            "directory",
                            dir && *dir ? dir : "/tmp", strerror(errno));
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(0, buf, sizeof buf)) > 0)
        if (write(fd, buf, (size_t)n) != n) {
            rc = mb_cli_error(MB_EXIT_RUNTIME,
                              "cannot copy standard input to %s: %s", path,
                              strerror(errno));
            break;
        }
    if (n < 0 && !rc)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "cannot read standard input: %s",
                          strerror(errno));
    close(fd);
    if (rc)
        unlink(path);
    return rc;
}

int cmd_info(int argc, char **argv)
{
    struct info_args args = {NULL, NULL};
    mb__opt_ctx ctx = {NULL, NULL, on_opt, &args, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_info, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    const char *json_path = args.json_path, *backend = args.backend;
    json_t *o = NULL;
    mb_err err = {0};
    char spooled[4200] = "";
    if (strcmp(ctx.args[0], "-") == 0) {
        if ((rc = spool_stdin(spooled, sizeof spooled)))
            return rc;
        ctx.args[0] = spooled;
    }
    if (!backend && strcmp(mb_backend_for_model(ctx.args[0]), "ort") != 0)
        backend = mb_backend_for_model(ctx.args[0]);
    int by_backend = backend && strcmp(backend, "ort") != 0 &&
                     strcmp(backend, "onnxruntime") != 0;
    if (by_backend ? mb__backend_inspect(backend, ctx.args[0], &o, &err)
                   : mb__onnx_inspect(ctx.args[0], &o, &err)) {
        if (*spooled)
            unlink(spooled);
        return mb_cli_fail(&err);
    }
    if (*spooled) { /* the description names standard input, not the copy */
        unlink(spooled);
        json_object_set_new(o, "path", json_string("-"));
    }
    int to_stdout = json_path && strcmp(json_path, "-") == 0;
    mb__buf b = MB_BUF_INIT;
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
