/* cmd_version.c - mbench version: this build's version and commit. */
#include "cli.h"
#include "opt.h"

#include <stdio.h>

MBENCH_COMMAND(version, cmd_version, "print mbench's version and commit")
MBENCH_OPTIONS(version, mb_cmd_version)

/* clang-format off */
const mb__cmd mb_cmd_version = {"version", NULL, "print mbench's version and commit",
    "Prints the version of mbench and the commit it was built from (`mbench --version' is the same); "
    "with --quiet, the version alone.",
    NULL, 0, 0, 0, 0, NULL};
/* clang-format on */

int cmd_version(int argc, char **argv)
{
    mb__opt_ctx ctx = {0};
    int rc = mb_opt_parse(&mb_cmd_version, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    if (ctx.quiet)
        printf("%s\n", mb_version());
    else
        printf("mbench %s (commit %s)\n", mb_version(), mb_build_commit());
    return MB_EXIT_OK;
}
