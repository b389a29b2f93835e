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
 * (an epoch) is summed, counted, and its first occurrence kept apart.
 *
 * Nothing here may slow the program down: names are found through hash
 * tables, at most MB_EVENTS_MAX_NAMES distinct names are kept per run
 * (events naming more are counted in dropped_events), phases nest at most
 * MB_EVENTS_MAX_DEPTH deep, and the bytes read from the pipe wait in a
 * backlog (mb__events_push) that is parsed a slice at a time
 * (mb__events_work), so that the reader can go back to the pipe at once. */
#ifndef MB_EXEC_EVENTS_H
#define MB_EXEC_EVENTS_H

#include "core/buf.h"

#include <stddef.h>
#include <stdint.h>

#define MB_EVENTS_MAX_LINE 65536
/* Distinct names kept per run, phases, counters, metrics and loops
 * together. */
#define MB_EVENTS_MAX_NAMES 65536u
/* Phases open at once. */
#define MB_EVENTS_MAX_DEPTH 4096u
/* Bytes read but not yet parsed; the reader stops reading beyond it. */
#define MB_EVENTS_MAX_BACKLOG (16u << 20)

typedef struct mb__phase_rec {
    char *name;
    char *parent;      /* enclosing phase at first start, or NULL */
    int64_t total_ns;  /* sum over the occurrences in this run */
    int64_t first_ns;  /* the first occurrence */
    size_t count;      /* completed occurrences */
    size_t unfinished; /* started but never ended */
    size_t open;       /* occurrences open now (parser state) */
} mb__phase_rec;

typedef struct mb__named_value {
    char *name;
    double value;
    size_t updates;
} mb__named_value;

/* The iterations of one loop in one run, in the order received. */
typedef struct mb__loop_rec {
    char *name;
    int64_t *ns;    /* duration of each iteration */
    int64_t *items; /* samples in each iteration */
    size_t n, cap;
} mb__loop_rec;

/* At most this many iterations are kept per run (all loops together);
 * more are counted in `dropped_iters`. */
#define MB_EVENTS_MAX_ITERS (1u << 22)

typedef struct mb__open_phase {
    size_t phase; /* index in phases */
    int64_t t_recv;
    int64_t t_own; /* -1 when the program gave no t_ns */
} mb__open_phase;

/* Open addressing over the records of one array: slot holds index + 1,
 * 0 when empty. */
typedef struct mb__name_index {
    uint32_t *slot;
    size_t cap; /* a power of two, or 0 */
} mb__name_index;

/* Where the bytes received at one time end in the backlog. */
typedef struct mb__events_mark {
    size_t end;
    int64_t t;
} mb__events_mark;

typedef struct mb__events {
    mb__phase_rec *phases; /* in order of first start */
    size_t n_phases, cap_phases;
    mb__named_value *counters;
    size_t n_counters, cap_counters;
    mb__named_value *metrics;
    size_t n_metrics, cap_metrics;
    mb__loop_rec *loops; /* in order of first iteration */
    size_t n_loops, cap_loops;
    size_t iters, dropped_iters;
    size_t names;          /* distinct names kept, all kinds */
    size_t dropped_events; /* events naming a name beyond MAX_NAMES */
    size_t lines;          /* lines received */
    size_t malformed;      /* lines that were not a valid event */
    char first_malformed[200];
    /* parser state */
    mb__open_phase *stack;
    size_t depth, cap_stack;
    mb__buf line;
    int overlong; /* discarding the rest of an over-long line */
    mb__name_index ix_phases, ix_counters, ix_metrics, ix_loops;
    /* backlog: bytes pushed, parsed up to backlog_off */
    mb__buf backlog;
    size_t backlog_off;
    mb__events_mark *marks;
    size_t n_marks, mark0, cap_marks;
} mb__events;

void mb__events_init(mb__events *ev);
/* Feeds bytes received at time t_ns (any monotonic origin) and parses
 * them at once. */
void mb__events_feed(mb__events *ev, const char *data, size_t n, int64_t t_ns);
/* Appends bytes received at t_ns to the backlog without parsing them;
 * returns 0 when memory runs out (the bytes are then counted lost as
 * malformed). */
int mb__events_push(mb__events *ev, const char *data, size_t n, int64_t t_ns);
/* Bytes in the backlog not parsed yet. */
size_t mb__events_pending(const mb__events *ev);
/* Parses up to about max_bytes of the backlog (each line with the time its
 * last byte was received). */
void mb__events_work(mb__events *ev, size_t max_bytes);
/* Forgets the backlog unparsed (an interrupted run). */
void mb__events_discard(mb__events *ev);
/* Ends the stream at t_ns: the backlog and a trailing line without
 * newline are parsed and phases still open are counted as unfinished. */
void mb__events_finish(mb__events *ev, int64_t t_ns);
/* The phase record named name, or NULL. */
const mb__phase_rec *mb__events_phase(const mb__events *ev, const char *name);
/* The counter or metric named name, or NULL. */
const mb__named_value *mb__events_counter(const mb__events *ev,
                                          const char *name);
const mb__named_value *mb__events_metric(const mb__events *ev,
                                         const char *name);
/* The loop record named name, or NULL. */
const mb__loop_rec *mb__events_loop(const mb__events *ev, const char *name);
void mb__events_free(mb__events *ev);

#endif
