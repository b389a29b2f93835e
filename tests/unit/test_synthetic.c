/* test_synthetic.c - synthetic inputs: shapes resolved from batch, --dim
 * and --shape; values inside their ranges for every element type; the
 * same seed gives the same bytes. */
#include "t.h"

#include "data/synthetic.h"

#include <stdlib.h>
#include <string.h>

static mb_io_desc desc(const char *name, mb_dtype t, int rank,
                       const int64_t *dims, const char **names)
{
    mb_io_desc d = {.name = name, .dtype = t, .rank = rank};
    for (int i = 0; i < rank; i++) {
        d.dims[i] = dims[i];
        d.dim_names[i] = names ? names[i] : "";
    }
    return d;
}

static void the_first_dynamic_dim_takes_the_batch(void)
{
    mb__plan p;
    mb__plan_defaults(&p);
    int64_t dims[] = {-1, 3, 8, 8}, out[4];
    const char *names[] = {"N", "", "", ""};
    mb_io_desc d = desc("x", MB_DTYPE_FLOAT32, 4, dims, names);
    mb_err e = {0};
    EXPECT_EQ_INT(mb__resolve_shape(&d, 16, &p, out, &e), MB_OK);
    EXPECT_EQ_INT(out[0], 16);
    EXPECT_EQ_INT(out[3], 8);
    mb__plan_free(&p);
}

static void named_dims_take_their_dim_value_and_others_fail(void)
{
    mb__plan p;
    mb__plan_defaults(&p);
    int64_t dims[] = {-1, -1}, out[2];
    const char *names[] = {"batch", "seq"};
    mb_io_desc d = desc("ids", MB_DTYPE_INT64, 2, dims, names);
    mb_err e = {0};
    EXPECT_EQ_INT(mb__resolve_shape(&d, 2, &p, out, &e), MB_EMODEL);
    EXPECT_CONTAINS(e.msg, "--dim seq=VALUE");
    p.dims = calloc(1, sizeof *p.dims);
    p.dims[0] = (mb__dim_override){strdup("seq"), 128};
    p.n_dims = 1;
    EXPECT_EQ_INT(mb__resolve_shape(&d, 2, &p, out, &e), MB_OK);
    EXPECT_EQ_INT(out[1], 128);
    mb__plan_free(&p);
}

static void a_shape_override_must_fit_the_model(void)
{
    mb__plan p;
    mb__plan_defaults(&p);
    int64_t dims[] = {2, -1, 128}, out[3];
    mb_io_desc d = desc("state", MB_DTYPE_FLOAT32, 3, dims, NULL);
    int64_t good[] = {2, 1, 128}, bad[] = {3, 1, 128};
    mb_err e = {0};
    mb__plan_set_shape(&p, "state", bad, 3);
    EXPECT_EQ_INT(mb__resolve_shape(&d, 1, &p, out, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "fixed dimension 0");
    mb__plan_set_shape(&p, "state", good, 3);
    EXPECT_EQ_INT(mb__resolve_shape(&d, 1, &p, out, &e), MB_OK);
    EXPECT_EQ_INT(out[1], 1);
    mb__plan_free(&p);
}

static void values_stay_in_range_for_every_type(void)
{
    static const mb_dtype types[] = {
        MB_DTYPE_FLOAT32, MB_DTYPE_FLOAT64, MB_DTYPE_FLOAT16, MB_DTYPE_BFLOAT16,
        MB_DTYPE_INT8,    MB_DTYPE_UINT8,   MB_DTYPE_INT16,   MB_DTYPE_UINT16,
        MB_DTYPE_INT32,   MB_DTYPE_UINT32,  MB_DTYPE_INT64,   MB_DTYPE_UINT64,
        MB_DTYPE_BOOL};
    mb__plan p;
    mb__plan_defaults(&p);
    p.ranges = calloc(1, sizeof *p.ranges);
    p.ranges[0] = (mb__input_bounds){strdup("r"), 3, 7};
    p.n_ranges = 1;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        for (int ranged = 0; ranged < 2; ranged++) {
            int64_t dims[] = {-1, 1000};
            mb_io_desc d = desc(ranged ? "r" : "x", types[k], 2, dims, NULL);
            mb__rng g;
            mb__rng_seed(&g, 1);
            mb_tensor t;
            mb_err e = {0};
            EXPECT_EQ_INT(mb__synthetic_input(&d, 2, &p, &g, &t, &e), MB_OK);
            double lo, hi;
            mb__input_range(&p, d.name, d.dtype, &lo, &hi);
            size_t n = mb_tensor_count(&t), distinct = 0;
            double first = mb_tensor_get_f64(&t, 0);
            for (size_t i = 0; i < n; i++) {
                double v = mb_tensor_get_f64(&t, i);
                if (!(v >= lo && v <= hi)) {
                    T_FAIL_("%s value %g outside [%g, %g]",
                            mb_dtype_name(types[k]), v, lo, hi);
                    break;
                }
                distinct += v != first;
            }
            EXPECT(distinct > 0 || lo == hi); /* not a constant fill */
            mb_tensor_clear(&t);
        }
    }
    mb__plan_free(&p);
}

static void the_same_seed_gives_the_same_bytes(void)
{
    mb__plan p;
    mb__plan_defaults(&p);
    int64_t dims[] = {-1, 64};
    mb_io_desc d = desc("x", MB_DTYPE_FLOAT32, 2, dims, NULL);
    mb_tensor a, b, c;
    mb__rng g;
    mb_err e = {0};
    mb__rng_seed(&g, 42);
    mb__synthetic_input(&d, 4, &p, &g, &a, &e);
    mb__rng_seed(&g, 42);
    mb__synthetic_input(&d, 4, &p, &g, &b, &e);
    mb__rng_seed(&g, 43);
    mb__synthetic_input(&d, 4, &p, &g, &c, &e);
    EXPECT(memcmp(a.data, b.data, a.nbytes) == 0);
    EXPECT(memcmp(a.data, c.data, a.nbytes) != 0);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
    mb_tensor_clear(&c);
    mb__plan_free(&p);
}

static void strings_cannot_be_synthesised(void)
{
    mb__plan p;
    mb__plan_defaults(&p);
    int64_t dims[] = {1};
    mb_io_desc d = desc("s", MB_DTYPE_STRING, 1, dims, NULL);
    mb__rng g;
    mb__rng_seed(&g, 1);
    mb_tensor t;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__synthetic_input(&d, 1, &p, &g, &t, &e), MB_EUNSUPPORTED);
    EXPECT_CONTAINS(e.msg, "--data");
    mb__plan_free(&p);
}

int main(void)
{
    RUN(the_first_dynamic_dim_takes_the_batch);
    RUN(named_dims_take_their_dim_value_and_others_fail);
    RUN(a_shape_override_must_fit_the_model);
    RUN(values_stay_in_range_for_every_type);
    RUN(the_same_seed_gives_the_same_bytes);
    RUN(strings_cannot_be_synthesised);
    return T_DONE();
}
