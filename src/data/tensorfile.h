/* tensorfile.h - the tensor files `mbench tensor-dump` reads and writes:
 * .npy, .npz or ONNX TensorProto (.pb) chosen by magic bytes and name, the
 * sha256 of a tensor's C-order little-endian bytes (what numpy gives for
 * np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes()),
 * and the NAME:DTYPE:DIMS input spec of --data. */
#ifndef MB_DATA_TENSORFILE_H
#define MB_DATA_TENSORFILE_H

#include "core/tlimit.h"
#include "mbench.h"
#include "mbench_backend.h"

#include <stdbool.h>
#include <stddef.h>

/* Reads every tensor of path (.npz: all its arrays; .npy or .pb: one)
 * into a new array, free with mb__npz_free(*out, *n).  A tensor without a
 * name is given the file's base name less its extension. */
mb_status mb__tensor_file_read(const char *path, mb_tensor **out, size_t *n,
                               mb_err *err);
/* The same under limits (core/tlimit.h; NULL: the defaults). */
mb_status mb__tensor_file_read_lim(const char *path, const mb__tlimit *lim,
                                   mb_tensor **out, size_t *n, mb_err *err);

/* Writes ts to path: any number to a .npz path, exactly one to any other
 * (as .npy); MB_EINVAL for several tensors and a path not ending .npz. */
mb_status mb__tensor_file_write(const char *path, const mb_tensor *ts, size_t n,
                                mb_err *err);

/* Tensors collected for mb__tensor_file_write (owned). */
typedef struct mb__tensor_list {
    mb_tensor *t;
    size_t n, cap;
} mb__tensor_list;

/* Moves *t into l (t is left zeroed), named fallback when it has no name.
 * MB_ENOMEM (t then cleared). */
mb_status mb__tensor_list_take(mb__tensor_list *l, mb_tensor *t,
                               const char *fallback, mb_err *err);
void mb__tensor_list_free(mb__tensor_list *l);

/* The sha256 (hex) of t's elements as C-order little-endian bytes. */
void mb__tensor_sha256_le(const mb_tensor *t, char hex[65]);

/* Parses "NAME:DTYPE:DIMS" (DIMS comma-separated integers, -1 or a name
 * for a symbolic dimension, or "?" for an unknown rank) into d, in place:
 * the names point into spec, which must outlive d.  0, or -1 when spec is
 * not of that form. */
bool mb__io_desc_parse(char *spec, mb_io_desc *d);

#endif
