/* cli.c - helpers shared by every command. */
#include "cli.h"

#include "core/parse.h"
#include "core/redact.h"
#include "report/rutil.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* One line on stderr: the message with its control characters escaped
 * (a name holding a newline or a terminal escape stays on the line). */
static void put_line(const char *prefix, const char *fmt, va_list ap)
{
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    mb__buf b = MB_BUF_INIT;
    mb__buf_puts(&b, prefix);
    mb__console_put(&b, msg);
    mb__buf_putc(&b, '\n');
    fwrite(b.data ? b.data : "", 1, b.len, stderr);
    mb__buf_free(&b);
}

int mb_cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_line("mbench: error: ", fmt, ap);
    va_end(ap);
    return code;
}

void mb_cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_line("mbench: warning: ", fmt, ap);
    va_end(ap);
}

void mb_cli_doc_warnings(const json_t *doc)
{
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), i, w)
    {
        if (json_is_string(w))
            mb_cli_warn("%s", json_string_value(w));
    }
}

int mb_cli_fail(const mb_err *err)
{
    int code = MB_EXIT_RUNTIME;
    if (err->code == MB_EINVAL)
        code = MB_EXIT_USAGE;
    else if (err->code == MB_EINTERRUPTED)
        code = mb_cli_interrupted_exit();
    return mb_cli_error(code, "%s",
                        err->msg[0] ? err->msg : mb_status_name(err->code));
}

int mb_cli_bad_value(const char *flag, const char *value, const char *expect)
{
    return mb_cli_error(MB_EXIT_USAGE, "invalid value '%s' for %s: expected %s",
                        value ? value : "", flag, expect);
}

static int color_mode; /* 0 auto, 1 always, 2 never */

void mb_cli_set_color(const char *when)
{
    color_mode = !strcmp(when, "always") ? 1 : !strcmp(when, "never") ? 2 : 0;
}

int mb_cli_use_color(int fd)
{
    if (color_mode)
        return color_mode == 1;
    const char *nc = getenv("NO_COLOR"), *fc = getenv("FORCE_COLOR");
    if (nc && *nc)
        return 0;
    if (fc && *fc && strcmp(fc, "0") != 0)
        return 1;
    return isatty(fd);
}

int mb_cli_term_width(int fd)
{
    /* COLUMNS given to the command wins, so that the tables' note on
     * hidden columns ("COLUMNS=200 mbench ...") works on a terminal. */
    struct winsize ws;
    const char *c = getenv("COLUMNS");
    if (c && atoi(c) > 20)
        return atoi(c);
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return ws.ws_col;
    /* Not a terminal (a CI log, a file): every column, since nothing
     * wraps there and the dropped ones (samples/s, memory, size) are the
     * ones a log is read for. */
    return isatty(fd) ? 100 : 200;
}

static char cmdline[4096];

void mb_cli_set_command_line(int argc, char **argv)
{
    size_t off = 0;
    cmdline[0] = '\0';
    for (int i = 0; i < argc && off + 4 < sizeof cmdline; i++) {
        /* credentials never reach a document, report or store */
        char a[2048];
        mb__redact_to(a, sizeof a, argv[i]);
        int quote = strpbrk(a, " \t\"'$\\") != NULL || !*a;
        int n = snprintf(cmdline + off, sizeof cmdline - off, "%s%s%s%s",
                         i ? " " : "", quote ? "'" : "", a, quote ? "'" : "");
        if (n < 0)
            break;
        off += (size_t)n;
    }
    if (off >= sizeof cmdline)
        cmdline[sizeof cmdline - 1] = '\0';
}

const char *mb_cli_command_line(void)
{
    return cmdline;
}
