/* resultdoc.h - saved result documents ("mbench.result/1") as `mbench
 * report` reads them: loaded and checked with a message that names the
 * file and the fix, and several merged into one, runs side by side. */
#ifndef MB_REPORT_RESULTDOC_H
#define MB_REPORT_RESULTDOC_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

#define MB_RESULT_SCHEMA "mbench.result/1"

/* Loads path ("-": standard input) into *out (new): MB_EIO when it cannot
 * be read, MB_EFORMAT when it is not JSON, has no schema, another schema
 * or no "runs" array.
 * A password left in "command_line" by an older mbench is redacted. */
mb_status mb__result_load(const char *path, json_t **out, mb_err *err);

/* A copy of docs[0] with every document's runs, the warnings of all
 * (each once) and "merged_from": paths.  A "comparison" section of a
 * later document is not merged: a line saying so is appended to notes
 * (an array, may be NULL).  NULL when memory runs out. */
json_t *mb__result_merge(json_t *const *docs, const char *const *paths,
                         size_t n, json_t *notes);

#endif
