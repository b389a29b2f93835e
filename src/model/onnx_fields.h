/* onnx_fields.h - TensorProto's field numbers (onnx.proto), for the two
 * readers of tensors: the inspector (onnx.c: counts and sizes, no values)
 * and the loader (onnx_tensor.c: values). */
#ifndef MB_MODEL_ONNX_FIELDS_H
#define MB_MODEL_ONNX_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

enum {
    T_DIMS = 1,
    T_DATA_TYPE = 2,
    T_SEGMENT = 3,
    T_FLOAT_DATA = 4,
    T_INT32_DATA = 5,
    T_STRING_DATA = 6,
    T_INT64_DATA = 7,
    T_NAME = 8,
    T_RAW_DATA = 9,
    T_DOUBLE_DATA = 10,
    T_UINT64_DATA = 11,
    T_EXTERNAL_DATA = 13,
    T_DATA_LOCATION = 14
};

/* Whether field num holds the values as a typed repeated field
 * (float_data, int32_data, string_data, int64_data, double_data,
 * uint64_data) rather than raw_data or external data. */
static inline bool mb__tp_typed_field(uint64_t num)
{
    return (num >= T_FLOAT_DATA && num <= T_INT64_DATA) ||
           num == T_DOUBLE_DATA || num == T_UINT64_DATA;
}

#endif
