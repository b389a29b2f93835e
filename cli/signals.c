/* signals.c - SIGINT and SIGTERM for every command: the cancel flag the
 * engines poll, and the exit code of an interrupted run (cli.h).  Calls
 * nothing else of cli/, so no two files of cli/ call into each other. */
#include "cli.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile int cancel_flag;
static volatile int hard_second;
static volatile sig_atomic_t last_signal;

static void on_signal(int sig)
{
    last_signal = sig;
    if (cancel_flag && hard_second)
        _exit(128 + sig);
    cancel_flag = 1;
}

int mb_cli_interrupted_exit(void)
{
    return last_signal ? 128 + last_signal : MB_EXIT_INTERRUPTED;
}

volatile int *mb_cli_cancel_flag(int second_exits)
{
    hard_second = second_exits;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: poll() returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &cancel_flag;
}
