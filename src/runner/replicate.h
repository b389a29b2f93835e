/* replicate.h - measurements replicated over processes.
 *
 * An "arm" is one variant at one batch size.  mb__replicate measures every
 * arm in K rounds; in each round every arm gets a fresh child process
 * (runtime load, session, warmup), the children run side by side in
 * interleaved slots of about 50 ms (the idle ones stopped with SIGSTOP),
 * and the round ends when every arm has had the same number of slots.  The
 * order rotates and reverses from round to round (A B, B A, B A, A B, ...)
 * so that drift of the machine hits every arm alike.  Each process gets the
 * same fixed budget (no stopping on the data, so no stopping bias); the
 * budget is the plan's total split over the K processes.
 *
 * The result per arm: all samples in time order, the count of each
 * process, the RUN object of its first process (phases, memory, runtime)
 * and the phases and peak memory of every process.  mb__arm_run_json turns
 * that into the RUN object of a result document, with the "replication"
 * object (per-process figures, process-level CIs, run-to-run spread). */
#ifndef MB_RUNNER_REPLICATE_H
#define MB_RUNNER_REPLICATE_H

#include "runner/child.h"
#include "plan/plan.h"

#include <jansson.h>

/* The fewest processes a default count is lowered to for slow-loading
 * models, and the start-up budget that lowers it (20 s).  A model so slow
 * to start that even MB_MIN_AUTO_PROCESSES would spend over
 * MB_SLOW_START_BUDGET_NS (4 min) starting (a Python framework's import
 * and XLA compile of a large network: tens of seconds per process) gets
 * as many as fit in that, but not fewer than MB_MIN_SLOW_PROCESSES. */
#define MB_MIN_AUTO_PROCESSES 10
#define MB_START_BUDGET_NS 20000000000LL
#define MB_MIN_SLOW_PROCESSES 3
#define MB_SLOW_START_BUDGET_NS 240000000000LL

/* The machine during one round: when it ended, the load average and the
 * share of the machine's CPU time that was busy (every process, this
 * measurement's included) while it ran; NAN where /proc says nothing. */
typedef struct mb__round_rec {
    double t_s;      /* seconds from the start of the first round */
    double loadavg;  /* 1-minute load average at the round's end */
    double cpu_busy; /* 0..1 over the round */
    double runnable; /* processes runnable at its end (procs_running) */
} mb__round_rec;

typedef struct mb__arm {
    const mb__plan *plan; /* borrowed */
    int64_t batch;
    /* results */
    char *error; /* why the arm failed, or NULL */
    mb_status error_code;
    int64_t *samples; /* every recorded latency (ns), in time order */
    size_t n, cap;
    size_t *proc_n; /* samples of process i, i < k */
    size_t k, kcap;
    int64_t busy_ns;       /* sum of the recorded latencies */
    json_t *run;           /* RUN object of the first process (new ref) */
    json_t *procs;         /* per process: phases and peak RSS (array) */
    mb__child *child;      /* the last round's process, with keep_last */
    mb__round_rec *rounds; /* the machine in every round (a copy) */
    size_t n_rounds;
    /* private */
    int64_t slot;      /* iterations per slot (by time) */
    int64_t pre;       /* unrecorded iterations before each slot */
    size_t slot_cap;   /* the most slots its max-time/max-iterations allow
                          (0: no cap) */
    int64_t round_n;   /* this round's fixed count, or 0 (by time) */
    int64_t warmup_ns; /* warmup of the first process */
    int64_t warmup_iters;
} mb__arm;

typedef struct mb__repl_opts {
    int processes; /* K >= 1 */
    /* When the count is the default (not asked for): the most time the
     * start of the processes (runtime load, session, warmup) may take in
     * all; after the first round K is lowered to fit, but not below
     * MB_MIN_AUTO_PROCESSES.  0: never lowered. */
    int64_t start_budget_ns;
    int *processes_used;     /* out (may be NULL): the K that was run */
    int64_t *round_start_ns; /* out (may be NULL): the time the first
                                round took to start its processes */
    size_t slots;            /* slots per process; 0: from the plans' budget */
    int64_t slot_ns;         /* aimed length of one slot (50 ms) */
    int64_t timeout_ns;      /* per step; <= 0: none */
    int fail_fast;           /* return at the first failed arm */
    int keep_last;           /* leave the last round's processes open, paused */
    volatile int *cancel;
    void (*progress)(void *user, size_t round, size_t rounds,
                     int64_t elapsed_ns);
    void *progress_user;
} mb__repl_opts;

/* The options a replicated measurement starts from: k processes, 50 ms
 * slots, the start budget MB_START_BUDGET_NS unless the count was asked
 * for (asked > 0: --processes), *used as processes_used, and cancel;
 * everything else off. */
mb__repl_opts mb__repl_opts_for(int k, int asked, int *used,
                                volatile int *cancel);
/* Measures arms[0..n) as above.  An arm whose process fails gets its
 * error and is left out of later rounds; with fail_fast the call returns
 * MB_ECHILD at once.  Returns MB_OK when cancelled (the arms hold what was
 * measured). */
mb_status mb__replicate(mb__arm *arms, size_t n, const mb__repl_opts *o,
                        mb_err *err);
/* Ends the arm's current process (kept open by keep_last): its RUN object
 * and its phases and peak memory join the arm's. */
mb_status mb__arm_finish(mb__arm *a, int64_t timeout_ns, mb_err *err);
/* Marks the arm failed with e's message (the first one stays) and ends its
 * process. */
void mb__arm_fail(mb__arm *a, const mb_err *e);
/* Frees what an arm holds (not the plan); zeroes it. */
void mb__arm_clear(mb__arm *a);

/* The per-process figures of an arm: percentile q of each process's
 * samples into out[0..k) (caller allocates k doubles).  Returns the number
 * of processes with a figure (processes with too few samples for q are
 * skipped). */
size_t mb__arm_proc_figures(const int64_t *samples, const size_t *proc_n,
                            size_t k, double q, double *out);

/* Warns in doc's "warnings" when the machine's load changed during the
 * rounds: the mean CPU-busy share of the busiest quarter of the rounds
 * (consecutive) exceeds the quietest's by MB_LOAD_CHANGE or more, or (a
 * machine busy throughout) the mean runnable processes of the most
 * crowded quarter exceed the least crowded's by the number of CPUs or
 * more. */
#define MB_LOAD_CHANGE 0.25
void mb__warn_load_changed(json_t *doc, const mb__round_rec *r, size_t n);

/* The rounds as JSON: [{t_s, loadavg, cpu_busy, runnable}] (null where
 * unknown). */
json_t *mb__rounds_json(const mb__round_rec *r, size_t n);

/* The "replication" object of a RUN (docs/FORMATS.md): unit, processes,
 * samples per process, per-process median/p99/mean, the process-level
 * estimates and 95% CIs of the median and p99 (or, with one process, the
 * within-process fallback over blocks of consecutive samples), the
 * run-to-run spread and any process modes.  New reference. */
json_t *mb__replication_json(const int64_t *samples, const size_t *proc_n,
                             size_t k);

/* The RUN object of an arm for a result document: the first process's RUN
 * plus latency (pooled percentiles; median_ci95 from the replication),
 * replication, iterations, stop_rule, throughput and, with save_samples,
 * samples_ns and samples_per_process.  New reference. */
json_t *mb__arm_run_json(const mb__arm *a, const char *stop_rule,
                         int save_samples);

/* Per-process budget of a plan split over k processes: iterations for a
 * fixed count (0 when the plan has none), and the time and count minima
 * and maxima. */
void mb__proc_budget(const mb__plan *p, int k, int64_t *fixed,
                     int64_t *min_time, int64_t *min_iters, int64_t *max_time,
                     int64_t *max_iters);

#endif
