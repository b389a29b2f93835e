/* extdata.h - where an ONNX tensor's external data may come from, by the
 * rules ONNX Runtime applies when it loads a model (checked against
 * ONNX Runtime 1.30): the location is a relative path that stays inside
 * the model's directory once symlinks are resolved, names a regular file,
 * its `length` (when given) is the byte size the tensor's dims call for,
 * and offset + that size lies within the file.  `mbench info` lists the
 * entries that break a rule as refused (and counts none of their bytes);
 * the .pb reader refuses to read them.  No file outside the directory is
 * opened or measured. */
#ifndef MB_MODEL_EXTDATA_H
#define MB_MODEL_EXTDATA_H

#include <stddef.h>
#include <stdint.h>

typedef enum mb__ext_verdict {
    MB__EXT_OK = 0,      /* contained, a regular file, within bounds */
    MB__EXT_MISSING = 1, /* inside the directory, but not there */
    MB__EXT_REFUSED = 2  /* breaks a rule: why in reason */
} mb__ext_verdict;

typedef struct mb__ext_req {
    const char *dir;      /* the model's directory (NULL: ".") */
    const char *real_dir; /* the directory of the model's real path when it
                             is a symlink, also allowed; may be NULL */
    const char *location; /* as written in the model, NUL-terminated */
    uint64_t offset;      /* the `offset` key (0 when absent) */
    int has_length;
    uint64_t length; /* the `length` key */
    int has_need;    /* the byte size of the dims is known */
    uint64_t need;   /* that size */
} mb__ext_req;

typedef struct mb__ext_result {
    char *path;         /* dir/location when OK (caller frees), else NULL */
    uint64_t file_size; /* when OK */
    uint64_t bytes;     /* the tensor's bytes in the file when OK: length,
                           need, or the file size less offset */
    char reason[200];   /* when MISSING or REFUSED: a short clause */
} mb__ext_result;

/* Applies the rules above; *res is filled (res->path set only for OK).
 * Never fails otherwise: out of memory is a refusal saying so. */
mb__ext_verdict mb__ext_check(const mb__ext_req *rq, mb__ext_result *res);

#endif
