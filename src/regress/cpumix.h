/* cpumix.h - refusing to compare latencies measured on different CPU
 * models (gate; docs/GATE.md, docs/SCALE.md).  A run's CPU model is its
 * "slurm".cpu_model (a suite collected from Slurm nodes), else its
 * document's environment.cpu_model. */
#ifndef MB_REGRESS_CPUMIX_H
#define MB_REGRESS_CPUMIX_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* MB_OK when every run of the n documents (names: for the message) that
 * says its CPU model says the same one; MB_EDATA naming two models and
 * where they come from otherwise. */
mb_status mb__cpu_models_check(const json_t *const *docs,
                               const char *const *names, size_t n, mb_err *err);

/* MB_OK when every series (model, variant, batch size) of the history
 * rows (mb__store_history's) holds one CPU model; MB_EDATA naming the
 * series and two of its models otherwise. */
mb_status mb__history_cpu_check(const json_t *rows, mb_err *err);

#endif
