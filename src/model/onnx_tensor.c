/* onnx_tensor.c - TensorProto <-> mb_tensor (declared in onnx.h).  Decoding
 * walks the message twice: once for the metadata (dims, type, name, where
 * the data lives), then, for typed repeated fields, once more to copy the
 * values into storage allocated for the final shape. */
#include "model/onnx.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "model/extdata.h"
#include "model/onnx_fields.h"
#include "model/pb.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *name;
    int bits;
} onnx_types[] = {
    {"undefined", 0},      {"float32", 32},   {"uint8", 8},
    {"int8", 8},           {"uint16", 16},    {"int16", 16},
    {"int32", 32},         {"int64", 64},     {"string", 0},
    {"bool", 8},           {"float16", 16},   {"float64", 64},
    {"uint32", 32},        {"uint64", 64},    {"complex64", 64},
    {"complex128", 128},   {"bfloat16", 16},  {"float8e4m3fn", 8},
    {"float8e4m3fnuz", 8}, {"float8e5m2", 8}, {"float8e5m2fnuz", 8},
    {"uint4", 4},          {"int4", 4},       {"float4e2m1", 4},
    {"float8e8m0", 8},     {"uint2", 2},      {"int2", 2},
};
#define N_ONNX_TYPES ((int)(sizeof onnx_types / sizeof onnx_types[0]))

const char *mb__onnx_dtype_name(int t)
{
    return t > 0 && t < N_ONNX_TYPES ? onnx_types[t].name : "undefined";
}

int mb__onnx_dtype_bits(int t)
{
    return t > 0 && t < N_ONNX_TYPES ? onnx_types[t].bits : 0;
}

/* The repeated field that may hold values of dtype t, or 0. */
static uint32_t typed_field_for(mb_dtype t)
{
    switch (t) {
    case MB_DTYPE_FLOAT32:
    case MB_DTYPE_COMPLEX64:
        return T_FLOAT_DATA;
    case MB_DTYPE_INT32:
    case MB_DTYPE_INT16:
    case MB_DTYPE_INT8:
    case MB_DTYPE_UINT16:
    case MB_DTYPE_UINT8:
    case MB_DTYPE_BOOL:
    case MB_DTYPE_FLOAT16:
    case MB_DTYPE_BFLOAT16:
        return T_INT32_DATA;
    case MB_DTYPE_INT64:
        return T_INT64_DATA;
    case MB_DTYPE_FLOAT64:
    case MB_DTYPE_COMPLEX128:
        return T_DOUBLE_DATA;
    case MB_DTYPE_UINT32:
    case MB_DTYPE_UINT64:
        return T_UINT64_DATA;
    default:
        return 0;
    }
}

/* Wire type of one element of a typed repeated field when not packed. */
static int elem_wire(uint32_t field)
{
    if (field == T_FLOAT_DATA)
        return MB_PB_I32;
    if (field == T_DOUBLE_DATA)
        return MB_PB_I64;
    return MB_PB_VARINT;
}

struct tmeta {
    int rank;
    int64_t dims[MB_MAX_RANK];
    uint64_t dtype;
    int has_type;
    mb__pb_field name;
    int has_name;
    mb__pb_field raw;
    int has_raw;
    uint32_t typed_seen; /* bit per typed field number present */
    uint64_t location;   /* data_location */
    mb__pb_field ext_loc;
    int has_ext_loc;
    uint64_t ext_offset, ext_length;
    int has_ext_length;
};

static mb_status push_dim(struct tmeta *m, uint64_t v, size_t at, mb_err *err)
{
    if (m->rank >= MB_MAX_RANK)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "tensor has more than %d dims (at byte %zu)",
                        MB_MAX_RANK, at);
    if ((int64_t)v < 0)
        return mb__fail(err, MB_EFORMAT,
                        "tensor dim %" PRId64 " at byte %zu is negative",
                        (int64_t)v, at);
    m->dims[m->rank++] = (int64_t)v;
    return MB_OK;
}

static mb_status wrong_wire(const mb__pb_field *f, mb_err *err)
{
    return mb__fail(err, MB_EFORMAT,
                    "TensorProto field %u at byte %zu has wire type %d, which "
                    "it never has: not a TensorProto, or corrupt",
                    f->num, f->tag_offset, f->wire);
}

/* Parses one StringStringEntryProto of external_data into m. */
static mb_status parse_ext_entry(const mb__pb *r, const mb__pb_field *e,
                                 struct tmeta *m, mb_err *err)
{
    mb__pb_field key, val;
    mb_status s = mb__pb_string_entry(r, e, &key, &val, err);
    if (s || !key.num || !val.num)
        return s;
    if (mb__pb_streq(&key, "location")) {
        m->ext_loc = val;
        m->has_ext_loc = 1;
    } else if (mb__pb_streq(&key, "offset") || mb__pb_streq(&key, "length")) {
        uint64_t v;
        if (!mb__pb_decimal(&val, &v))
            return mb__fail(err, MB_EFORMAT,
                            "external_data value '%.*s' at byte %zu is not a "
                            "number",
                            (int)(val.len < 31 ? val.len : 31),
                            (const char *)val.data, val.data_offset);
        if (mb__pb_streq(&key, "offset")) {
            m->ext_offset = v;
        } else {
            m->ext_length = v;
            m->has_ext_length = 1;
        }
    }
    return MB_OK;
}

/* Whether field f of a TensorProto has a wire type it may have. */
static bool wire_ok(const mb__pb_field *f)
{
    switch (f->num) {
    case T_DATA_TYPE:
    case T_DATA_LOCATION:
        return f->wire == MB_PB_VARINT;
    case T_NAME:
    case T_RAW_DATA:
    case T_EXTERNAL_DATA:
        return f->wire == MB_PB_LEN;
    case T_DIMS:
        return f->wire == MB_PB_VARINT || f->wire == MB_PB_LEN;
    case T_FLOAT_DATA:
    case T_INT32_DATA:
    case T_INT64_DATA:
    case T_DOUBLE_DATA:
    case T_UINT64_DATA:
        return f->wire == MB_PB_LEN || f->wire == elem_wire(f->num);
    default:
        return true;
    }
}

static mb_status scan_meta(mb__pb *r, struct tmeta *m, mb_err *err)
{
    mb__pb_field f;
    mb_status s;
    memset(m, 0, sizeof *m);
    while ((s = mb__pb_next(r, &f, err)) == MB_OK && f.num) {
        if (!wire_ok(&f))
            return wrong_wire(&f, err);
        if (mb__tp_typed_field(f.num))
            m->typed_seen |= 1u << f.num;
        switch (f.num) {
        case T_DIMS:
            if (f.wire == MB_PB_VARINT) {
                s = push_dim(m, f.u64, f.tag_offset, err);
            } else {
                mb__pb sub = mb__pb_sub(r, &f);
                while (s == MB_OK && mb__pb_more(&sub)) {
                    uint64_t v;
                    size_t at = sub.pos;
                    s = mb__pb_read_varint(&sub, &v, err);
                    if (s == MB_OK)
                        s = push_dim(m, v, at, err);
                }
            }
            break;
        case T_DATA_TYPE:
            m->dtype = f.u64;
            m->has_type = 1;
            break;
        case T_SEGMENT:
            return mb__fail(err, MB_EUNSUPPORTED,
                            "segmented TensorProto (segment field at byte "
                            "%zu) is not supported",
                            f.tag_offset);
        case T_NAME:
            m->name = f;
            m->has_name = 1;
            break;
        case T_RAW_DATA:
            m->raw = f;
            m->has_raw = 1;
            break;
        case T_EXTERNAL_DATA:
            s = parse_ext_entry(r, &f, m, err);
            break;
        case T_DATA_LOCATION:
            m->location = f.u64;
            break;
        default:
            break; /* doc_string, metadata_props, future fields */
        }
        if (s)
            return s;
    }
    return s;
}

/* Stores the low `size` bytes of v (little-endian host) as element i. */
static void store(mb_tensor *t, size_t i, size_t size, uint64_t v)
{
    memcpy((uint8_t *)t->data + i * size, &v, size);
}

/* Second pass: copies the values of repeated field `field` into t, which
 * holds `total` scalar slots of `size` bytes each. */
static mb_status copy_typed(mb__pb *r, uint32_t field, mb_tensor *t,
                            size_t total, size_t size, mb_err *err)
{
    mb__pb_field f;
    mb_status s;
    size_t i = 0;
    int fixed = field == T_FLOAT_DATA ? 4 : field == T_DOUBLE_DATA ? 8 : 0;
    while ((s = mb__pb_next(r, &f, err)) == MB_OK && f.num) {
        if (f.num != field)
            continue;
        if (f.wire != MB_PB_LEN) { /* one unpacked element */
            if (i >= total)
                goto too_many;
            store(t, i++, size, f.u64);
            continue;
        }
        mb__pb sub = mb__pb_sub(r, &f);
        if (fixed && f.len % (size_t)fixed)
            return mb__fail(err, MB_EFORMAT,
                            "packed field %u at byte %zu has %zu bytes, not a "
                            "multiple of %d",
                            f.num, f.tag_offset, f.len, fixed);
        while (mb__pb_more(&sub)) {
            uint64_t v;
            if (fixed == 4) {
                uint32_t v32 = 0;
                s = mb__pb_read_fixed32(&sub, &v32, err);
                v = v32;
            } else if (fixed == 8) {
                s = mb__pb_read_fixed64(&sub, &v, err);
            } else {
                s = mb__pb_read_varint(&sub, &v, err);
            }
            if (s)
                return s;
            if (i >= total)
                goto too_many;
            store(t, i++, size, v);
        }
    }
    if (s)
        return s;
    if (i != total)
        return mb__fail(err, MB_EFORMAT,
                        "tensor has %zu values in field %u but its dims need "
                        "%zu",
                        i, field, total);
    return MB_OK;
too_many:
    return mb__fail(err, MB_EFORMAT,
                    "tensor has more values in field %u than its dims allow "
                    "(%zu)",
                    field, total);
}

/* Opens the external data file of m and checks that it holds the `need`
 * bytes the dims call for, before the tensor is allocated.  On success
 * *fd and *path (free()) are set for read_external. */
static mb_status open_external(const struct tmeta *m, const char *base_dir,
                               size_t need, int *fd, char **path, mb_err *err)
{
    *fd = -1;
    *path = NULL;
    if (!m->has_ext_loc)
        return mb__fail(err, MB_EFORMAT,
                        "tensor says its data is external but gives no "
                        "'location'");
    char *loc = mb__strndup((const char *)m->ext_loc.data, m->ext_loc.len);
    if (!loc || memchr(m->ext_loc.data, '\0', m->ext_loc.len)) {
        free(loc);
        return mb__fail(err, MB_EFORMAT,
                        "external data location is not a valid path");
    }
    /* ONNX Runtime's rules: inside the directory, a regular file, the
     * length the dims need, within the file (model/extdata.h) */
    mb__ext_req rq = {base_dir,          NULL,          loc, m->ext_offset,
                      m->has_ext_length, m->ext_length, 1,   need};
    mb__ext_result res;
    mb__ext_verdict v = mb__ext_check(&rq, &res);
    mb_status s = MB_OK;
    int f = -1;
    char *p = res.path;
    if (v == MB__EXT_MISSING)
        s = mb__fail(err, MB_EIO,
                     "cannot open external data file %s: %s (keep it beside "
                     "the model)",
                     loc, res.reason);
    else if (v == MB__EXT_REFUSED)
        s = mb__fail(err, MB_EFORMAT,
                     "external data '%s' refused: %s (ONNX Runtime refuses "
                     "it too)",
                     loc, res.reason);
    else if ((f = open(p, O_RDONLY | O_CLOEXEC)) < 0)
        s = mb__fail(err, MB_EIO, "cannot open external data file %s: %s", p,
                     strerror(errno));
    free(loc);
    if (s) {
        if (f >= 0)
            close(f);
        free(p);
        return s;
    }
    *fd = f;
    *path = p;
    return MB_OK;
}

/* Reads the data checked by open_external into t; closes fd, frees path. */
static mb_status read_external(const struct tmeta *m, int fd, char *path,
                               mb_tensor *t, mb_err *err)
{
    mb_status s = MB_OK;
    size_t done = 0;
    while (done < t->nbytes) {
        ssize_t n = pread(fd, (uint8_t *)t->data + done, t->nbytes - done,
                          (off_t)(m->ext_offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s = mb__fail(err, MB_EIO, "cannot read external data file %s: %s",
                         path, n < 0 ? strerror(errno) : "unexpected end");
            break;
        }
        done += (size_t)n;
    }
    close(fd);
    free(path);
    return s;
}

mb_status mb__onnx_tensor_decode(const uint8_t *buf, size_t len,
                                 const char *base_dir, mb_tensor *out,
                                 mb_err *err)
{
    return mb__onnx_tensor_decode_lim(buf, len, base_dir, NULL, out, err);
}

mb_status mb__onnx_tensor_decode_lim(const uint8_t *buf, size_t len,
                                     const char *base_dir,
                                     const mb__tlimit *lim, mb_tensor *out,
                                     mb_err *err)
{
    memset(out, 0, sizeof *out);
    mb__pb r;
    struct tmeta m;
    mb__pb_init(&r, buf, len);
    mb_status s = scan_meta(&r, &m, err);
    if (s)
        return s;
    if (!m.has_type || m.dtype == 0)
        return mb__fail(err, MB_EFORMAT,
                        "TensorProto has no data_type: not a tensor, or "
                        "corrupt");
    mb_dtype dt = (mb_dtype)m.dtype;
    if (m.dtype > MB_DTYPE_BFLOAT16 || mb_dtype_size(dt) == 0)
        return mb__fail(
            err, MB_EUNSUPPORTED,
            "tensor element type %s (%" PRIu64 ") is not "
            "supported here",
            mb__onnx_dtype_name((int)(m.dtype < 1000 ? m.dtype : 0)), m.dtype);
    /* The dims are checked against the data the TensorProto holds before
     * anything is allocated: a few bytes must not claim gigabytes. */
    int overflow;
    size_t want = mb_shape_count(m.dims, m.rank, &overflow), need = 0;
    char shp[160];
    if (!overflow && !mb__mul_ok(want, mb_dtype_size(dt), &need))
        overflow = 1;
    if (overflow)
        return mb__fail(err, MB_EFORMAT, "tensor dims %s are too large",
                        mb_shape_str(m.dims, m.rank, shp, sizeof shp));
    if (m.location != 1 && m.has_raw && m.raw.len != need)
        return mb__fail(err, MB_EFORMAT,
                        "raw_data holds %zu bytes but %s%s needs %zu",
                        m.raw.len, mb_dtype_name(dt),
                        mb_shape_str(m.dims, m.rank, shp, sizeof shp), need);
    if (m.location != 1 && !m.has_raw && want > len)
        /* every typed value takes at least one byte of the message */
        return mb__fail(err, MB_EFORMAT,
                        "%s%s needs %zu values but the TensorProto holds "
                        "only %zu bytes: truncated or corrupt",
                        mb_dtype_name(dt),
                        mb_shape_str(m.dims, m.rank, shp, sizeof shp), want,
                        len);
    int xfd = -1;
    char *xpath = NULL;
    if (m.location == 1 &&
        (s = open_external(&m, base_dir, need, &xfd, &xpath, err)))
        return s;
    /* the data is there: now the cap on what may be allocated */
    if ((s = mb__tlimit_check(lim, need, "TensorProto", err))) {
        if (xfd >= 0)
            close(xfd);
        free(xpath);
        return s;
    }
    char *name = m.has_name ? mb__pb_strdup(&m.name) : NULL;
    if (m.has_name && !name)
        s = mb__fail(err, MB_ENOMEM, "out of memory for a tensor name");
    else
        s = mb_tensor_alloc(out, dt, m.rank, m.dims, name, err);
    free(name);
    if (s) {
        if (xfd >= 0)
            close(xfd);
        free(xpath);
        return s;
    }
    size_t count = mb_tensor_count(out);
    if (m.location == 1) {
        s = read_external(&m, xfd, xpath, out, err);
    } else if (m.has_raw) {
        if (m.raw.len != out->nbytes)
            s = mb__fail(
                err, MB_EFORMAT, "raw_data holds %zu bytes but %s%s needs %zu",
                m.raw.len, mb_dtype_name(dt),
                mb_shape_str(out->dims, out->rank, (char[160]){0}, 160),
                out->nbytes);
        else if (m.raw.len)
            memcpy(out->data, m.raw.data, m.raw.len);
    } else {
        uint32_t field = typed_field_for(dt);
        int complex = dt == MB_DTYPE_COMPLEX64 || dt == MB_DTYPE_COMPLEX128;
        size_t slots = complex ? 2 * count : count;
        size_t size = out->nbytes / (count ? count : 1) / (complex ? 2 : 1);
        if (count == 0)
            s = MB_OK;
        else if (!(m.typed_seen & (1u << field)))
            s = mb__fail(err, MB_EFORMAT,
                         "tensor of %zu %s values carries no data (no "
                         "raw_data, typed data or external data)",
                         count, mb_dtype_name(dt));
        else {
            mb__pb_init(&r, buf, len);
            s = copy_typed(&r, field, out, slots, size, err);
        }
    }
    if (s)
        mb_tensor_clear(out);
    return s;
}

mb_status mb__onnx_tensor_read_file(const char *path, mb_tensor *out,
                                    mb_err *err)
{
    return mb__onnx_tensor_read_file_lim(path, NULL, out, err);
}

mb_status mb__onnx_tensor_read_file_lim(const char *path, const mb__tlimit *lim,
                                        mb_tensor *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    mb__map map;
    mb_status s = mb__map_file(path, &map, err);
    if (s)
        return s;
    if (map.len == 0)
        return mb__fail(err, MB_EFORMAT,
                        "%s is empty: expected a serialized ONNX TensorProto",
                        path);
    char *dir = mb__dir_of(path);
    if (!dir) {
        mb__unmap(&map);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    s = mb__onnx_tensor_decode_lim(map.data, map.len, dir, lim, out, err);
    free(dir);
    mb__unmap(&map);
    if (s)
        mb__fail_prefix(err, "%s", path);
    return s;
}

mb_status mb__onnx_tensor_encode(const mb_tensor *t, mb__buf *out, mb_err *err)
{
    if (mb_dtype_size(t->dtype) == 0)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "cannot write a %s tensor as a TensorProto",
                        mb_dtype_name(t->dtype));
    if (t->rank < 0 || t->rank > MB_MAX_RANK)
        return mb__fail(err, MB_EINVAL, "tensor rank %d is outside 0..%d",
                        t->rank, MB_MAX_RANK);
    for (int i = 0; i < t->rank; i++) {
        mb__pb_put_tag(out, T_DIMS, MB_PB_VARINT);
        mb__pb_put_varint(out, (uint64_t)t->dims[i]);
    }
    mb__pb_put_tag(out, T_DATA_TYPE, MB_PB_VARINT);
    mb__pb_put_varint(out, (uint64_t)t->dtype);
    if (t->name)
        mb__pb_put_bytes(out, T_NAME, t->name, strlen(t->name));
    mb__pb_put_bytes(out, T_RAW_DATA, t->data, t->nbytes);
    if (out->oom)
        return mb__fail(err, MB_ENOMEM,
                        "out of memory serializing a %zu-byte tensor",
                        t->nbytes);
    return MB_OK;
}
