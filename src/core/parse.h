/* parse.h - strict parsing of the values options take (numbers, durations,
 * lists), shared by the public API and the CLI. */
#ifndef MB_CORE_PARSE_H
#define MB_CORE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The whole string must be an integer within [lo, hi]; 0 on success. */
bool mb__parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* A finite number within [lo, hi]; 0 on success. */
bool mb__parse_double(const char *s, double lo, double hi, double *out);
/* "10", "10s", "500ms", "250us", "2m", "1.5h" (bare numbers are seconds). */
bool mb__parse_duration_ns(const char *s, int64_t *out);
/* "1,2,4,8": integers within [lo, hi]; *out is malloc'ed. */
bool mb__parse_i64_list(const char *s, int64_t lo, int64_t hi, int64_t **out,
                        size_t *n);
/* A byte count: "1048576", "512K", "64M", "4G", "1.5GiB", "2T" (K, M, G,
 * T are powers of 1024, optionally followed by "iB"; "B" alone is bytes),
 * at most 2^62; false for anything else. */
bool mb__parse_bytes(const char *s, uint64_t *out);
/* "0.05" or "5%": a fraction within [0, hi]. */
bool mb__parse_fraction(const char *s, double hi, double *out);
/* Levenshtein distance of two names of up to 63 characters (64 for
 * longer ones): what "did you mean" suggestions rank by. */
size_t mb__edit_distance(const char *a, const char *b);

/* Where the value of "NAME=VALUE" starts (just past the first '='), or
 * NULL unless both NAME and VALUE are non-empty. */
const char *mb__assignment_value(const char *s);
/* Whether s ends with suffix. */
bool mb__ends_with(const char *s, const char *suffix);

#endif
