/* nvml.h - GPU memory through NVIDIA's NVML, loaded with dlopen.
 *
 * UNTESTED: no NVIDIA GPU exists where mbench is developed and tested.
 * The library is libnvidia-ml.so.1; this module declares the few NVML
 * entry points it needs itself (nvmlInit_v2, nvmlDeviceGetCount_v2,
 * nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetMemoryInfo, nvmlShutdown).
 * It samples the memory in use summed over all devices; a run's GPU peak
 * is the largest sample minus the sample taken before it started. */
#ifndef MB_EXEC_NVML_H
#define MB_EXEC_NVML_H

#include "mbench.h"

#include <stdint.h>

typedef struct mb__nvml mb__nvml;

/* Loads and initialises NVML.  MB_EUNSUPPORTED (err says why: library not
 * found, no device) when it is not available.  Free with mb__nvml_close. */
mb_status mb__nvml_open(mb__nvml **out, mb_err *err);
/* Bytes of device memory in use summed over all devices, or -1. */
int64_t mb__nvml_used_bytes(mb__nvml *n);
void mb__nvml_close(mb__nvml *n);

#endif
