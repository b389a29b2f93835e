/* acc_print.h - console rendering of accuracy metrics and gate verdicts,
 * shared by `mbench diff` and `mbench validate`. */
#ifndef MB_CLI_ACC_PRINT_H
#define MB_CLI_ACC_PRINT_H

#include <jansson.h>
#include <stdio.h>

/* Prints every metric of one output's metrics object (accuracy/metrics.h
 * layout), indented by two spaces, with its worst samples. */
void mb_cli_print_metrics(FILE *f, const json_t *m);

/* Prints the gate verdict array of mb__gates_eval_outputs, one line per
 * gate ("PASS cosine>=0.999  (worst 0.99991 on logits)"). */
void mb_cli_print_gates(FILE *f, const json_t *gates);

/* Formats a metric value ("inf", "n/a", %.6g) into buf; returns buf. */
const char *mb_cli_metric_str(const json_t *v, char *buf, size_t len);

#endif
