/* changepoint.h - step detection in a noisy series of results (one value
 * per stored run, in commit order), for `mbench history`.
 *
 * Method (docs/STORE.md): binary segmentation on medians.  The noise scale
 * is estimated robustly from successive differences,
 *   sigma = 1.4826 * median(|x[i+1] - x[i]|) / sqrt(2),
 * (a step moves one difference only), floored at 0.5% of the series
 * median.  In a segment, the split (leaving at least `min_segment` points
 * on each side) with the least L1 cost - the sum of absolute deviations
 * from each side's median - is scored as
 *   |median(left) - median(right)| / (1.2533 * sigma * sqrt(1/nl + 1/nr))
 * (1.2533 = sqrt(pi/2): the standard error of a median in sigmas).  It is
 * a change point when its score exceeds `threshold` and the relative
 * change exceeds `min_rel`; both halves are then searched again. */
#ifndef MB_REGRESS_CHANGEPOINT_H
#define MB_REGRESS_CHANGEPOINT_H

#include <stddef.h>

#define MB_CP_MIN_SEGMENT 3
#define MB_CP_THRESHOLD 4.5
#define MB_CP_MIN_REL 0.01

typedef struct mb__changepoint {
    size_t index;  /* first point of the new level */
    double before; /* median of the segment before */
    double after;  /* median of the segment after */
    double score;  /* standardised step size */
} mb__changepoint;

/* Finds change points in x[0..n) (NaNs are not allowed); writes at most
 * `cap` of them into out in index order and returns how many there are
 * (possibly more than cap), or 0 when none or memory runs out. */
size_t mb__changepoints(const double *x, size_t n, size_t min_segment,
                        double threshold, double min_rel, mb__changepoint *out,
                        size_t cap);

#endif
