/* extdata.c - containment and bounds of ONNX external data (extdata.h). */
#include "model/extdata.h"

#include "core/alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether the relative path loc climbs above its start ("a/../../b"). */
static int climbs_out(const char *loc)
{
    long depth = 0;
    for (const char *p = loc; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return 1;
        } else if (n && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n + (p[n] == '/');
    }
    return 0;
}

/* Whether the real path `real` lies inside the directory `dir` (its real
 * path taken here). */
static int inside(const char *real, const char *dir)
{
    if (!dir)
        return 0;
    char *rd = realpath(dir, NULL);
    if (!rd)
        return 0;
    size_t n = strlen(rd);
    int in = strncmp(real, rd, n) == 0 &&
             (real[n] == '/' || (n == 1 && rd[0] == '/'));
    free(rd);
    return in;
}

/* Refuses with the reason already in res->reason, or `why` when given. */
static mb__ext_verdict refuse(mb__ext_result *res, const char *why)
{
    if (why)
        snprintf(res->reason, sizeof res->reason, "%s", why);
    free(res->path);
    res->path = NULL;
    return MB__EXT_REFUSED;
}

/* The bounds: length against the dims, offset + size against the file. */
static mb__ext_verdict check_bounds(const mb__ext_req *rq, mb__ext_result *res)
{
    uint64_t size = res->file_size;
    if (rq->has_length && rq->has_need && rq->length != rq->need) {
        snprintf(res->reason, sizeof res->reason,
                 "its length %" PRIu64 " is not the %" PRIu64
                 " bytes its dims need",
                 rq->length, rq->need);
        return refuse(res, NULL);
    }
    uint64_t want = rq->has_length ? rq->length : rq->has_need ? rq->need : 0;
    if (rq->offset > size || want > size - rq->offset) {
        snprintf(res->reason, sizeof res->reason,
                 "the file holds %" PRIu64 " bytes: offset %" PRIu64
                 " + %" PRIu64 " bytes run past its end",
                 size, rq->offset, want);
        return refuse(res, NULL);
    }
    res->bytes = rq->has_length || rq->has_need ? want : size - rq->offset;
    return MB__EXT_OK;
}

mb__ext_verdict mb__ext_check(const mb__ext_req *rq, mb__ext_result *res)
{
    memset(res, 0, sizeof *res);
    const char *loc = rq->location, *dir = rq->dir ? rq->dir : ".";
    if (loc[0] == '/')
        return refuse(res, "an absolute path (only paths inside the model's "
                           "directory are allowed)");
    if (climbs_out(loc))
        return refuse(res, "outside the model's directory");
    size_t n = strlen(dir) + strlen(loc) + 2;
    if (!(res->path = mb__malloc(n)))
        return refuse(res, "out of memory");
    snprintf(res->path, n, "%s/%s", dir, loc);
    char *real = realpath(res->path, NULL);
    if (!real) {
        int e = errno;
        snprintf(res->reason, sizeof res->reason, "%s", strerror(e));
        free(res->path);
        res->path = NULL;
        return e == ENOENT || e == ENOTDIR ? MB__EXT_MISSING : MB__EXT_REFUSED;
    }
    int ok = inside(real, dir) || inside(real, rq->real_dir);
    struct stat st;
    int reg = stat(real, &st) == 0 && S_ISREG(st.st_mode);
    free(real);
    if (!ok)
        return refuse(res, "outside the model's directory once symlinks are "
                           "resolved");
    if (!reg)
        return refuse(res, "not a regular file");
    res->file_size = (uint64_t)st.st_size;
    return check_bounds(rq, res);
}
