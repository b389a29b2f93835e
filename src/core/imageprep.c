/* The option values of image preprocessing (see imageprep.h). */
#include "core/imageprep.h"

#include "core/err.h"
#include "core/parse.h"

#include <string.h>

mb_status mb__image_size_parse(const char *flag, const char *v, int64_t *h,
                               int64_t *w, mb_err *err)
{
    char a[32];
    const char *x = v ? strchr(v, 'x') : NULL;
    *h = *w = 0;
    int ok = v && *v;
    if (ok && x && (size_t)(x - v) < sizeof a) {
        memcpy(a, v, (size_t)(x - v));
        a[x - v] = '\0';
        ok = mb__parse_i64(a, 1, MB_IMAGE_MAX_SIDE, h) &&
             mb__parse_i64(x + 1, 1, MB_IMAGE_MAX_SIDE, w);
    } else if (ok) {
        ok = !x && mb__parse_i64(v, 1, MB_IMAGE_MAX_SIDE, h);
    }
    if (!ok)
        return mb__fail(err, MB_EINVAL,
                        "invalid value '%s' for %s: expected a size such as "
                        "256 (the shorter side) or 224x224 (HxW), at most %d",
                        v ? v : "", flag, MB_IMAGE_MAX_SIDE);
    return MB_OK;
}

mb_status mb__image_triple_parse(const char *flag, const char *v, double *out,
                                 int *n, mb_err *err)
{
    *n = 0;
    const char *p = v ? v : "";
    while (*p && *n < 4) {
        char num[64];
        size_t k = strcspn(p, ",");
        if (k == 0 || k >= sizeof num)
            break;
        memcpy(num, p, k);
        num[k] = '\0';
        if (!mb__parse_double(num, -1e30, 1e30, &out[*n]))
            break;
        (*n)++;
        p += k;
        if (*p == ',')
            p++;
        else
            break;
    }
    if (*p || *n == 0 || (*n != 1 && *n != 3 && *n != 4))
        return mb__fail(err, MB_EINVAL,
                        "invalid value '%s' for %s: expected one number or "
                        "one per channel, e.g. 0.485,0.456,0.406",
                        v ? v : "", flag);
    return MB_OK;
}
