/* gate.h - accuracy gates: "cosine>=0.999", "psnr>=40", "max_abs<=1e-3",
 * parsed once and evaluated against the metrics JSON of each output
 * (accuracy/metrics.h), plus the default gates for a candidate precision.
 *
 * A gate is METRIC OP VALUE with OP one of >= <= > < == != and VALUE a
 * number or inf/-inf; spaces are allowed around the parts.  Metric names
 * are the JSON keys of docs/ACCURACY.md, with a few aliases (cos, corr,
 * rel_err, top1, top5, kl).  A gate whose metric is undefined for an
 * output (null: SSIM of a vector, KL of a non-classifier) is "n/a" there;
 * across outputs a gate passes when it passes on every output where it
 * applies and applies to at least one. */
#ifndef MB_ACCURACY_GATE_H
#define MB_ACCURACY_GATE_H

#include "mbench.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum mb__gate_op {
    MB_GATE_GE,
    MB_GATE_LE,
    MB_GATE_GT,
    MB_GATE_LT,
    MB_GATE_EQ,
    MB_GATE_NE
} mb__gate_op;

typedef struct mb__gate {
    char metric[32]; /* canonical JSON key ("cosine", "rel_l2", ...) */
    mb__gate_op op;
    double value;
    char text[96]; /* canonical text, e.g. "cosine>=0.999" */
} mb__gate;

typedef enum mb__gate_result {
    MB_GATE_PASS = 0,
    MB_GATE_FAIL = 1,
    MB_GATE_NA = 2 /* the metric is undefined (null) for this output */
} mb__gate_result;

/* Parses text into *g.  MB_EINVAL names the text and the fix (the known
 * metric names or the operators). */
mb_status mb__gate_parse(const char *text, mb__gate *g, mb_err *err);

/* Evaluates g against one output's metrics object; *actual (may be NULL)
 * receives the metric's value (NAN when null).  An undefined metric of an
 * output with no elements (two empty tensors of the same shape, which are
 * equal) passes; of any other output it is MB_GATE_NA. */
mb__gate_result mb__gate_eval(const mb__gate *g, const json_t *metrics,
                              double *actual);

/*
 * Evaluates every gate against every output (an array of metrics objects,
 * each with an optional "name").  Returns a new JSON array with one object
 * per gate: {"gate", "passed", "results": [{"output", "value",
 * "result": "pass"|"fail"|"n/a"}], "reason"}; *all_passed is set.
 */
json_t *mb__gates_eval_outputs(const mb__gate *gates, size_t n_gates,
                               const json_t *outputs, int *all_passed);

/* Candidate precision, which picks the default gates. */
typedef enum mb__precision {
    MB_PREC_FP32 = 0,
    MB_PREC_FP16 = 1,
    MB_PREC_INT8 = 2,
    MB_PREC_BF16 = 3
} mb__precision;

/* "fp32"/"float32"/"f32", "fp16"/"float16"/"f16", "bf16"/"bfloat16",
 * "int8"/"uint8"; false when unknown. */
bool mb__precision_parse(const char *s, mb__precision *p);
const char *mb__precision_name(mb__precision p);
/* The precision a model's dominant weight dtype implies. */
mb__precision mb__precision_from_dtype(mb_dtype t);
/* The precision of a model's weights: the one rule of `mbench validate`
 * and `mbench compare`.  The dtype with the most initializer elements
 * ("count" in a params_by_dtype object of mb__onnx_inspect; the first on
 * ties) decides, through mb__precision_from_dtype.  Returns 0 and writes
 * "5702 float32 elements" into what; -1 (and fp32) when there are no
 * weights to tell. */
bool mb__precision_of_weights(const json_t *params_by_dtype, mb__precision *p,
                              char *what, size_t len);

/* The precision a runtime says it computes in: its session fact
 * "inference_precision" (runtime.session of a run: OpenVINO's
 * INFERENCE_PRECISION_HINT as compiled, "bf16"; the torch backend's dtype,
 * "bfloat16"), read by mb__precision_parse.  asked: the value of the
 * backend option that set it ("precision" or "dtype" in the plan's
 * backend options), or NULL when the runtime chose.  Writes the sentence
 * of the reason into what ("computed in bf16, OpenVINO's default on this
 * CPU; backend-opt=precision=f32 to compute in fp32"); false (what
 * untouched) when the runtime does not say. */
bool mb__precision_of_runtime(const json_t *runtime, const char *asked,
                              mb__precision *p, char *what, size_t len);

/* Writes the default gates of a precision into out (room for `cap`);
 * returns how many there are (docs/ACCURACY.md explains the values). */
size_t mb__gate_defaults(mb__precision p, mb__gate *out, size_t cap);

#endif
