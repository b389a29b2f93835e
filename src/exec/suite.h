/* suite.h - what is computed from suite result documents: the per-group
 * speedup table (`suite --compare`, `merge --compare`) and the merge of
 * shard documents into the document of the unsharded run.
 *
 * A suite run carries "task": {index, kind, format, group, row}; tasks of
 * one group (the `experiment` column, else the row without `branch`) are
 * compared with the group's first successful task. */
#ifndef MB_EXEC_SUITE_H
#define MB_EXEC_SUITE_H

#include "mbench.h"

#include <jansson.h>
#include <stdint.h>

/* {"by": "experiment", "groups": [{group, baseline, baseline_branch,
 * cpu_models, nodes, warning (when the group's runs ran on more than one
 * CPU model or node), entries: [{variant, branch, interleaved (measured
 * in rounds with the baseline), ratio, speedup, ratio_ci95, p_value,
 * significant, phases: {name: {baseline_ns, median_ns, speedup}}}]}]}
 * (new reference). */
json_t *mb__suite_comparison(const json_t *runs, uint64_t seed);

/* Speedups of every phase (loop) that base and run both report, from the
 * per-run phase totals (per-run loop medians): {name: {speedup,
 * speedup_ci95: {lo, hi} | null, p_value, method}}, the ratio of geometric
 * means with Welch's t over runs (each run a process), or the ratio of
 * medians alone with fewer than 2 runs a side.  New references. */
json_t *mb__phase_speedups(const json_t *base, const json_t *run);
json_t *mb__loop_speedups(const json_t *base, const json_t *run);

/* Merges shard documents (borrowed; names for messages) into a new
 * document: runs in task order (each stamped with its shard's "machine":
 * {hostname, cpu_model} unless it has one), "shard": null,
 * "merged_from": [...].
 * MB_EINVAL when the documents are not shards of one suite (different
 * kinds, task files or shard counts, the same shard twice); missing
 * shards give a warning in the document and "incomplete": true. */
mb_status mb__suite_merge(json_t *const *docs, const char *const *names,
                          size_t n, json_t **out, mb_err *err);

#endif
