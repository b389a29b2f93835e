/* cpumix.c - one CPU model per comparison (cpumix.h). */
#include "regress/cpumix.h"

#include "core/err.h"

#include <stdio.h>
#include <string.h>

static const char *run_cpu(const json_t *doc, const json_t *run)
{
    const char *c = json_string_value(
        json_object_get(json_object_get(run, "slurm"), "cpu_model"));
    return c ? c
             : json_string_value(json_object_get(
                   json_object_get(doc, "environment"), "cpu_model"));
}

mb_status mb__cpu_models_check(const json_t *const *docs,
                               const char *const *names, size_t n, mb_err *err)
{
    const char *first = NULL, *first_in = NULL;
    for (size_t d = 0; d < n; d++) {
        size_t i;
        const json_t *run;
        json_array_foreach(json_object_get(docs[d], "runs"), i, run)
        {
            const char *c = run_cpu(docs[d], run);
            if (!c || !*c)
                continue;
            if (!first) {
                first = c;
                first_in = names[d];
            } else if (strcmp(first, c) != 0)
                return mb__fail(
                    err, MB_EDATA,
                    "the runs were measured on different CPU models ('%s' "
                    "in %s, '%s' in %s): their timings are not comparable; "
                    "pass --allow-mixed-cpus to compare them anyway",
                    first, first_in, c, names[d]);
        }
    }
    return MB_OK;
}

/* "model|variant|batch" of a history row, for messages too. */
static void series_key(const json_t *row, char *out, size_t len)
{
    const char *m = json_string_value(json_object_get(row, "model_name"));
    const char *v = json_string_value(json_object_get(row, "variant"));
    snprintf(out, len, "%s/%s/batch %lld", m ? m : "-", v ? v : "-",
             (long long)json_integer_value(json_object_get(row, "batch_size")));
}

mb_status mb__history_cpu_check(const json_t *rows, mb_err *err)
{
    const json_t *a =
        json_is_object(rows) ? json_object_get(rows, "runs") : rows;
    json_t *seen = json_object();
    mb_status st = seen ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
    size_t i;
    const json_t *row;
    json_array_foreach(a, i, row)
    {
        const char *c = json_string_value(json_object_get(row, "cpu_model"));
        char key[600];
        if (st || !c || !*c)
            continue;
        series_key(row, key, sizeof key);
        const char *first = json_string_value(json_object_get(seen, key));
        if (!first)
            json_object_set_new(seen, key, json_string(c));
        else if (strcmp(first, c) != 0)
            st = mb__fail(err, MB_EDATA,
                          "the series %s holds results of different CPU "
                          "models ('%s' and '%s'): a change along it may be "
                          "the machine's; pass --allow-mixed-cpus to show "
                          "it anyway",
                          key, first, c);
    }
    json_decref(seen);
    return st;
}
