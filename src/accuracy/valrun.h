/* valrun.h - the validate engine behind `mbench validate` and the public
 * mb_runner_validate: a baseline and a candidate model run on the same
 * inputs (every sample of --data, batch by batch, or seeded synthetic
 * samples, which the document then flags), every output is compared with
 * the accuracy metrics (metrics.h), and the verdict judges every output
 * (or only the requested one) by the gates (gate.h: given, or the
 * defaults of the candidate's precision, mb__precision_of_weights) and
 * the output the one rule reads as class scores (pick.h) also by accuracy
 * against labels, else by top-1 agreement.  The result is a result
 * document ("kind": "validate") whose "validation" object docs/ACCURACY.md
 * defines.  Never prints, never exits. */
#ifndef MB_ACCURACY_VALRUN_H
#define MB_ACCURACY_VALRUN_H

#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "accuracy/outpair.h"
#include "mbench.h"
#include "plan/plan.h"

#include <stdbool.h>
#include <jansson.h>

#define MB__VAL_MAX_GATES 64

typedef struct mb__val_req {
    const mb__plan *baseline;  /* borrowed; model_path set */
    const mb__plan *candidate; /* borrowed; model_path set */
    const char *labels;        /* class ids file (needs data), or NULL */
    const char *masks;         /* .npy of class ids per pixel (needs data) */
    const char *output;        /* judge only this output, or NULL */
    const char *save_outputs;  /* DIR/baseline, DIR/candidate, or NULL */
    const char *command_line;  /* for the document; may be NULL */
    double tolerance;          /* allowed accuracy loss (0.01) */
    mb__gate gates[MB__VAL_MAX_GATES]; /* none: the precision's defaults */
    size_t n_gates;
    int have_precision; /* precision given (else from the weights) */
    mb__precision precision;
    int64_t samples;         /* synthetic samples without data (8) */
    mb__metric_opts metrics; /* per_sample_max 0 by default */
    int have_ignore;         /* --ignore-index given */
    int64_t ignore_index;    /* mask value left out of Dice and IoU */
    /* The candidate's params_by_dtype (mb__onnx_inspect's object, as a run
     * document keeps it), which decides its precision; NULL: inspected
     * from candidate->model_path.  Borrowed. */
    const json_t *weights;
    /* The candidate's runtime facts (a run's "runtime" object, whose
     * session.inference_precision says what the runtime computes in:
     * it comes before the weights); NULL: none.  Borrowed. */
    const json_t *runtime;
    /* The labels came from an image folder's class folders, not --labels:
     * a model with no class-score output is judged without them. */
    int labels_optional;
    /* --map BASE=CAND: renamed outputs (outpair.h). */
    mb__outmap maps[MB__MAX_OUTMAPS];
    size_t n_maps;
    /* The sample the embedded heat map draws ("heatmap", heatmap.h), or
     * -1: the worst of the output that differs most. */
    int64_t heatmap_sample;
} mb__val_req;

/* Fills the defaults above (no models). */
void mb__val_req_defaults(mb__val_req *rq);

/* Non-zero when key (leading dashes ignored) is one of the validate
 * options mb__val_set takes: labels, masks, output, save-outputs, tolerance,
 * gate (repeatable: appends), precision, samples, atol, rtol, data-range,
 * ssim-3d (value "1" or "0"), ignore-index (an integer mask value), map
 * (BASE=CAND, repeatable: appends), heatmap-sample (a sample index). */
bool mb__val_is_option(const char *key);
/* Sets one option from its text.  String values are borrowed (they must
 * outlive rq).  MB_EINVAL names key as given (so "--tolerance" reads as
 * the flag), the value and what is expected. */
mb_status mb__val_set(mb__val_req *rq, const char *key, const char *value,
                      mb_err *err);

/* The two plans of a validation from one set of run options: pa's
 * model_path becomes baseline, *pb (uninitialised) a copy of pa with
 * model_path candidate and then each "KEY=VALUE" of cand_opts applied (a
 * run option without dashes: threads=2, opt-level=all) and the run
 * options' cross-checks made again.  MB_EINVAL names a bad or unknown one;
 * on failure *pb holds nothing to free. */
mb_status mb__val_plans(mb__plan *pa, mb__plan *pb, const char *baseline,
                        const char *candidate, const char *const *cand_opts,
                        size_t n_cand, mb_err *err);

/*
 * Runs the validation into a new result document *doc (caller frees with
 * json_decref).  The verdict is "validation.passed"; a failed verdict is
 * not an error of the call.  MB_EINVAL: a bad request (labels or masks
 * without data, several batch sizes, an --output no output has); MB_EMODEL,
 * MB_EBACKEND, MB_EDATA, MB_EIO: a model that does not load, data or
 * labels that do not fit, outputs that differ in count or shape, an
 * unwritable save_outputs directory.  The message names which model.
 */
mb_status mb__validate_run(const mb__val_req *rq, json_t **doc, mb_err *err);

#endif
