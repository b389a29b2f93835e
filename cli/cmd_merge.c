/* cmd_merge.c - mbench merge: shard result documents of `suite --shard I/N`
 * (or several exec documents) into one document (docs/EXEC.md). */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "exec/merge.h"
#include "exec/suite.h"
#include "report/suiterep.h"

#include <stdio.h>

MBENCH_COMMAND(merge, cmd_merge,
               "combine shard results of a suite into one document")
MBENCH_OPTIONS(merge, mb_cmd_merge)

/* clang-format off */
enum { O_OUTPUT, O_COMPARE, O_SEED };

static const mb__opt merge_opts[] = {
    {.name = "output", .short_name = 'o', .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "the merged document ('-' for stdout; this, --json, --outdir or --db is required)", .flags = MB_OPT_STDOUT, .id = O_OUTPUT},
    {.name = "compare", .type = MB_OPT_SWITCH, .help = "print (and store) the speedup table", .id = O_COMPARE},
    {.name = "seed", .type = MB_OPT_INT, .metavar = "N", .help = "bootstrap seed for --compare (default 42)", .expect = "a non-negative integer", .hi = 9.3e18, .id = O_SEED},
};

const mb__cmd mb_cmd_merge = {"merge", "SHARD.json...", "combine shard results of a suite into one document",
    "Combines the result documents of 'mbench suite --shard I/N' runs into the document of the "
    "unsharded run: runs in task order, shard info dropped, the sources listed in \"merged_from\".  "
    "Refuses documents of different task files or shard counts and repeated shards; a missing shard "
    "gives a warning and \"incomplete\": true.  The shared outputs write the merged document as "
    "they do a suite's (--md, --html, --csv reports; --db stores it).",
    merge_opts, 3, MB_OPTSET_OUTPUT, 0, -1,
    "Exit codes: 0 ok, 2 usage or documents that do not belong together, 3 I/O."};
/* clang-format on */

typedef struct {
    const char *out, *shown;
    int compare;
    int64_t seed;
} merge_args;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    merge_args *a = user;
    switch (o->id) {
    case O_OUTPUT: /* checked before the shards are read */
        a->out = v->str;
        a->shown = v->text;
        break;
    case O_COMPARE:
        a->compare = 1;
        break;
    case O_SEED:
        a->seed = v->i;
        break;
    }
    return 0;
}

int cmd_merge(int argc, char **argv)
{
    merge_args a = {NULL, NULL, 0, 42};
    mb__cli_outputs out = {0};
    mb__opt_ctx ctx = {NULL, &out, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_merge, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    if (!a.out && !out.json && !out.outdir && !out.db)
        return mb_cli_error(MB_EXIT_USAGE,
                            "no --output FILE: name the merged document");
    if (ctx.n_args < 1)
        return mb_cli_error(MB_EXIT_USAGE,
                            "no input: give the shard result files (mbench "
                            "merge a.json b.json --output all.json)");
    json_t *merged = NULL;
    mb_err err = {0};
    if (mb__merge_files((const char *const *)ctx.args, (size_t)ctx.n_args,
                        &merged, &err))
        return mb_cli_fail(&err);
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(merged, "warnings"), i, w)
        mb_cli_warn("%s", json_string_value(w));
    mb__buf b = MB_BUF_INIT;
    if (a.compare) {
        json_t *cmp = mb__suite_comparison(json_object_get(merged, "runs"),
                                           (uint64_t)a.seed);
        json_object_set_new(merged, "comparison", cmp);
        mb__suite_comparison_console(&b, cmp);
    }
    if (!ctx.quiet)
        mb__buf_printf(&b, "merged %d document(s), %zu run(s)%s%s\n",
                       ctx.n_args,
                       json_array_size(json_object_get(merged, "runs")),
                       a.shown ? " into " : "", a.shown ? a.shown : "");
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    mb__buf_free(&b);
    rc = a.out ? mb_cli_write_json(a.out, merged, JSON_INDENT(2)) : 0;
    rc |= mb_cli_outputs_write(&out, merged);
    json_decref(merged);
    return rc ? MB_EXIT_RUNTIME : MB_EXIT_OK;
}
