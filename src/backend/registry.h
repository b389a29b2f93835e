/* registry.h - what the runner and the CLI may ask about a backend beyond
 * its vtable: declared capabilities and options, read safely from plugins
 * built against an older (smaller) mb_backend, and the built-in list. */
#ifndef MB_BACKEND_REGISTRY_H
#define MB_BACKEND_REGISTRY_H

#include "mbench_backend.h"

/* MB_BACKEND_CAP_* bits of be; 0 for a plugin older than the field. */
uint32_t mb__backend_caps(const mb_backend *be);
/* The NULL-terminated option keys be declares, or NULL. */
const char *const *mb__backend_options(const mb_backend *be);
/* 1 when be declares that open() accepts key ("dim:x" matches "dim:*"). */
int mb__backend_accepts(const mb_backend *be, const char *key);
/* Built-in backend i (0: ort, 1: null), NULL past the last. */
const mb_backend *mb__backend_builtin(size_t i);

#endif
