/* err.c - formatting of mb_err messages and status names. */
#include "err.h"

#include "redact.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Every message goes through the one redaction (core/redact.h): a
 * password in a URL, a setting or a registered argument never reaches
 * the console, a document or a store row through an error. */
static void hide_secrets(mb_err *err)
{
    char shown[sizeof err->msg];
    mb__redact_to(shown, sizeof shown, err->msg);
    memcpy(err->msg, shown, sizeof shown);
}

mb_status mb__fail(mb_err *err, mb_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
        hide_secrets(err);
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
    hide_secrets(err);
    return err->code;
}

void mb__err_clear(mb_err *err)
{
    if (err) {
        err->code = MB_OK;
        err->msg[0] = '\0';
    }
}

static const char *const status_names[] = {
    [MB_OK] = "ok",
    [MB_EINVAL] = "invalid argument",
    [MB_ENOMEM] = "out of memory",
    [MB_EIO] = "input/output error",
    [MB_EFORMAT] = "bad file format",
    [MB_EMODEL] = "unusable model",
    [MB_EBACKEND] = "runtime error",
    [MB_EDATA] = "data does not match the model",
    [MB_EUNSUPPORTED] = "unsupported",
    [MB_ECHILD] = "child process failed",
    [MB_EINTERRUPTED] = "interrupted",
};

const char *mb_status_name(mb_status s)
{
    size_t i = (size_t)s;
    return i < sizeof status_names / sizeof status_names[0] && status_names[i]
               ? status_names[i]
               : "unknown status";
}
