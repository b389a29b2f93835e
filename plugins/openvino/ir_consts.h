/* ir_consts.h - the weights of an OpenVINO IR, counted from its .xml text:
 * each Const layer (<layer ... type="Const" ...>) has a <data
 * element_type="f32" shape="10, 64" ... size="2560"/> element, whose
 * element type, element count and byte size are summed per element type.
 * No XML library: only those attributes of those layers are read, from
 * text the caller bounds; a layer whose attributes do not parse is
 * skipped.  Used by the openvino plugin for `mbench info` and the run's
 * parameter counts (docs/FRAMEWORKS.md). */
#ifndef MB_PLUGIN_IR_CONSTS_H
#define MB_PLUGIN_IR_CONSTS_H

#include <stddef.h>

/* The .xml is read up to this many bytes. */
#define IR_XML_MAX ((size_t)256 << 20)

typedef struct mb_ov_ir_count {
    char type[16]; /* OpenVINO's element type name: f32, i64, ... */
    unsigned long long count, bytes;
} mb_ov_ir_count;

/* Scans the len bytes at x (need not end in NUL) for Const layers into
 * c[0..max); returns how many element types were found. */
size_t mb_ov_ir_consts(const char *x, size_t len, mb_ov_ir_count *c,
                       size_t max);

/* mbench's dtype name of an OpenVINO element type name ("f32" ->
 * "float32"); the name itself when it has none. */
const char *mb_ov_ir_dtype(const char *t);

#endif
