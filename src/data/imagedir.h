/* imagedir.h - a directory of PNG/JPEG images as a data set: the
 * ImageFolder convention (torchvision's: one subfolder per class, classes
 * numbered by their sorted names, files in sorted order of their paths),
 * or images directly in the directory (no labels).  The listing gives the
 * labels without decoding anything (compare and validate read them when
 * --labels is not given); the loader decodes and preprocesses every image
 * (image.h) into one tensor for a model input.  docs/DATA.md ("Images"). */
#ifndef MB_DATA_IMAGEDIR_H
#define MB_DATA_IMAGEDIR_H

#include "data/image.h"
#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

/* At most this many images in one directory tree, and this many bytes of
 * decoded input (the data set is held in memory). */
#define MB_IMAGE_MAX_FILES 10000000
#define MB_IMAGE_MAX_BYTES ((size_t)4 << 30)

typedef struct mb__image_list {
    char **paths;    /* n full paths, in data-set order */
    int64_t *labels; /* n class ids, or NULL (images without class folders) */
    size_t n;
    char **classes; /* n_classes folder names, sorted (class id = index) */
    size_t n_classes;
} mb__image_list;

/* Lists the images under dir.  n = 0 (MB_OK) when dir holds no image
 * files, so the caller can try other layouts.  MB_EDATA (naming the file
 * or folder and the fix) for an image type mbench does not read (.bmp,
 * .tif, .webp, ...), a class folder without images, images both in class
 * folders and beside them, or more than MB_IMAGE_MAX_FILES; MB_EIO when
 * unreadable. */
mb_status mb__image_dir_list(const char *dir, mb__image_list *out, mb_err *err);
void mb__image_list_free(mb__image_list *l);

/* The class ids of the images under data_path when it is an image
 * folder with class folders: *labels (caller frees) gets one per image in
 * data-set order, *n_classes the number of classes; *labels stays NULL
 * (MB_OK) for anything else (a file, another layout, images without
 * class folders).  Errors as mb__image_dir_list. */
mb_status mb__image_dir_labels(const char *data_path, int64_t **labels,
                               size_t *n, size_t *n_classes, mb_err *err);

/* Decodes and preprocesses every listed image into *out (caller clears),
 * [n, sample dims...] for a model input of the given rank, dims (< 0
 * symbolic: taken from the first image) and dtype: a batch axis is added
 * in front of an input without one.  Each image is decoded under lim, the
 * tensor cap (NULL: the default).  Errors name the image (image.h). */
mb_status mb__image_list_tensor(const mb__image_list *l, const char *input,
                                int rank, const int64_t *dims, mb_dtype dtype,
                                const mb__image_prep *prep,
                                const mb__tlimit *lim, mb_tensor *out,
                                mb_err *err);

#endif
