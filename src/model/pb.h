/*
 * pb.h - a minimal reader of the protobuf wire format over a borrowed byte
 * range (usually an mmap'ed file).  It knows nothing about any schema: it
 * walks tags, decodes varints and fixed-width values, and hands back
 * length-delimited payloads as pointers into the caller's bytes, so a
 * multi-gigabyte ONNX model can be walked without touching its weights.
 *
 * Every read is bounds-checked.  Truncated or corrupt input returns
 * MB_EFORMAT with a one-line message giving the byte offset (relative to
 * the start of the buffer given to mb__pb_init, i.e. the file offset when
 * the whole file is mapped); callers prefix it with the file name.
 * Nothing here allocates except mb__pb_strdup.
 *
 * Typical use:
 *
 *   mb__pb r; mb__pb_field f; mb_status s;
 *   mb__pb_init(&r, map.data, map.len);
 *   while ((s = mb__pb_next(&r, &f, err)) == MB_OK && f.num) {
 *       if (f.num == 7 && f.wire == MB_PB_LEN) {
 *           mb__pb sub = mb__pb_sub(&r, &f);   // walk the embedded message
 *           ...
 *       }                                     // other fields: already skipped
 *   }
 *   if (s) return s;
 */
#ifndef MB_MODEL_PB_H
#define MB_MODEL_PB_H

#include "mbench.h"

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* Wire types (the low three bits of a tag). */
enum {
    MB_PB_VARINT = 0, /* int32/64, uint32/64, sint, bool, enum */
    MB_PB_I64 = 1,    /* fixed64, sfixed64, double */
    MB_PB_LEN = 2,    /* bytes, string, messages, packed repeated */
    MB_PB_SGROUP = 3, /* deprecated group start (skipped whole) */
    MB_PB_EGROUP = 4, /* deprecated group end */
    MB_PB_I32 = 5     /* fixed32, sfixed32, float */
};

/* Largest legal field number (2^29 - 1). */
#define MB_PB_MAX_FIELD 536870911u
/* Deepest group nesting mb__pb_next will skip before calling it corrupt. */
#define MB_PB_MAX_DEPTH 64

/*
 * A cursor over buf[pos, end).  `buf` is the start of the whole borrowed
 * buffer: sub-readers share it, so every offset (pos, end, field offsets)
 * is relative to the same origin.  Borrowed: buf must outlive the reader.
 */
typedef struct mb__pb {
    const uint8_t *buf;
    size_t pos; /* next byte to read */
    size_t end; /* one past the last readable byte */
} mb__pb;

/* One decoded field.  For MB_PB_LEN and MB_PB_SGROUP, data/len describe
 * the payload (group: the bytes between the start and end tags) inside the
 * reader's buffer; nothing is copied. */
typedef struct mb__pb_field {
    uint32_t num;        /* field number; 0 means "end of message" */
    int wire;            /* MB_PB_* */
    size_t tag_offset;   /* offset of the tag */
    uint64_t u64;        /* MB_PB_VARINT: value; MB_PB_I64/I32: raw bits */
    const uint8_t *data; /* MB_PB_LEN/SGROUP: payload (borrowed) */
    size_t len;          /* MB_PB_LEN/SGROUP: payload length */
    size_t data_offset;  /* MB_PB_LEN/SGROUP: offset of the payload */
} mb__pb_field;

/* A reader over buf[0, len).  buf may be NULL when len is 0. */
void mb__pb_init(mb__pb *r, const uint8_t *buf, size_t len);

/* Whether bytes remain. */
bool mb__pb_more(const mb__pb *r);

/*
 * Reads the next field (tag and value) and advances past it.  At the end of
 * the range it returns MB_OK with f->num == 0.  Returns MB_EFORMAT (message
 * names the byte offset) on a truncated or over-long varint, a field number
 * of 0 or above MB_PB_MAX_FIELD, wire type 6 or 7, a length running past the
 * end, an unmatched end-group tag, or groups nested deeper than
 * MB_PB_MAX_DEPTH.  On failure r is left where the bad field began.
 */
mb_status mb__pb_next(mb__pb *r, mb__pb_field *f, mb_err *err);

/* A reader over the payload of a MB_PB_LEN (or group) field returned by
 * mb__pb_next on a reader with the same buffer. */
mb__pb mb__pb_sub(const mb__pb *r, const mb__pb_field *f);

/* Primitive reads at r->pos (advance on success; r untouched on failure,
 * which is MB_EFORMAT naming the offset).  A varint is at most 10 bytes and
 * must fit 64 bits. */
mb_status mb__pb_read_varint(mb__pb *r, uint64_t *v, mb_err *err);
mb_status mb__pb_read_fixed32(mb__pb *r, uint32_t *v, mb_err *err);
mb_status mb__pb_read_fixed64(mb__pb *r, uint64_t *v, mb_err *err);

/* Skips the value of a field whose tag (with this wire type) was just read
 * at tag_offset; used by mb__pb_next, exported for hand-rolled loops.
 * Fails as mb__pb_next does. */
mb_status mb__pb_skip(mb__pb *r, int wire, uint32_t num, mb_err *err);

/* Number of varints in a packed payload (f->data, f->len); MB_EFORMAT when
 * the payload ends inside a varint.  Reads every byte of the payload. */
mb_status mb__pb_count_varints(const mb__pb_field *f, size_t *n, mb_err *err);

/* Interpretations of decoded values. */
static inline int64_t mb__pb_zigzag64(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
float mb__pb_f32(uint64_t bits);  /* I32 bits as float */
double mb__pb_f64(uint64_t bits); /* I64 bits as double */

/* Copy of a MB_PB_LEN payload as a NUL-terminated string (embedded NULs are
 * kept but end the C string).  Caller frees with free(); NULL when memory
 * runs out. */
char *mb__pb_strdup(const mb__pb_field *f);

/* Whether a MB_PB_LEN payload equals the C string s. */
bool mb__pb_streq(const mb__pb_field *f, const char *s);

/* Reads the StringStringEntryProto payload of field e (key = 1, value = 2,
 * both MB_PB_LEN) of reader r into *key and *val; one that is absent stays
 * zeroed (num 0).  Fails as mb__pb_next does, keeping what it had read. */
mb_status mb__pb_string_entry(const mb__pb *r, const mb__pb_field *e,
                              mb__pb_field *key, mb__pb_field *val,
                              mb_err *err);

/* A MB_PB_LEN payload holding a decimal number (digits only, below 2^64)
 * into *v; false when it holds anything else. */
bool mb__pb_decimal(const mb__pb_field *f, uint64_t *v);

/* Writers (for mb__onnx_tensor_encode and tests): append a varint, a tag,
 * or a length-delimited field to b.  Errors surface as b->oom. */
struct mb__buf;
void mb__pb_put_varint(struct mb__buf *b, uint64_t v);
void mb__pb_put_tag(struct mb__buf *b, uint32_t num, int wire);
void mb__pb_put_bytes(struct mb__buf *b, uint32_t num, const void *data,
                      size_t len);

#endif
