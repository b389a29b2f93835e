/* tlimit.c - bounds on untrusted tensor data (tlimit.h). */
#include "core/tlimit.h"

#include "core/err.h"
#include "core/parse.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The cgroup v2 memory limit of this process, or 0 when there is none. */
static uint64_t cgroup_limit(void)
{
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (!f)
        return 0;
    char buf[64] = "";
    uint64_t v = 0;
    if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9')
        v = strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

uint64_t mb__tlimit_default_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t mem = pages > 0 && psize > 0
                       ? (uint64_t)pages * (uint64_t)psize
                       : (uint64_t)4 << 30; /* unknown: assume 4 GiB */
    uint64_t cg = cgroup_limit();
    if (cg && cg < mem)
        mem = cg;
    return mem / 4;
}

bool mb__tlimit_set_bytes(mb__tlimit *l, const char *value)
{
    uint64_t b;
    if (!mb__parse_bytes(value, &b) || b == 0)
        return false;
    l->max_bytes = b;
    return true;
}

void mb__tlimit_set_ratio(mb__tlimit *l, double ratio)
{
    l->max_ratio = ratio > 0 ? ratio : -1;
}

uint64_t mb__tlimit_bytes(const mb__tlimit *l)
{
    return l && l->max_bytes ? l->max_bytes : mb__tlimit_default_bytes();
}

/* "1.5 GiB" */
static const char *human(uint64_t b, char *buf, size_t len)
{
    static const char *const u[] = {"bytes", "KiB", "MiB", "GiB",
                                    "TiB",   "PiB", "EiB"};
    double v = (double)b;
    int i = 0;
    while (v >= 1024 && i < 6) {
        v /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(buf, len, "%" PRIu64 " bytes", b);
    else
        snprintf(buf, len, "%.3g %s", v, u[i]);
    return buf;
}

mb_status mb__tlimit_check(const mb__tlimit *l, uint64_t nbytes,
                           const char *what, mb_err *err)
{
    uint64_t cap = mb__tlimit_bytes(l);
    if (nbytes <= cap)
        return MB_OK;
    char a[32], b[32];
    return mb__fail(err, MB_EDATA,
                    "%s: a tensor of %s is larger than the %s that "
                    "--max-tensor-bytes allows (default: a quarter of this "
                    "machine's memory); nothing was allocated; raise it "
                    "(--max-tensor-bytes %" PRIu64 ") if the file is trusted",
                    what, human(nbytes, a, sizeof a), human(cap, b, sizeof b),
                    nbytes);
}

mb_status mb__tlimit_check_ratio(const mb__tlimit *l, uint64_t unpacked,
                                 uint64_t packed, const char *what, mb_err *err)
{
    double cap = l && l->max_ratio ? l->max_ratio : MB__TLIMIT_RATIO_DEFAULT;
    if (cap < 0 || unpacked < MB__TLIMIT_RATIO_FLOOR ||
        (double)unpacked <= cap * (double)(packed ? packed : 1))
        return MB_OK;
    char a[32], b[32];
    return mb__fail(err, MB_EDATA,
                    "%s: %s of compressed data unpack to %s (%.0f:1, above "
                    "the %.0f:1 that --max-compression-ratio allows): a "
                    "decompression bomb?  Nothing was decompressed; pass "
                    "--max-compression-ratio 0 if the file is trusted",
                    what, human(packed, a, sizeof a),
                    human(unpacked, b, sizeof b),
                    (double)unpacked / (double)(packed ? packed : 1), cap);
}
