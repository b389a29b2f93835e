/* npy.h - NumPy .npy files (format versions 1.0, 2.0 and 3.0), read into
 * and written from mb_tensor.
 *
 * Reading accepts every fixed-size numeric dtype numpy writes: bool,
 * int8..int64, uint8..uint64, float16, float32, float64, complex64 and
 * complex128, in little, big ('>') or native ('=') byte order.  Elements are
 * byte-swapped to the host's order.  A fortran_order True array is
 * transposed into C order (same shape, elements rearranged), so the tensor
 * always reads as numpy's `np.ascontiguousarray(a)` would.  Structured,
 * object, string, datetime and void dtypes are refused (MB_EUNSUPPORTED).
 * A truncated or corrupt header or data is MB_EFORMAT naming the file (or
 * `what`) and the defect.
 *
 * Writing always produces a C-order, little-endian version 1.0 file (2.0
 * when the header needs more than 65535 bytes), readable by np.load.
 */
#ifndef MB_DATA_NPY_H
#define MB_DATA_NPY_H

#include "core/buf.h"
#include "core/tlimit.h"
#include "mbench.h"

#include <stddef.h>

/* Reads the .npy file at path into *out (overwritten; out->name is NULL).
 * Caller frees with mb_tensor_clear.  On failure *out is zeroed. */
mb_status mb__npy_read(const char *path, mb_tensor *out, mb_err *err);

/* Like mb__npy_read, but a C-order file in the host's byte order is not
 * read: it is mapped read-only and out->data points into the mapping (*map,
 * *map_len), so the pages are the page cache's and cost no copy.  Others
 * are read into memory (*map NULL).  Release a mapped tensor with
 * mb__npy_unmap (never mb_tensor_clear, which would free its data); its
 * name is the caller's.  A mapped tensor is read-only. */
mb_status mb__npy_map(const char *path, mb_tensor *out, void **map,
                      size_t *map_len, mb_err *err);
/* Unmaps what mb__npy_map mapped and clears t's data (nothing when map is
 * NULL: then free t with mb_tensor_clear). */
void mb__npy_unmap(mb_tensor *t, void *map, size_t map_len);

/* Same, from the len bytes at buf; `what` names the source in messages
 * (a path, or "archive.npz member x.npy"). */
mb_status mb__npy_read_mem(const void *buf, size_t len, const char *what,
                           mb_tensor *out, mb_err *err);

/* The two readers above with a size cap (core/tlimit.h; NULL: the
 * default, which the readers above apply too): a tensor whose header
 * declares more bytes than the cap is MB_EDATA before anything is
 * allocated. */
mb_status mb__npy_read_lim(const char *path, const mb__tlimit *lim,
                           mb_tensor *out, mb_err *err);
mb_status mb__npy_read_mem_lim(const void *buf, size_t len, const char *what,
                               const mb__tlimit *lim, mb_tensor *out,
                               mb_err *err);

/* Appends the .npy encoding of t to *out (the caller owns the buffer and
 * frees it with mb__buf_free).  bfloat16, string and undefined tensors are
 * refused with MB_EUNSUPPORTED (numpy has no such dtype). */
mb_status mb__npy_encode(const mb_tensor *t, mb__buf *out, mb_err *err);

/* Writes t to path as .npy, atomically (mb__write_file_atomic). */
mb_status mb__npy_write(const char *path, const mb_tensor *t, mb_err *err);

/* The numpy descr of a dtype as this module writes it ("<f4", "|b1"), or
 * NULL for a dtype numpy cannot represent. */
const char *mb__npy_descr(mb_dtype t);

#endif
