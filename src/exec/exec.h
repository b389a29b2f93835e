/* exec.h - benchmarking whole programs: warmup, measured runs with the
 * stopping rules of `mbench run`, several commands interleaved in rounds
 * (ABAB...), prepare/cleanup commands around each run, and the "exec" part
 * of result documents (docs/EXEC.md).
 *
 * A command is a template string; without `shell` it is split into words
 * (single and double quotes and backslashes as in sh, no expansion) and
 * executed directly, with `shell` it runs as /bin/sh -c TEMPLATE. */
#ifndef MB_EXEC_EXEC_H
#define MB_EXEC_EXEC_H

#include "exec/proc.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mb__exec_cmd {
    char *name;      /* display name (variant): --name, or the command */
    char *command;   /* the command line after parameter substitution */
    json_t *params;  /* {"NAME": "value"} of a --param scan, or NULL (owned) */
    const char *cwd; /* its working directory (borrowed), or NULL: opts' */
} mb__exec_cmd;

typedef struct mb__exec_opts {
    int shell;             /* run through /bin/sh -c */
    int64_t warmup;        /* warmup runs per command (default 0) */
    int64_t min_runs;      /* default 10 */
    int64_t max_runs;      /* default 1000 */
    int64_t fixed_runs;    /* --runs: exactly this many, or 0 */
    int64_t min_time_ns;   /* default 3 s of measured wall time per command */
    int64_t max_time_ns;   /* default 120 s for the whole measurement */
    double target_ci;      /* default 0.02: median CI half-width / median */
    int64_t timeout_ns;    /* per run; 0 = none */
    const char *prepare;   /* shell command before each run, or NULL */
    const char *cleanup;   /* shell command after each run, or NULL */
    const char *cwd;       /* working directory of every run, or NULL */
    int ignore_failure;    /* a non-zero exit is recorded, not an error */
    mb__out_mode out_mode; /* stdout of the command (default discarded) */
    int gpu_memory;        /* sample GPU memory through NVML */
    struct mb__nvml *nvml; /* set by the caller when gpu_memory and found */
    volatile int *cancel;  /* borrowed; non-zero stops after this run */
    int keep_leftovers;    /* leave processes a run left in its group */
    /* Called after every run (warmup too) when non-NULL. */
    void (*progress)(void *user, const mb__exec_cmd *cmd, int warmup,
                     size_t run, const mb__proc_result *r);
    void *user;
} mb__exec_opts;

/* One measured run, kept whole for the document. */
typedef struct mb__exec_sample {
    int64_t wall_ns, user_ns, sys_ns, peak_rss_bytes, gpu_peak_bytes;
    int64_t rss_floor_bytes;
    int exit_code, term_signal, timed_out;
    mb__events events;
} mb__exec_sample;

typedef struct mb__exec_series {
    const mb__exec_cmd *cmd; /* borrowed */
    mb__exec_sample *samples;
    size_t n, cap;
    size_t failures; /* runs with non-zero exit, signal or timeout */
    char *error;     /* why this command failed, or NULL */
    char *stop_rule; /* "target_ci", "max_time", ... */
    int64_t warmup_ns;
    size_t malformed_events;
    char *first_malformed;
    /* runs (warmup included) that left processes in their group
     * (exec/pgroup.h), the most one left, the first described */
    size_t leftover_runs;
    int leftover_max;
    char *first_leftover;
} mb__exec_series;

void mb__exec_opts_defaults(mb__exec_opts *o);

/* Splits a command line into words (sh quoting, no expansion).  Caller
 * frees with mb__exec_argv_free.  MB_EINVAL on an unterminated quote. */
mb_status mb__exec_split(const char *cmd, char ***argv, mb_err *err);
void mb__exec_argv_free(char **argv);

/* Measures the commands, interleaved.  *out is an array of n series (free
 * with mb__exec_series_free).  Returns MB_OK when every command ran its
 * runs; a command that cannot start or (without ignore_failure) fails
 * stops the measurement with an error, and the series measured so far
 * are still returned (the failing one carries `error`).  MB_EINTERRUPTED
 * when cancelled. */
mb_status mb__exec_measure(const mb__exec_opts *o, const mb__exec_cmd *cmds,
                           size_t n, mb__exec_series **out, mb_err *err);
void mb__exec_series_free(mb__exec_series *s, size_t n);

/* Runs one shell command (prepare/cleanup, git) and fails unless it exits
 * 0.  Output is captured; err holds its last line on failure. */
mb_status mb__exec_shell(const char *cmd, const char *cwd, int64_t timeout_ns,
                         mb_err *err);

/* The RUN object of one series (docs/EXEC.md): status, variant, command,
 * iterations, latency (of wall times), "exec": {...}. New reference. */
json_t *mb__exec_run_json(const mb__exec_series *s, const mb__exec_opts *o);
/* exec.loops of a RUN: per loop reported with "iter" events, the latency
 * summary of its iterations pooled over runs with process-level (run)
 * CIs as `run` computes them, and items/s (loops.c).  New reference. */
json_t *mb__exec_loops_json(const mb__exec_series *s);
/* exec.derived: samples/s, batches/s and time per sample/batch from the
 * "samples" and "batches" counters and each run's wall time; null when
 * the program reports neither.  New reference. */
json_t *mb__exec_derived_json(const mb__exec_series *s);
/* "comparison" of series 1..n-1 against series 0: ratio of medians with
 * bootstrap CI and Mann-Whitney p-value.  New reference. */
json_t *mb__exec_comparison_json(const mb__exec_series *s, size_t n,
                                 uint64_t seed);

/* The whole "exec" document of a measurement: a RUN per series (none when
 * ser is NULL), "interrupted" when st is MB_EINTERRUPTED, and with
 * several commands measured to the end the "comparison".  New reference. */
json_t *mb__exec_result(const mb__exec_opts *o, const mb__exec_series *ser,
                        size_t n, mb_status st, uint64_t seed,
                        const char *command_line);

/* A new result document of `kind` (mb__doc_new of runner.h) whose
 * "statistics" also define the comparison's ratio CI and significance
 * test.  New reference. */
json_t *mb__exec_doc(const char *kind, const char *command_line);

#endif
