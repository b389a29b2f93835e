/* test_onnx_inspect.c - mb__onnx_inspect on models built byte by byte here
 * (no python): what it counts, and that every truncation and thousands of
 * seeded byte flips end in MB_OK or MB_EFORMAT, never a crash or an
 * overread (ASan in `make check`).  The comparison against onnx's own
 * reading lives in tests/integration/info.sh. */
#include "t.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "core/rng.h"
#include "model/onnx.h"
#include "model/pb.h"

#include <stdlib.h>
#include <unistd.h>

static char tmpdir[256];

static void put_int(mb__buf *b, uint32_t num, uint64_t v)
{
    mb__pb_put_tag(b, num, MB_PB_VARINT);
    mb__pb_put_varint(b, v);
}

static void put_str(mb__buf *b, uint32_t num, const char *s)
{
    mb__pb_put_bytes(b, num, s, strlen(s));
}

static void put_msg(mb__buf *b, uint32_t num, mb__buf *m)
{
    mb__pb_put_bytes(b, num, m->data, m->len);
    mb__buf_free(m);
}

/* A float32 initializer of dims d0 x d1 with raw_data. */
static void put_init(mb__buf *g, uint32_t num, const char *name, int d0, int d1)
{
    mb__buf t = MB_BUF_INIT;
    put_int(&t, 1, (uint64_t)d0);
    put_int(&t, 1, (uint64_t)d1);
    put_int(&t, 2, 1);
    put_str(&t, 8, name);
    size_t n = (size_t)d0 * (size_t)d1 * 4;
    char *zeros = calloc(1, n + 1);
    mb__pb_put_bytes(&t, 9, zeros, n);
    free(zeros);
    put_msg(g, num, &t);
}

/* ValueInfo name: float32 [batch, 4]. */
static void put_vi(mb__buf *g, uint32_t num, const char *name)
{
    mb__buf dim1 = MB_BUF_INIT, dim2 = MB_BUF_INIT, shape = MB_BUF_INIT,
            tt = MB_BUF_INIT, type = MB_BUF_INIT, vi = MB_BUF_INIT;
    put_str(&dim1, 2, "batch");
    put_int(&dim2, 1, 4);
    put_msg(&shape, 1, &dim1);
    put_msg(&shape, 1, &dim2);
    put_int(&tt, 1, 1);
    put_msg(&tt, 2, &shape);
    put_msg(&type, 1, &tt);
    put_str(&vi, 1, name);
    put_msg(&vi, 2, &type);
    put_msg(g, num, &vi);
}

/* ModelProto: ir 7, opset 13, graph main { Gemm(x, w, b) -> y; an If whose
 * then_branch holds a 2x2 initializer }; w is 4x4 and also listed as an
 * input. */
static void build_model(mb__buf *m)
{
    mb__buf g = MB_BUF_INIT, node = MB_BUF_INIT, node2 = MB_BUF_INIT,
            attr = MB_BUF_INIT, sub = MB_BUF_INIT, ops = MB_BUF_INIT;
    put_str(&node, 1, "x");
    put_str(&node, 2, "y");
    put_str(&node, 4, "Gemm");
    put_msg(&g, 1, &node);
    put_init(&sub, 5, "then.w", 2, 2);
    put_str(&sub, 2, "then");
    put_str(&attr, 1, "then_branch");
    put_int(&attr, 20, 5);
    put_msg(&attr, 6, &sub);
    put_str(&node2, 4, "If");
    put_msg(&node2, 5, &attr);
    put_msg(&g, 1, &node2);
    put_str(&g, 2, "main");
    put_init(&g, 5, "w", 4, 4);
    put_init(&g, 5, "b", 1, 4);
    put_vi(&g, 11, "x");
    put_vi(&g, 11, "w");
    put_vi(&g, 12, "y");
    put_int(m, 1, 7);
    put_str(m, 2, "hand");
    put_msg(m, 7, &g);
    put_str(&ops, 1, "");
    put_int(&ops, 2, 13);
    put_msg(m, 8, &ops);
}

static const char *write_tmp(const char *name, const void *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb"); /* not atomic: no fsync per case */
    if (!f || fwrite(data, 1, n, f) != n)
        T_FAIL_("cannot write %s", path);
    if (f)
        fclose(f);
    return path;
}

static void a_hand_built_model_is_described(void)
{
    mb__buf m = MB_BUF_INIT;
    build_model(&m);
    const char *p = write_tmp("m.onnx", m.data, m.len);
    json_t *o = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__onnx_inspect(p, &o, &err), MB_OK);
    if (!o) {
        T_FAIL_("%s", err.msg);
        mb__buf_free(&m);
        return;
    }
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "ir_version")), 7);
    EXPECT_STR(json_string_value(json_object_get(o, "producer_name")), "hand");
    EXPECT_STR(json_string_value(json_object_get(o, "graph_name")), "main");
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "params")), 16 + 4 + 4);
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "param_bytes")), 96);
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "initializers")), 3);
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "subgraphs")), 1);
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "nodes")), 2);
    json_t *in = json_object_get(o, "inputs");
    EXPECT_EQ_INT(json_array_size(in), 1); /* w is an initializer */
    json_t *shape = json_object_get(json_array_get(in, 0), "shape");
    EXPECT_STR(json_string_value(json_array_get(shape, 0)), "batch");
    EXPECT_EQ_INT(json_integer_value(json_array_get(shape, 1)), 4);
    json_t *op = json_object_get(json_object_get(o, "op_types"), "Gemm");
    EXPECT_EQ_INT(json_integer_value(op), 1);
    json_t *f32 =
        json_object_get(json_object_get(o, "params_by_dtype"), "float32");
    EXPECT_EQ_INT(json_integer_value(json_object_get(f32, "count")), 24);
    json_decref(o);
    mb__buf_free(&m);
}

static void every_truncation_of_a_model_fails_cleanly(void)
{
    mb__buf m = MB_BUF_INIT;
    build_model(&m);
    int wrong = 0, ok_cuts = 0;
    for (size_t cut = 1; cut < m.len; cut++) {
        const char *p = write_tmp("cut.onnx", m.data, cut);
        json_t *o = NULL;
        mb_err err = {0};
        mb_status s = mb__onnx_inspect(p, &o, &err);
        if (s == MB_OK) {
            ok_cuts++; /* a cut exactly between top-level fields */
            json_decref(o);
        } else if (s != MB_EFORMAT || !strstr(err.msg, p) ||
                   strchr(err.msg, '\n')) {
            if (wrong++ < 3)
                T_FAIL_("cut at %zu: status %d: %s", cut, s, err.msg);
        }
    }
    EXPECT_EQ_INT(wrong, 0);
    EXPECT_EQ_INT(ok_cuts, 0); /* the opset_import comes last and is required */
    mb__buf_free(&m);
}

static void seeded_byte_flips_never_crash(void)
{
    mb__buf m = MB_BUF_INIT;
    build_model(&m);
    mb__rng rng;
    mb__rng_seed(&rng, 42);
    int bad_status = 0;
    for (int i = 0; i < 1000; i++) {
        char *copy = malloc(m.len);
        memcpy(copy, m.data, m.len);
        int flips = 1 + (int)mb__rng_below(&rng, 4);
        for (int k = 0; k < flips; k++)
            copy[mb__rng_below(&rng, m.len)] = (char)mb__rng_below(&rng, 256);
        const char *p = write_tmp("flip.onnx", copy, m.len);
        json_t *o = NULL;
        mb_err err = {0};
        mb_status s = mb__onnx_inspect(p, &o, &err);
        if (s != MB_OK && s != MB_EFORMAT && bad_status++ < 3)
            T_FAIL_("flip %d: status %d: %s", i, s, err.msg);
        json_decref(o);
        free(copy);
    }
    EXPECT_EQ_INT(bad_status, 0);
    mb__buf_free(&m);
}

static void a_missing_file_is_an_io_error_naming_it(void)
{
    json_t *o = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__onnx_inspect("/nonexistent/model.onnx", &o, &err),
                  MB_EIO);
    EXPECT_CONTAINS(err.msg, "/nonexistent/model.onnx");
    EXPECT(o == NULL);
}

int main(void)
{
    const char *base = getenv("MBENCH_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/onnx-inspect.XXXXXX",
             base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        printf("not ok 1 - cannot create a temporary directory\n");
        return 1;
    }
    RUN(a_hand_built_model_is_described);
    RUN(every_truncation_of_a_model_fails_cleanly);
    RUN(seeded_byte_flips_never_crash);
    RUN(a_missing_file_is_an_io_error_naming_it);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return T_DONE();
}
