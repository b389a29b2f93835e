/* gaterun.c - the gate engine (regress/gaterun.h). */
#include "regress/gaterun.h"

#include "regress/cpumix.h"

#include "core/err.h"
#include "core/fileio.h"
#include "store/store.h"
#include "store/transfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mb__gate_is_compare_doc(const char *path)
{
    json_t *d = path ? json_load_file(path, 0, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(d, "kind"));
    int yes = kind && strcmp(kind, "compare") == 0;
    json_decref(d);
    return yes;
}

mb_status mb__gate_check_req(const mb__gate_req *rq, mb_err *err)
{
    if (!rq->current)
        return mb__fail(err, MB_EINVAL,
                        "gate needs --current CUR.json (the results to "
                        "judge)");
    if (!rq->baseline && !rq->against && !mb__gate_is_compare_doc(rq->current))
        return mb__fail(err, MB_EINVAL,
                        "gate needs a baseline: --baseline BASE.json, or --db "
                        "DB --against BRANCH_OR_COMMIT (or a compare "
                        "document as --current: its variants are gated "
                        "against its baseline)");
    if (rq->baseline && rq->against)
        return mb__fail(err, MB_EINVAL,
                        "give either --baseline or --against, not both");
    if (rq->against && !rq->db)
        return mb__fail(err, MB_EINVAL,
                        "--against %s needs --db (the store to take the "
                        "baseline from)",
                        rq->against);
    return MB_OK;
}

/* A judgement that could not be made is a runtime failure, not a bad
 * argument: only a malformed --gate expression stays MB_EINVAL. */
static mb_status not_usage(mb_status st, mb_err *err)
{
    if (st == MB_EINVAL && strncmp(err->msg, "--gate", 6) != 0)
        err->code = st = MB_EDATA;
    return st;
}

mb_status mb__gate_run(mb__gate_req *rq, json_t **result, int *exit_code,
                       mb_err *err)
{
    json_t *cur = NULL, *base = NULL, *git = NULL, *history = NULL;
    mb__store *store = NULL;
    char src[1100];
    *result = NULL;
    *exit_code = 0;
    mb_status st = mb__json_file_load(rq->current, "current", &cur, err);
    if (!st)
        st = mb__regress_check_doc(cur, rq->current, err);
    if (!st && rq->db) {
        git = mb__git_info(rq->git_dir);
        st = rq->no_store ? mb__store_open_ro(rq->db, &store, err)
                          : mb__store_open_existing(rq->db, &store, err);
    }
    if (st)
        goto out;
    if (rq->against) {
        const char *commit = json_string_value(json_object_get(git, "commit"));
        st = not_usage(
            mb__store_baseline(store, rq->against, commit, cur, &base, err),
            err);
        if (st)
            goto out;
        const char *bc = json_string_value(json_object_get(
            json_object_get(json_object_get(base, "store"), "git"), "commit"));
        snprintf(src, sizeof src, "%s@%s (commit %.12s)", mb__store_kind(store),
                 rq->against, bc ? bc : "none");
    } else if (!rq->baseline) {
        /* A compare document: its variants against its own baseline,
         * paired round by round (the same pointer tells the gate). */
        base = json_incref(cur);
        snprintf(src, sizeof src, "%s (its baseline variant)", rq->current);
    } else {
        if ((st = mb__json_file_load(rq->baseline, "baseline", &base, err)))
            goto out;
        snprintf(src, sizeof src, "%s", rq->baseline);
    }
    rq->opts.baseline_source = src;
    rq->opts.current_source = rq->current;
    if (store) {
        mb__store_filter hf = {0};
        hf.limit = 2000;
        if ((st = mb__store_history(store, &hf, &history, err)))
            goto out;
        rq->opts.history = history;
    }
    const json_t *both[2] = {base, cur};
    const char *names[2] = {src, rq->current};
    if (!rq->allow_mixed_cpus &&
        (st = mb__cpu_models_check(both, names, base == cur ? 1 : 2, err)))
        goto out;
    st = not_usage(
        mb__regress_run(base, cur, &rq->opts, result, exit_code, err), err);
    if (!st && store && !rq->no_store)
        st = mb__store_put(store, cur, git, err);
out:
    rq->opts.baseline_source = NULL;
    rq->opts.history = NULL;
    if (st) {
        json_decref(*result);
        *result = NULL;
    }
    json_decref(history);
    json_decref(cur);
    json_decref(base);
    json_decref(git);
    mb__store_close(store);
    return st;
}
