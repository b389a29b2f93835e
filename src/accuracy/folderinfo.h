/* folderinfo.h - what the validate and compare documents say about an
 * image folder they ran on (data/imagedir.h, ImageFolder): the folder ->
 * class-id map, and the image behind each worst sample of the output
 * metrics, so "worst sample #962" names its file.  docs/DATA.md
 * ("Images"), docs/ACCURACY.md. */
#ifndef MB_ACCURACY_FOLDERINFO_H
#define MB_ACCURACY_FOLDERINFO_H

#include "mbench.h"

#include <jansson.h>

/*
 * When data_path is a directory of images: *info (caller json_decref) =
 * {path, images, classes: [{folder, id, images}], files: [every image in
 * data-set order]} (a document keeps all but "files"; classes empty for
 * images without class folders; id is the label the class folder gives,
 * its index in sorted order) and every entry of the "worst" object of each
 * metrics object in outs (may be NULL) gains "file": that sample's image,
 * as a path under data_path.  *info NULL (MB_OK) for any other data.
 * Errors as mb__image_dir_list.
 */
mb_status mb__folder_info(const char *data_path, json_t *outs, json_t **info,
                          mb_err *err);

/* Adds "file" to the worst entries of the metrics objects in outs from
 * the "files" of an info made by mb__folder_info. */
void mb__folder_worst_files(const json_t *info, json_t *outs);

#endif
