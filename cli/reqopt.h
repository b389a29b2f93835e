/* reqopt.h - the `--require EXPR` option shared by exec, suite, compare
 * and gate: collects the expressions while parsing (a bad one is a usage
 * error before anything is measured), then judges them over the result
 * document, records the verdicts in it ("requirements") and prints one
 * line per requirement and variant. */
#ifndef MB_CLI_REQOPT_H
#define MB_CLI_REQOPT_H

#include "regress/require.h"

#include <jansson.h>
#include <stdio.h>

typedef struct mb__cli_reqs {
    mb__require *r;
    size_t n;
} mb__cli_reqs;

/* Parses arg and keeps it; 0, or MB_EXIT_USAGE after printing why. */
int mb_cli_reqs_add(mb__cli_reqs *q, const char *arg);
/* Judges the requirements over doc, sets doc["requirements"] (and, when
 * record is not NULL and not doc, record["requirements"] too), prints the
 * verdict lines on f (none without requirements).  Returns 0 when every
 * requirement is met (or none was given), MB_EXIT_REQUIRE when one is not,
 * MB_EXIT_USAGE when a figure is not in the document. */
int mb_cli_reqs_judge(const mb__cli_reqs *q, json_t *doc, json_t *record,
                      FILE *f);
/* Combines the exit code of the command with that of the requirements:
 * an error or a failed verdict of the command wins. */
int mb_cli_reqs_exit(int rc, int req_rc);
void mb_cli_reqs_free(mb__cli_reqs *q);

#endif
