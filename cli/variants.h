/* variants.h - variant specifications on the command line or in a
 * --variants file: NAME=MODEL[,option=value...], where the options are
 * run options without dashes (fp32-opt=model.onnx,opt-level=all). */
#ifndef MB_CLI_VARIANTS_H
#define MB_CLI_VARIANTS_H

#include "runner/plan.h"

#include <stddef.h>

typedef struct mb_cli_variant {
    char *name;  /* owned */
    mb_plan plan; /* owned; its variant is name */
} mb_cli_variant;

/* Parses specs[0..n) into vs (room for n), each plan a copy of plan with
 * the variant's options applied; names must be distinct.  *nv counts the
 * entries to free with mb_cli_variant_free, also after a failure.
 * Returns 0 or an exit code after printing one line. */
int mb_cli_variants_parse(char *const *specs, size_t n, const mb_plan *plan,
                          mb_cli_variant *vs, size_t *nv);
void mb_cli_variant_free(mb_cli_variant *v);

#endif
