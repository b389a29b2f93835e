/* outpair.h - which candidate output is judged against which baseline
 * output: the one pairing rule of `mbench validate`, `mbench compare` and
 * `mbench diff` (and of their saved outputs), docs/ACCURACY.md "Pairing
 * outputs".
 *
 * The rule, in order:
 *  1. each --map BASE=CAND pairs the baseline's output BASE with the
 *     candidate's CAND (renamed outputs);
 *  2. outputs of the same name pair (then, for files, the name stored in
 *     a tensor: an alternate name);
 *  3. when no name matched at all and both sides have as many outputs,
 *     they pair by position, and the pairing says so (a note naming every
 *     pair and the --map that would name them);
 *  4. leftovers of one side that are all "unnamed" (ONNX test data whose
 *     output_N.pb stores no name) pair by position with as many of the
 *     other side's leftovers, with a note;
 *  5. anything still unpaired - a missing or an extra output - is an
 *     error, one line in every command: which names have no counterpart,
 *     both sides' outputs, and the --map hint.
 * Nothing is ever judged against the wrong output or left out silently. */
#ifndef MB_ACCURACY_OUTPAIR_H
#define MB_ACCURACY_OUTPAIR_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* One output of one side (borrowed). */
typedef struct mb__outname {
    const char *name; /* may be NULL or "" */
    const char *alt;  /* a second name (stored in a .pb), or NULL */
    int unnamed;      /* nothing names it (rule 4) */
} mb__outname;

/* --map BASE=CAND. */
typedef struct mb__outmap {
    char base[256], cand[256];
} mb__outmap;

/* How the pairing went ("by" of each pair). */
typedef enum mb__pair_by {
    MB_PAIR_NAME = 0,
    MB_PAIR_MAP = 1,
    MB_PAIR_POSITION = 2
} mb__pair_by;

typedef struct mb__outpairs {
    size_t n;        /* pairs: as many as each side has outputs */
    size_t *cand;    /* cand[i]: the candidate output paired with baseline i */
    mb__pair_by *by; /* how pair i was made */
    int by_position; /* some pair was made by position */
    char note[1024]; /* "" unless some pair was made by position */
} mb__outpairs;

/* The request: the two sides, the maps, and how the sides are named in
 * messages ("the baseline", "variant int8", a path). */
typedef struct mb__pair_req {
    const mb__outname *a, *b;
    size_t na, nb;
    const mb__outmap *map;
    size_t n_map;
    const char *what_a, *what_b;
    /* A --map whose CAND the candidate lacks is skipped rather than an
     * error (compare: one --map serves every variant). */
    int map_lenient;
} mb__pair_req;

/* Pairs every output (the rule above) into *p (mb__outpairs_free).
 * MB_EINVAL: a --map naming an output the side lacks, or mapping one
 * output twice; MB_EDATA: outputs that do not pair (rule 5). */
mb_status mb__outputs_pair(const mb__pair_req *rq, mb__outpairs *p,
                           mb_err *err);

void mb__outpairs_free(mb__outpairs *p);

/* {"method": "name"|"map"|"position"|"mixed", "note": string or null,
 * "pairs": [{"baseline", "candidate", "by"}]}: the document's
 * "output_pairing".  New reference. */
json_t *mb__outpairs_json(const mb__pair_req *rq, const mb__outpairs *p);

/* Parses "BASE=CAND" (both non-empty, each under 256 bytes; the first
 * '=' splits them).  MB_EINVAL names the text and the form. */
mb_status mb__outmap_parse(const char *text, mb__outmap *m, mb_err *err);

/* At most this many --map entries per command. */
#define MB__MAX_OUTMAPS 16

#endif
