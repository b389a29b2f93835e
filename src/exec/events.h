/* events.h - the phase-events protocol spoken by benchmarked programs.
 *
 * mbench passes the number of a pipe's write end in MBENCH_EVENTS_FD; the
 * program writes one JSON object per line:
 *   {"event":"start","phase":"init"}           (optional "t_ns": own clock)
 *   {"event":"end","phase":"init"}
 *   {"event":"counter","name":"samples","value":128}   (added up per run)
 *   {"event":"metric","name":"loss","value":0.31}      (last value wins)
 *   {"event":"iter","name":"infer","ns":1234567,"items":8}
 *                     (one timed iteration of a loop, by the program's own
 *                      clock; items optional, default 1)
 * mbench timestamps each line on receipt (CLOCK_MONOTONIC).  This module
 * turns the byte stream of one run into per-phase durations, counters and
 * metrics.  Malformed lines are counted (with the first one's reason),
 * never fatal.  Phases nest; a phase that occurs several times in a run
 * (an epoch) is summed, counted, and its first occurrence kept apart. */
#ifndef MB_EXEC_EVENTS_H
#define MB_EXEC_EVENTS_H

#include "core/buf.h"

#include <stddef.h>
#include <stdint.h>

#define MB_EVENTS_MAX_LINE 65536

typedef struct mb_phase_rec {
    char *name;
    char *parent;      /* enclosing phase at first start, or NULL */
    int64_t total_ns;  /* sum over the occurrences in this run */
    int64_t first_ns;  /* the first occurrence */
    size_t count;      /* completed occurrences */
    size_t unfinished; /* started but never ended */
} mb_phase_rec;

typedef struct mb_named_value {
    char *name;
    double value;
    size_t updates;
} mb_named_value;

/* The iterations of one loop in one run, in the order received. */
typedef struct mb_loop_rec {
    char *name;
    int64_t *ns;    /* duration of each iteration */
    int64_t *items; /* samples in each iteration */
    size_t n, cap;
} mb_loop_rec;

/* At most this many iterations are kept per run (all loops together);
 * more are counted in `dropped_iters`. */
#define MB_EVENTS_MAX_ITERS (1u << 22)

typedef struct mb_open_phase {
    char *name;
    int64_t t_recv;
    int64_t t_own; /* -1 when the program gave no t_ns */
} mb_open_phase;

typedef struct mb_events {
    mb_phase_rec *phases; /* in order of first start */
    size_t n_phases, cap_phases;
    mb_named_value *counters;
    size_t n_counters, cap_counters;
    mb_named_value *metrics;
    size_t n_metrics, cap_metrics;
    mb_loop_rec *loops; /* in order of first iteration */
    size_t n_loops, cap_loops;
    size_t iters, dropped_iters;
    size_t lines;     /* lines received */
    size_t malformed; /* lines that were not a valid event */
    char first_malformed[200];
    /* parser state */
    mb_open_phase *stack;
    size_t depth, cap_stack;
    mb_buf line;
    int overlong; /* discarding the rest of an over-long line */
} mb_events;

void mb__events_init(mb_events *ev);
/* Feeds bytes received at time t_ns (any monotonic origin). */
void mb__events_feed(mb_events *ev, const char *data, size_t n, int64_t t_ns);
/* Ends the stream at t_ns: a trailing line without newline is parsed and
 * phases still open are counted as unfinished. */
void mb__events_finish(mb_events *ev, int64_t t_ns);
/* The phase record named name, or NULL. */
const mb_phase_rec *mb__events_phase(const mb_events *ev, const char *name);
/* The loop record named name, or NULL. */
const mb_loop_rec *mb__events_loop(const mb_events *ev, const char *name);
void mb__events_free(mb_events *ev);

#endif
