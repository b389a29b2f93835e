/* err.h - filling mb_err: the one way library code reports a failure. */
#ifndef MB_CORE_ERR_H
#define MB_CORE_ERR_H

#include "mbench.h"

/* Writes a formatted message into err (when non-NULL) and returns code.
 * Typical use: return mb__fail(err, MB_EIO, "cannot open %s: %s", p, why); */
mb_status mb__fail(mb_err *err, mb_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes an existing message: "context: old message". Returns err->code.
 * err must hold the failure being prefixed, so it is never NULL inside the
 * library: every public call that takes an mb_err substitutes a local one
 * when its caller passes NULL (api/api.c), so the status a call returns
 * does not depend on whether its caller wanted the message. */
mb_status mb__fail_prefix(mb_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clears err (code MB_OK, empty message).  NULL is a no-op. */
void mb__err_clear(mb_err *err);

#endif
