/* registry.c - finding a backend by name, or loading a plugin by path. */
#include "backend/registry.h"

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
        /* share(), caps and later slots are optional: a plugin built
         * before them ends at unload (their accessors check the size). */
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

uint32_t mb__backend_caps(const mb_backend *be)
{
    if (!be || be->struct_size < offsetof(mb_backend, caps) + sizeof be->caps)
        return 0;
    return be->caps;
}

const char *const *mb__backend_options(const mb_backend *be)
{
    if (!be ||
        be->struct_size < offsetof(mb_backend, options) + sizeof be->options)
        return NULL;
    return be->options;
}

int mb__backend_accepts(const mb_backend *be, const char *key)
{
    const char *const *o = mb__backend_options(be);
    for (; o && *o; o++) {
        size_t L = strlen(*o);
        if (strcmp(*o, key) == 0 ||
            (L && (*o)[L - 1] == '*' && strncmp(*o, key, L - 1) == 0))
            return 1;
    }
    return 0;
}

const mb_backend *mb__backend_builtin(size_t i)
{
    return i == 0 ? mb__backend_ort() : i == 1 ? mb__backend_null() : NULL;
}
