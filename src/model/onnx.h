/*
 * onnx.h - ONNX model introspection and TensorProto reading without ONNX
 * Runtime or a protobuf library.  mb__onnx_inspect walks a sparse image of
 * the file (onnx_image.h: read with pread, tensor payloads left out) with
 * the wire reader of pb.h: weight payloads (raw_data, typed data, external
 * files) are skipped by length, never read, so a multi-gigabyte model costs
 * well under a megabyte of memory to describe.  Field numbers follow onnx.proto
 * (ModelProto, GraphProto, NodeProto, AttributeProto, ValueInfoProto,
 * TypeProto, TensorProto, SparseTensorProto).  ONNX element type numbers
 * equal mb_dtype values.  See docs/MODEL.md.
 */
#ifndef MB_MODEL_ONNX_H
#define MB_MODEL_ONNX_H

/* The longest string field of a ModelProto (producer_name, doc_string,
 * metadata_props, ...) that mbench copies: 16 MiB.  Longer is refused
 * before anything is copied (a length bomb in a sparse file). */
#define MB_ONNX_MAX_STRING (16u << 20)

#include "mbench.h"

#include "core/buf.h"
#include "core/tlimit.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Describes the ONNX model at path as a new JSON object (layout in
 * docs/MODEL.md): path, file_bytes, ir_version, producer_name,
 * producer_version, domain, model_version, doc_string, graph_name, opsets,
 * inputs, outputs, nodes, subgraph_nodes, op_types, subgraphs,
 * initializers, params, param_bytes, params_by_dtype, external_data,
 * metadata_props, constants.  Caller frees *out with json_decref.
 * Fails with MB_EIO (missing or unreadable file) or MB_EFORMAT (empty,
 * truncated, not an ONNX model), one line naming path and the fix.
 */
mb_status mb__onnx_inspect(const char *path, json_t **out, mb_err *err);

/* Static name of an ONNX element type number: mb_dtype_name for 1..16,
 * "float8e4m3fn", "int4", ... beyond; "undefined" when unknown. */
const char *mb__onnx_dtype_name(int onnx_type);
/* Bits per element of an ONNX element type (4 for int4), 0 when unknown
 * or variable (string). */
int mb__onnx_dtype_bits(int onnx_type);

/*
 * Decodes one serialized TensorProto (buf, len) into *out (overwritten;
 * caller frees with mb_tensor_clear).  Handles raw_data, float_data,
 * int32_data (with ONNX's packing of float16/bfloat16/bool/int8/uint8/
 * int16/uint16 in it), int64_data, double_data, uint64_data, packed or not,
 * and external data (data_location = EXTERNAL) resolved against base_dir
 * (NULL means the current directory).  Little-endian hosts only.
 * Fails with MB_EFORMAT (corrupt, data size does not match dims),
 * MB_EUNSUPPORTED (string, float8/int4 types, segments, rank > MB_MAX_RANK),
 * MB_EIO (external file missing), MB_ENOMEM.
 */
mb_status mb__onnx_tensor_decode(const uint8_t *buf, size_t len,
                                 const char *base_dir, mb_tensor *out,
                                 mb_err *err);

/* Reads a .pb file holding one TensorProto (as in ONNX's test data);
 * external data is resolved against the file's directory.  Errors as
 * mb__onnx_tensor_decode, prefixed with path. */
mb_status mb__onnx_tensor_read_file(const char *path, mb_tensor *out,
                                    mb_err *err);

/* The two above with a size cap (core/tlimit.h; NULL: the default, which
 * they apply too), checked on the dims before anything is allocated. */
mb_status mb__onnx_tensor_decode_lim(const uint8_t *buf, size_t len,
                                     const char *base_dir,
                                     const mb__tlimit *lim, mb_tensor *out,
                                     mb_err *err);
mb_status mb__onnx_tensor_read_file_lim(const char *path, const mb__tlimit *lim,
                                        mb_tensor *out, mb_err *err);

/* Serializes t as a TensorProto (dims, data_type, name when set, raw_data
 * little-endian) appended to *out (an mb__buf the caller owns and frees
 * with mb__buf_free).  Fails with MB_EUNSUPPORTED for string tensors and
 * MB_ENOMEM. */
mb_status mb__onnx_tensor_encode(const mb_tensor *t, mb__buf *out, mb_err *err);

#endif
