/* test_onnx_tensor.c - TensorProto decoding and encoding (src/model/
 * onnx_tensor.c): hand-built messages for each storage rule, and every
 * tensor .pb file of ONNX's own test data (libonnx-testdata) compared with
 * what numpy reads through onnx.numpy_helper
 * (tests/fixtures/model/make_pb_expect.py). */
#include "t.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "model/onnx.h"
#include "model/pb.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void put_varint_field(mb__buf *b, uint32_t num, uint64_t v)
{
    mb__pb_put_tag(b, num, MB_PB_VARINT);
    mb__pb_put_varint(b, v);
}

/* A packed field of varints. */
static void put_packed(mb__buf *b, uint32_t num, const int64_t *v, size_t n)
{
    mb__buf p = MB_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        mb__pb_put_varint(&p, (uint64_t)v[i]);
    mb__pb_put_bytes(b, num, p.data, p.len);
    mb__buf_free(&p);
}

static void float16_values_packed_in_int32_data_decode_to_their_bits(void)
{
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 1, 3);                 /* dims [3] */
    put_varint_field(&b, 2, 10);                /* float16 */
    int64_t bits[3] = {0x3c00, 0xc000, 0x7bff}; /* 1, -2, 65504 */
    put_packed(&b, 5, bits, 3);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_OK);
    EXPECT_EQ_INT(t.dtype, MB_DTYPE_FLOAT16);
    EXPECT_EQ_INT(t.nbytes, 6);
    EXPECT_NEAR(mb_tensor_get_f64(&t, 0), 1.0, 0);
    EXPECT_NEAR(mb_tensor_get_f64(&t, 1), -2.0, 0);
    EXPECT_NEAR(mb_tensor_get_f64(&t, 2), 65504.0, 0);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void negative_int8_values_in_int32_data_keep_their_sign(void)
{
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 1, 2);
    put_varint_field(&b, 1, 2);        /* dims [2,2], unpacked */
    put_varint_field(&b, 2, 3);        /* int8 */
    int64_t v[4] = {-128, -1, 0, 127}; /* negative: 10-byte varints */
    put_packed(&b, 5, v, 4);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_OK);
    EXPECT_EQ_INT(t.rank, 2);
    EXPECT_EQ_INT(t.nbytes, 4);
    const int8_t *d = t.data;
    EXPECT_EQ_INT(d[0], -128);
    EXPECT_EQ_INT(d[1], -1);
    EXPECT_EQ_INT(d[2], 0);
    EXPECT_EQ_INT(d[3], 127);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void unpacked_float_data_elements_are_accepted(void)
{
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 1, 2);
    put_varint_field(&b, 2, 1);
    float f[2] = {1.5f, -0.25f};
    for (int i = 0; i < 2; i++) {
        mb__pb_put_tag(&b, 4, MB_PB_I32);
        mb__buf_append(&b, &f[i], 4);
    }
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_OK);
    EXPECT_NEAR(mb_tensor_get_f64(&t, 0), 1.5, 0);
    EXPECT_NEAR(mb_tensor_get_f64(&t, 1), -0.25, 0);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void a_scalar_with_no_dims_has_one_element(void)
{
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 2, 7); /* int64 scalar */
    int64_t v = -5;
    put_packed(&b, 7, &v, 1);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_OK);
    EXPECT_EQ_INT(t.rank, 0);
    EXPECT_EQ_INT(t.nbytes, 8);
    EXPECT_EQ_INT(*(int64_t *)t.data, -5);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void encode_then_decode_gives_the_same_tensor(void)
{
    mb_tensor a, c;
    mb_err err = {0};
    int64_t dims[3] = {2, 1, 3};
    EXPECT_EQ_INT(mb_tensor_alloc(&a, MB_DTYPE_FLOAT32, 3, dims, "x:0", &err),
                  MB_OK);
    for (int i = 0; i < 6; i++)
        ((float *)a.data)[i] = (float)i * 0.5f - 1.0f;
    mb__buf b = MB_BUF_INIT;
    EXPECT_EQ_INT(mb__onnx_tensor_encode(&a, &b, &err), MB_OK);
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &c, &err),
        MB_OK);
    EXPECT_EQ_INT(c.dtype, MB_DTYPE_FLOAT32);
    EXPECT_EQ_INT(c.rank, 3);
    EXPECT_EQ_INT(c.dims[2], 3);
    EXPECT_STR(c.name, "x:0");
    EXPECT_EQ_INT(c.nbytes, a.nbytes);
    EXPECT(c.data && memcmp(a.data, c.data, a.nbytes) == 0);
    mb_tensor_clear(&a);
    mb_tensor_clear(&c);
    mb__buf_free(&b);
}

static void raw_data_of_the_wrong_size_is_a_format_error(void)
{
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 1, 4);
    put_varint_field(&b, 2, 1);
    mb__pb_put_bytes(&b, 9, "12345678", 8); /* 2 floats, dims say 4 */
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "raw_data holds 8 bytes");
    EXPECT(t.data == NULL);
    mb__buf_free(&b);
}

static void too_few_typed_values_is_a_format_error(void)
{
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 1, 3);
    put_varint_field(&b, 2, 6);
    int64_t v[2] = {1, 2};
    put_packed(&b, 5, v, 2);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "has 2 values");
    mb__buf_free(&b);
}

static void a_truncated_tensor_is_a_format_error_naming_the_offset(void)
{
    mb_tensor a, t;
    mb_err err = {0};
    int64_t dims[1] = {100};
    mb_tensor_alloc(&a, MB_DTYPE_FLOAT32, 1, dims, NULL, &err);
    mb__buf b = MB_BUF_INIT;
    mb__onnx_tensor_encode(&a, &b, &err);
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len - 10, NULL, &t, &err),
        MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "at byte");
    mb_tensor_clear(&a);
    mb__buf_free(&b);
}

static void a_string_tensor_is_unsupported(void)
{
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 1, 1);
    put_varint_field(&b, 2, 8);
    mb__pb_put_bytes(&b, 6, "abc", 3);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_EUNSUPPORTED);
    EXPECT_CONTAINS(err.msg, "string");
    mb__buf_free(&b);
}

static void put_entry(mb__buf *b, const char *k, const char *v)
{
    mb__buf e = MB_BUF_INIT;
    mb__pb_put_bytes(&e, 1, k, strlen(k));
    mb__pb_put_bytes(&e, 2, v, strlen(v));
    mb__pb_put_bytes(b, 13, e.data, e.len);
    mb__buf_free(&e);
}

static void external_data_is_read_relative_to_the_base_dir(void)
{
    char dir[] = "/tmp/mbench-ext.XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/w.bin", dir);
    int32_t vals[6] = {0, 0, 7, -8, 9, 99}; /* tensor at offset 8 */
    mb_err err = {0};
    EXPECT_EQ_INT(mb__write_file_atomic(path, vals, sizeof vals, &err), MB_OK);
    mb__buf b = MB_BUF_INIT;
    put_varint_field(&b, 1, 3);
    put_varint_field(&b, 2, 6);
    put_entry(&b, "location", "w.bin");
    put_entry(&b, "offset", "8");
    put_entry(&b, "length", "12");
    put_varint_field(&b, 14, 1);
    mb_tensor t;
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, dir, &t, &err), MB_OK);
    EXPECT_EQ_INT(t.nbytes, 12);
    if (t.data) {
        EXPECT_EQ_INT(((int32_t *)t.data)[0], 7);
        EXPECT_EQ_INT(((int32_t *)t.data)[2], 9);
    }
    mb_tensor_clear(&t);
    unlink(path);
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((uint8_t *)b.data, b.len, dir, &t, &err),
        MB_EIO);
    EXPECT_CONTAINS(err.msg, "w.bin");
    rmdir(dir);
    mb__buf_free(&b);
}

/* ONNX Runtime's rules (model/extdata.h): the .pb reader opens nothing
 * outside the directory, however the location gets there. */
static void external_data_outside_the_base_dir_is_refused(void)
{
    char dir[] = "/tmp/mbench-ext.XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    char sub[300], link[300];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(link, sizeof link, "%s/sub/passwd.bin", dir);
    EXPECT(mkdir(sub, 0700) == 0);
    EXPECT(symlink("/etc/passwd", link) == 0);
    static const char *const locs[] = {"../w.bin", "/etc/passwd", "passwd.bin",
                                       "a/../../w.bin"};
    static const char *const why[] = {
        "outside the model's directory", "an absolute path",
        "outside the model's directory once symlinks are resolved",
        "outside the model's directory"};
    for (int i = 0; i < 4; i++) {
        mb__buf b = MB_BUF_INIT;
        put_varint_field(&b, 1, 3);
        put_varint_field(&b, 2, 6);
        put_entry(&b, "location", locs[i]);
        put_varint_field(&b, 14, 1);
        mb_tensor t;
        mb_err err = {0};
        EXPECT_EQ_INT(
            mb__onnx_tensor_decode((uint8_t *)b.data, b.len, sub, &t, &err),
            MB_EFORMAT);
        EXPECT_CONTAINS(err.msg, why[i]);
        EXPECT(t.data == NULL);
        mb__buf_free(&b);
    }
    unlink(link);
    rmdir(sub);
    rmdir(dir);
}

/* Parses "2,3,4" or "-" into dims; returns the rank. */
static int parse_dims(char *s, int64_t *dims)
{
    if (strcmp(s, "-") == 0)
        return 0;
    int r = 0;
    for (char *tok = strtok(s, ","); tok && r < MB_MAX_RANK;
         tok = strtok(NULL, ","))
        dims[r++] = strtoll(tok, NULL, 10);
    return r;
}

static void every_tensor_of_onnx_test_data_decodes_as_numpy_reads_it(void)
{
    const char *root = getenv("MBENCH_ROOT");
    const char *tmp = getenv("MBENCH_TEST_TMP");
    struct stat st;
    if (!root || !tmp || stat("/usr/share/libonnx-testdata/data", &st) != 0) {
        T_SKIP("needs tests/run.sh and libonnx-testdata (scripts/deps.sh "
               "test)");
        return;
    }
    char out[1024], cmd[3072];
    snprintf(out, sizeof out, "%s/pb-expect.%d", tmp, (int)getpid());
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 %s/tests/fixtures/model/make_pb_expect.py %s",
             root, out);
    EXPECT_EQ_INT(system(cmd), 0);
    char mpath[1100];
    snprintf(mpath, sizeof mpath, "%s/manifest.tsv", out);
    FILE *f = fopen(mpath, "r");
    EXPECT(f != NULL);
    if (!f)
        return;
    char line[4096];
    int checked = 0, unsupported = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        char *save, *path = strtok_r(line, "\t", &save);
        char *status = strtok_r(NULL, "\t", &save);
        char *type = strtok_r(NULL, "\t", &save);
        char *dims_s = strtok_r(NULL, "\t", &save);
        char *bin = strtok_r(NULL, "\t\n", &save);
        if (!path || !status || !type || !dims_s || !bin)
            continue;
        mb_tensor t;
        mb_err err = {0};
        mb_status s = mb__onnx_tensor_read_file(path, &t, &err);
        if (strcmp(status, "unsupported") == 0) {
            unsupported++;
            if (s != MB_EUNSUPPORTED && bad++ < 5)
                T_FAIL_("%s: expected unsupported, got status %d", path, s);
            mb_tensor_clear(&t);
            continue;
        }
        checked++;
        int64_t dims[MB_MAX_RANK];
        int rank = parse_dims(dims_s, dims);
        char bpath[1200];
        snprintf(bpath, sizeof bpath, "%s/%s", out, bin);
        char *want = NULL;
        size_t want_len = 0;
        mb__read_file(bpath, &want, &want_len, NULL);
        int same = s == MB_OK && (int)t.dtype == atoi(type) && t.rank == rank &&
                   want && t.nbytes == want_len &&
                   (want_len == 0 || memcmp(t.data, want, want_len) == 0);
        for (int i = 0; same && i < rank; i++)
            same = t.dims[i] == dims[i];
        if (!same && bad++ < 5)
            T_FAIL_("%s: status %d (%s), dtype %d vs %s, rank %d vs %d, "
                    "%zu vs %zu bytes",
                    path, s, err.msg, (int)t.dtype, type, t.rank, rank,
                    t.nbytes, want_len);
        free(want);
        mb_tensor_clear(&t);
    }
    fclose(f);
    printf("# %d tensors compared with numpy, %d string tensors refused, "
           "%d mismatches\n",
           checked, unsupported, bad);
    EXPECT(checked > 1000);
    EXPECT_EQ_INT(bad, 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", out);
    EXPECT_EQ_INT(system(cmd), 0);
}

int main(void)
{
    RUN(float16_values_packed_in_int32_data_decode_to_their_bits);
    RUN(negative_int8_values_in_int32_data_keep_their_sign);
    RUN(unpacked_float_data_elements_are_accepted);
    RUN(a_scalar_with_no_dims_has_one_element);
    RUN(encode_then_decode_gives_the_same_tensor);
    RUN(raw_data_of_the_wrong_size_is_a_format_error);
    RUN(too_few_typed_values_is_a_format_error);
    RUN(a_truncated_tensor_is_a_format_error_naming_the_offset);
    RUN(a_string_tensor_is_unsupported);
    RUN(external_data_is_read_relative_to_the_base_dir);
    RUN(external_data_outside_the_base_dir_is_refused);
    RUN(every_tensor_of_onnx_test_data_decodes_as_numpy_reads_it);
    return T_DONE();
}
