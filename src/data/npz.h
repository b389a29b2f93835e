/* npz.h - NumPy .npz archives (zip files of .npy members, as written by
 * numpy.savez and numpy.savez_compressed) through libzip.
 *
 * Stored and deflated members are read; a member "x.npy" becomes a tensor
 * named "x" (members keep their archive order).  Members that are not .npy
 * files are refused, directory entries are skipped.  A damaged archive or
 * member is MB_EFORMAT naming the archive and the member. */
#ifndef MB_DATA_NPZ_H
#define MB_DATA_NPZ_H

#include "core/tlimit.h"
#include "mbench.h"

#include <stddef.h>

/* Reads every member of the archive at path.  *out is a new array of *n
 * tensors, each named after its member; the caller frees it with
 * mb__npz_free(*out, *n).  On failure *out is NULL and *n is 0. */
mb_status mb__npz_read(const char *path, mb_tensor **out, size_t *n,
                       mb_err *err);

/* The same from the len bytes of an archive at buf (borrowed; `what`
 * names it in messages). */
mb_status mb__npz_read_mem(const void *buf, size_t len, const char *what,
                           mb_tensor **out, size_t *n, mb_err *err);

/* The two readers above with limits (core/tlimit.h; NULL: the defaults,
 * which the readers above apply too).  Before any member is decompressed,
 * the sizes its directory declares are checked: each .npy member against
 * the size cap, the whole archive against the compression-ratio cap
 * (MB_EDATA naming the archive).  libzip stops a member that unpacks to
 * more than its declared size (MB_EFORMAT), so the check holds. */
mb_status mb__npz_read_lim(const char *path, const mb__tlimit *lim,
                           mb_tensor **out, size_t *n, mb_err *err);
mb_status mb__npz_read_mem_lim(const void *buf, size_t len, const char *what,
                               const mb__tlimit *lim, mb_tensor **out,
                               size_t *n, mb_err *err);

/* Writes n tensors as an .npz archive (stored members, like numpy.savez),
 * atomically.  Each tensor needs a distinct, non-empty name; member i is
 * "<name>.npy". */
mb_status mb__npz_write(const char *path, const mb_tensor *tensors, size_t n,
                        mb_err *err);

/* Clears each of the n tensors and frees the array.  NULL is a no-op. */
void mb__npz_free(mb_tensor *tensors, size_t n);

#endif
