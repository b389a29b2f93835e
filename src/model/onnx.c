/* onnx.c - mb__onnx_inspect: describes an ONNX model from a sparse image
 * of its bytes (onnx_image.h: the file minus tensor payloads, which are
 * never read).  The ModelProto is walked with pb.h; initializers are
 * summarized from their dims, data_type and the *lengths* of their data
 * fields (external data files are only stat'ed).  Subgraphs
 * (node attributes of type GRAPH and GRAPHS, e.g. If/Loop/Scan bodies) are
 * walked recursively, up to MAX_GRAPH_DEPTH levels. */
#include "model/onnx.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "model/onnx_image.h"
#include "model/extdata.h"
#include "model/onnx_fields.h"
#include "model/pb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_GRAPH_DEPTH 64
#define N_TYPES 64 /* per-dtype accumulators; larger type numbers share 0 */

/* Field numbers of onnx.proto. */
enum {
    M_IR = 1,
    M_PRODUCER = 2,
    M_PRODUCER_VER = 3,
    M_DOMAIN = 4,
    M_MODEL_VER = 5,
    M_DOC = 6,
    M_GRAPH = 7,
    M_OPSET = 8,
    M_META = 14
};
enum {
    G_NODE = 1,
    G_NAME = 2,
    G_INIT = 5,
    G_INPUT = 11,
    G_OUTPUT = 12,
    G_SPARSE_INIT = 15
};
enum { N_OP_TYPE = 4, N_ATTR = 5 };
enum {
    A_T = 5,
    A_G = 6,
    A_TENSORS = 10,
    A_GRAPHS = 11,
    A_SPARSE = 22,
    A_SPARSES = 23
};
enum { VI_NAME = 1, VI_TYPE = 2 };
enum {
    TP_TENSOR = 1,
    TP_SEQUENCE = 4,
    TP_MAP = 5,
    TP_SPARSE = 8,
    TP_OPTIONAL = 9
};
enum { TT_ELEM = 1, TT_SHAPE = 2 };
enum { DIM_VALUE = 1, DIM_PARAM = 2 };
enum { ST_VALUES = 1 };

/* A name borrowed from the mapping. */
typedef struct name_ref {
    const uint8_t *p;
    size_t n;
} name_ref;

typedef struct ctx {
    const char *path;
    char *dir; /* the model's directory, for external data */
    const uint8_t *base;
    size_t len;
    mb_err *err;
    /* main-graph initializer names, sorted, to drop them from the inputs */
    name_ref *inits;
    size_t n_inits, cap_inits;
    json_t *op_types;     /* main graph */
    json_t *sub_op_types; /* nodes of subgraphs (If/Loop/Scan bodies) */
    uint64_t nodes, subgraph_nodes, subgraphs, initializers;
    uint64_t params, param_bytes; /* initializers and constants */
    uint64_t init_params, init_bytes;
    uint64_t type_count[N_TYPES], type_bytes[N_TYPES];
    int type_seen[N_TYPES];
    json_t *ext_files, *ext_missing, *ext_refused;
    char *real_dir; /* the directory of the model's real path, or NULL */
    uint64_t ext_bytes;
    /* tensors held in node attributes (Constant values and the like) */
    uint64_t const_tensors, const_values, const_bytes;
    /* tensors whose data cannot hold what their dims declare ([2^40]
     * with 16 bytes): counted apart, not as parameters */
    uint64_t impossible;
    json_t *impossible_first;
    int in_attr; /* account() goes to the const_* counters */
} ctx;

static int name_cmp(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return x->n ? memcmp(x->p, y->p, x->n) : 0;
}

/* A message for a field whose wire type does not fit the schema: the file
 * is protobuf of some other kind, or corrupt. */
static mb_status bad_field(ctx *c, const char *msg, const mb__pb_field *f)
{
    return mb__fail(c->err, MB_EFORMAT,
                    "%s field %u at byte %zu has wire type %d", msg, f->num,
                    f->tag_offset, f->wire);
}

/* A JSON string of a LEN payload; bytes that are not valid UTF-8 make the
 * whole string fall back to ASCII with '?' for every other byte. */
static json_t *jstr(const mb__pb_field *f)
{
    json_t *j = json_stringn((const char *)f->data, f->len);
    if (j || !f->len)
        return j ? j : json_string("");
    char *s = mb__malloc(f->len + 1);
    if (!s)
        return json_string("");
    for (size_t i = 0; i < f->len; i++)
        s[i] =
            (f->data[i] >= 0x20 && f->data[i] < 0x7f) ? (char)f->data[i] : '?';
    s[f->len] = '\0';
    j = json_string(s);
    free(s);
    return j;
}

/* Adds s to the JSON array a unless it is already there. */
static void add_unique(json_t *a, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i,
                       v) if (strcmp(json_string_value(v), s) == 0) return;
    json_array_append_new(a, json_string(s));
}

/* ---- value infos (graph inputs and outputs) ------------------------------ */

static mb_status parse_shape(ctx *c, const mb__pb *r, const mb__pb_field *sf,
                             json_t **shape)
{
    mb__pb sub = mb__pb_sub(r, sf);
    mb__pb_field f;
    mb_status s;
    *shape = json_array();
    while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
        if (f.num != 1 || f.wire != MB_PB_LEN)
            continue;
        mb__pb d = mb__pb_sub(&sub, &f);
        mb__pb_field g;
        json_t *dim = json_null();
        while ((s = mb__pb_next(&d, &g, c->err)) == MB_OK && g.num) {
            if (g.num == DIM_VALUE && g.wire == MB_PB_VARINT) {
                json_decref(dim);
                dim = json_integer((json_int_t)g.u64);
            } else if (g.num == DIM_PARAM && g.wire == MB_PB_LEN) {
                json_decref(dim);
                dim = jstr(&g);
            }
        }
        json_array_append_new(*shape, dim);
        if (s)
            break;
    }
    return s;
}

/* Fills dtype and shape of a TypeProto into vi. */
static mb_status parse_type(ctx *c, const mb__pb *r, const mb__pb_field *tf,
                            json_t *vi)
{
    mb__pb sub = mb__pb_sub(r, tf);
    mb__pb_field f;
    mb_status s;
    while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
        if (f.wire != MB_PB_LEN)
            continue;
        if (f.num == TP_TENSOR || f.num == TP_SPARSE) {
            mb__pb t = mb__pb_sub(&sub, &f);
            mb__pb_field g;
            while ((s = mb__pb_next(&t, &g, c->err)) == MB_OK && g.num) {
                if (g.num == TT_ELEM && g.wire == MB_PB_VARINT) {
                    json_object_set_new(vi, "dtype",
                                        json_string(mb__onnx_dtype_name(
                                            (int)(g.u64 < 1000 ? g.u64 : 0))));
                } else if (g.num == TT_SHAPE && g.wire == MB_PB_LEN) {
                    json_t *shape = NULL;
                    s = parse_shape(c, &t, &g, &shape);
                    json_object_set_new(vi, "shape", shape);
                    if (s)
                        return s;
                }
            }
            if (f.num == TP_SPARSE)
                json_object_set_new(vi, "sparse", json_true());
        } else if (f.num == TP_SEQUENCE) {
            json_object_set_new(vi, "dtype", json_string("sequence"));
        } else if (f.num == TP_MAP) {
            json_object_set_new(vi, "dtype", json_string("map"));
        } else if (f.num == TP_OPTIONAL) {
            json_object_set_new(vi, "dtype", json_string("optional"));
        }
        if (s)
            return s;
    }
    return s;
}

/* Appends {name, dtype, shape} for a ValueInfoProto to arr, unless
 * skip_inits and its name is a main-graph initializer. */
static mb_status parse_value_info(ctx *c, const mb__pb *r,
                                  const mb__pb_field *vf, json_t *arr,
                                  int skip_inits)
{
    mb__pb sub = mb__pb_sub(r, vf);
    mb__pb_field f, name = {0}, type = {0};
    int has_type = 0;
    mb_status s;
    while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
        if (f.num == VI_NAME && f.wire == MB_PB_LEN)
            name = f;
        else if (f.num == VI_TYPE && f.wire == MB_PB_LEN)
            type = f, has_type = 1;
    }
    if (s)
        return s;
    if (skip_inits && c->n_inits) {
        name_ref key = {name.data, name.len};
        if (bsearch(&key, c->inits, c->n_inits, sizeof key, name_cmp))
            return MB_OK;
    }
    json_t *vi = json_object();
    json_object_set_new(vi, "name", jstr(&name));
    json_object_set_new(vi, "dtype", json_string("undefined"));
    json_object_set_new(vi, "shape", json_null());
    json_array_append_new(arr, vi);
    return has_type ? parse_type(c, &sub, &type, vi) : MB_OK;
}

/* ---- initializers ----------------------------------------------------- */

struct tsum {
    uint64_t dtype;
    uint64_t count; /* product of dims */
    int overflow;
    int external;
    mb__pb_field raw, loc, name;
    int has_raw, has_loc, has_name;
    uint64_t typed_len[16]; /* payload bytes per typed field number */
    uint64_t typed_n[16];   /* unpacked elements per typed field number */
    uint64_t ext_offset, ext_length;
    int has_ext_length;
};

static void ext_entry(ctx *c, const mb__pb *r, const mb__pb_field *e,
                      struct tsum *t)
{
    mb__pb_field k, v;
    uint64_t x;
    /* a summary, not a load: a damaged entry keeps what could be read */
    (void)mb__pb_string_entry(r, e, &k, &v, c->err);
    if (!k.num)
        return;
    if (mb__pb_streq(&k, "location")) {
        t->loc = v;
        t->has_loc = 1;
    } else if ((mb__pb_streq(&k, "offset") || mb__pb_streq(&k, "length")) &&
               mb__pb_decimal(&v, &x)) {
        if (mb__pb_streq(&k, "offset"))
            t->ext_offset = x;
        else
            t->ext_length = x, t->has_ext_length = 1;
    }
}

/* Summarizes one TensorProto without reading its data. */
static mb_status scan_tensor(ctx *c, const mb__pb *r, const mb__pb_field *tf,
                             struct tsum *t)
{
    mb__pb sub = mb__pb_sub(r, tf);
    mb__pb_field f;
    mb_status s;
    memset(t, 0, sizeof *t);
    t->count = 1;
    while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
        if (mb__tp_typed_field(f.num)) {
            if (f.wire == MB_PB_LEN)
                t->typed_len[f.num] += f.len;
            else
                t->typed_n[f.num]++;
            continue;
        }
        switch (f.num) {
        case T_DIMS:
            if (f.wire == MB_PB_VARINT) {
                if ((int64_t)f.u64 < 0 ||
                    (f.u64 && t->count > UINT64_MAX / f.u64))
                    t->overflow = 1;
                else
                    t->count *= f.u64;
            } else if (f.wire == MB_PB_LEN) {
                mb__pb d = mb__pb_sub(&sub, &f);
                while (s == MB_OK && mb__pb_more(&d)) {
                    uint64_t v;
                    s = mb__pb_read_varint(&d, &v, c->err);
                    if (s == MB_OK) {
                        if ((int64_t)v < 0 || (v && t->count > UINT64_MAX / v))
                            t->overflow = 1;
                        else
                            t->count *= v;
                    }
                }
            } else {
                return bad_field(c, "TensorProto", &f);
            }
            break;
        case T_DATA_TYPE:
            if (f.wire != MB_PB_VARINT)
                return bad_field(c, "TensorProto", &f);
            t->dtype = f.u64;
            break;
        case T_NAME:
            if (f.wire == MB_PB_LEN && f.len <= 4096) {
                t->name = f;
                t->has_name = 1;
            }
            break;
        case T_RAW_DATA:
            if (f.wire != MB_PB_LEN)
                return bad_field(c, "TensorProto", &f);
            t->raw = f;
            t->has_raw = 1;
            break;
        case T_EXTERNAL_DATA:
            if (f.wire == MB_PB_LEN)
                ext_entry(c, &sub, &f, t);
            break;
        case T_DATA_LOCATION:
            if (f.wire == MB_PB_VARINT && f.u64 == 1)
                t->external = 1;
            break;
        default:
            break;
        }
        if (s)
            return s;
    }
    return s;
}

/* Byte size of count elements of an ONNX type (packed sub-byte types
 * rounded up), 0 when unknown. */
static uint64_t logical_bytes(uint64_t dtype, uint64_t count)
{
    int bits = mb__onnx_dtype_bits((int)(dtype < 1000 ? dtype : 0));
    if (bits == 0)
        return 0;
    if (count > UINT64_MAX / (uint64_t)bits)
        return UINT64_MAX;
    return (count * (uint64_t)bits + 7) / 8;
}

/* Records a refused external data entry once per location and reason. */
static void add_refused(json_t *a, const char *loc, const char *why)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (strcmp(json_string_value(json_object_get(v, "location")), loc) ==
                0 &&
            strcmp(json_string_value(json_object_get(v, "reason")), why) == 0)
            return;
    }
    json_array_append_new(
        a, json_pack("{s:s, s:s}", "location", loc, "reason", why));
}

/* Bytes of an external tensor's data, by ONNX Runtime's rules
 * (model/extdata.h): a location outside the model's directory, a length
 * other than the dims' size or a range past the end of the file is
 * refused and counts nothing; a missing file counts its length. */
static uint64_t external_bytes(ctx *c, const struct tsum *t)
{
    /* An empty location (or a "location" entry with no value) names no
     * file: it is reported as "(no location)", like a missing one. */
    char *loc =
        t->has_loc && t->loc.len && !memchr(t->loc.data, '\0', t->loc.len)
            ? mb__pb_strdup(&t->loc)
            : NULL;
    if (!loc) {
        add_unique(c->ext_missing, "(no location)");
        return 0;
    }
    int bits = mb__onnx_dtype_bits((int)(t->dtype < 1000 ? t->dtype : 0));
    mb__ext_req rq = {c->dir,
                      c->real_dir,
                      loc,
                      t->ext_offset,
                      t->has_ext_length,
                      t->ext_length,
                      bits > 0 && !t->overflow,
                      logical_bytes(t->dtype, t->count)};
    mb__ext_result res;
    uint64_t b = 0;
    switch (mb__ext_check(&rq, &res)) {
    case MB__EXT_OK:
        add_unique(c->ext_files, loc);
        b = res.bytes;
        break;
    case MB__EXT_MISSING:
        add_unique(c->ext_files, loc);
        add_unique(c->ext_missing, loc);
        b = t->has_ext_length ? t->ext_length : 0;
        break;
    case MB__EXT_REFUSED:
        add_refused(c->ext_refused, loc, res.reason);
        break;
    }
    free(res.path);
    free(loc);
    c->ext_bytes += b;
    return b;
}

/* Bytes of the tensor's data as stored (see docs/MODEL.md). */
static uint64_t tensor_bytes(ctx *c, const struct tsum *t)
{
    if (t->external)
        return external_bytes(c, t);
    if (t->has_raw)
        return t->raw.len;
    /* Typed fields: fixed-width payloads give their element count by
     * length; varint payloads by the dims (counting them would read the
     * data). */
    uint64_t b = 0;
    if (t->typed_len[T_FLOAT_DATA] || t->typed_n[T_FLOAT_DATA])
        b += t->typed_len[T_FLOAT_DATA] + 4 * t->typed_n[T_FLOAT_DATA];
    if (t->typed_len[T_DOUBLE_DATA] || t->typed_n[T_DOUBLE_DATA])
        b += t->typed_len[T_DOUBLE_DATA] + 8 * t->typed_n[T_DOUBLE_DATA];
    if (t->typed_len[T_STRING_DATA])
        b += t->typed_len[T_STRING_DATA];
    if (t->typed_len[T_INT32_DATA] || t->typed_n[T_INT32_DATA] ||
        t->typed_len[T_INT64_DATA] || t->typed_n[T_INT64_DATA] ||
        t->typed_len[T_UINT64_DATA] || t->typed_n[T_UINT64_DATA])
        b += logical_bytes(t->dtype, t->count);
    return b;
}

/* Whether the tensor's own data (raw_data, float_data, double_data) is
 * not the size its dims and type declare: an impossible tensor (ONNX
 * Runtime refuses it), whose declared count must not become parameters. */
static int impossible(const struct tsum *t)
{
    if (t->external)
        return 0;
    uint64_t want = logical_bytes(t->dtype, t->count);
    if (t->overflow)
        return 1;
    if (t->has_raw) /* an unknown type (want 0) cannot be judged */
        return want == UINT64_MAX || (want && want != t->raw.len);
    static const struct {
        int field;
        uint64_t width;
    } fixed[] = {{T_FLOAT_DATA, 4}, {T_DOUBLE_DATA, 8}};
    for (size_t i = 0; i < 2; i++) {
        uint64_t n = t->typed_len[fixed[i].field] / fixed[i].width +
                     t->typed_n[fixed[i].field];
        if ((t->typed_len[fixed[i].field] || t->typed_n[fixed[i].field]) &&
            n != t->count)
            return 1;
    }
    return 0;
}

static void note_impossible(ctx *c, const struct tsum *t)
{
    if (c->impossible++)
        return;
    c->impossible_first = json_object();
    json_object_set_new(c->impossible_first, "name",
                        t->has_name ? jstr(&t->name) : json_string(""));
    json_object_set_new(
        c->impossible_first, "declared_elements",
        t->overflow
            ? json_null()
            : json_integer(
                  (json_int_t)(t->count > INT64_MAX ? INT64_MAX : t->count)));
    json_object_set_new(
        c->impossible_first, "data_bytes",
        json_integer((json_int_t)(t->has_raw
                                      ? t->raw.len
                                      : t->typed_len[T_FLOAT_DATA] +
                                            t->typed_len[T_DOUBLE_DATA])));
}

static void account(ctx *c, const struct tsum *t)
{
    if (impossible(t)) {
        note_impossible(c, t);
        return;
    }
    uint64_t count = t->overflow ? 0 : t->count;
    uint64_t bytes = tensor_bytes(c, t);
    /* Weights are weights wherever the exporter put them: a tensor in a
     * node attribute (a Constant's value, as PyTorch's QDQ export keeps
     * its int8 weights) counts as a parameter of its dtype too, and the
     * constants are kept apart for the split. */
    if (c->in_attr) {
        c->const_tensors++;
        c->const_values += count;
        c->const_bytes += bytes;
    } else {
        c->initializers++;
        c->init_params += count;
        c->init_bytes += bytes;
    }
    unsigned k = t->dtype < N_TYPES ? (unsigned)t->dtype : 0;
    c->params += count;
    c->param_bytes += bytes;
    c->type_count[k] += count;
    c->type_bytes[k] += bytes;
    c->type_seen[k] = 1;
}

static mb_status scan_sparse(ctx *c, const mb__pb *r, const mb__pb_field *sf)
{
    mb__pb sub = mb__pb_sub(r, sf);
    mb__pb_field f;
    mb_status s;
    while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
        if (f.num == ST_VALUES && f.wire == MB_PB_LEN) {
            struct tsum t;
            s = scan_tensor(c, &sub, &f, &t);
            if (s)
                return s;
            account(c, &t);
        }
    }
    return s;
}

/* ---- graphs ------------------------------------------------------------- */

static mb_status scan_graph(ctx *c, const mb__pb *r, const mb__pb_field *gf,
                            int depth, json_t *top);

/* Walks a node: counts its op type (main graph or subgraphs) and recurses
 * into graph attributes. */
static mb_status scan_node(ctx *c, const mb__pb *r, const mb__pb_field *nf,
                           int depth)
{
    mb__pb sub = mb__pb_sub(r, nf);
    mb__pb_field f;
    mb_status s;
    if (depth == 0)
        c->nodes++;
    else
        c->subgraph_nodes++;
    while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
        if (f.num == N_OP_TYPE && f.wire == MB_PB_LEN) {
            char *op = mb__pb_strdup(&f);
            if (!op)
                return mb__fail(c->err, MB_ENOMEM, "out of memory");
            json_t *ops = depth == 0 ? c->op_types : c->sub_op_types;
            json_t *n = json_object_get(ops, op);
            json_object_set_new(
                ops, op, json_integer(n ? json_integer_value(n) + 1 : 1));
            free(op);
        } else if (f.num == N_ATTR && f.wire == MB_PB_LEN) {
            mb__pb a = mb__pb_sub(&sub, &f);
            mb__pb_field g;
            while ((s = mb__pb_next(&a, &g, c->err)) == MB_OK && g.num) {
                if ((g.num == A_G || g.num == A_GRAPHS) &&
                    g.wire == MB_PB_LEN) {
                    c->subgraphs++;
                    s = scan_graph(c, &a, &g, depth + 1, NULL);
                } else if ((g.num == A_T || g.num == A_TENSORS) &&
                           g.wire == MB_PB_LEN) {
                    struct tsum t;
                    s = scan_tensor(c, &a, &g, &t);
                    c->in_attr = 1;
                    if (s == MB_OK)
                        account(c, &t);
                    c->in_attr = 0;
                } else if ((g.num == A_SPARSE || g.num == A_SPARSES) &&
                           g.wire == MB_PB_LEN) {
                    c->in_attr = 1;
                    s = scan_sparse(c, &a, &g);
                    c->in_attr = 0;
                }
                if (s)
                    return s;
            }
        }
        if (s)
            return s;
    }
    return s;
}

static mb_status scan_graph(ctx *c, const mb__pb *r, const mb__pb_field *gf,
                            int depth, json_t *top)
{
    if (depth > MAX_GRAPH_DEPTH)
        return mb__fail(c->err, MB_EFORMAT,
                        "subgraphs nested deeper than %d at byte %zu",
                        MAX_GRAPH_DEPTH, gf->data_offset);
    mb__pb_field f;
    mb_status s;
    mb__pb sub;
    if (top) { /* first pass: initializer names, to filter the inputs */
        sub = mb__pb_sub(r, gf);
        while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
            if (f.num != G_INIT || f.wire != MB_PB_LEN)
                continue;
            mb__pb t = mb__pb_sub(&sub, &f);
            mb__pb_field g;
            while ((s = mb__pb_next(&t, &g, c->err)) == MB_OK && g.num) {
                if (g.num == T_NAME && g.wire == MB_PB_LEN) {
                    if (!mb__grow((void **)&c->inits, &c->cap_inits,
                                  c->n_inits + 1, sizeof *c->inits))
                        return mb__fail(c->err, MB_ENOMEM, "out of memory");
                    c->inits[c->n_inits].p = g.data;
                    c->inits[c->n_inits++].n = g.len;
                }
            }
            if (s)
                return s;
        }
        if (s)
            return s;
        if (c->n_inits)
            qsort(c->inits, c->n_inits, sizeof *c->inits, name_cmp);
    }
    json_t *inputs = top ? json_object_get(top, "inputs") : NULL;
    json_t *outputs = top ? json_object_get(top, "outputs") : NULL;
    sub = mb__pb_sub(r, gf);
    while ((s = mb__pb_next(&sub, &f, c->err)) == MB_OK && f.num) {
        int len = f.wire == MB_PB_LEN;
        switch (f.num) {
        case G_NODE:
            if (!len)
                return bad_field(c, "GraphProto", &f);
            s = scan_node(c, &sub, &f, depth);
            break;
        case G_NAME:
            if (!len)
                return bad_field(c, "GraphProto", &f);
            if (top)
                json_object_set_new(top, "graph_name", jstr(&f));
            break;
        case G_INIT: {
            if (!len)
                return bad_field(c, "GraphProto", &f);
            struct tsum t;
            s = scan_tensor(c, &sub, &f, &t);
            if (s == MB_OK)
                account(c, &t);
            break;
        }
        case G_SPARSE_INIT:
            if (!len)
                return bad_field(c, "GraphProto", &f);
            s = scan_sparse(c, &sub, &f);
            break;
        case G_INPUT:
        case G_OUTPUT:
            if (!len)
                return bad_field(c, "GraphProto", &f);
            if (top)
                s = parse_value_info(c, &sub, &f,
                                     f.num == G_INPUT ? inputs : outputs,
                                     f.num == G_INPUT);
            break;
        default:
            break;
        }
        if (s)
            return s;
    }
    return s;
}

/* ---- the model ---------------------------------------------------------- */

static json_t *by_dtype(const ctx *c)
{
    json_t *o = json_object();
    for (int k = 0; k < N_TYPES; k++) {
        if (!c->type_seen[k])
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "count",
                            json_integer((json_int_t)c->type_count[k]));
        json_object_set_new(e, "bytes",
                            json_integer((json_int_t)c->type_bytes[k]));
        json_object_set_new(o, mb__onnx_dtype_name(k), e);
    }
    return o;
}

/* A string field longer than any real model's (a length bomb: a sparse
 * file declaring gigabytes): refused before anything is copied. */
static mb_status too_long(ctx *c, const char *field, const mb__pb_field *f)
{
    return mb__fail(c->err, MB_EFORMAT,
                    "%s: its %s is %zu bytes long, beyond the %u bytes "
                    "mbench reads for a string field; not a usable model "
                    "(re-export it)",
                    c->path, field, f->len, (unsigned)MB_ONNX_MAX_STRING);
}

static mb_status scan_model(ctx *c, json_t *o)
{
    mb__pb r;
    mb__pb_field f, graph = {0};
    mb_status s;
    int has_graph = 0;
    json_t *opsets = json_object_get(o, "opsets");
    json_t *meta = json_object_get(o, "metadata_props");
    mb__pb_init(&r, c->base, c->len);
    while ((s = mb__pb_next(&r, &f, c->err)) == MB_OK && f.num) {
        int want_len = 0, want_varint = 0;
        switch (f.num) {
        case M_IR:
        case M_MODEL_VER:
            want_varint = 1;
            if (f.wire == MB_PB_VARINT)
                json_object_set_new(
                    o, f.num == M_IR ? "ir_version" : "model_version",
                    json_integer((json_int_t)f.u64));
            break;
        case M_PRODUCER:
        case M_PRODUCER_VER:
        case M_DOMAIN:
        case M_DOC:
            want_len = 1;
            if (f.wire == MB_PB_LEN && f.len > MB_ONNX_MAX_STRING)
                return too_long(c,
                                f.num == M_PRODUCER       ? "producer_name"
                                : f.num == M_PRODUCER_VER ? "producer_version"
                                : f.num == M_DOMAIN       ? "domain"
                                                          : "doc_string",
                                &f);
            if (f.wire == MB_PB_LEN)
                json_object_set_new(o,
                                    f.num == M_PRODUCER ? "producer_name"
                                    : f.num == M_PRODUCER_VER
                                        ? "producer_version"
                                    : f.num == M_DOMAIN ? "domain"
                                                        : "doc_string",
                                    jstr(&f));
            break;
        case M_GRAPH:
            want_len = 1;
            graph = f;
            has_graph = f.wire == MB_PB_LEN;
            break;
        case M_OPSET:
        case M_META: {
            want_len = 1;
            if (f.wire != MB_PB_LEN)
                break;
            mb__pb e = mb__pb_sub(&r, &f);
            mb__pb_field g, k = {0}, v = {0};
            int64_t version = 0;
            while ((s = mb__pb_next(&e, &g, c->err)) == MB_OK && g.num) {
                if (g.num == 1 && g.wire == MB_PB_LEN)
                    k = g;
                else if (g.num == 2 && g.wire == MB_PB_LEN)
                    v = g;
                else if (g.num == 2 && g.wire == MB_PB_VARINT)
                    version = (int64_t)g.u64;
            }
            if (s)
                return s;
            if (k.len > MB_ONNX_MAX_STRING || v.len > MB_ONNX_MAX_STRING)
                return too_long(
                    c, f.num == M_OPSET ? "opset_import" : "metadata_props",
                    k.len > v.len ? &k : &v);
            if (f.num == M_OPSET) {
                json_t *os = json_object();
                json_object_set_new(os, "domain", jstr(&k));
                json_object_set_new(os, "version", json_integer(version));
                json_array_append_new(opsets, os);
            } else {
                char *key = mb__pb_strdup(&k);
                if (key)
                    json_object_set_new(meta, key, jstr(&v));
                free(key);
            }
            break;
        }
        default:
            break;
        }
        if ((want_len && f.wire != MB_PB_LEN) ||
            (want_varint && f.wire != MB_PB_VARINT))
            return bad_field(c, "ModelProto", &f);
    }
    if (s)
        return s;
    if (!has_graph)
        return mb__fail(c->err, MB_EFORMAT, "it has no graph");
    s = scan_graph(c, &r, &graph, 0, o);
    if (s)
        return s;
    json_int_t ir = json_integer_value(json_object_get(o, "ir_version"));
    if (ir >= 3 && json_array_size(opsets) == 0) /* the format requires one */
        return mb__fail(c->err, MB_EFORMAT,
                        "it has a graph but no opset_import: cut short, or "
                        "not a valid model");
    return MB_OK;
}

static void set_int(json_t *o, const char *k, uint64_t v)
{
    json_object_set_new(o, k, json_integer((json_int_t)v));
}

/* On-disk bytes of the distinct external data files that exist (resolved
 * against the model's directory): what the model takes beyond its .onnx
 * file. */
static uint64_t ext_disk_bytes(const ctx *c)
{
    uint64_t total = 0;
    size_t i;
    json_t *v;
    json_array_foreach(c->ext_files, i, v)
    {
        const char *loc = json_string_value(v);
        char *p = loc[0] == '/' ? mb__strdup(loc)
                                : mb__malloc(strlen(c->dir) + strlen(loc) + 2);
        if (!p)
            continue;
        if (loc[0] != '/')
            sprintf(p, "%s/%s", c->dir, loc);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
        free(p);
    }
    return total;
}

/* The body of mb__onnx_inspect once the file is mapped. */
static mb_status inspect_mapped(ctx *c, json_t *o)
{
    mb_status s = scan_model(c, o);
    if (s)
        return s;
    set_int(o, "nodes", c->nodes);
    set_int(o, "subgraph_nodes", c->subgraph_nodes);
    json_object_set(o, "op_types", c->op_types);
    json_object_set(o, "subgraph_op_types", c->sub_op_types);
    set_int(o, "subgraphs", c->subgraphs);
    set_int(o, "initializers", c->initializers);
    set_int(o, "params", c->params);
    set_int(o, "param_bytes", c->param_bytes);
    set_int(o, "initializer_params", c->init_params);
    set_int(o, "initializer_param_bytes", c->init_bytes);
    json_object_set_new(o, "params_by_dtype", by_dtype(c));
    json_t *ext = json_object();
    json_object_set(ext, "files", c->ext_files);
    set_int(ext, "bytes", c->ext_bytes);
    uint64_t disk = ext_disk_bytes(c);
    set_int(ext, "file_bytes", disk);
    json_object_set(ext, "missing", c->ext_missing);
    json_object_set(ext, "refused", c->ext_refused);
    json_object_set_new(o, "external_data", ext);
    set_int(o, "total_bytes", (uint64_t)c->len + disk);
    json_t *k = json_object();
    set_int(k, "tensors", c->const_tensors);
    set_int(k, "values", c->const_values);
    set_int(k, "bytes", c->const_bytes);
    json_object_set_new(o, "constants", k);
    json_t *imp = json_object();
    set_int(imp, "count", c->impossible);
    json_object_set(imp, "first",
                    c->impossible_first ? c->impossible_first : json_null());
    json_object_set_new(o, "impossible_tensors", imp);
    return MB_OK;
}

/* Rewrites a wire-level failure into the one-line message users see. */
static mb_status explain(ctx *c, mb_status s)
{
    mb_err *err = c->err;
    const char *why = err ? err->msg : "";
    /* A file that starts like a ModelProto (ir_version first, as every
     * exporter writes it) and fails because data ran out was cut short. */
    int starts_like_onnx = c->len > 0 && c->base[0] == 0x08;
    int ran_out =
        err && (strstr(why, "truncated") || strstr(why, "not closed"));
    if (s == MB_ENOMEM)
        return mb__fail_prefix(err, "%s", c->path);
    if (starts_like_onnx && ran_out) {
        char tmp[sizeof err->msg];
        snprintf(tmp, sizeof tmp, "%s", why);
        return mb__fail(err, MB_EFORMAT,
                        "model %s is truncated (%zu bytes; %s): re-download "
                        "or re-export it",
                        c->path, c->len, tmp);
    }
    char tmp[sizeof err->msg];
    snprintf(tmp, sizeof tmp, "%s", err ? why : "");
    return mb__fail(err, MB_EFORMAT,
                    "%s is not an ONNX model (%s): pass a .onnx file (a "
                    "serialized ModelProto), or re-export it",
                    c->path, tmp);
}

mb_status mb__onnx_inspect(const char *path, json_t **out, mb_err *err)
{
    *out = NULL;
    mb_err local;
    if (!err)
        err = &local;
    mb_status ms = mb__model_file_check(path, "model", err);
    if (ms)
        return ms;
    ctx c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.err = err;
    mb__onnx_image map;
    mb_status s = mb__onnx_image_load(path, &map, err);
    if (s)
        return s;
    c.base = map.map.data;
    c.len = map.map.len;
    c.dir = mb__dir_of(path);
    c.op_types = json_object();
    c.sub_op_types = json_object();
    c.ext_files = json_array();
    c.ext_missing = json_array();
    c.ext_refused = json_array();
    char *real = realpath(path, NULL);
    c.real_dir = real ? mb__dir_of(real) : NULL;
    free(real);
    json_t *o = json_object();
    if (!c.dir || !c.op_types || !c.sub_op_types || !c.ext_files ||
        !c.ext_missing || !c.ext_refused || !o) {
        s = mb__fail(err, MB_ENOMEM, "out of memory inspecting %s", path);
        goto done;
    }
    json_object_set_new(o, "path", json_string(path));
    set_int(o, "file_bytes", (uint64_t)map.map.len);
    json_object_set_new(o, "ir_version", json_null());
    json_object_set_new(o, "producer_name", json_string(""));
    json_object_set_new(o, "producer_version", json_string(""));
    json_object_set_new(o, "domain", json_string(""));
    json_object_set_new(o, "model_version", json_integer(0));
    json_object_set_new(o, "doc_string", json_string(""));
    json_object_set_new(o, "graph_name", json_string(""));
    json_object_set_new(o, "opsets", json_array());
    json_object_set_new(o, "inputs", json_array());
    json_object_set_new(o, "outputs", json_array());
    json_object_set_new(o, "metadata_props", json_object());
    s = inspect_mapped(&c, o);
    if (s)
        s = explain(&c, s);
done:
    mb__onnx_image_free(&map);
    free(c.dir);
    free(c.inits);
    json_decref(c.op_types);
    json_decref(c.sub_op_types);
    json_decref(c.ext_files);
    json_decref(c.ext_missing);
    json_decref(c.ext_refused);
    json_decref(c.impossible_first);
    free(c.real_dir);
    if (s) {
        json_decref(o);
        return s;
    }
    *out = o;
    return MB_OK;
}
