/* profprint.h - the text views of a profile (src/profile): the console
 * report of `mbench profile`, folded stacks for flame-graph tools, and the
 * console table of a comparison of two profiles.  Pure: bytes into an
 * mb__buf, never I/O. */
#ifndef MB_REPORT_PROFPRINT_H
#define MB_REPORT_PROFPRINT_H

#include "core/buf.h"

#include <jansson.h>

/* Appends a count with its unit scaled to its size ("4.089 GFLOP",
 * "115.606 MFLOP", "1.500 KMAC", "12 FLOP"); "- unit" when not finite. */
void mb__profile_si_count(mb__buf *b, double v, const char *unit);

/* The console view of a profile object (a run's "profile"):
 * reconciliation, op types and the top nodes (top <= 0: 10 op types, 15
 * nodes), work and peak, counters. */
void mb__profile_text(const json_t *profile, const char *title, int top,
                      mb__buf *out);

/* Folded stacks, one line per node: "graph;op_type;node weight" with the
 * weight the node's total kernel time in whole microseconds (nodes that
 * round to 0 us get 1).  ';' and ' ' in names become '_'. */
void mb__profile_folded(const json_t *profile, const char *graph, mb__buf *out);

/* The console table of a comparison (mb__profile_compare). */
void mb__profile_compare_text(const json_t *cmp, mb__buf *out);

#endif
