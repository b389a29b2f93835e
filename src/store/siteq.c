/* siteq.c - the reads of `mbench site` (siteq.h). */
#include "store/siteq.h"

#include "core/err.h"

static const char site_runs_sql[] =
    "SELECT r.id, r.document_id, r.run_index, r.git_commit, r.git_branch, "
    "r.git_commit_date, r.created_utc, r.status, d.kind, r.model_name, "
    "r.variant, r.backend, r.batch_size, r.p50_ns, r.p99_ns, r.ci_lo_ns, "
    "r.ci_hi_ns, r.throughput_ips, r.memory_peak_bytes, d.env_cpu_model, "
    "d.env_arch, d.env_logical_cores, d.env_memory_bytes, d.env_hostname "
    "FROM runs r JOIN documents d ON d.id = r.document_id "
    "WHERE d.superseded_by IS NULL ORDER BY r.id";

mb_status mb__store_site_runs(mb__store *s, json_t **rows, mb_err *err)
{
    return mb__store_select(s, site_runs_sql, 0, NULL, rows, err);
}

mb_status mb__store_site_docs(mb__store *s, json_t **docs, mb_err *err)
{
    json_t *rows = NULL;
    *docs = NULL;
    mb_status st = mb__store_select(
        s,
        "SELECT id, doc FROM documents WHERE superseded_by IS NULL AND (id "
        "IN (SELECT document_id FROM runs WHERE backend = 'exec') OR doc "
        "LIKE '%\"requirements\":%') ORDER BY id",
        0, NULL, &rows, err);
    if (st)
        return st;
    json_t *out = json_object();
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        const char *id = json_string_value(json_array_get(row, 0));
        const char *text = json_string_value(json_array_get(row, 1));
        json_error_t je;
        json_t *doc = text ? json_loads(text, 0, &je) : NULL;
        if (!out || !id || !doc) {
            json_decref(doc);
            st = out ? mb__fail(err, MB_EFORMAT,
                                "stored document %s is not valid JSON; the "
                                "store is damaged",
                                id ? id : "?")
                     : mb__fail(err, MB_ENOMEM, "out of memory");
            break;
        }
        if (json_object_set_new(out, id, doc)) {
            st = mb__fail(err, MB_ENOMEM, "out of memory");
            break;
        }
    }
    json_decref(rows);
    if (st)
        json_decref(out);
    else
        *docs = out;
    return st;
}
