/* gaterun.h - the gate engine behind `mbench gate`: loads the current
 * result document, finds its baseline (a file, the newest stored results
 * of a branch or commit, or the document's own baseline variant when it
 * is a compare document), adds the store's history, judges
 * (regress/regress.h) and appends the current document to the store.
 * The verdict (mbench.gate/1) goes to the writers of report/gaterep.h. */
#ifndef MB_REGRESS_GATERUN_H
#define MB_REGRESS_GATERUN_H

#include "regress/regress.h"

#include <jansson.h>

typedef struct mb__gate_req {
    const char *current;   /* path of the current document; required */
    const char *baseline;  /* path of the baseline document, or NULL */
    const char *db;        /* store (path or URL), or NULL */
    const char *against;   /* with db: branch or commit prefix, or NULL */
    const char *git_dir;   /* repository of the measured project (NULL: .) */
    int no_store;          /* with db: do not append the current document */
    int allow_mixed_cpus;  /* judge runs of different CPU models anyway */
    mb__regress_opts opts; /* thresholds, accuracy gates, seed; the
                              sources and history are filled in here */
} mb__gate_req;

/* 1 when path holds a readable result document of kind "compare" (its
 * variants can be gated against its own baseline).  Errors say 0. */
int mb__gate_is_compare_doc(const char *path);

/* Checks that rq names what to judge and against what (--current; a
 * baseline file, --db with --against, or a compare document; not both
 * sources): MB_OK, or MB_EINVAL with the message naming the fix. */
mb_status mb__gate_check_req(const mb__gate_req *rq, mb_err *err);

/* Runs the gate: *result gets the verdict (caller frees with
 * json_decref), *exit_code the documented code (0 pass, 1 regression,
 * 4 inconclusive, 5 accuracy).  On failure err->code is MB_EINVAL only
 * for a malformed accuracy gate expression; a baseline that does not
 * match is MB_EDATA, unreadable files MB_EIO / MB_EFORMAT. */
mb_status mb__gate_run(mb__gate_req *rq, json_t **result, int *exit_code,
                       mb_err *err);

#endif
