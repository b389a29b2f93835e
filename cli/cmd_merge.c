/* cmd_merge.c - mbench merge: shard result documents of `suite --shard I/N`
 * (or several exec documents) into one document (docs/EXEC.md). */
#include "cli.h"
#include "opt.h"
#include "outputs.h"
#include "exec_util.h"

#include "core/alloc.h"
#include "exec/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(merge, cmd_merge,
               "combine shard results of a suite into one document")
MBENCH_OPTIONS(merge, mb_cmd_merge)

enum { O_OUTPUT, O_COMPARE, O_SEED };

static const mb_opt merge_opts[] = {
    {"output", 'o', MB_OPT_OUTFILE, "FILE",
     "the merged document (required; '-' for stdout)", NULL, NULL, 0, 0,
     MB_OPT_STDOUT, O_OUTPUT},
    {"compare", 0, MB_OPT_SWITCH, NULL, "print (and store) the speedup table",
     NULL, NULL, 0, 0, 0, O_COMPARE},
    {"seed", 0, MB_OPT_INT, "N", "bootstrap seed for --compare (default 42)",
     "a non-negative integer", NULL, 0, 9.3e18, 0, O_SEED},
};

const mb_cmd mb_cmd_merge = {
    "merge",
    "SHARD.json...",
    "combine shard results of a suite into one document",
    "Combines the result documents of 'mbench suite --shard I/N' runs into "
    "the document of the unsharded run: runs in task order, shard info "
    "dropped, the sources listed in \"merged_from\".  Refuses documents of "
    "different task files or shard counts and repeated shards; a missing "
    "shard gives a warning and \"incomplete\": true.",
    merge_opts,
    sizeof merge_opts / sizeof merge_opts[0],
    0,
    0,
    -1,
    "Exit codes: 0 ok, 2 usage or documents that do not belong together, 3 "
    "I/O."};

typedef struct {
    const char *out, *shown;
    int compare;
    int64_t seed;
} merge_args;

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
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
    mb_opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int crc = mb_opt_parse(&mb_cmd_merge, argc, argv, &ctx);
    if (crc)
        return crc == MB_OPT_HELP ? MB_EXIT_OK : crc;
    const char *out = a.out, *shown = a.shown;
    int compare = a.compare;
    int64_t seed = a.seed;
    if (!out)
        return mb_cli_error(MB_EXIT_USAGE,
                            "no --output FILE: name the merged document");
    int n = ctx.n_args;
    if (n < 1)
        return mb_cli_error(MB_EXIT_USAGE,
                            "no input: give the shard result files (mbench "
                            "merge a.json b.json --output all.json)");
    json_t **docs = mb__calloc((size_t)n, sizeof *docs);
    const char **names = mb__calloc((size_t)n, sizeof *names);
    int rc = MB_EXIT_OK;
    for (int i = 0; docs && names && i < n; i++) {
        names[i] = ctx.args[i];
        json_error_t je;
        docs[i] = json_load_file(names[i], 0, &je);
        if (!docs[i] || !json_is_object(docs[i]) ||
            !json_is_array(json_object_get(docs[i], "runs"))) {
            rc = mb_cli_error(
                docs[i] ? MB_EXIT_USAGE : MB_EXIT_RUNTIME, "%s: %s", names[i],
                docs[i] ? "not a result document (no \"runs\" array)"
                        : je.text);
            goto done;
        }
    }
    json_t *merged = NULL;
    mb_err err = {0};
    if (mb__suite_merge(docs, names, (size_t)n, &merged, &err) != MB_OK) {
        rc = mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
        goto done;
    }
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(merged, "warnings"), i, w)
        mb_cli_warn("%s", json_string_value(w));
    if (compare) {
        json_t *cmp = mb__suite_comparison(json_object_get(merged, "runs"),
                                           (uint64_t)seed);
        json_object_set_new(merged, "comparison", cmp);
        size_t gi;
        json_t *g;
        json_array_foreach(json_object_get(cmp, "groups"), gi, g)
        {
            size_t ei;
            json_t *e;
            printf("%s (baseline %s)\n",
                   json_string_value(json_object_get(g, "group")),
                   json_string_value(json_object_get(g, "baseline"))
                       ? json_string_value(json_object_get(g, "baseline"))
                       : "-");
            json_array_foreach(json_object_get(g, "entries"), ei, e)
            {
                const json_t *sp = json_object_get(e, "speedup");
                printf("  %-40s ",
                       json_string_value(json_object_get(e, "variant")));
                if (json_is_number(sp))
                    printf("speedup %.3fx\n", json_number_value(sp));
                else
                    printf("FAILED or not comparable\n");
            }
        }
    }
    if (!ctx.quiet)
        printf("merged %d document(s), %zu run(s) into %s\n", n,
               json_array_size(json_object_get(merged, "runs")), shown);
    if (mb_cli_write_doc(out, merged) != 0)
        rc = MB_EXIT_RUNTIME;
    json_decref(merged);
done:
    for (int k = 0; docs && k < n; k++)
        json_decref(docs[k]);
    free(docs);
    free(names);
    return rc;
}
