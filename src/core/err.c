/* err.c - formatting of mb_err messages and status names. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

mb_status mb__fail(mb_err *err, mb_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

mb_status mb__fail_prefix(mb_err *err, const char *fmt, ...)
{
    if (!err)
        return MB_EINVAL;
    char prefix[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    return err->code;
}

void mb__err_clear(mb_err *err)
{
    if (err) {
        err->code = MB_OK;
        err->msg[0] = '\0';
    }
}

const char *mb_status_name(mb_status s)
{
    switch (s) {
    case MB_OK:
        return "ok";
    case MB_EINVAL:
        return "invalid argument";
    case MB_ENOMEM:
        return "out of memory";
    case MB_EIO:
        return "input/output error";
    case MB_EFORMAT:
        return "bad file format";
    case MB_EMODEL:
        return "unusable model";
    case MB_EBACKEND:
        return "runtime error";
    case MB_EDATA:
        return "data does not match the model";
    case MB_EUNSUPPORTED:
        return "unsupported";
    case MB_ECHILD:
        return "child process failed";
    case MB_EINTERRUPTED:
        return "interrupted";
    }
    return "unknown status";
}
