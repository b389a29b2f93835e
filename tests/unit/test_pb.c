/* test_pb.c - the protobuf wire reader (src/model/pb.c): values of every
 * wire type, sub-messages, groups, and every way bytes can be truncated or
 * corrupt (each must give MB_EFORMAT naming a byte offset, never a read
 * past the end: run under ASan by `make check`). */
#include "t.h"

#include "core/buf.h"
#include "model/pb.h"

#include <stdint.h>
#include <stdlib.h>

/* Reads every field of buf[0, n) at top level; returns the status. */
static mb_status walk(const uint8_t *buf, size_t n, mb_err *err)
{
    mb__pb r;
    mb__pb_field f;
    mb_status s;
    mb__pb_init(&r, buf, n);
    while ((s = mb__pb_next(&r, &f, err)) == MB_OK && f.num)
        ;
    return s;
}

/* Copies buf into a heap block of exactly n bytes so ASan sees overreads. */
static uint8_t *exact(const void *buf, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    memcpy(p, buf, n);
    return p;
}

static void varints_decode_little_endian_base_128(void)
{
    static const uint8_t b[] = {0x01, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    mb__pb r;
    uint64_t v;
    mb__pb_init(&r, b, sizeof b);
    EXPECT_EQ_INT(mb__pb_read_varint(&r, &v, NULL), MB_OK);
    EXPECT_EQ_INT(v, 1);
    EXPECT_EQ_INT(mb__pb_read_varint(&r, &v, NULL), MB_OK);
    EXPECT_EQ_INT(v, 300);
    EXPECT_EQ_INT(mb__pb_read_varint(&r, &v, NULL), MB_OK);
    EXPECT(v == UINT64_MAX);
    EXPECT_EQ_INT(r.pos, sizeof b);
    EXPECT(!mb__pb_more(&r));
}

static void a_varint_of_eleven_bytes_is_refused(void)
{
    uint8_t b[11];
    memset(b, 0x80, 10);
    b[10] = 0x01;
    mb__pb r;
    uint64_t v;
    mb_err err = {0};
    mb__pb_init(&r, b, sizeof b);
    EXPECT_EQ_INT(mb__pb_read_varint(&r, &v, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "byte 0");
    EXPECT_EQ_INT(r.pos, 0);
}

static void a_tenth_varint_byte_above_one_overflows_64_bits(void)
{
    uint8_t b[10];
    memset(b, 0xff, 9);
    b[9] = 0x02;
    mb__pb r;
    uint64_t v;
    mb_err err = {0};
    mb__pb_init(&r, b, sizeof b);
    EXPECT_EQ_INT(mb__pb_read_varint(&r, &v, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "64 bits");
}

static void every_wire_type_is_decoded_by_next(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__pb_put_tag(&b, 1, MB_PB_VARINT);
    mb__pb_put_varint(&b, 150);
    mb__pb_put_tag(&b, 2, MB_PB_I64);
    double d = -2.5;
    mb__buf_append(&b, &d, 8);
    mb__pb_put_bytes(&b, 3, "hello", 5);
    mb__pb_put_tag(&b, 4, MB_PB_I32);
    float fl = 0.75f;
    mb__buf_append(&b, &fl, 4);
    mb__pb_put_tag(&b, 536870911, MB_PB_VARINT); /* largest field number */
    mb__pb_put_varint(&b, 2);

    mb__pb r;
    mb__pb_field f;
    mb_err err = {0};
    mb__pb_init(&r, (uint8_t *)b.data, b.len);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, &err), MB_OK);
    EXPECT_EQ_INT(f.num, 1);
    EXPECT_EQ_INT(f.wire, MB_PB_VARINT);
    EXPECT_EQ_INT(f.u64, 150);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, &err), MB_OK);
    EXPECT_EQ_INT(f.wire, MB_PB_I64);
    EXPECT_NEAR(mb__pb_f64(f.u64), -2.5, 0);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, &err), MB_OK);
    EXPECT_EQ_INT(f.wire, MB_PB_LEN);
    EXPECT_EQ_INT(f.len, 5);
    EXPECT(mb__pb_streq(&f, "hello"));
    char *s = mb__pb_strdup(&f);
    EXPECT_STR(s, "hello");
    free(s);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, &err), MB_OK);
    EXPECT_EQ_INT(f.wire, MB_PB_I32);
    EXPECT_NEAR(mb__pb_f32(f.u64), 0.75, 0);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, &err), MB_OK);
    EXPECT_EQ_INT(f.num, 536870911);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, &err), MB_OK);
    EXPECT_EQ_INT(f.num, 0); /* end */
    mb__buf_free(&b);
}

static void a_sub_reader_walks_only_the_embedded_message(void)
{
    mb__buf inner = MB_BUF_INIT, b = MB_BUF_INIT;
    mb__pb_put_tag(&inner, 1, MB_PB_VARINT);
    mb__pb_put_varint(&inner, 7);
    mb__pb_put_bytes(&inner, 2, "ab", 2);
    mb__pb_put_bytes(&b, 5, inner.data, inner.len);
    mb__pb_put_tag(&b, 6, MB_PB_VARINT);
    mb__pb_put_varint(&b, 9);

    mb__pb r;
    mb__pb_field f, g;
    mb__pb_init(&r, (uint8_t *)b.data, b.len);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, NULL), MB_OK);
    EXPECT_EQ_INT(f.num, 5);
    EXPECT_EQ_INT(f.data_offset, 2); /* tag + 1-byte length */
    mb__pb sub = mb__pb_sub(&r, &f);
    int n = 0;
    while (mb__pb_next(&sub, &g, NULL) == MB_OK && g.num)
        n++;
    EXPECT_EQ_INT(n, 2);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, NULL), MB_OK);
    EXPECT_EQ_INT(f.num, 6);
    EXPECT_EQ_INT(f.u64, 9);
    mb__buf_free(&inner);
    mb__buf_free(&b);
}

static void groups_are_skipped_whole_including_nested_groups(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__pb_put_tag(&b, 3, MB_PB_SGROUP);
    mb__pb_put_tag(&b, 1, MB_PB_VARINT);
    mb__pb_put_varint(&b, 1);
    mb__pb_put_tag(&b, 4, MB_PB_SGROUP);
    mb__pb_put_tag(&b, 4, MB_PB_EGROUP);
    mb__pb_put_tag(&b, 3, MB_PB_EGROUP);
    mb__pb_put_tag(&b, 8, MB_PB_VARINT);
    mb__pb_put_varint(&b, 42);
    mb__pb r;
    mb__pb_field f;
    mb__pb_init(&r, (uint8_t *)b.data, b.len);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, NULL), MB_OK);
    EXPECT_EQ_INT(f.wire, MB_PB_SGROUP);
    EXPECT_EQ_INT(f.len, 4); /* tag, value, start and end of inner group */
    EXPECT_EQ_INT(mb__pb_next(&r, &f, NULL), MB_OK);
    EXPECT_EQ_INT(f.num, 8);
    EXPECT_EQ_INT(f.u64, 42);
    mb__buf_free(&b);
}

static void an_unmatched_end_group_is_a_format_error(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__pb_put_tag(&b, 3, MB_PB_SGROUP);
    mb__pb_put_tag(&b, 5, MB_PB_EGROUP);
    mb_err err = {0};
    EXPECT_EQ_INT(walk((uint8_t *)b.data, b.len, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "does not match");
    mb__buf_free(&b);
    b = (mb__buf)MB_BUF_INIT;
    mb__pb_put_tag(&b, 3, MB_PB_EGROUP);
    EXPECT_EQ_INT(walk((uint8_t *)b.data, b.len, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "end-of-group");
    mb__buf_free(&b);
}

static void groups_nested_too_deep_are_refused_without_recursing_forever(void)
{
    mb__buf b = MB_BUF_INIT;
    for (int i = 0; i < 10000; i++)
        mb__pb_put_tag(&b, 1, MB_PB_SGROUP);
    mb_err err = {0};
    EXPECT_EQ_INT(walk((uint8_t *)b.data, b.len, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "nested deeper");
    mb__buf_free(&b);
}

static void field_number_zero_and_wire_types_6_and_7_are_refused(void)
{
    static const uint8_t zero[] = {0x00, 0x01};
    static const uint8_t w6[] = {0x0e, 0x01};
    static const uint8_t w7[] = {0x0f, 0x01};
    mb_err err = {0};
    EXPECT_EQ_INT(walk(zero, sizeof zero, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "invalid field number 0 at byte 0");
    EXPECT_EQ_INT(walk(w6, sizeof w6, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "invalid wire type 6");
    EXPECT_EQ_INT(walk(w7, sizeof w7, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "invalid wire type 7");
}

static void a_field_number_above_2_pow_29_is_refused(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__pb_put_varint(&b, (uint64_t)536870912 << 3);
    mb__pb_put_varint(&b, 1);
    mb_err err = {0};
    EXPECT_EQ_INT(walk((uint8_t *)b.data, b.len, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "invalid field number 536870912");
    mb__buf_free(&b);
}

static void a_length_past_the_end_names_its_offset(void)
{
    static const uint8_t b[] = {0x08, 0x01, 0x12, 0x7f, 'a', 'b'};
    mb_err err = {0};
    uint8_t *p = exact(b, sizeof b);
    EXPECT_EQ_INT(walk(p, sizeof b, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "length 127 of field 2 at byte 3");
    free(p);
}

static void a_huge_length_does_not_wrap_around(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__pb_put_tag(&b, 1, MB_PB_LEN);
    mb__pb_put_varint(&b, UINT64_MAX - 1);
    mb_err err = {0};
    EXPECT_EQ_INT(walk((uint8_t *)b.data, b.len, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "runs past the end");
    mb__buf_free(&b);
}

/* Every prefix of a valid message with a field that spans the cut must fail
 * cleanly (the reader may only stop on field boundaries). */
static void every_truncation_inside_a_field_is_a_format_error(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__pb_put_tag(&b, 1, MB_PB_VARINT);
    mb__pb_put_varint(&b, UINT64_MAX);
    mb__pb_put_tag(&b, 2, MB_PB_I64);
    mb__buf_append(&b, "12345678", 8);
    mb__pb_put_bytes(&b, 3, "some bytes here", 15);
    mb__pb_put_tag(&b, 4, MB_PB_I32);
    mb__buf_append(&b, "1234", 4);
    mb__pb_put_tag(&b, 5, MB_PB_SGROUP);
    mb__pb_put_tag(&b, 1, MB_PB_VARINT);
    mb__pb_put_varint(&b, 3);
    mb__pb_put_tag(&b, 5, MB_PB_EGROUP);
    /* field boundaries: after each complete field */
    size_t bounds[] = {0, 11, 20, 37, 42, b.len};
    int wrong = 0;
    for (size_t cut = 0; cut <= b.len; cut++) {
        int boundary = 0;
        for (size_t k = 0; k < sizeof bounds / sizeof bounds[0]; k++)
            boundary |= bounds[k] == cut;
        uint8_t *p = exact(b.data, cut);
        mb_err err = {0};
        mb_status s = walk(p, cut, &err);
        if (boundary ? s != MB_OK
                     : (s != MB_EFORMAT || !strstr(err.msg, "byte"))) {
            wrong++;
            T_FAIL_("cut at %zu: status %d (%s)", cut, s, err.msg);
        }
        free(p);
    }
    EXPECT_EQ_INT(wrong, 0);
    mb__buf_free(&b);
}

static void packed_varints_are_counted_and_a_cut_one_is_refused(void)
{
    mb__buf b = MB_BUF_INIT;
    mb__buf p = MB_BUF_INIT;
    mb__pb_put_varint(&p, 1);
    mb__pb_put_varint(&p, 300);
    mb__pb_put_varint(&p, UINT64_MAX);
    mb__pb_put_bytes(&b, 1, p.data, p.len);
    mb__pb r;
    mb__pb_field f;
    size_t n = 0;
    mb__pb_init(&r, (uint8_t *)b.data, b.len);
    EXPECT_EQ_INT(mb__pb_next(&r, &f, NULL), MB_OK);
    EXPECT_EQ_INT(mb__pb_count_varints(&f, &n, NULL), MB_OK);
    EXPECT_EQ_INT(n, 3);
    f.len -= 1; /* now ends inside the last varint */
    mb_err err = {0};
    EXPECT_EQ_INT(mb__pb_count_varints(&f, &n, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "inside a varint");
    mb__buf_free(&b);
    mb__buf_free(&p);
}

static void zigzag_maps_back_to_signed(void)
{
    EXPECT_EQ_INT(mb__pb_zigzag64(0), 0);
    EXPECT_EQ_INT(mb__pb_zigzag64(1), -1);
    EXPECT_EQ_INT(mb__pb_zigzag64(2), 1);
    EXPECT_EQ_INT(mb__pb_zigzag64(3), -2);
    EXPECT(mb__pb_zigzag64(UINT64_MAX) == INT64_MIN);
}

static void an_empty_buffer_is_an_empty_message(void)
{
    mb__pb r;
    mb__pb_field f;
    mb__pb_init(&r, NULL, 0);
    EXPECT(!mb__pb_more(&r));
    EXPECT_EQ_INT(mb__pb_next(&r, &f, NULL), MB_OK);
    EXPECT_EQ_INT(f.num, 0);
}

int main(void)
{
    RUN(varints_decode_little_endian_base_128);
    RUN(a_varint_of_eleven_bytes_is_refused);
    RUN(a_tenth_varint_byte_above_one_overflows_64_bits);
    RUN(every_wire_type_is_decoded_by_next);
    RUN(a_sub_reader_walks_only_the_embedded_message);
    RUN(groups_are_skipped_whole_including_nested_groups);
    RUN(an_unmatched_end_group_is_a_format_error);
    RUN(groups_nested_too_deep_are_refused_without_recursing_forever);
    RUN(field_number_zero_and_wire_types_6_and_7_are_refused);
    RUN(a_field_number_above_2_pow_29_is_refused);
    RUN(a_length_past_the_end_names_its_offset);
    RUN(a_huge_length_does_not_wrap_around);
    RUN(every_truncation_inside_a_field_is_a_format_error);
    RUN(packed_varints_are_counted_and_a_cut_one_is_refused);
    RUN(zigzag_maps_back_to_signed);
    RUN(an_empty_buffer_is_an_empty_message);
    return T_DONE();
}
