/* pb.c - the protobuf wire-format reader declared in pb.h, written from the
 * encoding rules: a tag is the varint (field_number << 3 | wire_type); a
 * varint is little-endian base-128 with the high bit of each byte meaning
 * "more follows"; I32/I64 are little-endian fixed width; LEN is a varint
 * byte count followed by that many bytes; groups run from an SGROUP tag to
 * the EGROUP tag with the same field number. */
#include "model/pb.h"

#include "core/buf.h"
#include "core/err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void mb__pb_init(mb__pb *r, const uint8_t *buf, size_t len)
{
    r->buf = buf;
    r->pos = 0;
    r->end = buf ? len : 0;
}

bool mb__pb_more(const mb__pb *r)
{
    return r->pos < r->end;
}

mb_status mb__pb_read_varint(mb__pb *r, uint64_t *v, mb_err *err)
{
    uint64_t x = 0;
    size_t p = r->pos;
    for (int i = 0; i < 10; i++, p++) {
        if (p >= r->end)
            return mb__fail(err, MB_EFORMAT,
                            "truncated varint at byte %zu (data ends at %zu)",
                            r->pos, r->end);
        uint8_t b = r->buf[p];
        if (i == 9 && (b & 0xfe))
            return mb__fail(err, MB_EFORMAT,
                            "varint at byte %zu does not fit 64 bits", r->pos);
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            r->pos = p + 1;
            *v = x;
            return MB_OK;
        }
    }
    return mb__fail(err, MB_EFORMAT,
                    "varint at byte %zu is longer than 10 bytes", r->pos);
}

static mb_status read_fixed(mb__pb *r, int n, uint64_t *v, mb_err *err)
{
    if (r->end - r->pos < (size_t)n)
        return mb__fail(err, MB_EFORMAT,
                        "truncated %d-bit value at byte %zu (data ends at %zu)",
                        n * 8, r->pos, r->end);
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x |= (uint64_t)r->buf[r->pos + (size_t)i] << (8 * i);
    r->pos += (size_t)n;
    *v = x;
    return MB_OK;
}

mb_status mb__pb_read_fixed32(mb__pb *r, uint32_t *v, mb_err *err)
{
    uint64_t x = 0;
    mb_status s = read_fixed(r, 4, &x, err);
    if (s == MB_OK)
        *v = (uint32_t)x;
    return s;
}

mb_status mb__pb_read_fixed64(mb__pb *r, uint64_t *v, mb_err *err)
{
    return read_fixed(r, 8, v, err);
}

/* Reads a tag at r->pos into num and wire, validating both. */
static mb_status read_tag(mb__pb *r, uint32_t *num, int *wire, mb_err *err)
{
    size_t at = r->pos;
    uint64_t t;
    mb_status s = mb__pb_read_varint(r, &t, err);
    if (s)
        return s;
    int w = (int)(t & 7);
    uint64_t n = t >> 3;
    if (n == 0 || n > MB_PB_MAX_FIELD) {
        r->pos = at;
        return mb__fail(err, MB_EFORMAT,
                        "invalid field number %llu at byte %zu (not protobuf "
                        "data, or corrupt)",
                        (unsigned long long)n, at);
    }
    if (w > 5) {
        r->pos = at;
        return mb__fail(err, MB_EFORMAT,
                        "invalid wire type %d at byte %zu (not protobuf data, "
                        "or corrupt)",
                        w, at);
    }
    *num = (uint32_t)n;
    *wire = w;
    return MB_OK;
}

/* Skips a value of wire type `wire`; for groups, up to and including the
 * matching end tag, at most MB_PB_MAX_DEPTH levels deep.  *payload_end
 * receives the end of the payload (before a group's end tag). */
static mb_status skip_value(mb__pb *r, int wire, uint32_t num, int depth,
                            size_t *payload_end, mb_err *err)
{
    uint64_t v;
    mb_status s;
    switch (wire) {
    case MB_PB_VARINT:
        s = mb__pb_read_varint(r, &v, err);
        break;
    case MB_PB_I64:
        s = mb__pb_read_fixed64(r, &v, err);
        break;
    case MB_PB_I32: {
        uint32_t v32;
        s = mb__pb_read_fixed32(r, &v32, err);
        break;
    }
    case MB_PB_LEN: {
        size_t at = r->pos;
        s = mb__pb_read_varint(r, &v, err);
        if (s)
            return s;
        if (v > r->end - r->pos) {
            r->pos = at;
            return mb__fail(err, MB_EFORMAT,
                            "length %llu at byte %zu runs past the end of the "
                            "data (%zu bytes left): truncated or corrupt",
                            (unsigned long long)v, at, r->end - r->pos);
        }
        r->pos += (size_t)v;
        break;
    }
    case MB_PB_SGROUP: {
        if (depth >= MB_PB_MAX_DEPTH)
            return mb__fail(err, MB_EFORMAT,
                            "groups nested deeper than %d at byte %zu",
                            MB_PB_MAX_DEPTH, r->pos);
        for (;;) {
            size_t at = r->pos;
            uint32_t n2;
            int w2;
            if (!mb__pb_more(r))
                return mb__fail(err, MB_EFORMAT,
                                "group %u is not closed before byte %zu: "
                                "truncated",
                                num, r->end);
            s = read_tag(r, &n2, &w2, err);
            if (s)
                return s;
            if (w2 == MB_PB_EGROUP) {
                if (n2 != num) {
                    r->pos = at;
                    return mb__fail(err, MB_EFORMAT,
                                    "end of group %u at byte %zu does not "
                                    "match open group %u",
                                    n2, at, num);
                }
                if (payload_end)
                    *payload_end = at;
                return MB_OK;
            }
            s = skip_value(r, w2, n2, depth + 1, NULL, err);
            if (s)
                return s;
        }
    }
    default: /* MB_PB_EGROUP outside a group */
        return mb__fail(err, MB_EFORMAT,
                        "unexpected end-of-group tag for field %u before byte "
                        "%zu",
                        num, r->pos);
    }
    if (s == MB_OK && payload_end)
        *payload_end = r->pos;
    return s;
}

mb_status mb__pb_skip(mb__pb *r, int wire, uint32_t num, mb_err *err)
{
    size_t start = r->pos;
    mb_status s = skip_value(r, wire, num, 0, NULL, err);
    if (s)
        r->pos = start;
    return s;
}

mb_status mb__pb_next(mb__pb *r, mb__pb_field *f, mb_err *err)
{
    memset(f, 0, sizeof *f);
    if (!mb__pb_more(r))
        return MB_OK;
    size_t start = r->pos;
    f->tag_offset = start;
    mb_status s = read_tag(r, &f->num, &f->wire, err);
    if (s)
        goto fail;
    if (f->wire == MB_PB_VARINT) {
        s = mb__pb_read_varint(r, &f->u64, err);
    } else if (f->wire == MB_PB_I64) {
        s = mb__pb_read_fixed64(r, &f->u64, err);
    } else if (f->wire == MB_PB_I32) {
        uint32_t v;
        s = mb__pb_read_fixed32(r, &v, err);
        f->u64 = v;
    } else if (f->wire == MB_PB_LEN) {
        uint64_t n;
        size_t at = r->pos;
        s = mb__pb_read_varint(r, &n, err);
        if (s == MB_OK && n > r->end - r->pos)
            s = mb__fail(err, MB_EFORMAT,
                         "length %llu of field %u at byte %zu runs past the "
                         "end of the data (%zu bytes left): truncated or "
                         "corrupt",
                         (unsigned long long)n, f->num, at, r->end - r->pos);
        if (s == MB_OK) {
            f->data_offset = r->pos;
            f->data = r->buf + r->pos;
            f->len = (size_t)n;
            r->pos += (size_t)n;
        }
    } else if (f->wire == MB_PB_SGROUP) {
        size_t body = r->pos, body_end = r->pos;
        s = skip_value(r, MB_PB_SGROUP, f->num, 0, &body_end, err);
        if (s == MB_OK) {
            f->data_offset = body;
            f->data = r->buf + body;
            f->len = body_end - body;
        }
    } else {
        s = mb__fail(err, MB_EFORMAT,
                     "unexpected end-of-group tag for field %u at byte %zu",
                     f->num, start);
    }
    if (s == MB_OK)
        return MB_OK;
fail:
    r->pos = start;
    f->num = 0;
    return s;
}

mb__pb mb__pb_sub(const mb__pb *r, const mb__pb_field *f)
{
    mb__pb sub;
    sub.buf = r->buf;
    sub.pos = f->data_offset;
    sub.end = f->data_offset + f->len;
    return sub;
}

mb_status mb__pb_count_varints(const mb__pb_field *f, size_t *n, mb_err *err)
{
    size_t count = 0;
    for (size_t i = 0; i < f->len; i++)
        if (!(f->data[i] & 0x80))
            count++;
    if (f->len && (f->data[f->len - 1] & 0x80))
        return mb__fail(err, MB_EFORMAT,
                        "packed field %u at byte %zu ends inside a varint",
                        f->num, f->data_offset);
    *n = count;
    return MB_OK;
}

float mb__pb_f32(uint64_t bits)
{
    uint32_t b = (uint32_t)bits;
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

double mb__pb_f64(uint64_t bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

char *mb__pb_strdup(const mb__pb_field *f)
{
    char *s = malloc(f->len + 1);
    if (!s)
        return NULL;
    if (f->len)
        memcpy(s, f->data, f->len);
    s[f->len] = '\0';
    return s;
}

bool mb__pb_streq(const mb__pb_field *f, const char *s)
{
    size_t n = strlen(s);
    return n == f->len && (n == 0 || memcmp(f->data, s, n) == 0);
}

mb_status mb__pb_string_entry(const mb__pb *r, const mb__pb_field *e,
                              mb__pb_field *key, mb__pb_field *val, mb_err *err)
{
    mb__pb sub = mb__pb_sub(r, e);
    mb__pb_field f;
    mb_status s;
    memset(key, 0, sizeof *key);
    memset(val, 0, sizeof *val);
    while ((s = mb__pb_next(&sub, &f, err)) == MB_OK && f.num)
        if ((f.num == 1 || f.num == 2) && f.wire == MB_PB_LEN)
            *(f.num == 1 ? key : val) = f;
    return s;
}

bool mb__pb_decimal(const mb__pb_field *f, uint64_t *v)
{
    char tmp[32];
    if (f->len == 0 || f->len >= sizeof tmp)
        return false;
    memcpy(tmp, f->data, f->len);
    tmp[f->len] = '\0';
    char *end;
    errno = 0;
    unsigned long long x = strtoull(tmp, &end, 10);
    if (errno || *end || tmp[0] == '-')
        return false;
    *v = x;
    return true;
}

void mb__pb_put_varint(mb__buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        tmp[n++] = (uint8_t)(byte | (v ? 0x80 : 0));
    } while (v);
    mb__buf_append(b, tmp, n);
}

void mb__pb_put_tag(mb__buf *b, uint32_t num, int wire)
{
    mb__pb_put_varint(b, ((uint64_t)num << 3) | (uint64_t)wire);
}

void mb__pb_put_bytes(mb__buf *b, uint32_t num, const void *data, size_t len)
{
    mb__pb_put_tag(b, num, MB_PB_LEN);
    mb__pb_put_varint(b, len);
    if (len)
        mb__buf_append(b, data, len);
}
