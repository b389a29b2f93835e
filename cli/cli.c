/* cli.c - helpers shared by every command. */
#include "cli.h"

#include "core/parse.h"
#include "core/redact.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int mb_cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    fputs("mbench: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

void mb_cli_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("mbench: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int mb_cli_fail(const mb_err *err)
{
    int code = MB_EXIT_RUNTIME;
    if (err->code == MB_EINVAL)
        code = MB_EXIT_USAGE;
    else if (err->code == MB_EINTERRUPTED)
        code = MB_EXIT_INTERRUPTED;
    return mb_cli_error(code, "%s",
                        err->msg[0] ? err->msg : mb_status_name(err->code));
}

int mb_cli_bad_value(const char *flag, const char *value, const char *expect)
{
    return mb_cli_error(MB_EXIT_USAGE, "invalid value '%s' for %s: expected %s",
                        value ? value : "", flag, expect);
}

int mb_cli_use_color(int fd)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
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
