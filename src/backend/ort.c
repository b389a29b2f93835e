/* ort.c - TEMPORARY placeholder while the real backend is written. */
#include "mbench_backend.h"
#include "core/err.h"
static int ort_load(const mb_backend_config *cfg, void **state, mb_err *err)
{
    (void)cfg; (void)state;
    return mb__fail(err, MB_EBACKEND, "ORT backend not built yet");
}
static const mb_backend ort_backend = {
    .abi_version = MB_BACKEND_ABI_VERSION, .struct_size = sizeof(mb_backend),
    .name = "ort", .load = ort_load,
};
const mb_backend *mb__backend_ort(void);
const mb_backend *mb__backend_ort(void) { return &ort_backend; }
