/* test_dataset.c - --data layouts, sample axes, batching, model checks and
 * --labels files, on files written by the module's own .npy writer.
 * (numpy-made fixtures are checked by tests/integration/data.sh.) */
#include "t.h"

#include "core/fileio.h"
#include "data/dataset.h"
#include "data/labels.h"
#include "data/npy.h"
#include "data/npz.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[512];

static const char *tpath(const char *rel)
{
    static char buf[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, rel);
    return buf[k];
}

/* Writes a float32 tensor whose element i is base + i. */
static void write_f32(const char *rel, int rank, const int64_t *dims,
                      float base)
{
    mb_tensor t;
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_FLOAT32, rank, dims, NULL, &err);
    for (size_t i = 0; i < mb_tensor_count(&t); i++)
        ((float *)t.data)[i] = base + (float)i;
    if (mb__npy_write(tpath(rel), &t, &err))
        printf("# cannot write %s: %s\n", rel, err.msg);
    mb_tensor_clear(&t);
}

static mb_io_desc desc(const char *name, mb_dtype t, int rank,
                       const int64_t *dims)
{
    mb_io_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = t;
    d.rank = rank;
    for (int i = 0; i < rank; i++) {
        d.dims[i] = dims[i];
        d.dim_names[i] = "";
    }
    return d;
}

static void a_stack_in_one_npy_is_split_into_samples_and_wraps(void)
{
    int64_t fd[4] = {10, 1, 2, 2}, md[4] = {-1, 1, 2, 2};
    write_f32("ten.npy", 4, fd, 0);
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT32, 4, md);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("ten.npy"), &in, 1, NULL, &d, &err),
                  0);
    EXPECT_EQ_INT(mb__dataset_count(d), 10);
    EXPECT_STR(mb__dataset_describe(d), "ten.npy: 10 samples");
    mb_tensor out;
    EXPECT_EQ_INT(mb__dataset_batch(d, 8, 3, &out, &err), 0);
    EXPECT_EQ_INT(out.rank, 4);
    EXPECT_EQ_INT(out.dims[0], 3);
    EXPECT_STR(out.name, "x");
    /* samples 8, 9, 0: each 4 floats */
    EXPECT_NEAR(((float *)out.data)[0], 32, 0);
    EXPECT_NEAR(((float *)out.data)[4], 36, 0);
    EXPECT_NEAR(((float *)out.data)[8], 0, 0);
    mb_tensor_clear(&out);
    mb__dataset_free(d);
}

static void a_single_sample_without_batch_axis_is_one_sample(void)
{
    int64_t fd[3] = {1, 2, 2}, md[4] = {-1, 1, 2, 2};
    write_f32("one.npy", 3, fd, 5);
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT32, 4, md);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("one.npy"), &in, 1, NULL, &d, &err),
                  0);
    EXPECT_EQ_INT(mb__dataset_count(d), 1);
    mb_tensor out;
    EXPECT_EQ_INT(mb__dataset_batch(d, 0, 2, &out, &err), 0);
    EXPECT_EQ_INT(out.dims[0], 2);
    EXPECT_NEAR(((float *)out.data)[4], 5, 0);
    mb_tensor_clear(&out);
    mb__dataset_free(d);
}

/* A TorchScript or Python argument declares no rank: axis 0 of the file
 * is the batch axis (1000 samples, never one sample of 1000 rows). */
static void an_input_of_unknown_rank_takes_axis_0_as_the_batch_axis(void)
{
    int64_t fd[2] = {1000, 3};
    write_f32("rows.npy", 2, fd, 0);
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT32, -1, fd);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("rows.npy"), &in, 1, NULL, &d, &err),
                  0);
    EXPECT_EQ_INT(mb__dataset_count(d), 1000);
    mb_tensor out;
    EXPECT_EQ_INT(mb__dataset_batch(d, 2, 8, &out, &err), 0);
    EXPECT_EQ_INT(out.rank, 2);
    EXPECT_EQ_INT(out.dims[0], 8);
    EXPECT_EQ_INT(out.dims[1], 3);
    EXPECT_NEAR(((float *)out.data)[0], 6, 0); /* sample 2 starts at 6 */
    mb_tensor_clear(&out);
    mb__dataset_free(d);
}

static void wrong_dtype_names_input_expected_and_found(void)
{
    int64_t fd[2] = {10, 64}, md[4] = {-1, 1, 8, 8};
    mb_tensor t;
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_FLOAT64, 2, fd, NULL, &err);
    mb__npy_write(tpath("digits.npy"), &t, &err);
    mb_tensor_clear(&t);
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT32, 4, md);
    in.dim_names[0] = "N";
    mb__dataset *d = NULL;
    EXPECT_EQ_INT(mb__dataset_load(tpath("digits.npy"), &in, 1, NULL, &d, &err),
                  MB_EDATA);
    EXPECT_STR(err.msg, "input 'x': expected float32 [N,1,8,8], found "
                        "float64 [10,64] in digits.npy");
    EXPECT(d == NULL);
}

static void float32_data_feeds_a_float16_input_converted(void)
{
    int64_t fd[2] = {3, 2}, md[2] = {-1, 2};
    write_f32("f32.npy", 2, fd, 0.1f);
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT16, 2, md);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("f32.npy"), &in, 1, NULL, &d, &err),
                  0);
    if (!d)
        return;
    EXPECT_STR(mb__dataset_describe(d), "f32.npy: 3 samples (input 'x': "
                                        "float32 data converted to float16)");
    mb_tensor out;
    EXPECT_EQ_INT(mb__dataset_batch(d, 1, 2, &out, &err), 0);
    EXPECT_EQ_INT(out.dtype, MB_DTYPE_FLOAT16);
    /* samples 1 and 2: 2.1, 3.1, 4.1, 5.1 rounded to the nearest half */
    uint16_t *h = out.data;
    EXPECT_EQ_INT(h[0], mb_f32_to_f16(2.1f));
    EXPECT_NEAR(mb_f16_to_f32(h[3]), 5.1, 2e-3);
    mb_tensor_clear(&out);
    mb__dataset_free(d);
    /* and back: float16 data for a float32 input, widened exactly */
    mb_tensor t;
    mb_tensor_alloc(&t, MB_DTYPE_FLOAT16, 2, fd, NULL, &err);
    for (size_t i = 0; i < 6; i++)
        ((uint16_t *)t.data)[i] = mb_f32_to_f16(0.5f + (float)i);
    mb__npy_write(tpath("f16.npy"), &t, &err);
    mb_tensor_clear(&t);
    in.dtype = MB_DTYPE_FLOAT32;
    EXPECT_EQ_INT(mb__dataset_load(tpath("f16.npy"), &in, 1, NULL, &d, &err),
                  0);
    if (!d)
        return;
    EXPECT_EQ_INT(mb__dataset_batch(d, 2, 1, &out, &err), 0);
    EXPECT_EQ_INT(out.dtype, MB_DTYPE_FLOAT32);
    EXPECT_NEAR(((float *)out.data)[1], 5.5, 0);
    mb_tensor_clear(&out);
    mb__dataset_free(d);
    /* bfloat16 inputs take float32 data too */
    in.dtype = MB_DTYPE_BFLOAT16;
    EXPECT_EQ_INT(mb__dataset_load(tpath("f32.npy"), &in, 1, NULL, &d, &err),
                  0);
    if (!d)
        return;
    EXPECT_EQ_INT(mb__dataset_batch(d, 0, 1, &out, &err), 0);
    EXPECT_EQ_INT(((uint16_t *)out.data)[1], mb_f32_to_bf16(1.1f));
    mb_tensor_clear(&out);
    mb__dataset_free(d);
}

static void integer_data_is_never_converted_to_float(void)
{
    int64_t fd[2] = {3, 2}, md[2] = {-1, 2};
    mb_tensor t;
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_INT32, 2, fd, NULL, &err);
    mb__npy_write(tpath("i32.npy"), &t, &err);
    mb_tensor_clear(&t);
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT16, 2, md);
    mb__dataset *d = NULL;
    EXPECT_EQ_INT(mb__dataset_load(tpath("i32.npy"), &in, 1, NULL, &d, &err),
                  MB_EDATA);
    EXPECT_CONTAINS(err.msg, "expected float16");
    EXPECT(d == NULL);
}

static void wrong_fixed_dim_is_a_data_error(void)
{
    int64_t fd[4] = {2, 1, 3, 2}, md[4] = {-1, 1, 2, 2};
    write_f32("bad_shape.npy", 4, fd, 0);
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT32, 4, md);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__dataset_load(tpath("bad_shape.npy"), &in, 1, NULL, &d, &err),
        MB_EDATA);
    EXPECT_CONTAINS(err.msg, "expected float32 [N,1,2,2], found float32 "
                             "[2,1,3,2]");
}

static void npz_members_feed_inputs_by_name(void)
{
    mb_tensor ts[3];
    int64_t da[2] = {4, 3}, db[1] = {4};
    mb_err err = {0};
    mb_tensor_alloc(&ts[0], MB_DTYPE_INT64, 1, db, "b", &err);
    mb_tensor_alloc(&ts[1], MB_DTYPE_FLOAT32, 2, da, "a", &err);
    mb_tensor_alloc(&ts[2], MB_DTYPE_INT64, 1, db, "extra", &err);
    for (int i = 0; i < 4; i++)
        ((int64_t *)ts[0].data)[i] = 100 + i;
    EXPECT_EQ_INT(mb__npz_write(tpath("two.npz"), ts, 3, &err), 0);
    for (int i = 0; i < 3; i++)
        mb_tensor_clear(&ts[i]);
    int64_t ma[2] = {-1, 3}, mb_[1] = {-1};
    mb_io_desc ins[2] = {desc("a", MB_DTYPE_FLOAT32, 2, ma),
                         desc("b", MB_DTYPE_INT64, 1, mb_)};
    mb__dataset *d = NULL;
    EXPECT_EQ_INT(mb__dataset_load(tpath("two.npz"), ins, 2, NULL, &d, &err),
                  0);
    EXPECT_STR(mb__dataset_describe(d),
               "two.npz: 4 samples (ignored members: extra)");
    mb_tensor out[2];
    EXPECT_EQ_INT(mb__dataset_batch(d, 1, 2, out, &err), 0);
    EXPECT_STR(out[1].name, "b");
    EXPECT_EQ_INT(((int64_t *)out[1].data)[0], 101);
    EXPECT_EQ_INT(((int64_t *)out[1].data)[1], 102);
    EXPECT_EQ_INT(out[0].dims[1], 3);
    mb_tensor_clear(&out[0]);
    mb_tensor_clear(&out[1]);
    mb__dataset_free(d);
}

static void a_npy_for_a_two_input_model_is_refused(void)
{
    int64_t ma[2] = {-1, 3};
    mb_io_desc ins[2] = {desc("a", MB_DTYPE_FLOAT32, 2, ma),
                         desc("b", MB_DTYPE_FLOAT32, 2, ma)};
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("ten.npy"), ins, 2, NULL, &d, &err),
                  MB_EDATA);
    EXPECT_CONTAINS(err.msg, "the model has 2 inputs (a, b)");
}

static void sample_directories_are_read_in_natural_order(void)
{
    int64_t sd[1] = {2}, md[2] = {-1, 2};
    mkdir(tpath("samples"), 0755);
    for (int i = 0; i < 12; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "samples/sample_%d", i);
        mkdir(tpath(rel), 0755);
        snprintf(rel, sizeof rel, "samples/sample_%d/v.npy", i);
        write_f32(rel, 1, sd, (float)(10 * i));
    }
    mb_io_desc in = desc("v", MB_DTYPE_FLOAT32, 2, md);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("samples"), &in, 1, NULL, &d, &err),
                  0);
    EXPECT_EQ_INT(mb__dataset_count(d), 12);
    mb_tensor out;
    EXPECT_EQ_INT(mb__dataset_batch(d, 9, 3, &out, &err), 0);
    EXPECT_NEAR(((float *)out.data)[0], 90, 0);
    EXPECT_NEAR(((float *)out.data)[2], 100, 0);
    EXPECT_NEAR(((float *)out.data)[4], 110, 0);
    mb_tensor_clear(&out);
    mb__dataset_free(d);
}

static void a_sample_directory_missing_an_input_is_named(void)
{
    int64_t md[2] = {-1, 2};
    mb_io_desc ins[2] = {desc("v", MB_DTYPE_FLOAT32, 2, md),
                         desc("w", MB_DTYPE_FLOAT32, 2, md)};
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("samples"), ins, 2, NULL, &d, &err),
                  MB_EDATA);
    EXPECT_CONTAINS(err.msg, "sample_0 has no w.npy or w.pb for input 'w'");
}

static void a_name_list_with_unequal_sample_counts_is_refused(void)
{
    int64_t d5[2] = {5, 3}, d4[2] = {4, 3}, md[2] = {-1, 3};
    write_f32("p.npy", 2, d5, 0);
    write_f32("q.npy", 2, d4, 0);
    mb_io_desc ins[2] = {desc("p", MB_DTYPE_FLOAT32, 2, md),
                         desc("q", MB_DTYPE_FLOAT32, 2, md)};
    char list[1600];
    snprintf(list, sizeof list, "q=%s,p=%s", tpath("q.npy"), tpath("p.npy"));
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(list, ins, 2, NULL, &d, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "input 'q' has 4 samples but input 'p' has 5");
}

static void a_name_list_is_described_by_its_items(void)
{
    int64_t md[2] = {-1, 3};
    mb_io_desc in = desc("p", MB_DTYPE_FLOAT32, 2, md);
    char list[800];
    snprintf(list, sizeof list, "p=%s", tpath("p.npy"));
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(list, &in, 1, NULL, &d, &err), 0);
    EXPECT_STR(mb__dataset_describe(d), "p=p.npy: 5 samples");
    mb__dataset_free(d);
}

static void a_name_list_naming_an_unknown_input_is_refused(void)
{
    int64_t md[2] = {-1, 3};
    mb_io_desc in = desc("p", MB_DTYPE_FLOAT32, 2, md);
    char list[800];
    snprintf(list, sizeof list, "nope=%s", tpath("p.npy"));
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(list, &in, 1, NULL, &d, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "names input 'nope' but the model's inputs are: "
                             "p");
}

static void a_fixed_batch_of_one_refuses_larger_batches(void)
{
    int64_t md[4] = {1, 1, 2, 2};
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT32, 4, md);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("ten.npy"), &in, 1, NULL, &d, &err),
                  0);
    EXPECT_EQ_INT(mb__dataset_count(d), 10);
    mb_tensor out;
    EXPECT_EQ_INT(mb__dataset_batch(d, 0, 4, &out, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "fixed batch size of 1");
    EXPECT_EQ_INT(mb__dataset_batch(d, 3, 1, &out, &err), 0);
    EXPECT_NEAR(((float *)out.data)[0], 12, 0);
    mb_tensor_clear(&out);
    mb__dataset_free(d);
}

static void a_missing_data_path_is_an_io_error(void)
{
    int64_t md[1] = {-1};
    mb_io_desc in = desc("x", MB_DTYPE_FLOAT32, 1, md);
    mb__dataset *d = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__dataset_load(tpath("nope.npy"), &in, 1, NULL, &d, &err),
                  MB_EIO);
    EXPECT_CONTAINS(err.msg, "nope.npy");
}

static void labels_text_skips_blank_lines_and_comments(void)
{
    const char *txt = "# ids\n\n3\n  7  # seven\n\t-1\n\n";
    mb_err err = {0};
    mb__write_file_atomic(tpath("l.txt"), txt, strlen(txt), &err);
    int64_t *v = NULL;
    size_t n = 0;
    EXPECT_EQ_INT(mb__labels_load(tpath("l.txt"), &v, &n, &err), 0);
    EXPECT_EQ_INT(n, 3);
    if (n == 3) {
        EXPECT_EQ_INT(v[0], 3);
        EXPECT_EQ_INT(v[1], 7);
        EXPECT_EQ_INT(v[2], -1);
    }
    free(v);
}

static void labels_text_with_a_bad_line_names_the_line(void)
{
    const char *txt = "1\n2\n\n2.5\n";
    mb_err err = {0};
    mb__write_file_atomic(tpath("bad.txt"), txt, strlen(txt), &err);
    int64_t *v = NULL;
    size_t n = 0;
    EXPECT_EQ_INT(mb__labels_load(tpath("bad.txt"), &v, &n, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "line 4: '2.5' is not an integer");
    EXPECT(v == NULL);
}

static void labels_npy_of_uint8_column_is_read(void)
{
    mb_tensor t;
    int64_t dims[2] = {3, 1};
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_UINT8, 2, dims, NULL, &err);
    ((uint8_t *)t.data)[2] = 200;
    mb__npy_write(tpath("l.npy"), &t, &err);
    mb_tensor_clear(&t);
    int64_t *v = NULL;
    size_t n = 0;
    EXPECT_EQ_INT(mb__labels_load(tpath("l.npy"), &v, &n, &err), 0);
    EXPECT_EQ_INT(n, 3);
    if (n == 3)
        EXPECT_EQ_INT(v[2], 200);
    free(v);
}

static void labels_npy_of_floats_is_refused(void)
{
    int64_t dims[1] = {3};
    write_f32("lf.npy", 1, dims, 0);
    int64_t *v = NULL;
    size_t n = 0;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__labels_load(tpath("lf.npy"), &v, &n, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "hold float32 values");
}

int main(void)
{
    const char *base = getenv("MBENCH_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/dataset.XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(a_stack_in_one_npy_is_split_into_samples_and_wraps);
    RUN(a_single_sample_without_batch_axis_is_one_sample);
    RUN(an_input_of_unknown_rank_takes_axis_0_as_the_batch_axis);
    RUN(wrong_dtype_names_input_expected_and_found);
    RUN(float32_data_feeds_a_float16_input_converted);
    RUN(integer_data_is_never_converted_to_float);
    RUN(wrong_fixed_dim_is_a_data_error);
    RUN(npz_members_feed_inputs_by_name);
    RUN(a_npy_for_a_two_input_model_is_refused);
    RUN(sample_directories_are_read_in_natural_order);
    RUN(a_sample_directory_missing_an_input_is_named);
    RUN(a_name_list_with_unequal_sample_counts_is_refused);
    RUN(a_name_list_is_described_by_its_items);
    RUN(a_name_list_naming_an_unknown_input_is_refused);
    RUN(a_fixed_batch_of_one_refuses_larger_batches);
    RUN(a_missing_data_path_is_an_io_error);
    RUN(labels_text_skips_blank_lines_and_comments);
    RUN(labels_text_with_a_bad_line_names_the_line);
    RUN(labels_npy_of_uint8_column_is_read);
    RUN(labels_npy_of_floats_is_refused);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return T_DONE();
}
