/* ssim_time.c - the time of mbench's SSIM of one image pair alone (the
 * call scikit-image's structural_similarity makes), for make bench-peers:
 * the two .npy files are read first, then mb__ssim_images is timed with
 * all CPUs, the data range the baseline's max - min as diff takes it.
 *
 * usage: ssim_time A.npy B.npy [REPS]
 * prints "seconds=S value=V" (S the median of REPS calls, default 1). */
#include "accuracy/metrics.h"
#include "accuracy/ssim.h"
#include "data/npy.h"
#include "mbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ssim_time A.npy B.npy [REPS]\n");
        return 2;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 1;
    reps = reps < 1 ? 1 : reps > 100 ? 100 : reps;
    mb_tensor a, b;
    mb_err e;
    if (mb__npy_read(argv[1], &a, &e) || mb__npy_read(argv[2], &b, &e)) {
        fprintf(stderr, "ssim_time: %s\n", e.msg);
        return 3;
    }
    size_t n = 0, count = mb_tensor_count(&a);
    if (!mb__ssim_applicable(&a, 0, &n) || n != 1) {
        fprintf(stderr, "ssim_time: give one 2-D image per file\n");
        return 2;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < count; i++) {
        double v = mb_tensor_get_f64(&a, i);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    double t[100], v = NAN;
    for (int r = 0; r < reps; r++) {
        int64_t t0 = mb_now_ns();
        if (mb__ssim_images(&a, &b, 0, hi - lo, 0, 0, &v, 1, &e)) {
            fprintf(stderr, "ssim_time: %s\n", e.msg);
            return 3;
        }
        t[r] = (double)(mb_now_ns() - t0) * 1e-9;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("seconds=%.6f value=%.17g\n", t[reps / 2], v);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
    return 0;
}
