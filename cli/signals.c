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

/* What a model call that outlasts the grace (a Python model inside one
 * long call in this very process: --processes 1) would hold up. */
#define CANCEL_GRACE_S 5

static void on_grace_over(int sig)
{
    (void)sig;
    static const char msg[] = "mbench: interrupted: the current call did not "
                              "end within 5 s of the signal; stopped without "
                              "a report\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(128 + (last_signal ? last_signal : SIGTERM));
}

static void on_signal(int sig)
{
    last_signal = sig;
    if (cancel_flag && hard_second)
        _exit(128 + sig);
    cancel_flag = 1;
    if (hard_second) { /* one signal ends the run, at the latest after the grace
                        */
        signal(SIGALRM, on_grace_over);
        alarm(CANCEL_GRACE_S);
    }
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
