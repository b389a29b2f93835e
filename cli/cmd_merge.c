/* cmd_merge.c - mbench merge: shard result documents of `suite --shard I/N`
 * (or several exec documents) into one document (docs/EXEC.md). */
#include "cli.h"
#include "outputs.h"
#include "exec_util.h"

#include "core/alloc.h"
#include "exec/suite.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(merge, cmd_merge, "combine shard results of a suite into one document")

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mbench merge SHARD.json... --output FILE [--compare]\n\n"
        "Combines the result documents of 'mbench suite --shard I/N' runs into\n"
        "the document of the unsharded run: runs in task order, shard info\n"
        "dropped, the sources listed in \"merged_from\".  Refuses documents of\n"
        "different task files or shard counts and repeated shards; a missing\n"
        "shard gives a warning and \"incomplete\": true.\n\n"
        "  -o, --output FILE   the merged document (required)\n"
        "      --compare       print (and store) the speedup table\n"
        "      --seed N        bootstrap seed for --compare (default 42)\n"
        "  -h, --help\n\n"
        "Exit: 0 ok, 2 usage or documents that do not belong together, 3 I/O.\n");
}

int cmd_merge(int argc, char **argv)
{
    static const struct option lo[] = {
        {"output", required_argument, 0, 'o'}, {"compare", no_argument, 0, 'C'},
        {"seed", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *out = NULL;
    int compare = 0;
    int64_t seed = 42;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'C': compare = 1; break;
        case 'S':
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &seed))
                return mb_cli_bad_value("--seed", optarg, "a non-negative integer");
            break;
        case 'h': usage(stdout); return MB_EXIT_OK;
        default:
            return mb_cli_error(MB_EXIT_USAGE, "unknown or incomplete option '%s' (see mbench merge --help)", argv[optind - 1]);
        }
    }
    if (!out)
        return mb_cli_error(MB_EXIT_USAGE, "no --output FILE: name the merged document");
    const char *shown = out; /* checked before the shards are read */
    int crc = mb_cli_output_arg("--output", shown, &out);
    if (crc)
        return crc;
    int n = argc - optind;
    if (n < 1)
        return mb_cli_error(MB_EXIT_USAGE, "no input: give the shard result files (mbench merge a.json b.json --output all.json)");
    json_t **docs = mb__calloc((size_t)n, sizeof *docs);
    const char **names = mb__calloc((size_t)n, sizeof *names);
    int rc = MB_EXIT_OK;
    for (int i = 0; docs && names && i < n; i++) {
        names[i] = argv[optind + i];
        json_error_t je;
        docs[i] = json_load_file(names[i], 0, &je);
        if (!docs[i] || !json_is_object(docs[i]) || !json_is_array(json_object_get(docs[i], "runs"))) {
            rc = mb_cli_error(docs[i] ? MB_EXIT_USAGE : MB_EXIT_RUNTIME,
                              "%s: %s", names[i], docs[i] ? "not a result document (no \"runs\" array)" : je.text);
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
        json_t *cmp = mb__suite_comparison(json_object_get(merged, "runs"), (uint64_t)seed);
        json_object_set_new(merged, "comparison", cmp);
        size_t gi;
        json_t *g;
        json_array_foreach(json_object_get(cmp, "groups"), gi, g)
        {
            size_t ei;
            json_t *e;
            printf("%s (baseline %s)\n", json_string_value(json_object_get(g, "group")),
                   json_string_value(json_object_get(g, "baseline")) ? json_string_value(json_object_get(g, "baseline")) : "-");
            json_array_foreach(json_object_get(g, "entries"), ei, e)
            {
                const json_t *sp = json_object_get(e, "speedup");
                printf("  %-40s ", json_string_value(json_object_get(e, "variant")));
                if (json_is_number(sp))
                    printf("speedup %.3fx\n", json_number_value(sp));
                else
                    printf("FAILED or not comparable\n");
            }
        }
    }
    printf("merged %d document(s), %zu run(s) into %s\n", n, json_array_size(json_object_get(merged, "runs")), shown);
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
