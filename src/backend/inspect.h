/* inspect.h - describing a model through its backend (for formats the
 * ONNX reader does not know, such as TorchScript): inputs and outputs as
 * the backend declares them, the backend's model facts and its runtime. */
#ifndef MB_BACKEND_INSPECT_H
#define MB_BACKEND_INSPECT_H

#include "mbench_backend.h"

#include <jansson.h>

/* Loads backend `name` (mb_backend_find), opens `path` with no options,
 * and describes it without running it.  *out receives an object with the
 * keys of mbench.info/1 that apply (path, file_bytes, format, inputs,
 * outputs, params, param_bytes, params_by_dtype, nodes, op_types) plus
 * "backend", "runtime" (info() facts) and "facts" (every model_info fact as
 * text).  Caller frees with json_decref.  MB_EIO when the file is
 * missing, the backend's status when it refuses the file. */
mb_status mb__backend_inspect(const char *name, const char *path, json_t **out,
                              mb_err *err);

#endif
