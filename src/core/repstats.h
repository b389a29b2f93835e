/* repstats.h - statistics whose unit is the replicate.
 *
 * Latency samples from one process are not independent draws: they are
 * autocorrelated, and a process as a whole settles at its own level
 * (thread placement, memory layout, neighbours).  The functions here work
 * on ONE FIGURE PER REPLICATE (the median of one process, or of one block
 * of consecutive samples) and treat those figures as the independent
 * observations.  Figures are positive and analysed on the log scale:
 *
 *  - mb__gm_ci: the geometric mean of k figures with a Student-t 95%
 *    interval (k - 1 degrees of freedom) of the mean log figure;
 *  - mb__ratio_paired: the ratio of geometric means of two sets of k
 *    figures taken in pairs (replicate i of b ran beside replicate i of
 *    a): a one-sample t interval and two-sided t test on the k log
 *    differences;
 *  - mb__ratio_welch: the same for two independent sets (Welch's t with
 *    Welch-Satterthwaite degrees of freedom);
 *  - mb__block_figures: a figure (percentile) of each of B consecutive
 *    blocks of one process's samples, the within-process fallback.
 *
 * The t distribution comes from GSL.  docs/STATISTICS.md states each
 * method, its unit of replication and its assumptions. */
#ifndef MB_CORE_REPSTATS_H
#define MB_CORE_REPSTATS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A geometric-mean estimate with its interval. */
typedef struct mb__gm {
    size_t k;      /* replicates used */
    double est;    /* exp(mean log x) */
    double lo, hi; /* interval at the requested level */
    double sd_log; /* sample sd of log x (k - 1): ~ the run-to-run CV */
    double df;     /* degrees of freedom */
    int ok;        /* 0 when k < 2 or a figure is not positive */
} mb__gm;

/* A ratio of geometric means b / a with its interval and test. */
typedef struct mb__ratio {
    size_t ka, kb;
    double ratio;  /* exp(mean log b - mean log a) */
    double lo, hi; /* interval at the requested level */
    double se_log; /* standard error of the log ratio */
    double t, df;  /* t statistic and degrees of freedom */
    double p;      /* two-sided p-value of "the log ratio is 0" */
    int ok;        /* 0 when there are too few replicates */
    /* Blocked paired ratios (mb__ratio_paired_blocks): the blocks, the sd
     * of one round's log ratio within its block (pooled) and the sd of the
     * drift between blocks beyond that noise (one-way ANOVA, >= 0).  Two
     * runs with a between-run term (mb__ratio_welch_drift): sd_within is
     * the per-process sd pooled over both sides, tau the sd of one run's
     * level, tau_runs how many runs estimated it (0: a default). */
    size_t blocks;
    double sd_within, sd_drift;
    double drift_p; /* F test of "no drift between blocks" (NAN: none) */
    double tau;
    size_t tau_runs;
} mb__ratio;

/* Quantile of Student's t with df degrees of freedom (df > 0). */
double mb__t_quantile(double p, double df);
/* Two-sided p-value of a t statistic: P(|T| >= |t|). */
double mb__t_p_two_sided(double t, double df);
/* Two-sided p-value of a standard normal deviate, through erfc so that it
 * does not underflow to 0 before about 1e-308. */
double mb__z_p_two_sided(double z);

/* Geometric mean of x[0..k) with a two-sided interval at `level` (0.95).
 * Returns 0, or -1 when k < 2 or some x <= 0 (out->ok is then 0, and
 * out->est is still set when k == 1). */
bool mb__gm_ci(const double *x, size_t k, double level, mb__gm *out);

/* Ratio b/a of paired replicates (a[i] and b[i] measured side by side).
 * Needs k >= 2 positive pairs. */
bool mb__ratio_paired(const double *a, const double *b, size_t k, double level,
                      mb__ratio *out);

/* The blocks a paired ratio over k rounds uses: every round its own block
 * below 2 * MB_ROUND_BLOCKS rounds, else MB_ROUND_BLOCKS blocks of
 * consecutive rounds (at least two rounds each, sizes differing by at most
 * one). */
#define MB_ROUND_BLOCKS 8
size_t mb__round_blocks(size_t k);

/* Ratio b/a of paired replicates in time order, with the rounds grouped
 * into `blocks` blocks of consecutive rounds (block j: rounds
 * [k*j/blocks, k*(j+1)/blocks)): the block is the unit of replication.
 * The log ratio is the mean of the blocks' mean log ratios; the interval
 * and test are Student t on those block means (blocks - 1 df), so that a
 * drift of the ratio during the run (the machine's load changing) widens
 * the interval instead of passing for precision.  With blocks == k this
 * is mb__ratio_paired.  Needs blocks >= 2 and k >= blocks. */
bool mb__ratio_paired_blocks(const double *a, const double *b, size_t k,
                             size_t blocks, double level, mb__ratio *out);

/* {count, sd_within, sd_drift, drift_p} of a blocked ratio (drift_p null
 * when there was no test), the JSON of compare and gate. */
json_t *mb__ratio_blocks_json(const mb__ratio *r);

/* Rounds that would bring the half-width of a blocked paired interval
 * like r down to `dist` (log scale), blocked by mb__round_blocks, when the
 * spread stays as measured: at least r->ka + 1.  When the drift between
 * blocks is established (r->drift_p < 0.05) it does not shrink with more
 * rounds, and 0 says that it alone keeps the half-width above dist; else
 * the whole spread per round (se_log * sqrt(k)) is taken to shrink. */
size_t mb__rounds_needed(const mb__ratio *r, double dist);

/* Ratio b/a of independent replicates.  Needs ka, kb >= 2 and a positive
 * variance on at least one side. */
bool mb__ratio_welch(const double *a, size_t ka, const double *b, size_t kb,
                     double level, mb__ratio *out);

/* Two separate runs: mb__ratio_welch with a between-run term.  Each run
 * sits at a level of its own (the machine's state that minute), with sd
 * tau on the log scale; the log ratio's variance is va/ka + vb/kb +
 * 2 tau^2, and its degrees of freedom come from Welch-Satterthwaite with
 * tau^2 estimated from tau_runs runs (tau_runs - 1 df; 0 = a documented
 * default, taken as known).  tau = 0 is mb__ratio_welch. */
bool mb__ratio_welch_drift(const double *a, size_t ka, const double *b,
                           size_t kb, double tau, size_t tau_runs, double level,
                           mb__ratio *out);

/* Processes per side that would bring a two-run interval like r (from
 * mb__ratio_welch_drift, whose sd_within is the per-process sd of the log
 * figure, pooled over both sides) down to `dist` (log scale): at least
 * max(ka, kb) + 1; 0 when the between-run term alone is wider (no count
 * can). */
size_t mb__runs_processes_needed(const mb__ratio *r, double dist);

/* Splits x[0..n) (in time order) into `blocks` consecutive blocks of
 * nearly equal size and writes percentile q of each into out[0..blocks).
 * Returns blocks, or 0 when n < blocks or memory runs out. */
size_t mb__block_figures(const double *x, size_t n, size_t blocks, double q,
                         double *out);

/* Number of blocks the within-process fallback uses for n samples:
 * between 5 and 20, each of at least 50 samples; 0 when n < 250. */
size_t mb__blocks_for(size_t n);

/* Replicates per side that would make the half-width of a ratio's
 * interval about `half` (relative, e.g. 0.02), given a log-scale standard
 * deviation per replicate of sd_log (paired: of the differences).  At
 * least 2; capped at 1000. */
size_t mb__replicates_needed(double sd_log, double half, int paired);
/* The most processes --processes accepts. */
#define MB_MAX_PROCESSES 1000
/* "about N processes", or, beyond MB_MAX_PROCESSES, a sentence that says
 * the question cannot be settled at this threshold; returns buf. */
const char *mb__need_text(size_t need, char *buf, size_t len);

/* Modes among per-replicate figures: sorts a copy of x[0..k) and looks for
 * the largest ratio between neighbours.  When it exceeds `gap` (1.15) and
 * both sides hold at least 2 replicates (and 20% of them), returns 2 and
 * fills the two groups' medians and sizes; otherwise returns 1. */
int mb__replicate_modes(const double *x, size_t k, double gap, double *lo,
                        size_t *n_lo, double *hi, size_t *n_hi);

#endif
