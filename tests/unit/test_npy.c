/* test_npy.c - .npy and .npz reading and writing on hand-made bytes.
 * (Agreement with numpy's own files is checked by tests/integration/
 * data.sh.) */
#include "t.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "core/parse.h"
#include "data/npy.h"
#include "data/npz.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[512];

/* A .npy file made of a literal header and data bytes. */
static void make_npy(mb__buf *b, int major, const char *header,
                     const void *data, size_t len)
{
    mb__buf_append(b, "\x93NUMPY", 6);
    uint8_t v[2] = {(uint8_t)major, 0};
    mb__buf_append(b, v, 2);
    size_t hl = strlen(header);
    uint8_t l[4] = {(uint8_t)hl, (uint8_t)(hl >> 8), 0, 0};
    mb__buf_append(b, l, major == 1 ? 2 : 4);
    mb__buf_append(b, header, hl);
    mb__buf_append(b, data, len);
}

static void every_dtype_round_trips_through_encode_and_read(void)
{
    const mb_dtype types[] = {
        MB_DTYPE_BOOL,      MB_DTYPE_INT8,      MB_DTYPE_UINT8,
        MB_DTYPE_INT16,     MB_DTYPE_UINT16,    MB_DTYPE_INT32,
        MB_DTYPE_UINT32,    MB_DTYPE_INT64,     MB_DTYPE_UINT64,
        MB_DTYPE_FLOAT16,   MB_DTYPE_FLOAT32,   MB_DTYPE_FLOAT64,
        MB_DTYPE_COMPLEX64, MB_DTYPE_COMPLEX128};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        mb_tensor t, r;
        int64_t dims[3] = {2, 3, 5};
        mb_err err = {0};
        EXPECT_EQ_INT(mb_tensor_alloc(&t, types[k], 3, dims, "t", &err), 0);
        for (size_t i = 0; i < t.nbytes; i++)
            ((uint8_t *)t.data)[i] = types[k] == MB_DTYPE_BOOL
                                         ? (uint8_t)(i & 1)
                                         : (uint8_t)(i * 37 + k);
        mb__buf b = MB_BUF_INIT;
        EXPECT_EQ_INT(mb__npy_encode(&t, &b, &err), 0);
        EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "mem", &r, &err), 0);
        EXPECT_STR(mb_dtype_name(r.dtype), mb_dtype_name(types[k]));
        EXPECT_EQ_INT(r.rank, 3);
        EXPECT_EQ_INT(r.dims[2], 5);
        EXPECT_EQ_INT(r.nbytes, t.nbytes);
        EXPECT(r.data && memcmp(r.data, t.data, t.nbytes) == 0);
        mb__buf_free(&b);
        mb_tensor_clear(&t);
        mb_tensor_clear(&r);
    }
}

static void written_header_is_version_1_aligned_to_64_bytes(void)
{
    mb_tensor t;
    int64_t dims[1] = {7};
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_FLOAT32, 1, dims, NULL, &err);
    mb__buf b = MB_BUF_INIT;
    EXPECT_EQ_INT(mb__npy_encode(&t, &b, &err), 0);
    EXPECT_EQ_INT(b.data[6], 1);
    size_t hl = (uint8_t)b.data[8] | (size_t)(uint8_t)b.data[9] << 8;
    EXPECT_EQ_INT((10 + hl) % 64, 0);
    EXPECT_EQ_INT(b.data[10 + hl - 1], '\n');
    EXPECT_CONTAINS(b.data + 10, "{'descr': '<f4', 'fortran_order': False, "
                                 "'shape': (7,), }");
    EXPECT_EQ_INT(b.len, 10 + hl + 28);
    mb__buf_free(&b);
    mb_tensor_clear(&t);
}

static void big_endian_data_is_swapped_to_native(void)
{
    const uint8_t be[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe};
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1,
             "{'descr': '>i4', 'fortran_order': False, "
             "'shape': (2,), }\n",
             be, sizeof be);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "be", &t, &err), 0);
    EXPECT_EQ_INT(((int32_t *)t.data)[0], 1);
    EXPECT_EQ_INT(((int32_t *)t.data)[1], -2);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void fortran_order_is_transposed_to_c_order(void)
{
    /* numpy [[1,2,3],[4,5,6]] in column-major memory is 1 4 2 5 3 6 */
    const int16_t f[] = {1, 4, 2, 5, 3, 6};
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 2,
             "{'descr': '<i2', 'fortran_order': True, "
             "'shape': (2, 3), }\n",
             f, sizeof f);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "f", &t, &err), 0);
    EXPECT_EQ_INT(t.dims[0], 2);
    EXPECT_EQ_INT(t.dims[1], 3);
    for (int i = 0; i < 6; i++)
        EXPECT_EQ_INT(((int16_t *)t.data)[i], i + 1);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void scalar_shape_reads_as_rank_zero(void)
{
    const double v = 2.5;
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
             &v, sizeof v);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "s", &t, &err), 0);
    EXPECT_EQ_INT(t.rank, 0);
    EXPECT_NEAR(mb_tensor_get_f64(&t, 0), 2.5, 0);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void truncated_data_is_a_format_error_naming_the_file(void)
{
    const float v[3] = {1, 2, 3};
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1,
             "{'descr': '<f4', 'fortran_order': False, "
             "'shape': (4,), }\n",
             v, sizeof v);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "x.npy", &t, &err),
                  MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "x.npy is truncated");
    EXPECT_CONTAINS(err.msg, "16 bytes of data");
    EXPECT(t.data == NULL);
    mb__buf_free(&b);
}

static void wrong_magic_is_a_format_error(void)
{
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem("PK\3\4abcdefgh", 12, "y.npy", &t, &err),
                  MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "y.npy is not a .npy file");
}

static void header_longer_than_the_file_is_truncation(void)
{
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1, "{'descr': '<f4', 'fortran_order': False, ", NULL, 0);
    b.data[8] = (char)200; /* claim 200 header bytes */
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "h.npy", &t, &err),
                  MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "header claims 200 bytes");
    mb__buf_free(&b);
}

static void string_dtype_is_refused_as_unsupported(void)
{
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1,
             "{'descr': '<U2', 'fortran_order': False, "
             "'shape': (1,), }",
             "abcdefgh", 8);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "u.npy", &t, &err),
                  MB_EUNSUPPORTED);
    EXPECT_CONTAINS(err.msg, "'<U2' is not supported");
    mb__buf_free(&b);
}

static void missing_shape_key_is_a_corrupt_header(void)
{
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1, "{'descr': '<f4', 'fortran_order': False}", NULL, 0);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__npy_read_mem(b.data, b.len, "m.npy", &t, &err),
                  MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "'shape' is missing");
    mb__buf_free(&b);
}

static void npy_write_and_read_back_a_file(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/w.npy", tmpdir);
    mb_tensor t, r;
    int64_t dims[2] = {2, 2};
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_INT64, 2, dims, NULL, &err);
    for (int i = 0; i < 4; i++)
        ((int64_t *)t.data)[i] = (int64_t)i * -1000000000000LL;
    EXPECT_EQ_INT(mb__npy_write(path, &t, &err), 0);
    EXPECT_EQ_INT(mb__npy_read(path, &r, &err), 0);
    EXPECT_EQ_INT(((int64_t *)r.data)[3], -3000000000000LL);
    mb_tensor_clear(&t);
    mb_tensor_clear(&r);
}

static void a_file_with_a_header_beyond_4k_is_read(void)
{
    static char header[6000];
    snprintf(header, sizeof header,
             "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }");
    size_t n = strlen(header);
    memset(header + n, ' ', 5000);
    header[n + 5000] = '\n';
    header[n + 5001] = '\0';
    const uint16_t v[3] = {1, 2, 65535};
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 2, header, v, sizeof v);
    char path[600];
    snprintf(path, sizeof path, "%s/long.npy", tmpdir);
    mb_err err = {0};
    mb__write_file_atomic(path, b.data, b.len, &err);
    mb_tensor t;
    EXPECT_EQ_INT(mb__npy_read(path, &t, &err), 0);
    EXPECT_EQ_INT(t.dims[0], 3);
    if (t.data)
        EXPECT_EQ_INT(((uint16_t *)t.data)[2], 65535);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void a_truncated_file_is_a_format_error(void)
{
    const int8_t v[2] = {1, 2};
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1,
             "{'descr': '|i1', 'fortran_order': False, "
             "'shape': (3,), }\n",
             v, sizeof v);
    char path[600];
    snprintf(path, sizeof path, "%s/short.npy", tmpdir);
    mb_err err = {0};
    mb__write_file_atomic(path, b.data, b.len, &err);
    mb_tensor t;
    EXPECT_EQ_INT(mb__npy_read(path, &t, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "short.npy is truncated");
    EXPECT_CONTAINS(err.msg, "int8 [3] (3 bytes of data) but only 2");
    mb__buf_free(&b);
}

static void bfloat16_cannot_be_written_as_npy(void)
{
    mb_tensor t;
    int64_t dims[1] = {1};
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_BFLOAT16, 1, dims, "o", &err);
    mb__buf b = MB_BUF_INIT;
    EXPECT_EQ_INT(mb__npy_encode(&t, &b, &err), MB_EUNSUPPORTED);
    EXPECT_CONTAINS(err.msg, "bfloat16");
    mb__buf_free(&b);
    mb_tensor_clear(&t);
}

static void npz_write_and_read_keep_names_and_order(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/w.npz", tmpdir);
    mb_tensor ts[2];
    int64_t d1[1] = {3}, d2[2] = {2, 2};
    mb_err err = {0};
    mb_tensor_alloc(&ts[0], MB_DTYPE_FLOAT32, 1, d1, "logits", &err);
    mb_tensor_alloc(&ts[1], MB_DTYPE_UINT8, 2, d2, "mask", &err);
    ((float *)ts[0].data)[2] = 7.5f;
    ((uint8_t *)ts[1].data)[3] = 9;
    EXPECT_EQ_INT(mb__npz_write(path, ts, 2, &err), 0);
    mb_tensor *r = NULL;
    size_t n = 0;
    EXPECT_EQ_INT(mb__npz_read(path, &r, &n, &err), 0);
    EXPECT_EQ_INT(n, 2);
    if (n == 2) {
        EXPECT_STR(r[0].name, "logits");
        EXPECT_STR(r[1].name, "mask");
        EXPECT_NEAR(((float *)r[0].data)[2], 7.5, 0);
        EXPECT_EQ_INT(((uint8_t *)r[1].data)[3], 9);
    }
    mb__npz_free(r, n);
    mb_tensor_clear(&ts[0]);
    mb_tensor_clear(&ts[1]);
}

static void npz_of_a_non_zip_file_is_a_format_error(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/nz.npz", tmpdir);
    mb_err err = {0};
    mb__write_file_atomic(path, "hello, not a zip", 16, &err);
    mb_tensor *r;
    size_t n;
    EXPECT_EQ_INT(mb__npz_read(path, &r, &n, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "nz.npz is not a readable .npz");
    EXPECT(r == NULL);
}

static void npz_tensors_without_names_are_refused(void)
{
    mb_tensor t;
    int64_t d[1] = {1};
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_FLOAT32, 1, d, NULL, &err);
    EXPECT_EQ_INT(mb__npz_write("/nonexistent/x.npz", &t, 1, &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "has no name");
    mb_tensor_clear(&t);
}

static void a_tensor_above_the_cap_is_refused_before_allocating(void)
{
    int64_t dims[1] = {1024};
    mb_tensor t, back;
    mb_err err = {0};
    mb__buf b = MB_BUF_INIT;
    EXPECT_EQ_INT(mb_tensor_alloc(&t, MB_DTYPE_FLOAT32, 1, dims, NULL, &err),
                  MB_OK);
    EXPECT_EQ_INT(mb__npy_encode(&t, &b, &err), MB_OK);
    mb__tlimit lim = {4095, 0};
    EXPECT_EQ_INT(
        mb__npy_read_mem_lim(b.data, b.len, "t.npy", &lim, &back, &err),
        MB_EDATA);
    EXPECT_CONTAINS(err.msg, "t.npy: a tensor of 4 KiB is larger than the");
    EXPECT_CONTAINS(err.msg, "--max-tensor-bytes 4096");
    EXPECT(back.data == NULL);
    lim.max_bytes = 4096;
    EXPECT_EQ_INT(
        mb__npy_read_mem_lim(b.data, b.len, "t.npy", &lim, &back, &err), MB_OK);
    mb_tensor_clear(&back);
    mb_tensor_clear(&t);
    mb__buf_free(&b);
}

static void an_npz_member_above_the_cap_is_refused_before_decompressing(void)
{
    int64_t dims[1] = {1024};
    mb_tensor t[1];
    mb_err err = {0};
    EXPECT_EQ_INT(
        mb_tensor_alloc(&t[0], MB_DTYPE_FLOAT32, 1, dims, "big", &err), MB_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/cap.npz", tmpdir);
    EXPECT_EQ_INT(mb__npz_write(path, t, 1, &err), MB_OK);
    mb__tlimit lim = {1000, 0};
    mb_tensor *ts = NULL;
    size_t n = 0;
    EXPECT_EQ_INT(mb__npz_read_lim(path, &lim, &ts, &n, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "cap.npz member big.npy: a tensor of");
    EXPECT(ts == NULL && n == 0);
    mb_tensor_clear(&t[0]);
}

static void the_ratio_cap_spares_small_archives_and_can_be_lifted(void)
{
    mb_err err = {0};
    mb__tlimit def = {0, 0}, off = {0, 0};
    mb__tlimit_set_ratio(&off, 0);
    uint64_t big = (uint64_t)2 << 30, packed = 2 << 20;
    EXPECT_EQ_INT(mb__tlimit_check_ratio(&def, big, packed, "b.npz", &err),
                  MB_EDATA);
    EXPECT_CONTAINS(err.msg, "(1024:1, above the 200:1");
    EXPECT_EQ_INT(mb__tlimit_check_ratio(&off, big, packed, "b.npz", &err),
                  MB_OK);
    /* 63 MiB from 1 KiB: small enough to pass at any ratio */
    EXPECT_EQ_INT(mb__tlimit_check_ratio(NULL, 63 << 20, 1024, "s", &err),
                  MB_OK);
    EXPECT(mb__tlimit_default_bytes() > 0);
    EXPECT_EQ_INT(mb__tlimit_bytes(NULL), mb__tlimit_default_bytes());
}

static void byte_sizes_parse_with_binary_suffixes(void)
{
    uint64_t v = 0;
    EXPECT(mb__parse_bytes("4G", &v) && v == (uint64_t)4 << 30);
    EXPECT(mb__parse_bytes("1.5GiB", &v) && v == (uint64_t)3 << 29);
    EXPECT(mb__parse_bytes("512k", &v) && v == 512 << 10);
    EXPECT(mb__parse_bytes("100B", &v) && v == 100);
    EXPECT(mb__parse_bytes("1048576", &v) && v == 1048576);
    EXPECT(!mb__parse_bytes("", &v));
    EXPECT(!mb__parse_bytes("-1", &v));
    EXPECT(!mb__parse_bytes("1.5", &v));
    EXPECT(!mb__parse_bytes("4GB", &v));
    EXPECT(!mb__parse_bytes("0x10", &v));
    EXPECT(!mb__parse_bytes("9E", &v));
    EXPECT(!mb__parse_bytes("5T5", &v));
}

static void a_c_order_file_is_mapped_in_place(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/m.npy", tmpdir);
    mb_tensor t, r;
    int64_t dims[2] = {3, 5};
    mb_err err = {0};
    mb_tensor_alloc(&t, MB_DTYPE_FLOAT32, 2, dims, NULL, &err);
    for (int i = 0; i < 15; i++)
        ((float *)t.data)[i] = (float)i * 0.5f - 3;
    EXPECT_EQ_INT(mb__npy_write(path, &t, &err), 0);
    void *map = NULL;
    size_t len = 0;
    EXPECT_EQ_INT(mb__npy_map(path, &r, &map, &len, &err), 0);
    EXPECT(map != NULL);
    EXPECT_EQ_INT(r.dtype, MB_DTYPE_FLOAT32);
    EXPECT_EQ_INT(r.rank, 2);
    EXPECT_EQ_INT(r.dims[1], 5);
    EXPECT_EQ_INT(r.nbytes, 60);
    EXPECT(memcmp(r.data, t.data, 60) == 0);
    mb__npy_unmap(&r, map, len);
    EXPECT(r.data == NULL);
    mb_tensor_clear(&t);
}

static void a_fortran_or_big_endian_file_is_read_not_mapped(void)
{
    const int16_t f[] = {1, 4, 2, 5, 3, 6};
    const char *hdr[2] = {"{'descr': '<i2', 'fortran_order': True, "
                          "'shape': (2, 3), }\n",
                          "{'descr': '>i2', 'fortran_order': False, "
                          "'shape': (6,), }\n"};
    for (int k = 0; k < 2; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s/f%d.npy", tmpdir, k);
        mb__buf b = MB_BUF_INIT;
        make_npy(&b, 1, hdr[k], f, sizeof f);
        mb_err err = {0};
        mb__write_file_atomic(path, b.data, b.len, &err);
        mb__buf_free(&b);
        mb_tensor t;
        void *map = (void *)1;
        size_t len = 1;
        EXPECT_EQ_INT(mb__npy_map(path, &t, &map, &len, &err), 0);
        EXPECT(map == NULL);
        /* C order, host order: 1..6 for the transposed file; the
         * big-endian bytes of 1 4 2 5 3 6 read back swapped */
        int16_t v0 = ((int16_t *)t.data)[0];
        EXPECT_EQ_INT(v0, k == 0 ? 1 : 256);
        mb__npy_unmap(&t, map, len);
        mb_tensor_clear(&t);
    }
}

static void a_truncated_file_is_refused_before_mapping(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/tm.npy", tmpdir);
    const float d[2] = {1, 2};
    mb__buf b = MB_BUF_INIT;
    make_npy(&b, 1,
             "{'descr': '<f4', 'fortran_order': False, "
             "'shape': (1000000,), }\n",
             d, sizeof d);
    mb_err err = {0};
    mb__write_file_atomic(path, b.data, b.len, &err);
    mb__buf_free(&b);
    mb_tensor t;
    void *map = NULL;
    size_t len = 0;
    EXPECT_EQ_INT(mb__npy_map(path, &t, &map, &len, &err), MB_EFORMAT);
    EXPECT(map == NULL);
    EXPECT_CONTAINS(err.msg, "truncated");
}

int main(void)
{
    const char *base = getenv("MBENCH_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/npy.XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(every_dtype_round_trips_through_encode_and_read);
    RUN(written_header_is_version_1_aligned_to_64_bytes);
    RUN(big_endian_data_is_swapped_to_native);
    RUN(fortran_order_is_transposed_to_c_order);
    RUN(scalar_shape_reads_as_rank_zero);
    RUN(truncated_data_is_a_format_error_naming_the_file);
    RUN(wrong_magic_is_a_format_error);
    RUN(header_longer_than_the_file_is_truncation);
    RUN(string_dtype_is_refused_as_unsupported);
    RUN(missing_shape_key_is_a_corrupt_header);
    RUN(npy_write_and_read_back_a_file);
    RUN(a_file_with_a_header_beyond_4k_is_read);
    RUN(a_truncated_file_is_a_format_error);
    RUN(bfloat16_cannot_be_written_as_npy);
    RUN(npz_write_and_read_keep_names_and_order);
    RUN(npz_of_a_non_zip_file_is_a_format_error);
    RUN(npz_tensors_without_names_are_refused);
    RUN(a_tensor_above_the_cap_is_refused_before_allocating);
    RUN(an_npz_member_above_the_cap_is_refused_before_decompressing);
    RUN(the_ratio_cap_spares_small_archives_and_can_be_lifted);
    RUN(byte_sizes_parse_with_binary_suffixes);
    RUN(a_c_order_file_is_mapped_in_place);
    RUN(a_fortran_or_big_endian_file_is_read_not_mapped);
    RUN(a_truncated_file_is_refused_before_mapping);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return T_DONE();
}
