/* docfmt.h - what the document layer and every writer share besides the
 * typed view: dotted-path lookups in a document, number formatting
 * (durations, bytes, counts, p-values, ratios, metrics) and the quoting
 * of one CSV field.  Pure functions: no I/O, no global state. */
#ifndef MB_DOC_DOCFMT_H
#define MB_DOC_DOCFMT_H

#include "core/buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Dotted-path lookups ("latency.median_ci95.lo"); NULL/NAN when missing or
 * of another type.  Borrowed from o. */
const json_t *mb__jget(const json_t *o, const char *path);
double mb__jnum(const json_t *o, const char *path);
const char *mb__jstr(const json_t *o, const char *path);

/* A shape (an array of integers) between open and close: "[1,3,224,224]"
 * with "[" and "]"; a missing array gives just open and close. */
void mb__put_dims(mb__buf *b, const json_t *dims, const char *open,
                  const char *close);

/* "p < 0.0001" style p-value text ("-" for NAN) into out; returns out. */
char *mb__fmt_p(double p, char *out, size_t len);
/* The median speedup of a comparison entry in words, into out:
 * "2.10× faster (95% CI 1.90–2.30×)" or, below 1, "2.50× slower (95% CI
 * 2.45–2.54×)" (the inverse ratio, easier to read), "" when absent. */
char *mb__speedup_words(const json_t *speedup, char *out, size_t len);

/* Formats a duration in ns as milliseconds with 3-4 significant digits
 * ("1.234", "12.35", "123.4") into out; "-" for NAN. Returns out. */
char *mb__fmt_ms(double ns, char *out, size_t len);
/* Formats a byte count as "12.3 MiB"; "-" for NAN. Returns out. */
char *mb__fmt_bytes(double b, char *out, size_t len);
/* General number with `sig` significant digits, "-" for NAN. */
char *mb__fmt_num(double x, int sig, char *out, size_t len);
/* Milliseconds for table cells, with more digits the smaller they are
 * ("123.4", "1.234", "0.1234", "0.01234"); "n/a" for NAN. */
void mb__fmt_ms_table(double ns, char *buf, size_t len);
/* "12.3 ms", "850 us", "42 ns" with 3 significant digits; "-" for NAN. */
void mb__fmt_duration(double ns, char *buf, size_t len);
/* One step of a scale: numbers with magnitude >= at are printed as
 * x / div with fmt (one double argument), e.g. {1e6, 1e6, "%.2fM"}. */
typedef struct mb__scale {
    double at, div;
    const char *fmt;
} mb__scale;
/* Formats x with the first of the n steps (largest first) whose `at` is
 * at most mag (x itself or its absolute value), "-" when x is not finite;
 * false, and out untouched, when no step fits. */
bool mb__fmt_scaled(double x, double mag, const mb__scale *steps, size_t n,
                    char *out, size_t len);
/* "1.23M", "456K" for counts; "-" for NAN. */
void mb__fmt_count(double n, char *buf, size_t len);
/* A figure of a named metric as the gate and history print it:
 * throughput "123.4/s"; memory and size "12.34 MiB" (under 1 MiB "512 B");
 * latencies "1.234 s", "1.234 ms", "12.34 us", "42 ns"; "-" for NAN. */
/* The unit a gate or history metric is recorded in: "inferences/s"
 * (throughput), "bytes" (memory, size), else "ns" (latencies). */
const char *mb__metric_unit(const char *metric);
char *mb__fmt_metric(const char *metric, double x, char *out, size_t len);
/* A ratio as a change: 1.05 -> "+5.0%"; "-" for NAN. */
char *mb__fmt_change(double ratio, char *out, size_t len);
/* A CI of a ratio as changes: "+1.2%..+3.4%"; "-" when either is NAN. */
char *mb__fmt_change_ci(double lo, double hi, char *out, size_t len);
/* A p-value in two significant digits, "<1e-16" below that; "-" for NAN. */
char *mb__fmt_p_short(double p, char *out, size_t len);
/* An integer with thousands separators: "1,234,567". Returns out. */
char *mb__fmt_grouped(uint64_t v, char *out, size_t len);

/* A table's title suffix for one batch size of several: " at batch 8" into
 * at and "-b8" (an element id suffix) into id; empty strings when batch
 * is 0 (one batch size).  Either buffer may be absent (length 0). */
void mb__batch_suffix(int64_t batch, char *at, size_t at_len, char *id,
                      size_t id_len);

/* Appends s as one RFC 4180 field (quoted when needed); a text that a
 * spreadsheet would read as a formula (first character = + - @, tab or
 * CR) is written "'=..." (OWASP's CSV injection rule). */
void mb__csv_field(mb__buf *out, const char *s);
/* Appends a comma, then x in fmt (e.g. "%.9g"), or nothing when x is not
 * finite (an empty field: absent). */
void mb__csv_num(mb__buf *out, const char *fmt, double x);

#endif
