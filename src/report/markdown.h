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

/* The entry points that pick a document's writers by its kind. */
#include "report/render.h"

#endif
