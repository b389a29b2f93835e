/* registry.c - finding a backend: a built-in one by name, a plugin by path,
 * or a plugin by name in the plugin directories (mbench_NAME.so); what a
 * backend declares beyond its vtable (registry.h). */
#include "backend/registry.h"

#include "core/err.h"

#include "build_info.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

const mb_backend *mb__backend_null(void);
const mb_backend *mb__backend_ort(void);

#ifndef MB_PLUGIN_DIR
#define MB_PLUGIN_DIR "/usr/local/lib/mbench/plugins"
#endif

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* A Python model spec (docs/FRAMEWORKS.md): a prefix, or PATH.py:NAME. */
static int python_spec(const char *m)
{
    static const char *const prefixes[] = {
        "torchvision:", "flax:", "py:", "pickle:"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(m, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    const char *colon = strrchr(m, ':');
    return ends_with(m, ".py") ||
           (colon && colon - m > 3 && strncmp(colon - 3, ".py", 3) == 0);
}

const char *mb_backend_for_model(const char *model_path)
{
    if (model_path && python_spec(model_path))
        return "python";
    if (model_path &&
        (ends_with(model_path, ".pt") || ends_with(model_path, ".pth")))
        return "torch";
    if (model_path && ends_with(model_path, ".xml"))
        return "openvino"; /* an OpenVINO IR (.xml + .bin) */
    return "ort";
}

/* Loads the plugin at path; NULL with err filled when it is not one. */
static const mb_backend *load_plugin(const char *path, mb_err *err)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        mb__fail(err, MB_EBACKEND, "cannot load backend plugin %s: %s", path,
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
                 path, MB_BACKEND_ABI_VERSION);
        dlclose(h);
        return NULL;
    }
    return b; /* the plugin stays loaded for the life of the process */
}

/* Appends dir to the colon list in buf (for the error message) and
 * returns 1 when dir/mbench_NAME.so exists, with its path in out. */
static int probe(const char *dir, const char *name, char *out, size_t len,
                 char *tried, size_t tlen)
{
    if (!dir || !*dir)
        return 0;
    size_t used = strlen(tried);
    snprintf(tried + used, tlen - used, "%s%s", used ? ", " : "", dir);
    snprintf(out, len, "%s/mbench_%s.so", dir, name);
    return access(out, R_OK) == 0;
}

/* The real path of the file that holds this code into self (PATH_MAX):
 * libmbench.so, or the program it is linked into.  For the main program
 * dladdr names only argv[0] (`mbench` when found through PATH), so its
 * file is read from /proc/self/exe, as for ONNX Runtime (ort.c). */
static int own_file(char *self)
{
    static const char anchor; /* an address inside this program or .so */
    Dl_info di;
    struct link_map *lm = NULL;
    if (!dladdr1(&anchor, &di, (void **)&lm, RTLD_DL_LINKMAP))
        return 0;
    if (lm && lm->l_name && lm->l_name[0])
        return realpath(lm->l_name, self) != NULL;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    return realpath(exe, self) != NULL;
}

/* Finds mbench_NAME.so; returns its path in out, or 0 with the
 * directories tried in `tried`. */
static int find_plugin(const char *name, char *out, size_t len, char *tried,
                       size_t tlen)
{
    const char *env = getenv("MBENCH_PLUGIN_PATH");
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d;
             d = strtok_r(NULL, ":", &save))
            if (probe(d, name, out, len, tried, tlen)) {
                free(copy);
                return 1;
            }
        free(copy);
    }
    /* Beside the program or libmbench.so that holds this code. */
    char self[PATH_MAX], dir[PATH_MAX];
    if (own_file(self)) {
        char *d = dirname(self);
        const char *rel[] = {"plugins", "../plugins", "mbench/plugins",
                             "../lib/mbench/plugins"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            char joined[PATH_MAX + 32];
            snprintf(joined, sizeof joined, "%s/%s", d, rel[i]);
            if (realpath(joined, dir) && /* exists; named plainly */
                probe(dir, name, out, len, tried, tlen))
                return 1;
        }
    }
    return probe(MB_PLUGIN_DIR, name, out, len, tried, tlen);
}

const mb_backend *mb_backend_find(const char *name, mb_err *err)
{
    if (!name || strcmp(name, "ort") == 0 || strcmp(name, "onnxruntime") == 0)
        return mb__backend_ort();
    if (strcmp(name, "null") == 0)
        return mb__backend_null();
    if (strchr(name, '/'))
        return load_plugin(name, err);
    const char *bad = strpbrk(name, " .\\:");
    if (!*name || bad || strlen(name) > 64) {
        mb__fail(err, MB_EINVAL,
                 "unknown backend '%s': use 'ort', 'null', 'torch', "
                 "'python', 'openvino', or the path of a plugin .so "
                 "(with a '/')",
                 name);
        return NULL;
    }
    char path[PATH_MAX + 80], tried[2048] = "";
    if (!find_plugin(name, path, sizeof path, tried, sizeof tried)) {
        if (strcmp(name, "python") == 0)
            mb__fail(err, MB_EUNSUPPORTED,
                     "backend 'python' (Python models) is not installed: no "
                     "mbench_python.so in %s; install python3-dev "
                     "(scripts/deps.sh test) and rebuild with make, or set "
                     "MBENCH_PLUGIN_PATH",
                     tried);
        else if (strcmp(name, "torch") == 0)
            mb__fail(err, MB_EUNSUPPORTED,
                     "backend 'torch' is not installed: no mbench_torch.so "
                     "in %s; install libtorch-dev (scripts/deps.sh test) and "
                     "rebuild with make, or set MBENCH_PLUGIN_PATH",
                     tried);
        else if (strcmp(name, "openvino") == 0)
            mb__fail(err, MB_EUNSUPPORTED,
                     "backend 'openvino' is not installed: no "
                     "mbench_openvino.so in %s; run 'make frameworks "
                     "FRAMEWORKS=openvino' and rebuild with make, or set "
                     "MBENCH_PLUGIN_PATH",
                     tried);
        else
            mb__fail(err, MB_EINVAL,
                     "unknown backend '%s': no built-in backend and no "
                     "plugin mbench_%s.so in %s; use 'ort', 'null', 'torch', "
                     "'python', 'openvino' or the path of a plugin .so",
                     name, name, tried);
        return NULL;
    }
    return load_plugin(path, err);
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
