/* main.c - the mbench command: dispatches to cli/cmd_*.c. */
#include "cli.h"
#include "opt.h"

#include "core/redact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef MBENCH_COMMAND
#define MBENCH_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.inc"
#undef MBENCH_COMMAND

#define MBENCH_COMMAND(name, fn, summary) {#name, fn, summary},
static const mb__cmd_entry commands[] = {
#include "commands.inc"
};
#undef MBENCH_COMMAND
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static int usage(FILE *f, int code)
{
    fprintf(f, "usage: mbench COMMAND [OPTIONS]\n\n"
               "Benchmark and validate machine-learning model inference.\n\n"
               "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'mbench COMMAND --help' (or 'mbench help COMMAND') shows "
               "a command's options; "
               "docs/CLI.md and 'man mbench' document them all.\n"
               "Exit codes: 0 ok, 1 verdict failed, 2 usage error, "
               "3 runtime error, 4 inconclusive, 5 accuracy gate failed, "
               "6 a --require requirement not met, 130 interrupted "
               "(Ctrl-C), 143 terminated (SIGTERM).\n"
               "-V, --version prints the version.  Environment: 'man "
               "mbench' (ENVIRONMENT) and docs/CLI.md.\n");
    return code;
}

/* The bytes of arg that redaction hides, overwritten with '*' in place
 * (from the first to the last byte that differs): /proc/PID/cmdline reads
 * this memory, for mbench and for the workers it forks.  argv[i] itself
 * is pointed at a copy, which the program goes on using. */
static void mask_in_place(char **argv, int i)
{
    char *orig = argv[i], *copy = strdup(orig), *r = mb__redact(orig);
    if (!copy || !r) {
        free(copy);
        free(r);
        return;
    }
    size_t n = strlen(orig), m = strlen(r), p = 0, q = 0;
    while (p < n && p < m && orig[p] == r[p])
        p++;
    while (q < n - p && q < m - p && orig[n - 1 - q] == r[m - 1 - q])
        q++;
    memset(orig + p, '*', n - p - q);
    free(r);
    argv[i] = copy;
}

/* --db env:NAME (or --db=env:NAME): the connection string of the
 * environment variable NAME, so that no password sits in argv.  Returns
 * the name of a variable that is not set, else NULL. */
static const char *db_from_env(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        char **v = NULL;
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            v = &argv[i + 1];
        const char *val = v ? *v : NULL;
        if (!v && !strncmp(argv[i], "--db=", 5))
            val = argv[i] + 5;
        if (!val || strncmp(val, "env:", 4) != 0)
            continue;
        const char *e = getenv(val + 4);
        if (!e || !*e)
            return val + 4;
        mb__redact_register(e);
        if (v) {
            *v = (char *)e;
        } else {
            size_t n = strlen(e) + 6;
            char *a = malloc(n);
            if (a) {
                snprintf(a, n, "--db=%s", e);
                argv[i] = a;
            }
        }
    }
    return NULL;
}

/* Every secret in the arguments is registered with the one redaction
 * (core/redact.h) and masked in /proc/PID/cmdline. */
static void hide_argv_secrets(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (mb__redact_register(argv[i]))
            mask_in_place(argv, i);
}

int main(int argc, char **argv)
{
    hide_argv_secrets(argc, argv);
    const char *unset = db_from_env(argc, argv);
    if (unset)
        return mb_cli_error(MB_EXIT_USAGE,
                            "--db env:%s: the environment variable %s is not "
                            "set (or empty); export it with the connection "
                            "string",
                            unset, unset);
    mb_cli_set_command_line(argc, argv);
    if (argc < 2)
        return usage(stderr, MB_EXIT_USAGE);
    if (strcmp(argv[1], "__dump-options") == 0) /* hidden: for the Makefile */
        return mb_opt_dump(argc >= 3 ? argv[2] : "", commands, N_COMMANDS,
                           stdout);
    if (strcmp(argv[1], "help") == 0 && argc >= 3) { /* = CMD --help */
        argv[1] = argv[2];
        argv[2] = "--help";
        argc = 3;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
        strcmp(name, "help") == 0)
        return usage(stdout, MB_EXIT_OK);
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("mbench %s (commit %s)\n", mb_version(), mb_build_commit());
        return MB_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    return mb_cli_error(MB_EXIT_USAGE,
                        "unknown command '%s'; run 'mbench --help' for the "
                        "list of commands",
                        name);
}
