/* test_variant.c - compare's variant specifications (compare/variant.h):
 * a list value keeps its commas (shape=x=1,3,224,224), input-name renames
 * an input, a Python model spec is the model whatever its colons, and a
 * bad option still fails naming it. */
#include "t.h"

#include "plan/plan.h"
#include "compare/variant.h"

#include <string.h>

/* Parses one spec against default options; *v must be freed. */
static mb_status parse1(const char *spec, mb__variant *v, mb_err *err)
{
    mb__plan base;
    mb__plan_defaults(&base);
    char *specs[] = {(char *)spec};
    size_t nv = 0;
    memset(v, 0, sizeof *v);
    mb_status s = mb__variants_parse(specs, 1, &base, v, &nv, err);
    mb__plan_free(&base);
    return s;
}

static void a_shape_keeps_the_commas_of_its_dimensions(void)
{
    mb__variant v;
    mb_err e = {0};
    EXPECT_EQ_INT(parse1("t=net.pt,shape=x=1,3,224,224,threads=2", &v, &e), 0);
    EXPECT_STR(v.plan.model_path, "net.pt");
    EXPECT_EQ_INT(v.plan.n_shapes, 1);
    EXPECT_STR(v.plan.shapes[0].name, "x");
    EXPECT_EQ_INT(v.plan.shapes[0].rank, 4);
    EXPECT_EQ_INT(v.plan.shapes[0].dims[3], 224);
    EXPECT_STR(mb__plan_get_opt(&v.plan, "threads"), "2");
    mb__variant_free(&v);
}

static void input_name_renames_an_input(void)
{
    mb__variant v;
    mb_err e = {0};
    EXPECT_EQ_INT(parse1("o=net.onnx,input-name=x=input.1", &v, &e), 0);
    EXPECT_EQ_INT(v.plan.n_renames, 1);
    EXPECT_STR(v.plan.renames[0].key, "x");
    EXPECT_STR(v.plan.renames[0].value, "input.1");
    mb__variant_free(&v);
    EXPECT_EQ_INT(parse1("o=net.onnx,input-name=x", &v, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "input-name");
    mb__variant_free(&v);
}

static void a_python_spec_is_the_model_whatever_its_colons(void)
{
    mb__variant v;
    mb_err e = {0};
    EXPECT_EQ_INT(parse1("t=py:pkg.models:make,threads=1", &v, &e), 0);
    EXPECT_STR(v.plan.model_path, "py:pkg.models:make");
    mb__variant_free(&v);
}

static void a_lone_number_after_a_switch_is_refused(void)
{
    mb__variant v;
    mb_err e = {0};
    /* digits continue a list only after an option with a value */
    EXPECT_EQ_INT(parse1("t=net.onnx,no-arena,3", &v, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "'3'");
    mb__variant_free(&v);
    EXPECT_EQ_INT(parse1("t=net.onnx,no-such=1", &v, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "unknown variant option 'no-such'");
    mb__variant_free(&v);
}

int main(void)
{
    RUN(a_shape_keeps_the_commas_of_its_dimensions);
    RUN(input_name_renames_an_input);
    RUN(a_python_spec_is_the_model_whatever_its_colons);
    RUN(a_lone_number_after_a_switch_is_refused);
    return T_DONE();
}
