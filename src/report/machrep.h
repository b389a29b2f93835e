/* machrep.h - the console form of a machine record (profile/machine.h:
 * sgemm and triad peaks, counters), for `mbench machine`. */
#ifndef MB_REPORT_MACHREP_H
#define MB_REPORT_MACHREP_H

#include "core/buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The peaks, where they came from (from_cache: the cache, else measured
 * now), a note when the machine was loaded while measuring, and whether
 * hardware counters can be read. */
void mb__machine_console(mb__buf *b, const json_t *m, int from_cache);

/* Whether the record's sgemm peak came from OpenBLAS kernels narrower than
 * the CPU's vectors (an OpenBLAS older than the CPU), so that a model can
 * run above "100% of peak"; if so, the reason in one sentence in why. */
bool mb__machine_narrow_blas(const json_t *m, char *why, size_t len);

#endif
