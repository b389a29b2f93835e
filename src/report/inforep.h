/* inforep.h - the writers of `mbench info` over the info document of an
 * ONNX model (model/onnx.h mb__onnx_inspect, borrowed): the console
 * description and the "mbench.info/1" JSON. */
#ifndef MB_REPORT_INFOREP_H
#define MB_REPORT_INFOREP_H

#include "core/buf.h"

#include <jansson.h>

/* File, format, opsets, graph, op types, inputs, outputs, parameters by
 * element type, constants, external data and metadata, one per line. */
void mb__info_console(mb__buf *b, const json_t *info);
/* The info document with its "schema" first, indented, and a newline. */
void mb__info_json(mb__buf *b, const json_t *info);
/* The console report of a model described by its backend plugin
 * (backend/inspect.h mb__backend_inspect: TorchScript). */
void mb__info_backend_console(mb__buf *b, const json_t *info);

#endif
