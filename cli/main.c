/* main.c - the mbench command: dispatches to cli/cmd_*.c. */
#include "cli.h"
#include "opt.h"

#include <stdio.h>
#include <string.h>

#undef MBENCH_COMMAND
#define MBENCH_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.inc"
#undef MBENCH_COMMAND

#define MBENCH_COMMAND(name, fn, summary) {#name, fn, summary},
static const mb_cmd_entry commands[] = {
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

int main(int argc, char **argv)
{
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
