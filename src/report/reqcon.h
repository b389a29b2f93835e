/* reqcon.h - requirement verdicts on the console (`--require`, judged by
 * regress/require.h): a heading saying how many were met, then one line
 * per requirement and variant, PASS, FAIL or n/a with the verdict's
 * wording.  A pure function of the verdicts (document -> text). */
#ifndef MB_REPORT_REQCON_H
#define MB_REPORT_REQCON_H

#include "core/buf.h"

#include <jansson.h>

/* Appends the lines for verdicts (the document's "requirements" array),
 * unmet of them not met, to b. */
void mb__report_require_console(const json_t *verdicts, size_t unmet,
                                mb__buf *b);

#endif
