/* machine.h - this machine's practical peaks, measured once and cached:
 *  - single-precision GEMM throughput through OpenBLAS's cblas_sgemm
 *    (square n x n, 2 n^3 FLOPs per call, best of several calls), on one
 *    core (openblas_set_num_threads(1)) and on all cores;
 *  - memory bandwidth with a STREAM-like triad a[i] = b[i] + s * c[i]
 *    over double arrays each at least 4x the last-level cache, counting
 *    24 bytes per element (STREAM's convention: no write-allocate
 *    traffic), best of several passes, one thread and one pthread per
 *    logical CPU (first-touch placement);
 *  - a hardware-counter self-test (counters.h).
 * The cache is JSON at $XDG_CACHE_HOME/mbench/machine.json (else
 * ~/.cache/mbench/machine.json), valid while CPU model and logical core
 * count are unchanged.  Layout in docs/PROFILE.md. */
#ifndef MB_PROFILE_MACHINE_H
#define MB_PROFILE_MACHINE_H

#include "mbench.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Measures now (about two seconds).  *out is a new object: schema, key
 * {cpu_model, logical_cores}, sgemm {n, one_core_gflops,
 * all_cores_gflops, threads}, triad {bytes_per_array, one_core_gbps,
 * all_cores_gbps, threads}, counters, measured_utc, blas, loadavg_1min
 * (the system's load while measuring: a busy machine lowers the peaks). */
mb_status mb__machine_measure(json_t **out, mb_err *err);

/* The cache file's path into buf.  Fails (MB_EINVAL) when neither
 * XDG_CACHE_HOME nor HOME is set. */
mb_status mb__machine_cache_path(char *buf, size_t len, mb_err *err);

/* Reads the cache at path.  *out is NULL (and MB_OK returned) when the
 * file is missing, unreadable as a machine record, or was measured on
 * another CPU (key mismatch).  Caller json_decrefs *out. */
mb_status mb__machine_load(const char *path, json_t **out, mb_err *err);

/* Whether the parsed cache record m (borrowed) is a machine record of
 * this schema for `key` ({cpu_model, logical_cores} of this machine) whose
 * peaks are finite and not negative.  What mb__machine_load applies. */
bool mb__machine_accept(const json_t *m, const json_t *key);

/* Writes m to path atomically, creating the directory. */
mb_status mb__machine_save(const char *path, const json_t *m, mb_err *err);

/* The cached record, or measures and caches it (refresh: always
 * measure).  *from_cache says which.  A cache that cannot be written is
 * not an error (the measurement is returned). */
mb_status mb__machine_get(int refresh, json_t **out, int *from_cache,
                          mb_err *err);

#endif
