/* t.h - a tiny TAP test harness: one behaviour per test, assertions that
 * print both operands.  Each test program prints "ok N - name" or
 * "not ok N - name" lines; tests/run.sh adds them up. */
#ifndef MB_TEST_T_H
#define MB_TEST_T_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int t_failed_ = 0, t_count_ = 0, t_total_failed_ = 0;
static char t_skip_[256];

/* T_SKIP(why): the test needs something optional that is absent (a Debian
 * package, the runtime); it is reported "ok N - name # SKIP why", which
 * tests/run.sh counts as skipped, not passed.  Return after it. */
#define T_SKIP(...) snprintf(t_skip_, sizeof t_skip_, __VA_ARGS__)

#define T_FAIL_(...)                                                           \
    do {                                                                       \
        fprintf(stdout, "#   %s:%d: ", __FILE__, __LINE__);                    \
        fprintf(stdout, __VA_ARGS__);                                          \
        fputc('\n', stdout);                                                   \
        t_failed_ = 1;                                                         \
    } while (0)

#define EXPECT(c)                                                              \
    do {                                                                       \
        if (!(c))                                                              \
            T_FAIL_("expected %s", #c);                                        \
    } while (0)
#define EXPECT_EQ_INT(a, b)                                                    \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        if (a_ != b_)                                                          \
            T_FAIL_("%s == %s: %lld != %lld", #a, #b, a_, b_);                 \
    } while (0)
#define EXPECT_NEAR(a, b, tol)                                                 \
    do {                                                                       \
        double a_ = (double)(a), b_ = (double)(b);                             \
        if (!(fabs(a_ - b_) <= (tol)) && !(a_ == b_))                          \
            T_FAIL_("%s ~= %s: %.17g vs %.17g (tol %g)", #a, #b, a_, b_,       \
                    (double)(tol));                                            \
    } while (0)
#define EXPECT_STR(a, b)                                                       \
    do {                                                                       \
        const char *a_ = (a), *b_ = (b);                                       \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                 \
            T_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",  \
                    b_ ? b_ : "(null)");                                       \
    } while (0)
#define EXPECT_CONTAINS(hay, needle)                                           \
    do {                                                                       \
        const char *h_ = (hay), *n_ = (needle);                                \
        if (!h_ || !strstr(h_, n_))                                            \
            T_FAIL_("%s contains \"%s\": got \"%s\"", #hay, n_,                \
                    h_ ? h_ : "(null)");                                       \
    } while (0)

#define RUN(fn)                                                                \
    do {                                                                       \
        t_failed_ = 0;                                                         \
        t_skip_[0] = '\0';                                                     \
        fn();                                                                  \
        t_count_++;                                                            \
        printf("%sok %d - %s%s%s\n", t_failed_ ? "not " : "", t_count_, #fn,   \
               t_skip_[0] && !t_failed_ ? " # SKIP " : "",                     \
               t_failed_ ? "" : t_skip_);                                      \
        fflush(stdout);                                                        \
        t_total_failed_ += t_failed_;                                          \
    } while (0)

#define T_DONE() (printf("1..%d\n", t_count_), t_total_failed_ ? 1 : 0)

#endif
