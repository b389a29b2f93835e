/* markdown.h - the Markdown report: GitHub-flavoured tables (summary per
 * run, speedups with confidence intervals, accuracy and output agreement),
 * a one-line verdict and the warnings, for pull-request comments and
 * terminals.  A pure function of the result documents. */
#ifndef MB_REPORT_MARKDOWN_H
#define MB_REPORT_MARKDOWN_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* Renders n_docs result documents (borrowed; runs side by side) as
 * Markdown, appended to out.  Every string taken from a document is
 * escaped (mb__md_escape).  Returns MB_EINVAL when n_docs is 0 or a
 * document is not an object, MB_ENOMEM when memory runs out. */
mb_status mb__report_md(const json_t *const *docs, size_t n_docs, mb_buf *out,
                        mb_err *err);

#endif
