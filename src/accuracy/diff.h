/* diff.h - the engine of `mbench diff`: reads two sets of saved tensors
 * (.npy, .npz, ONNX TensorProto .pb, or directories of them), pairs them
 * by validate's and compare's one rule (outpair.h: --map, file name, the
 * name stored in a .pb, by position only when nothing names them), computes
 * every accuracy metric of each pair (accuracy/metrics.h), evaluates the
 * gates and builds the result document ("mbench.diff/1").  Optionally draws
 * |A - B| of the image-like pair that differs most (or a named one), at its
 * worst sample (or a chosen one), as a PNG, and always embeds a small one in
 * the document ("heatmap", for the HTML report).  No printing: notes go to
 * a callback. */
#ifndef MB_ACCURACY_DIFF_H
#define MB_ACCURACY_DIFF_H

#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "core/buf.h"
#include "core/tlimit.h"

#include <jansson.h>

typedef struct mb__diff_req {
    const char *baseline, *candidate; /* paths */
    mb__metric_opts metrics;
    const mb__gate *gates;
    size_t n_gates;
    const char *command_line; /* recorded in the document, or NULL */
    mb__buf *heatmap;         /* when not NULL: the PNG of |A - B| */
    const char *heat_output;  /* the pair to draw, or NULL: the one with
                                 two or more dims that differs most */
    int64_t heat_sample;      /* the sample drawn (rank >= 3), or -1: the
                                 pair's worst (accuracy/heatmap.h) */
    /* A note for the user (a pairing by position); may be NULL. */
    void (*note)(void *user, const char *msg);
    void *user;
    mb__tlimit tlimit; /* applied to every file read (core/tlimit.h) */
    /* --map BASE=CAND: renamed tensors (outpair.h); borrowed. */
    const struct mb__outmap *maps;
    size_t n_maps;
} mb__diff_req;

typedef struct mb__diff_result {
    json_t *doc;           /* mbench.diff/1; caller frees with json_decref */
    int passed;            /* every gate holds (1 without gates) */
    size_t n_tensors;      /* pairs compared */
    char heat_name[256];   /* the pair drawn in the heat map */
    int64_t heat_sample;   /* the sample drawn, -1: the whole tensor */
    size_t heat_samples;   /* the samples of that pair */
    int heat_worst;        /* heat_sample is the pair's worst sample */
    double heat_max;       /* the brightest |A - B| */
    mb_status heat_status; /* MB_OK, or why the heat map failed */
    mb_err heat_err;
} mb__diff_result;

/* Runs the diff.  MB_EIO / MB_EINVAL for unreadable or unknown files,
 * MB_EDATA for tensors that do not pair or whose shapes differ.  A heat
 * map that cannot be drawn does not fail the call (heat_status says). */
mb_status mb__diff_run(const mb__diff_req *rq, mb__diff_result *res,
                       mb_err *err);

#endif
