/* tlimit.h - bounds on untrusted tensor data (issue 26): the largest
 * tensor a reader may allocate, and the largest compression ratio of an
 * archive it may decompress.  Readers check them against the sizes a file
 * declares (an .npy header, an .npz directory) before anything is
 * decompressed or allocated, so a 2 MB archive claiming 2 GiB of zeros is
 * refused in microseconds, not after seconds and gigabytes.
 *
 * A limit is plain data passed down with a request; NULL (or zero fields)
 * means the defaults. */
#ifndef MB_CORE_TLIMIT_H
#define MB_CORE_TLIMIT_H

#include "mbench.h"

#include <stdbool.h>
#include <stdint.h>

/* Archives whose members unpack to less than this are never refused for
 * their compression ratio (64 MiB). */
#define MB__TLIMIT_RATIO_FLOOR ((uint64_t)64 << 20)
/* The default compression-ratio cap: deflate reaches ~1032:1 on zeros;
 * real tensors reach far less. */
#define MB__TLIMIT_RATIO_DEFAULT 200.0

typedef struct mb__tlimit {
    uint64_t max_bytes; /* largest tensor; 0: mb__tlimit_default_bytes() */
    double max_ratio;   /* unpacked/packed; 0: the default; < 0: no cap */
} mb__tlimit;

/* The options that set a limit, as every command shows them. */
#define MB__TLIMIT_BYTES_HELP                                                  \
    "refuse tensors in files larger than SIZE, before reading them (default "  \
    "a quarter of memory)"
#define MB__TLIMIT_BYTES_EXPECT "a size such as 512M, 4G or 1073741824"
#define MB__TLIMIT_RATIO_HELP                                                  \
    "refuse archives that unpack to more than R times their size (default "    \
    "200; 0: no cap; archives under 64 MiB unpacked always pass)"
#define MB__TLIMIT_RATIO_EXPECT "a ratio such as 200, or 0 for no cap"

/* Sets l's byte cap from an option value ("4G"); false when it does not
 * parse (core/parse.h, mb__parse_bytes) or is 0. */
bool mb__tlimit_set_bytes(mb__tlimit *l, const char *value);
/* Sets l's ratio cap from an option value: 0 means no cap. */
void mb__tlimit_set_ratio(mb__tlimit *l, double ratio);

/* A quarter of the memory this process may use: physical memory, or the
 * cgroup's memory.max when that is smaller (two tensors of a diff and a
 * working copy still fit). */
uint64_t mb__tlimit_default_bytes(void);

/* The cap l applies (l may be NULL). */
uint64_t mb__tlimit_bytes(const mb__tlimit *l);

/* MB_EDATA naming `what` (a file, an archive member), its size, the cap
 * and the flag that raises it, when a tensor of nbytes is above the cap;
 * else MB_OK. */
mb_status mb__tlimit_check(const mb__tlimit *l, uint64_t nbytes,
                           const char *what, mb_err *err);

/* MB_EDATA when an archive of `packed` bytes whose members declare
 * `unpacked` bytes in all (counted from its directory, before anything is
 * decompressed) unpacks more than the ratio cap allows; archives that
 * unpack to less than MB__TLIMIT_RATIO_FLOOR always pass. */
mb_status mb__tlimit_check_ratio(const mb__tlimit *l, uint64_t unpacked,
                                 uint64_t packed, const char *what,
                                 mb_err *err);

#endif
