/* tensordump.h - what `mbench tensor-dump` shows: the tensors mbench reads
 * from a tensor file or from a --data path (as `mbench run --data` loads
 * it), one line each (report/tensorrep.h), and the class ids of a labels
 * file.  Each call appends its lines to a buffer; the tensors can be kept
 * for writing back (--save). */
#ifndef MB_REPORT_TENSORDUMP_H
#define MB_REPORT_TENSORDUMP_H

#include "core/buf.h"
#include "data/tensorfile.h"
#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

/* How tensors are shown, and where they are kept (NULL: freed). */
typedef struct mb__dump_opts {
    int values;            /* also the elements */
    int64_t limit;         /* at most this many elements (< 0: all) */
    mb__tensor_list *keep; /* tensors moved here for --save, or NULL */
    mb__tlimit tlimit;     /* --max-tensor-bytes, --max-compression-ratio */
} mb__dump_opts;

/* Every tensor of the file at path (.npy, .npz, .pb). */
mb_status mb__dump_file(const char *path, const mb__dump_opts *o, mb__buf *out,
                        mb_err *err);
/* "# DESCRIPTION" of the data set at path, loaded for inputs[0..n), then
 * the batch of samples first..first+batch-1, one tensor per input named
 * after it.  What was appended before a failure stays in out. */
mb_status mb__dump_data(const char *path, const mb_io_desc *inputs, size_t n,
                        size_t first, int64_t batch, const mb__dump_opts *o,
                        mb__buf *out, mb_err *err);
/* "labels N: ID ID ..." of a labels file (.npy or text). */
mb_status mb__dump_labels(const char *path, mb__buf *out, mb_err *err);

#endif
