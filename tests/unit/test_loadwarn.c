/* test_loadwarn.c - the record of the machine per round and the "load
 * changed" warning (runner/replicate.h, docs/STATISTICS.md "load per
 * round"): a change in the CPU-busy share warns; on a machine busy
 * throughout a change in the runnable processes by the number of CPUs
 * warns; a steady machine does not; unknown values are JSON null. */
#include "t.h"

#include "runner/replicate.h"

#include <jansson.h>
#include <math.h>
#include <unistd.h>

#define N 20

static int cpus(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

/* N rounds; the last quarter has busy share b1 and runnable q1, the rest
 * b0 and q0. */
static void fill(mb__round_rec *r, double b0, double b1, double q0, double q1)
{
    for (size_t i = 0; i < N; i++) {
        r[i].t_s = (double)(i + 1);
        r[i].loadavg = 2.0;
        r[i].cpu_busy = i < N * 3 / 4 ? b0 : b1;
        r[i].runnable = i < N * 3 / 4 ? q0 : q1;
    }
}

/* The warnings mb__warn_load_changed adds for these rounds (caller frees
 * the document, whose "warnings" is returned). */
static json_t *warn(const mb__round_rec *r, size_t n, json_t **doc)
{
    *doc = json_pack("{s:[]}", "warnings");
    mb__warn_load_changed(*doc, r, n);
    return json_object_get(*doc, "warnings");
}

static void a_change_in_the_busy_share_warns(void)
{
    mb__round_rec r[N];
    json_t *doc;
    fill(r, 0.40, 0.95, 1, 1);
    json_t *w = warn(r, N, &doc);
    EXPECT_EQ_INT(json_array_size(w), 1);
    EXPECT_CONTAINS(json_string_value(json_array_get(w, 0)),
                    "CPU busy 40% to 95%");
    json_decref(doc);
}

static void a_busy_machine_warns_when_its_queue_grows_by_the_cpus(void)
{
    mb__round_rec r[N];
    json_t *doc;
    int c = cpus();
    fill(r, 0.99, 1.0, 3, 3 + c);
    json_t *w = warn(r, N, &doc);
    EXPECT_EQ_INT(json_array_size(w), 1);
    EXPECT_CONTAINS(json_string_value(json_array_get(w, 0)),
                    "processes runnable");
    json_decref(doc);
    fill(r, 0.99, 1.0, 3, 3 + c - 0.5); /* less than the CPUs: no warning */
    w = warn(r, N, &doc);
    EXPECT_EQ_INT(json_array_size(w), 0);
    json_decref(doc);
}

static void a_steady_machine_or_too_few_rounds_does_not_warn(void)
{
    mb__round_rec r[N];
    json_t *doc;
    fill(r, 0.50, 0.60, 2, 2);
    EXPECT_EQ_INT(json_array_size(warn(r, N, &doc)), 0);
    json_decref(doc);
    fill(r, 0.10, 1.0, 1, 20);
    EXPECT_EQ_INT(json_array_size(warn(r, 3, &doc)), 0);
    json_decref(doc);
}

static void unknown_values_are_null_in_the_rounds(void)
{
    mb__round_rec r[N];
    fill(r, 0.5, 0.5, 2, 2);
    r[0].runnable = NAN;
    r[1].cpu_busy = NAN;
    json_t *a = mb__rounds_json(r, N);
    EXPECT_EQ_INT(json_array_size(a), N);
    EXPECT(json_is_null(json_object_get(json_array_get(a, 0), "runnable")));
    EXPECT(json_is_null(json_object_get(json_array_get(a, 1), "cpu_busy")));
    EXPECT_NEAR(
        json_number_value(json_object_get(json_array_get(a, 2), "runnable")), 2,
        0);
    json_decref(a);
    /* a quarter with no known busy share: nothing to compare, no warning */
    json_t *doc;
    for (size_t i = 0; i < N / 4; i++)
        r[i].cpu_busy = NAN;
    r[N - 1].cpu_busy = 1.0;
    EXPECT_EQ_INT(json_array_size(warn(r, N, &doc)), 0);
    json_decref(doc);
}

int main(void)
{
    RUN(a_change_in_the_busy_share_warns);
    RUN(a_busy_machine_warns_when_its_queue_grows_by_the_cpus);
    RUN(a_steady_machine_or_too_few_rounds_does_not_warn);
    RUN(unknown_values_are_null_in_the_rounds);
    return T_DONE();
}
