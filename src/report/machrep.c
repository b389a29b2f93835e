/* machrep.c - the console form of a machine record (machrep.h). */
#include "report/machrep.h"

#include "report/rutil.h"

#include <math.h>
#include <stdio.h>

void mb__machine_console(mb__buf *b, const json_t *m, int from_cache)
{
    const char *when = json_string_value(json_object_get(m, "measured_utc"));
    const char *path = json_string_value(json_object_get(m, "cache_path"));
    const json_t *key = json_object_get(m, "key");
    mb__buf_printf(b, "Machine peaks (%s %s%s%s)\n",
                   from_cache ? "cached, measured" : "measured",
                   when ? when : "?",
                   path ? (from_cache ? "; " : "; saved to ") : "; not cached",
                   path ? path : "");
    mb__buf_printf(b, "  %-18s %s, %.0f logical cores\n", "cpu",
                   json_string_value(json_object_get(key, "cpu_model"))
                       ? json_string_value(json_object_get(key, "cpu_model"))
                       : "unknown",
                   mb__jnum(m, "key.logical_cores"));
    mb__buf_printf(b,
                   "  %-18s %8.1f GFLOP/s   (OpenBLAS cblas_sgemm, n=%.0f)\n",
                   "sgemm one core", mb__jnum(m, "sgemm.one_core_gflops"),
                   mb__jnum(m, "sgemm.n"));
    mb__buf_printf(b, "  %-18s %8.1f GFLOP/s   (%.0f threads)\n",
                   "sgemm all cores", mb__jnum(m, "sgemm.all_cores_gflops"),
                   mb__jnum(m, "sgemm.threads"));
    mb__buf_printf(b, "  %-18s %8.1f GB/s      (triad, 3 arrays of %.0f MiB)\n",
                   "triad one core", mb__jnum(m, "triad.one_core_gbps"),
                   mb__jnum(m, "triad.bytes_per_array") / 1048576.0);
    mb__buf_printf(b, "  %-18s %8.1f GB/s      (%.0f threads)\n",
                   "triad all cores", mb__jnum(m, "triad.all_cores_gbps"),
                   mb__jnum(m, "triad.threads"));
    char why[256];
    if (mb__machine_narrow_blas(m, why, sizeof why))
        mb__buf_printf(b, "  %-18s %s\n", "note", why);
    const json_t *load = json_object_get(m, "loadavg_1min");
    if (json_is_number(load) &&
        json_number_value(load) > 0.5 * mb__jnum(m, "key.logical_cores"))
        mb__buf_printf(
            b,
            "  %-18s load average was %.1f while measuring: the peaks may "
            "be low; re-run with --refresh on an idle machine\n",
            "note", json_number_value(load));
    const json_t *c = json_object_get(m, "counters");
    if (json_is_true(json_object_get(c, "available")))
        mb__buf_printf(b, "  %-18s available (test loop: IPC %.2f)\n",
                       "hw counters",
                       json_number_value(json_object_get(c, "ipc")));
    else
        mb__buf_printf(b, "  %-18s not available: %s\n", "hw counters",
                       json_string_value(json_object_get(c, "reason"))
                           ? json_string_value(json_object_get(c, "reason"))
                           : "unknown");
}

bool mb__machine_narrow_blas(const json_t *m, char *why, size_t len)
{
    const json_t *sg = json_object_get(m, "sgemm");
    double kb = mb__jnum(sg, "blas_vector_bits"),
           cb = mb__jnum(sg, "cpu_vector_bits");
    if (!(isfinite(kb) && isfinite(cb) && kb < cb))
        return false;
    const char *core = json_string_value(json_object_get(sg, "blas_core"));
    snprintf(
        why, len,
        "OpenBLAS runs its %s kernels (%.0f-bit vectors) on this CPU, "
        "whose vectors are %.0f bits wide: the sgemm peak can be below what "
        "kernels using the whole vector reach (ONNX Runtime's do)",
        core ? core : "older", kb, cb);
    return true;
}
