/* tensorrep.h - the lines `mbench tensor-dump` prints:
 *   NAME dtype=DTYPE shape=[D0,D1] sha256=HEX
 *   values: V V ...            (with values)
 *   labels N: ID ID ...
 * Floats print with enough digits to read back the same value. */
#ifndef MB_REPORT_TENSORREP_H
#define MB_REPORT_TENSORREP_H

#include "core/buf.h"
#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

/* t's line (named fallback when t has no name) and, with values, its
 * first `limit` elements (all when limit < 0). */
void mb__tensor_describe(mb__buf *b, const mb_tensor *t, const char *fallback,
                         int values, int64_t limit);
void mb__labels_describe(mb__buf *b, const int64_t *ids, size_t n);

#endif
