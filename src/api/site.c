/* site.c - mb_site (mbench.h): the API's way into the request of `mbench
 * site` (report/siterun.h), with the options as "KEY=VALUE" strings. */
#include "mbench.h"

#include "core/err.h"
#include "report/siterun.h"

#include <string.h>

/* Points the request member named by "KEY=VALUE" at VALUE. */
static mb_status set_opt(mb__site_req *rq, const char *kv, mb_err *err)
{
    static const char *const keys[] = {"commit-url", "git-dir", "branch",
                                       "compare", "baseline"};
    const char **const dst[] = {&rq->commit_url, &rq->git_dir, &rq->branch,
                                &rq->compare, &rq->baseline};
    const char *eq = kv ? strchr(kv, '=') : NULL;
    if (!eq || eq == kv || !eq[1])
        return mb__fail(err, MB_EINVAL,
                        "site option '%s' is not KEY=VALUE (keys: commit-url, "
                        "git-dir, branch, compare, baseline)",
                        kv ? kv : "(null)");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == (size_t)(eq - kv) &&
            strncmp(kv, keys[i], (size_t)(eq - kv)) == 0) {
            *dst[i] = eq + 1;
            return MB_OK;
        }
    return mb__fail(err, MB_EINVAL,
                    "unknown site option '%.*s' (keys: commit-url, git-dir, "
                    "branch, compare, baseline)",
                    (int)(eq - kv), kv);
}

mb_status mb_site(const char *db, const char *out_dir, const char *const *opts,
                  size_t n, size_t *written, mb_err *err)
{
    mb__site_req rq = {db, out_dir, NULL, NULL, NULL, NULL, NULL};
    mb__site_result res = {0};
    if (written)
        *written = 0;
    if (n && !opts)
        return mb__fail(err, MB_EINVAL, "mb_site: opts is NULL but n is %zu",
                        n);
    for (size_t i = 0; i < n; i++) {
        mb_status st = set_opt(&rq, opts[i], err);
        if (st)
            return st;
    }
    mb_status st = mb__site_request(&rq, &res, err);
    if (!st && written)
        *written = res.written;
    return st;
}
