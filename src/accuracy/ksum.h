/* ksum.h - Neumaier's compensated summation (Kahan-Babuska), header-only:
 * every accuracy sum goes through it.  The branch of the classic form is a
 * select, so the compiler keeps the loop branch-free. */
#ifndef MB_ACCURACY_KSUM_H
#define MB_ACCURACY_KSUM_H

#include <math.h>

typedef struct mb__ksum {
    double s; /* running sum */
    double c; /* running compensation */
} mb__ksum;

static inline void mb__ksum_add(mb__ksum *k, double x)
{
    double t = k->s + x;
    double e = fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
    k->c += e;
    k->s = t;
}

static inline double mb__ksum_get(const mb__ksum *k)
{
    return k->s + k->c;
}

/* Adds another compensated sum (both parts). */
static inline void mb__ksum_merge(mb__ksum *k, const mb__ksum *o)
{
    mb__ksum_add(k, o->s);
    mb__ksum_add(k, o->c);
}

#endif
