/*
 * ov_abi.h - mbench's own declarations of the few parts of OpenVINO's C API
 * (libopenvino_c.so) the openvino plugin calls, written from the API's
 * documentation (docs.openvino.ai, "OpenVINO Runtime C API": function
 * signatures, struct layouts, enum values).  Not a copy of any OpenVINO
 * header: the PyPI wheel that ships the library is all a machine needs.
 *
 * Every function is looked up by name with dlsym, so the plugin builds
 * without OpenVINO and loads whatever libopenvino_c.so it is pointed at.
 * Objects are opaque and handled by pointer; the few structs passed by
 * value or filled in by the library (shapes, dimensions, versions,
 * profiling records) are laid out as the documentation gives them.
 *
 * The element-type enum is the one thing that moved between releases (2025
 * numbered UNDEFINED 0 and DYNAMIC 1; 2026 dropped UNDEFINED, so every type
 * is one lower): the plugin works out the numbering of the library it
 * loaded from the byte sizes of probe tensors (openvino_backend.c).
 */
#ifndef MB_PLUGIN_OV_ABI_H
#define MB_PLUGIN_OV_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ov_core ov_core_t;
typedef struct ov_model ov_model_t;
typedef struct ov_compiled_model ov_compiled_model_t;
typedef struct ov_infer_request ov_infer_request_t;
typedef struct ov_tensor ov_tensor_t;
typedef struct ov_output_const_port ov_output_const_port_t;

/* Status codes travel as ints: 0 is OK, failures are negative. */
typedef int ov_status_e;
/* An element type, numbered as described above. */
typedef int ov_element_type_e;

/* The element types the plugin maps, in the order of the 2026 numbering
 * (DYNAMIC = 0); the 2025 numbering adds 1 to each. */
enum {
    OVX_DYNAMIC = 0,
    OVX_BOOLEAN = 1,
    OVX_BF16 = 2,
    OVX_F16 = 3,
    OVX_F32 = 4,
    OVX_F64 = 5,
    OVX_I4 = 6,
    OVX_I8 = 7,
    OVX_I16 = 8,
    OVX_I32 = 9,
    OVX_I64 = 10,
    OVX_U1 = 11,
    OVX_U2 = 12,
    OVX_U3 = 13,
    OVX_U4 = 14,
    OVX_U6 = 15,
    OVX_U8 = 16,
    OVX_U16 = 17,
    OVX_U32 = 18,
    OVX_U64 = 19
};

/* A static shape: rank and a library-owned array of dims. */
typedef struct ov_shape {
    int64_t rank;
    int64_t *dims;
} ov_shape_t;

/* One dimension as an inclusive interval; min == max when static, max -1
 * when unbounded. */
typedef struct ov_dimension {
    int64_t min;
    int64_t max;
} ov_dimension_t;

/* A shape that may hold dynamic dims (and a dynamic rank). */
typedef struct ov_partial_shape {
    ov_dimension_t rank;
    ov_dimension_t *dims;
} ov_partial_shape_t;

typedef struct ov_version {
    const char *build_number;
    const char *description;
} ov_version_t;

typedef struct ov_available_devices {
    char **devices;
    size_t size;
} ov_available_devices_t;

/* One node's counters from the last inference (times in microseconds). */
enum { OVX_NODE_NOT_RUN = 0, OVX_NODE_OPTIMIZED_OUT = 1, OVX_NODE_EXECUTED };
typedef struct ov_profiling_info {
    int status;
    int64_t real_time;
    int64_t cpu_time;
    const char *node_name;
    const char *exec_type;
    const char *node_type;
} ov_profiling_info_t;

typedef struct ov_profiling_info_list {
    ov_profiling_info_t *infos;
    size_t size;
} ov_profiling_info_list_t;

/* X(name, return type, parameter list) for every function used. */
#define MB_OV_FUNCS(X)                                                         \
    X(ov_get_openvino_version, ov_status_e, (ov_version_t *))                  \
    X(ov_version_free, void, (ov_version_t *))                                 \
    X(ov_get_error_info, const char *, (ov_status_e))                          \
    X(ov_get_last_err_msg, const char *, (void))                               \
    X(ov_free, void, (const char *))                                           \
    X(ov_core_create, ov_status_e, (ov_core_t **))                             \
    X(ov_core_free, void, (ov_core_t *))                                       \
    X(ov_core_get_available_devices, ov_status_e,                              \
      (const ov_core_t *, ov_available_devices_t *))                           \
    X(ov_available_devices_free, void, (ov_available_devices_t *))             \
    X(ov_core_read_model, ov_status_e,                                         \
      (const ov_core_t *, const char *, const char *, ov_model_t **))          \
    X(ov_core_compile_model, ov_status_e,                                      \
      (const ov_core_t *, const ov_model_t *, const char *, size_t,            \
       ov_compiled_model_t **, ...))                                           \
    X(ov_model_free, void, (ov_model_t *))                                     \
    X(ov_model_inputs_size, ov_status_e, (const ov_model_t *, size_t *))       \
    X(ov_model_outputs_size, ov_status_e, (const ov_model_t *, size_t *))      \
    X(ov_model_const_input_by_index, ov_status_e,                              \
      (const ov_model_t *, size_t, ov_output_const_port_t **))                 \
    X(ov_model_const_output_by_index, ov_status_e,                             \
      (const ov_model_t *, size_t, ov_output_const_port_t **))                 \
    X(ov_model_is_dynamic, bool, (const ov_model_t *))                         \
    X(ov_model_reshape_by_port_indexes, ov_status_e,                           \
      (const ov_model_t *, const size_t *, const ov_partial_shape_t *,         \
       size_t))                                                                \
    X(ov_port_get_any_name, ov_status_e,                                       \
      (const ov_output_const_port_t *, char **))                               \
    X(ov_port_get_partial_shape, ov_status_e,                                  \
      (const ov_output_const_port_t *, ov_partial_shape_t *))                  \
    X(ov_port_get_element_type, ov_status_e,                                   \
      (const ov_output_const_port_t *, ov_element_type_e *))                   \
    X(ov_output_const_port_free, void, (ov_output_const_port_t *))             \
    X(ov_partial_shape_create_static, ov_status_e,                             \
      (int64_t, const int64_t *, ov_partial_shape_t *))                        \
    X(ov_partial_shape_free, void, (ov_partial_shape_t *))                     \
    X(ov_compiled_model_create_infer_request, ov_status_e,                     \
      (const ov_compiled_model_t *, ov_infer_request_t **))                    \
    X(ov_compiled_model_get_property, ov_status_e,                             \
      (const ov_compiled_model_t *, const char *, char **))                    \
    X(ov_compiled_model_free, void, (ov_compiled_model_t *))                   \
    X(ov_infer_request_set_input_tensor_by_index, ov_status_e,                 \
      (ov_infer_request_t *, size_t, const ov_tensor_t *))                     \
    X(ov_infer_request_get_output_tensor_by_index, ov_status_e,                \
      (const ov_infer_request_t *, size_t, ov_tensor_t **))                    \
    X(ov_infer_request_infer, ov_status_e, (ov_infer_request_t *))             \
    X(ov_infer_request_get_profiling_info, ov_status_e,                        \
      (const ov_infer_request_t *, ov_profiling_info_list_t *))                \
    X(ov_profiling_info_list_free, void, (ov_profiling_info_list_t *))         \
    X(ov_infer_request_free, void, (ov_infer_request_t *))                     \
    X(ov_shape_create, ov_status_e, (int64_t, const int64_t *, ov_shape_t *))  \
    X(ov_shape_free, ov_status_e, (ov_shape_t *))                              \
    X(ov_tensor_create_from_host_ptr, ov_status_e,                             \
      (ov_element_type_e, ov_shape_t, void *, ov_tensor_t **))                 \
    X(ov_tensor_create, ov_status_e,                                           \
      (ov_element_type_e, ov_shape_t, ov_tensor_t **))                         \
    X(ov_tensor_get_shape, ov_status_e, (const ov_tensor_t *, ov_shape_t *))   \
    X(ov_tensor_get_element_type, ov_status_e,                                 \
      (const ov_tensor_t *, ov_element_type_e *))                              \
    X(ov_tensor_get_byte_size, ov_status_e, (const ov_tensor_t *, size_t *))   \
    X(ov_tensor_data, ov_status_e, (const ov_tensor_t *, void **))             \
    X(ov_tensor_free, void, (ov_tensor_t *))

#define MB_OV_TYPEDEF(name, ret, params) typedef ret(*name##_fn) params;
MB_OV_FUNCS(MB_OV_TYPEDEF)
#undef MB_OV_TYPEDEF

typedef struct ov_api {
#define MB_OV_MEMBER(name, ret, params) name##_fn name;
    MB_OV_FUNCS(MB_OV_MEMBER)
#undef MB_OV_MEMBER
} ov_api;

/* Property keys are exported by the library as `const char *` variables
 * named ov_property_key_<x>; the plugin reads them with dlsym too. */
#define MB_OV_KEYS(X)                                                          \
    X(inference_num_threads)                                                   \
    X(num_streams)                                                             \
    X(hint_performance_mode)                                                   \
    X(hint_inference_precision)                                                \
    X(hint_enable_cpu_pinning)                                                 \
    X(hint_execution_mode)                                                     \
    X(enable_profiling)                                                        \
    X(cache_dir)

typedef struct ov_keys {
#define MB_OV_KEY_MEMBER(k) const char *k;
    MB_OV_KEYS(MB_OV_KEY_MEMBER)
#undef MB_OV_KEY_MEMBER
} ov_keys;

#endif
