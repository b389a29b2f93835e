/* cmd_version.c - mbench version: this build and the runtime it finds. */
#include "cli.h"

#include <stdio.h>

MBENCH_COMMAND(version, cmd_version, "print mbench's version and commit")

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("mbench %s (commit %s)\n", mb_version(), mb_build_commit());
    return MB_EXIT_OK;
}
