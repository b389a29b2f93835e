/*
 * ort_abi.h - mbench's own declarations of the parts of the ONNX Runtime C
 * ABI it calls, written from shared/docs/onnxruntime-abi.md (slot indices,
 * signatures, enum values).  Not a copy of any ONNX Runtime header.
 *
 * OrtApi is an array of function pointers: slot k is at byte offset 8*k.
 * Only the slots listed here are used; each has a typedef and an index.
 * Every slot used exists since API version 16 or earlier.
 */
#ifndef MB_BACKEND_ORT_ABI_H
#define MB_BACKEND_ORT_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Opaque runtime objects, handled only by pointer. */
typedef struct OrtEnv OrtEnv;
typedef struct OrtStatus OrtStatus;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtValue OrtValue;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtAllocator OrtAllocator;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtCUDAProviderOptionsV2 OrtCUDAProviderOptionsV2;

/* Enums travel as 4-byte ints. */
enum {
    ORT_LOG_VERBOSE = 0,
    ORT_LOG_INFO = 1,
    ORT_LOG_WARNING = 2,
    ORT_LOG_ERROR = 3,
    ORT_LOG_FATAL = 4
};
enum {
    ORT_TYPE_TENSOR = 1,
    ORT_TYPE_SEQUENCE = 2,
    ORT_TYPE_MAP = 3,
    ORT_TYPE_OPTIONAL = 6
};
enum {
    ORT_OPT_DISABLE_ALL = 0,
    ORT_OPT_BASIC = 1,
    ORT_OPT_EXTENDED = 2,
    ORT_OPT_LAYOUT = 3,
    ORT_OPT_ALL = 99
};
enum { ORT_EXEC_SEQUENTIAL = 0, ORT_EXEC_PARALLEL = 1 };
enum { ORT_ALLOC_DEVICE = 0, ORT_ALLOC_ARENA = 1 };
enum { ORT_MEM_DEFAULT = 0 };

typedef void (*ort_log_fn)(void *param, int severity, const char *category,
                           const char *logid, const char *code_location,
                           const char *message);

/* OrtApiBase: two function pointers. */
typedef struct ort_api_base {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} ort_api_base;
typedef const ort_api_base *(*ort_get_api_base_fn)(void);

/* X(slot, name, return type, parameter list) for every slot used. */
#define MB_ORT_SLOTS(X)                                                        \
    X(1, GetErrorCode, int, (const OrtStatus *))                               \
    X(2, GetErrorMessage, const char *, (const OrtStatus *))                   \
    X(4, CreateEnvWithCustomLogger, OrtStatus *,                               \
      (ort_log_fn, void *, int, const char *, OrtEnv **))                      \
    X(7, CreateSession, OrtStatus *,                                           \
      (const OrtEnv *, const char *, const OrtSessionOptions *,                \
       OrtSession **))                                                         \
    X(9, Run, OrtStatus *,                                                     \
      (OrtSession *, const OrtRunOptions *, const char *const *,               \
       const OrtValue *const *, size_t, const char *const *, size_t,           \
       OrtValue **))                                                           \
    X(10, CreateSessionOptions, OrtStatus *, (OrtSessionOptions **))           \
    X(11, SetOptimizedModelFilePath, OrtStatus *,                              \
      (OrtSessionOptions *, const char *))                                     \
    X(13, SetSessionExecutionMode, OrtStatus *, (OrtSessionOptions *, int))    \
    X(14, EnableProfiling, OrtStatus *, (OrtSessionOptions *, const char *))   \
    X(19, DisableCpuMemArena, OrtStatus *, (OrtSessionOptions *))              \
    X(22, SetSessionLogSeverityLevel, OrtStatus *, (OrtSessionOptions *, int)) \
    X(23, SetSessionGraphOptimizationLevel, OrtStatus *,                       \
      (OrtSessionOptions *, int))                                              \
    X(24, SetIntraOpNumThreads, OrtStatus *, (OrtSessionOptions *, int))       \
    X(25, SetInterOpNumThreads, OrtStatus *, (OrtSessionOptions *, int))       \
    X(30, SessionGetInputCount, OrtStatus *, (const OrtSession *, size_t *))   \
    X(31, SessionGetOutputCount, OrtStatus *, (const OrtSession *, size_t *))  \
    X(33, SessionGetInputTypeInfo, OrtStatus *,                                \
      (const OrtSession *, size_t, OrtTypeInfo **))                            \
    X(34, SessionGetOutputTypeInfo, OrtStatus *,                               \
      (const OrtSession *, size_t, OrtTypeInfo **))                            \
    X(36, SessionGetInputName, OrtStatus *,                                    \
      (const OrtSession *, size_t, OrtAllocator *, char **))                   \
    X(37, SessionGetOutputName, OrtStatus *,                                   \
      (const OrtSession *, size_t, OrtAllocator *, char **))                   \
    X(49, CreateTensorWithDataAsOrtValue, OrtStatus *,                         \
      (const OrtMemoryInfo *, void *, size_t, const int64_t *, size_t, int,    \
       OrtValue **))                                                           \
    X(51, GetTensorMutableData, OrtStatus *, (OrtValue *, void **))            \
    X(55, CastTypeInfoToTensorInfo, OrtStatus *,                               \
      (const OrtTypeInfo *, const OrtTensorTypeAndShapeInfo **))               \
    X(56, GetOnnxTypeFromTypeInfo, OrtStatus *, (const OrtTypeInfo *, int *))  \
    X(60, GetTensorElementType, OrtStatus *,                                   \
      (const OrtTensorTypeAndShapeInfo *, int *))                              \
    X(61, GetDimensionsCount, OrtStatus *,                                     \
      (const OrtTensorTypeAndShapeInfo *, size_t *))                           \
    X(62, GetDimensions, OrtStatus *,                                          \
      (const OrtTensorTypeAndShapeInfo *, int64_t *, size_t))                  \
    X(63, GetSymbolicDimensions, OrtStatus *,                                  \
      (const OrtTensorTypeAndShapeInfo *, const char **, size_t))              \
    X(65, GetTensorTypeAndShape, OrtStatus *,                                  \
      (const OrtValue *, OrtTensorTypeAndShapeInfo **))                        \
    X(67, GetValueType, OrtStatus *, (const OrtValue *, int *))                \
    X(69, CreateCpuMemoryInfo, OrtStatus *, (int, int, OrtMemoryInfo **))      \
    X(76, AllocatorFree, OrtStatus *, (OrtAllocator *, void *))                \
    X(78, GetAllocatorWithDefaultOptions, OrtStatus *, (OrtAllocator **))      \
    X(92, ReleaseEnv, void, (OrtEnv *))                                        \
    X(93, ReleaseStatus, void, (OrtStatus *))                                  \
    X(94, ReleaseMemoryInfo, void, (OrtMemoryInfo *))                          \
    X(95, ReleaseSession, void, (OrtSession *))                                \
    X(96, ReleaseValue, void, (OrtValue *))                                    \
    X(98, ReleaseTypeInfo, void, (OrtTypeInfo *))                              \
    X(99, ReleaseTensorTypeAndShapeInfo, void, (OrtTensorTypeAndShapeInfo *))  \
    X(100, ReleaseSessionOptions, void, (OrtSessionOptions *))                 \
    X(110, SessionEndProfiling, OrtStatus *,                                   \
      (OrtSession *, OrtAllocator *, char **))                                 \
    X(124, AddFreeDimensionOverrideByName, OrtStatus *,                        \
      (OrtSessionOptions *, const char *, int64_t))                            \
    X(125, GetAvailableProviders, OrtStatus *, (char ***, int *))              \
    X(126, ReleaseAvailableProviders, OrtStatus *, (char **, int))             \
    X(130, AddSessionConfigEntry, OrtStatus *,                                 \
      (OrtSessionOptions *, const char *, const char *))                       \
    X(204, SessionOptionsAppendExecutionProvider_CUDA_V2, OrtStatus *,         \
      (OrtSessionOptions *, const OrtCUDAProviderOptionsV2 *))                 \
    X(205, CreateCUDAProviderOptions, OrtStatus *,                             \
      (OrtCUDAProviderOptionsV2 **))                                           \
    X(206, UpdateCUDAProviderOptions, OrtStatus *,                             \
      (OrtCUDAProviderOptionsV2 *, const char *const *, const char *const *,   \
       size_t))                                                                \
    X(208, ReleaseCUDAProviderOptions, void, (OrtCUDAProviderOptionsV2 *))     \
    X(216, SessionOptionsAppendExecutionProvider, OrtStatus *,                 \
      (OrtSessionOptions *, const char *, const char *const *,                 \
       const char *const *, size_t))                                           \
    X(254, GetBuildInfoString, const char *, (void))

/* The lowest API version that has every slot above. */
#define MB_ORT_MIN_API 16u
/* The API version mbench was written against (ORT 1.30). */
#define MB_ORT_MAX_API 30u

#define MB_ORT_TYPEDEF(slot, name, ret, params)                                \
    typedef ret(*ort_##name##_fn) params;
MB_ORT_SLOTS(MB_ORT_TYPEDEF)
#undef MB_ORT_TYPEDEF

typedef struct ort_api {
#define MB_ORT_MEMBER(slot, name, ret, params) ort_##name##_fn name;
    MB_ORT_SLOTS(MB_ORT_MEMBER)
#undef MB_ORT_MEMBER
} ort_api;

#endif
