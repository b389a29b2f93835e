/* cmd_tensor.c - mbench tensor-dump: what mbench reads from a tensor file
 * (.npy, .npz, .pb) or a --data path, one line per tensor, to check
 * against numpy's view of it.  Parses the options, calls
 * report/tensordump.h per file (or once for --data or --labels), prints
 * what it returns and writes --save. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "core/tlimit.h"
#include "report/tensordump.h"
#include "data/tensorfile.h"

#include <stdio.h>
#include <stdlib.h>

/* clang-format off */
MBENCH_COMMAND(tensor-dump, cmd_tensor_dump, "print what mbench reads from tensor files or --data")
MBENCH_OPTIONS(tensor-dump, mb_cmd_tensor_dump)

enum { O_VALUES, O_LIMIT, O_DATA, O_INPUT, O_BATCH, O_FIRST, O_LABELS, O_SAVE, O_MAXTB, O_MAXRATIO };

static const mb__opt tensor_opts[] = {
    {.name = "values", .type = MB_OPT_SWITCH, .help = "also print the elements on a line 'values: ...'", .id = O_VALUES},
    {.name = "limit", .type = MB_OPT_INT, .metavar = "N", .help = "print at most N values (default: all)", .expect = "a non-negative integer", .hi = 9.3e18, .id = O_LIMIT},
    {.name = "data", .type = MB_OPT_FILE, .metavar = "PATH", .help = "load PATH as `mbench run --data` would, for a model whose inputs are given with --input, and dump the batch of samples FIRST..FIRST+B-1", .id = O_DATA},
    {.name = "input", .type = MB_OPT_STRING, .metavar = "SPEC", .help = "NAME:DTYPE:DIMS, DIMS comma-separated, a name or -1 for a symbolic dimension: x:float32:N,1,8,8 (repeatable)", .flags = MB_OPT_REPEAT, .id = O_INPUT},
    {.name = "batch", .type = MB_OPT_INT, .metavar = "B", .help = "with --data: samples per batch (default 1)", .expect = "a positive integer", .lo = 1, .hi = 9.3e18, .id = O_BATCH},
    {.name = "first", .type = MB_OPT_INT, .metavar = "I", .help = "with --data: the first sample (default 0)", .expect = "a non-negative integer", .hi = 9.3e18, .id = O_FIRST},
    {.name = "labels", .type = MB_OPT_FILE, .metavar = "FILE", .help = "print the class ids read from FILE (.npy or text) as 'labels N: ID ID ...'", .id = O_LABELS},
    {.name = "save", .type = MB_OPT_OUTFILE, .metavar = "PATH", .help = "also write what was read to PATH: .npy (one tensor) or .npz (any number), little-endian C order", .id = O_SAVE},
    {.name = "max-tensor-bytes", .type = MB_OPT_STRING, .metavar = "SIZE", .help = MB__TLIMIT_BYTES_HELP, .expect = MB__TLIMIT_BYTES_EXPECT, .id = O_MAXTB},
    {.name = "max-compression-ratio", .type = MB_OPT_DOUBLE, .metavar = "R", .help = MB__TLIMIT_RATIO_HELP, .expect = MB__TLIMIT_RATIO_EXPECT, .hi = 1e12, .id = O_MAXRATIO},
};

const mb__cmd mb_cmd_tensor_dump = {"tensor-dump", "[FILE...]", "print what mbench reads from tensor files or --data",
    "Prints one line per tensor read from .npy, .npz or .pb files: NAME dtype=DTYPE shape=[D0,D1,...] "
    "sha256=HEX, where HEX is the sha256 of the tensor's C-order little-endian bytes (numpy: "
    "np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes()). Other forms: mbench "
    "tensor-dump --data PATH --input NAME:DTYPE:DIMS [--input ...] [--batch B] [--first I] [--values]; "
    "mbench tensor-dump --labels FILE.",
    tensor_opts, 10, 0, 0, -1, "Exit codes: 0 ok, 2 usage error, 3 unreadable or mismatched data, or a "
    "tensor or archive above --max-tensor-bytes / --max-compression-ratio."};
/* clang-format on */

typedef struct {
    mb__optval v[O_MAXRATIO + 1]; /* every option's value by its id */
    unsigned set;                 /* which were given */
    mb_io_desc inputs[64];
    size_t n_inputs;
    mb__tlimit tlimit;
} tensor_args;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    tensor_args *a = user;
    a->v[o->id] = *v;
    a->set |= 1u << o->id;
    if (o->id == O_MAXTB && !mb__tlimit_set_bytes(&a->tlimit, v->text))
        return mb_cli_bad_value("--max-tensor-bytes", v->text,
                                MB__TLIMIT_BYTES_EXPECT);
    if (o->id == O_MAXRATIO)
        mb__tlimit_set_ratio(&a->tlimit, v->d);
    if (o->id != O_INPUT)
        return 0;
    if (a->n_inputs == sizeof a->inputs / sizeof a->inputs[0])
        return mb_cli_error(MB_EXIT_USAGE, "too many --input flags");
    if (!mb__io_desc_parse((char *)v->str, &a->inputs[a->n_inputs]))
        return mb_cli_bad_value("--input", v->str,
                                "NAME:DTYPE:DIMS such as x:float32:N,1,8,8");
    a->n_inputs++;
    return 0;
}

/* Prints what a dump call appended to b (emptied) and, when it failed,
 * its error; returns rc, or the exit code of this failure when rc is 0. */
static int put(mb__buf *b, mb_status st, const mb_err *err, int rc)
{
    fwrite(b->data ? b->data : "", 1, b->len, stdout);
    b->len = 0;
    int r = st ? mb_cli_fail(err) : MB_EXIT_OK;
    return rc ? rc : r;
}

int cmd_tensor_dump(int argc, char **argv)
{
    tensor_args a = {0};
    mb__opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_tensor_dump, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    const mb__optval *v = a.v;
    mb_err err = {0};
    mb__buf b = MB_BUF_INIT;
    mb__tensor_list keep = {0};
    mb__dump_opts o = {(a.set >> O_VALUES) & 1,
                       (a.set >> O_LIMIT) & 1 ? v[O_LIMIT].i : -1,
                       v[O_SAVE].str ? &keep : NULL, a.tlimit};
    if (v[O_LABELS].str) {
        rc = put(&b, mb__dump_labels(v[O_LABELS].str, &b, &err), &err, 0);
        mb__buf_free(&b);
        return rc;
    }
    if (v[O_DATA].str && (ctx.n_args > 0 || a.n_inputs == 0))
        return mb_cli_error(MB_EXIT_USAGE,
                            "--data needs at least one --input "
                            "NAME:DTYPE:DIMS and no file arguments");
    if (!v[O_DATA].str && ctx.n_args == 0)
        return mb_cli_error(MB_EXIT_USAGE,
                            "tensor-dump needs a FILE (.npy, .npz, .pb) or "
                            "--data; see 'mbench tensor-dump --help'");
    if (v[O_DATA].str)
        rc = put(&b,
                 mb__dump_data(
                     v[O_DATA].str, a.inputs, a.n_inputs, (size_t)v[O_FIRST].i,
                     (a.set >> O_BATCH) & 1 ? v[O_BATCH].i : 1, &o, &b, &err),
                 &err, 0);
    for (int i = 0; i < ctx.n_args; i++)
        rc = put(&b, mb__dump_file(ctx.args[i], &o, &b, &err), &err, rc);
    if (!rc && v[O_SAVE].str &&
        mb__tensor_file_write(v[O_SAVE].str, keep.t, keep.n, &err))
        rc = mb_cli_fail(&err);
    mb__tensor_list_free(&keep);
    mb__buf_free(&b);
    return rc;
}
