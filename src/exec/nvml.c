/* nvml.c - GPU memory sampling through a dlopen'ed NVML (UNTESTED; see
 * nvml.h).  The declarations below are mbench's own, written from NVML's
 * documented C signatures. */
#include "exec/nvml.h"

#include "core/alloc.h"
#include "core/err.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;

typedef int (*fn_init)(void);
typedef int (*fn_count)(unsigned int *);
typedef int (*fn_handle)(unsigned int, void **);
typedef int (*fn_mem)(void *, nvml_memory *);

struct mb__nvml {
    void *lib;
    fn_init shutdown;
    fn_mem mem;
    void *dev[16];
    unsigned n;
};

static void *sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

mb_status mb__nvml_open(mb__nvml **out, mb_err *err)
{
    *out = NULL;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "GPU memory: not available (libnvidia-ml.so.1 not "
                        "found)");
    fn_init init = (fn_init)(uintptr_t)sym(lib, "nvmlInit_v2");
    fn_init shut = (fn_init)(uintptr_t)sym(lib, "nvmlShutdown");
    fn_count count = (fn_count)(uintptr_t)sym(lib, "nvmlDeviceGetCount_v2");
    fn_handle handle =
        (fn_handle)(uintptr_t)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
    fn_mem mem = (fn_mem)(uintptr_t)sym(lib, "nvmlDeviceGetMemoryInfo");
    unsigned n = 0;
    if (!init || !shut || !count || !handle || !mem || init() != 0) {
        dlclose(lib);
        return mb__fail(err, MB_EUNSUPPORTED,
                        "GPU memory: not available (libnvidia-ml.so.1 "
                        "lacks NVML entry points or nvmlInit failed)");
    }
    if (count(&n) != 0 || n == 0) {
        shut();
        dlclose(lib);
        return mb__fail(err, MB_EUNSUPPORTED,
                        "GPU memory: not available (NVML sees no device)");
    }
    mb__nvml *v = mb__calloc(1, sizeof *v);
    if (!v) {
        shut();
        dlclose(lib);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    v->lib = lib;
    v->shutdown = shut;
    v->mem = mem;
    for (unsigned i = 0; i < n && v->n < 16; i++)
        if (handle(i, &v->dev[v->n]) == 0)
            v->n++;
    *out = v;
    return MB_OK;
}

int64_t mb__nvml_used_bytes(mb__nvml *v)
{
    if (!v)
        return -1;
    int64_t sum = 0;
    for (unsigned i = 0; i < v->n; i++) {
        nvml_memory m;
        if (v->mem(v->dev[i], &m) != 0)
            return -1;
        sum += (int64_t)m.used;
    }
    return sum;
}

void mb__nvml_close(mb__nvml *v)
{
    if (!v)
        return;
    v->shutdown();
    dlclose(v->lib);
    free(v);
}
