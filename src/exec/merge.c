/* merge.c - merging result files (merge.h). */
#include "exec/merge.h"

#include "core/alloc.h"
#include "core/err.h"
#include "exec/suite.h"

#include <stdlib.h>

mb_status mb__merge_docs(json_t *const *docs, const char *const *names,
                         size_t n, json_t **out, mb_err *err)
{
    *out = NULL;
    for (size_t i = 0; i < n; i++)
        if (!json_is_object(docs[i]) ||
            !json_is_array(json_object_get(docs[i], "runs")))
            return mb__fail(err, MB_EINVAL,
                            "%s: not a result document (no \"runs\" array)",
                            names[i]);
    return mb__suite_merge(docs, names, n, out, err);
}

mb_status mb__merge_files(const char *const *paths, size_t n, json_t **out,
                          mb_err *err)
{
    json_t **docs = mb__calloc(n ? n : 1, sizeof *docs);
    mb_status st = docs ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
    *out = NULL;
    for (size_t i = 0; !st && i < n; i++) {
        json_error_t je;
        docs[i] = json_load_file(paths[i], 0, &je);
        if (!docs[i])
            st = mb__fail(err, MB_EIO, "%s: %s", paths[i], je.text);
    }
    if (!st)
        st = mb__merge_docs(docs, paths, n, out, err);
    for (size_t i = 0; docs && i < n; i++)
        json_decref(docs[i]);
    free(docs);
    return st;
}
