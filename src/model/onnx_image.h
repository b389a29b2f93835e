/*
 * onnx_image.h - a "sparse image" of an ONNX file: an anonymous mapping as
 * large as the file that holds every byte of it at the same offset EXCEPT
 * the data payloads of TensorProtos (raw_data and the typed data fields),
 * which stay untouched zero pages.  The file is read with pread through a
 * small window, descending only into the message fields that can hold
 * tensors (ModelProto.graph, GraphProto.node/initializer/
 * sparse_initializer, NodeProto.attribute, AttributeProto.t/g/tensors/
 * graphs/sparse_tensor(s), SparseTensorProto.values/indices).
 *
 * Why not mmap the file: on current kernels a read fault on a file mapping
 * maps the whole (large) page-cache folio, so touching one tensor header
 * per weight can map most of a freshly written model into RSS.  The image
 * costs only the bytes the walk copies (graph structure, names, shapes).
 * Malformed regions are copied verbatim so the protobuf reader that parses
 * the image later reports the error at its true offset.
 */
#ifndef MB_MODEL_ONNX_IMAGE_H
#define MB_MODEL_ONNX_IMAGE_H

#include "core/fileio.h"
#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

typedef struct mb__onnx_image {
    mb__map map;   /* file-sized; weight payloads read as zeros */
    size_t copied; /* bytes actually read from the file */
} mb__onnx_image;

/* Builds the image of the file at path.  Fails with MB_EIO (cannot open or
 * read) or MB_ENOMEM.  An empty file gives len 0 and data NULL.  Caller
 * frees with mb__onnx_image_free. */
mb_status mb__onnx_image_load(const char *path, mb__onnx_image *img,
                              mb_err *err);
/* Frees the image; NULL or an empty image is a no-op. */
void mb__onnx_image_free(mb__onnx_image *img);

#endif
