/* registry.c - finding a backend by name, or loading a plugin by path. */
#include "mbench_backend.h"

#include "core/err.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

const mb_backend *mb__backend_null(void);
const mb_backend *mb__backend_ort(void);

const mb_backend *mb_backend_find(const char *name, mb_err *err)
{
    if (!name || strcmp(name, "ort") == 0 || strcmp(name, "onnxruntime") == 0)
        return mb__backend_ort();
    if (strcmp(name, "null") == 0)
        return mb__backend_null();
    if (!strchr(name, '/')) {
        mb__fail(err, MB_EINVAL,
                 "unknown backend '%s': use 'ort', 'null', or the path of a "
                 "plugin .so (with a '/')",
                 name);
        return NULL;
    }
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        mb__fail(err, MB_EBACKEND, "cannot load backend plugin %s: %s", name,
                 dlerror());
        return NULL;
    }
    mb_backend_entry_fn entry;
    *(void **)&entry = dlsym(h, "mb_backend_entry");
    const mb_backend *b = entry ? entry() : NULL;
    if (!b || b->abi_version != MB_BACKEND_ABI_VERSION ||
        /* share() and later slots are optional: a plugin built before
         * them ends at unload (MB_BACKEND_HAS_SHARE checks the size). */
        b->struct_size < offsetof(mb_backend, share)) {
        mb__fail(err, MB_EBACKEND,
                 "%s is not an mbench backend of ABI version %u (it must "
                 "export mb_backend_entry)",
                 name, MB_BACKEND_ABI_VERSION);
        dlclose(h);
        return NULL;
    }
    return b; /* the plugin stays loaded for the life of the process */
}
