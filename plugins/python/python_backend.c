/*
 * python_backend.c - the python backend plugin: models written in Python
 * (PyTorch eager or TorchScript, JAX/Flax, any callable on numpy arrays)
 * timed inside the measured worker process, which embeds CPython.
 *
 * The runner forks its workers without exec (src/runner/child.c), so the
 * interpreter starts in the worker, in open(): each process is a fresh
 * interpreter, framework import and model build, like a fresh ONNX Runtime
 * session.  The plugin links Debian's libpython3.11 (pkg-config
 * python3-embed); a model runs in a venv of that Python (3.11.x), chosen
 * per variant (choose_env below; docs/FRAMEWORKS.md):
 *   python=PATH option > $MBENCH_PYTHON > the spec's default environment of
 *   `make frameworks` (torchvision: -> torch, flax: -> jax) > $VIRTUAL_ENV
 *   > Debian's own interpreter (its dist-packages, e.g. python3-torch).
 * One process hosts one interpreter: models of two environments cannot
 * share a process (compare runs every variant in processes of its own).
 *
 * The Python side is the package mbench.frameworks (python/mbench/
 * frameworks): it resolves the spec, picks the adapter and gives the C side
 * a callable and its arguments; run() is one PyObject_Call of them, and the
 * adapter makes that call end when the result exists (JAX:
 * block_until_ready).  The GIL stays with the runner's thread for the life
 * of the process.  Process-wide state (the interpreter) lives in statics:
 * there is one interpreter per process.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "mbench_backend.h"
#include "../common/plugin_util.h"

#include <dlfcn.h>
#include <pthread.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MB_FRAMEWORKS_DIR
#define MB_FRAMEWORKS_DIR "build/frameworks"
#endif
#ifndef MB_PYTHON_EXE
#define MB_PYTHON_EXE "/usr/bin/python3"
#endif

#define MAX_OUTPUTS 256

typedef struct state {
    uint64_t seed;
    int verbose;
    char from[PATH_MAX + 32]; /* where the venv choice came from */
} state;

typedef struct io {
    mb_io_desc d;
    char *name;
    char *dim_names[MB_MAX_RANK];
} io;

typedef struct session {
    PyObject *py;     /* the mbench.frameworks session */
    PyObject *fn;     /* the timed callable ... */
    PyObject *args;   /* ... and its arguments (a tuple) */
    PyObject *result; /* of the last run */
    PyObject *pairs;  /* its outputs as [(name, array)], or NULL */
    io *in;
    mb_io_desc *in_desc;
    size_t n_in;
    io out[MAX_OUTPUTS];
    mb_io_desc out_desc[MAX_OUTPUTS];
    size_t n_out;
    int described;         /* outputs known from a result */
    pthread_t threads[64]; /* threads set up for this session */
    size_t n_threads;
    int64_t compile_ns;
    char spec[512];
} session;

/* The interpreter of this process: started by this plugin (never by a
 * host program), with the executable of the venv it was started for. */
static int g_started;
static char g_exe[PATH_MAX];
static PyThreadState *g_main; /* the starting thread's, while it waits */

/* Every entry point holds the GIL only while it runs Python, so that
 * `mbench load` can call run() from several threads; a thread new to a
 * session gets the session's per-thread set-up first (torch: inference
 * mode is thread-local). */
#define GIL_IN PyGILState_STATE gil_ = PyGILState_Ensure()
#define GIL_OUT PyGILState_Release(gil_)

/* ---- dtypes (the plugin cannot see libmbench's symbols: plugins/common) */

static const char *dtype_name(mb_dtype t)
{
    return mb_plugin_dtype_str(t);
}

static mb_dtype dtype_parse(const char *s)
{
    return mb_plugin_dtype_of(s);
}

/* ---- Python errors into one line ---------------------------------------- */

/* The pending Python exception as mbench's one line (mbench.frameworks.
 * error_line: the fix for a missing framework, the user's file:line),
 * prefixed with what was being done; clears the exception. */
static int py_fail(mb_err *err, mb_status code, const char *doing)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb)
        PyException_SetTraceback(value, tb);
    char line[900] = "";
    PyObject *mod = PyImport_ImportModule("mbench.frameworks._errors");
    PyObject *text = mod && value
                         ? PyObject_CallMethod(mod, "error_line", "(O)", value)
                         : NULL;
    if (!text) {
        PyErr_Clear();
        text = value ? PyObject_Str(value) : NULL;
    }
    const char *u = text ? PyUnicode_AsUTF8(text) : NULL;
    if (!u)
        PyErr_Clear();
    snprintf(line, sizeof line, "%s", u ? u : "unknown Python error");
    Py_XDECREF(text);
    Py_XDECREF(mod);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return mb_plugin_fail(err, code, "%s: %s", doing, line);
}

/* ---- which interpreter ----------------------------------------------------
 */

static int is_file(const char *p)
{
    return access(p, X_OK) == 0;
}

/* The default environment of a spec's prefix (make frameworks), or NULL. */
static const char *default_env(const char *spec)
{
    if (!strncmp(spec, "torchvision:", 12))
        return "torch";
    if (!strncmp(spec, "flax:", 5))
        return "jax";
    return NULL;
}

/* The "version" of a venv's pyvenv.cfg into out ("" when not a venv). */
static void venv_version(const char *venv, char *out, size_t len)
{
    char path[PATH_MAX + 16], line[512];
    out[0] = '\0';
    snprintf(path, sizeof path, "%s/pyvenv.cfg", venv);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *eq = strchr(line, '=');
        if (!eq || (strncmp(line, "version", 7) != 0))
            continue;
        char *v = eq + 1;
        v += strspn(v, " \t");
        v[strcspn(v, " \t\r\n")] = '\0';
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

/* PATH (a venv directory or its bin/python) into the executable in exe;
 * checks that it is a venv of this plugin's Python (3.X). */
static int venv_exe(const char *path, const char *from, char *exe, size_t len,
                    mb_err *err)
{
    char venv[PATH_MAX];
    snprintf(venv, sizeof venv, "%s", path);
    size_t n = strlen(venv);
    while (n > 1 && venv[n - 1] == '/')
        venv[--n] = '\0';
    if (n > 11 && !strcmp(venv + n - 11, "/bin/python"))
        venv[n - 11] = '\0';
    else if (n > 12 && !strcmp(venv + n - 12, "/bin/python3"))
        venv[n - 12] = '\0';
    snprintf(exe, len, "%s/bin/python", venv);
    if (!is_file(exe))
        return mb_plugin_fail(
            err, MB_EINVAL,
            "%s: %s is not a Python venv (no %s); make one with "
            "/usr/bin/python3 -m venv %s, or run `make frameworks`",
            from, path, exe, path);
    char ver[64], want[16];
    venv_version(venv, ver, sizeof ver);
    snprintf(want, sizeof want, "%d.%d.", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    if (ver[0] && strncmp(ver, want, strlen(want)) != 0)
        return mb_plugin_fail(
            err, MB_EINVAL,
            "%s: %s is a venv of Python %s, but the python backend "
            "embeds Python %d.%d (libpython%d.%d); make the venv "
            "with /usr/bin/python3 -m venv",
            from, path, ver, PY_MAJOR_VERSION, PY_MINOR_VERSION,
            PY_MAJOR_VERSION, PY_MINOR_VERSION);
    return MB_OK;
}

/* The interpreter executable for spec with options opts into exe, and
 * where the choice came from into from. */
static int choose_env(const char *spec, const char *python_opt, char *exe,
                      size_t len, char *from, size_t flen, mb_err *err)
{
    const char *env = getenv("MBENCH_PYTHON"), *venv = getenv("VIRTUAL_ENV");
    const char *fw = default_env(spec);
    if (python_opt && *python_opt) {
        snprintf(from, flen, "python=%s", python_opt);
        return venv_exe(python_opt, "python=", exe, len, err);
    }
    if (env && *env) {
        snprintf(from, flen, "MBENCH_PYTHON=%s", env);
        return venv_exe(env, "MBENCH_PYTHON", exe, len, err);
    }
    if (fw) {
        const char *dir = getenv("MBENCH_FRAMEWORKS_DIR");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s",
                 dir && *dir ? dir : MB_FRAMEWORKS_DIR, fw);
        snprintf(from, flen, "the %s environment of make frameworks", fw);
        if (access(path, F_OK) != 0)
            return mb_plugin_fail(
                err, MB_EUNSUPPORTED,
                "%s runs in the %s environment, but %s does not "
                "exist: run `make frameworks` (or pass python=VENV, "
                "or set MBENCH_PYTHON)",
                spec, fw, path);
        return venv_exe(path, "make frameworks", exe, len, err);
    }
    if (venv && *venv) {
        snprintf(from, flen, "VIRTUAL_ENV=%s", venv);
        return venv_exe(venv, "VIRTUAL_ENV", exe, len, err);
    }
    snprintf(from, flen, "the system interpreter");
    snprintf(exe, len, "%s", MB_PYTHON_EXE);
    return MB_OK;
}

/* The directory holding the mbench package this plugin belongs to: the
 * source tree's python/ (build/plugins/ -> ../../python), an installed
 * tree's lib/mbench/python (lib/mbench/plugins -> ../python) or a wheel's
 * site-packages (mbench/lib/mbench/plugins -> ../../../..); "" when none
 * is found (the venv may have the package installed). */
static void package_dir(char *out, size_t len)
{
    const char *env = getenv("MBENCH_PYTHON_PACKAGE");
    out[0] = '\0';
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    static const char anchor; /* an address inside this plugin */
    Dl_info di;
    char self[PATH_MAX];
    if (!dladdr(&anchor, &di) || !di.dli_fname || !realpath(di.dli_fname, self))
        return;
    char *d = dirname(self);
    const char *rel[] = {"../../python", "../python", "../../../.."};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char probe[PATH_MAX + 64], dir[PATH_MAX];
        snprintf(probe, sizeof probe, "%s/%s", d, rel[i]);
        if (!realpath(probe, dir))
            continue;
        snprintf(probe, sizeof probe, "%s/mbench/frameworks/__init__.py", dir);
        if (access(probe, R_OK) == 0) {
            snprintf(out, len, "%s", dir);
            return;
        }
    }
}

/* ---- the interpreter -------------------------------------------------- */

/* Runs code with the given globals (a dict); 0 or -1 with a Python error
 * pending. */
static int run_code(const char *code, PyObject *globals)
{
    PyObject *r = PyRun_String(code, Py_file_input, globals, globals);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* What every embedded interpreter does first: the package on sys.path
 * (first for the source tree's python/; last for a wheel's site-packages,
 * whose other packages must not shadow the venv's own), the model's
 * prints on stderr (stdout may carry mbench's JSON), quiet warnings
 * unless --verbose. */
static const char kBoot[] = "import sys\n"
                            "if pkgdir and pkgdir not in sys.path:\n"
                            "    if pkgdir.endswith(('site-packages',\n"
                            "                        'dist-packages')):\n"
                            "        sys.path.append(pkgdir)\n"
                            "    else:\n"
                            "        sys.path.insert(0, pkgdir)\n"
                            "sys.stdout = sys.stderr\n"
                            "if not verbose:\n"
                            "    import warnings\n"
                            "    warnings.simplefilter('ignore')\n";

/* The plugin is loaded with RTLD_LOCAL, so libpython's symbols are not
 * global; extension modules (numpy, torch, _ctypes) expect them to be:
 * the library is made global, as a python executable has it. */
static int globalize_libpython(mb_err *err)
{
    Dl_info di;
    if (!dladdr((void *)Py_None, &di) || !di.dli_fname)
        return mb_plugin_fail(err, MB_EBACKEND, "cannot locate libpython: %s",
                              dlerror());
    if (!dlopen(di.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD))
        return mb_plugin_fail(err, MB_EBACKEND, "cannot make %s global: %s",
                              di.dli_fname, dlerror());
    return MB_OK;
}

static int start_python(const char *exe, int verbose, mb_err *err)
{
    int rc = globalize_libpython(err);
    if (rc)
        return rc;
    if (!getenv("JAX_PLATFORMS"))
        setenv("JAX_PLATFORMS", "cpu", 1); /* device=gpu asks otherwise */
    if (!verbose && !getenv("TF_CPP_MIN_LOG_LEVEL"))
        setenv("TF_CPP_MIN_LOG_LEVEL", "2", 1);
    PyConfig c;
    PyConfig_InitPythonConfig(&c);
    c.install_signal_handlers = 0; /* the runner owns SIGINT */
    c.parse_argv = 0;
    char *argv[] = {(char *)"mbench", NULL};
    PyStatus st = PyConfig_SetBytesString(&c, &c.executable, exe);
    if (!PyStatus_Exception(st))
        st = PyConfig_SetBytesString(&c, &c.program_name, exe);
    if (!PyStatus_Exception(st))
        st = PyConfig_SetBytesArgv(&c, 1, argv);
    if (!PyStatus_Exception(st))
        st = Py_InitializeFromConfig(&c);
    PyConfig_Clear(&c);
    if (PyStatus_Exception(st))
        return mb_plugin_fail(err, MB_EBACKEND,
                              "cannot start Python for %s: %s", exe,
                              st.err_msg ? st.err_msg : "unknown error");
    g_started = 1;
    snprintf(g_exe, sizeof g_exe, "%s", exe);
    char pkg[PATH_MAX];
    package_dir(pkg, sizeof pkg);
    PyObject *g = PyDict_New();
    PyObject *p = PyUnicode_FromString(pkg);
    rc = g && p ? PyDict_SetItemString(g, "pkgdir", p) : -1;
    if (!rc)
        rc = PyDict_SetItemString(g, "verbose", verbose ? Py_True : Py_False);
    if (!rc)
        rc = PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins());
    if (!rc)
        rc = run_code(kBoot, g);
    Py_XDECREF(p);
    Py_XDECREF(g);
    if (rc)
        rc = py_fail(err, MB_EBACKEND, "starting Python");
    g_main = PyEval_SaveThread(); /* every call takes the GIL (GIL_IN) */
    return rc;
}

/* Starts the interpreter for exe, or checks that the running one is it. */
static int ensure_python(const char *exe, const char *from, int verbose,
                         mb_err *err)
{
    if (!g_started && Py_IsInitialized())
        return mb_plugin_fail(
            err, MB_EUNSUPPORTED,
            "Python models cannot run inside a process that "
            "already runs Python (libmbench loaded by a Python "
            "program): run them with the mbench command (the "
            "Python package's mbench.run does)");
    if (!g_started)
        return start_python(exe, verbose, err);
    if (strcmp(g_exe, exe) != 0)
        return mb_plugin_fail(
            err, MB_EUNSUPPORTED,
            "this process already runs the Python of %s, and %s "
            "asks for %s: one process hosts one environment; "
            "compare runs each variant in processes of its own",
            g_exe, from, exe);
    return MB_OK;
}

/* ---- the vtable --------------------------------------------------------- */

static int p_load(const mb_backend_config *cfg, void **out, mb_err *err)
{
    state *st = calloc(1, sizeof *st);
    if (!st)
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    st->seed = cfg ? cfg->seed : 0;
    st->verbose = cfg ? cfg->verbose : 0;
    *out = st;
    return MB_OK;
}

static void p_info(void *st, mb_info_fn emit, void *user)
{
    (void)st;
    Dl_info di;
    emit(user, "name", "python");
    emit(user, "version", PY_VERSION);
    emit(user, "providers", "cpu");
    emit(user, "library_path",
         dladdr((void *)Py_None, &di) && di.dli_fname ? di.dli_fname : "");
}

static void io_clear(io *x)
{
    free(x->name);
    for (int i = 0; i < MB_MAX_RANK; i++)
        free(x->dim_names[i]);
    memset(x, 0, sizeof *x);
}

static void x_close(void *sp)
{
    session *s = sp;
    if (!s)
        return;
    if (Py_IsInitialized() && s->py) { /* ends profiling: writes the trace */
        PyObject *r = PyObject_CallMethod(s->py, "close", NULL);
        if (!r)
            PyErr_Clear();
        Py_XDECREF(r);
    }
    if (Py_IsInitialized()) {
        Py_XDECREF(s->pairs);
        Py_XDECREF(s->result);
        Py_XDECREF(s->args);
        Py_XDECREF(s->fn);
        Py_XDECREF(s->py);
    }
    for (size_t i = 0; i < s->n_in; i++)
        io_clear(&s->in[i]);
    for (size_t i = 0; i < MAX_OUTPUTS; i++)
        io_clear(&s->out[i]);
    free(s->in);
    free(s->in_desc);
    free(s);
}

/* One (name, dtype, dims or None, dim_names or None) tuple into x. */
static int parse_input(PyObject *t, io *x, mb_err *err)
{
    PyObject *name, *dtype, *dims, *names;
    if (!PyArg_ParseTuple(t, "OOOO", &name, &dtype, &dims, &names))
        return py_fail(err, MB_EMODEL, "describing the inputs");
    const char *n = PyUnicode_AsUTF8(name), *dt = PyUnicode_AsUTF8(dtype);
    if (!n || !dt)
        return py_fail(err, MB_EMODEL, "describing the inputs");
    x->name = strdup(n);
    x->d.dtype = dtype_parse(dt);
    if (x->d.dtype == MB_DTYPE_UNDEFINED)
        return mb_plugin_fail(
            err, MB_EMODEL,
            "input '%s' has dtype '%s', which mbench does not know "
            "(float32, float16, bfloat16, float64, int64, int32, "
            "int16, int8, uint8, bool)",
            n, dt);
    x->d.rank = -1;
    if (dims != Py_None) {
        Py_ssize_t r = PySequence_Size(dims);
        if (r < 0 || r > MB_MAX_RANK)
            return mb_plugin_fail(err, MB_EMODEL,
                                  "input '%s': rank %zd unsupported", n, r);
        x->d.rank = (int)r;
        for (Py_ssize_t i = 0; i < r; i++) {
            PyObject *d = PySequence_GetItem(dims, i);
            PyObject *dn =
                names != Py_None ? PySequence_GetItem(names, i) : NULL;
            x->d.dims[i] = d ? PyLong_AsLongLong(d) : -1;
            const char *u = dn ? PyUnicode_AsUTF8(dn) : "";
            x->dim_names[i] = strdup(u ? u : "");
            Py_XDECREF(d);
            Py_XDECREF(dn);
        }
        if (PyErr_Occurred())
            return py_fail(err, MB_EMODEL, "describing the inputs");
    }
    return x->name ? MB_OK : mb_plugin_fail(err, MB_ENOMEM, "out of memory");
}

static void publish(io *x, mb_io_desc *d)
{
    x->d.name = x->name ? x->name : "";
    for (int i = 0; i < MB_MAX_RANK; i++)
        x->d.dim_names[i] = x->dim_names[i] ? x->dim_names[i] : "";
    *d = x->d;
}

static int describe_inputs(session *s, mb_err *err)
{
    PyObject *list = PyObject_GetAttrString(s->py, "inputs");
    PyObject *seq = list ? PySequence_Fast(list, "inputs") : NULL;
    Py_XDECREF(list);
    if (!seq)
        return py_fail(err, MB_EMODEL, "describing the inputs");
    size_t n = (size_t)PySequence_Fast_GET_SIZE(seq);
    s->in = calloc(n + 1, sizeof *s->in);
    s->in_desc = calloc(n + 1, sizeof *s->in_desc);
    int rc = s->in && s->in_desc
                 ? MB_OK
                 : mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        s->n_in = i + 1;
        rc = parse_input(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i),
                         &s->in[i], err);
        if (!rc)
            publish(&s->in[i], &s->in_desc[i]);
    }
    Py_DECREF(seq);
    /* Outputs are known after the first run; one placeholder until then. */
    s->out[0].name = strdup("output");
    s->out[0].d.rank = -1;
    s->out[0].d.dtype = MB_DTYPE_FLOAT32;
    publish(&s->out[0], &s->out_desc[0]);
    s->n_out = 1;
    return rc;
}

/* The backend options as a dict of str. */
static PyObject *options_dict(const mb_kv *opts, size_t n)
{
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && i < n; i++) {
        PyObject *v = PyUnicode_FromString(opts[i].value ? opts[i].value : "");
        if (!v || PyDict_SetItemString(d, opts[i].key, v)) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

static void x_close(void *sp);

/* Chooses the environment and starts Python for it (or checks the
 * running one); the GIL is free again afterwards. */
static int prepare_python(state *st, const char *spec, const mb_kv *opts,
                          size_t n, mb_err *err)
{
    const char *python_opt = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(opts[i].key, "python"))
            python_opt = opts[i].value;
        else if (!strncmp(opts[i].key, "dim:", 4))
            return mb_plugin_fail(
                err, MB_EINVAL,
                "--dim is for ONNX models; a Python model takes its "
                "shapes from --shape or --data");
    char exe[PATH_MAX], from[PATH_MAX + 32];
    int rc =
        choose_env(spec, python_opt, exe, sizeof exe, from, sizeof from, err);
    if (!rc)
        rc = ensure_python(exe, from, st->verbose, err);
    if (!rc)
        snprintf(st->from, sizeof st->from, "%s", from);
    return rc;
}

/* Opens the model (the GIL held). */
static int x_open(void *stp, const char *spec, const mb_kv *opts, size_t n,
                  void **out, mb_err *err)
{
    state *st = stp;
    const char *from = st->from;
    int rc;
    session *s = calloc(1, sizeof *s);
    if (!s)
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    s->compile_ns = -1;
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    PyObject *mod = PyImport_ImportModule("mbench.frameworks");
    PyObject *d = mod ? options_dict(opts, n) : NULL;
    s->py = d ? PyObject_CallMethod(mod, "open_model", "sOK", spec, d,
                                    (unsigned long long)st->seed)
              : NULL;
    Py_XDECREF(d);
    Py_XDECREF(mod);
    if (!s->py) {
        char doing[700];
        snprintf(doing, sizeof doing, "%s (Python of %s)", spec, from);
        rc = py_fail(err, MB_EMODEL, doing);
        x_close(s);
        return rc;
    }
    if ((rc = describe_inputs(s, err))) {
        x_close(s);
        return rc;
    }
    *out = s;
    return MB_OK;
}

/* The outputs of the last result as [(name, array)] (cached). */
static int result_pairs(session *s, mb_err *err)
{
    if (s->pairs)
        return MB_OK;
    if (!s->result)
        return mb_plugin_fail(err, MB_EINVAL,
                              "no result yet: run the model first");
    /* "(O)": with a bare "O" a tuple result would be the argument list. */
    PyObject *l = PyObject_CallMethod(s->py, "outputs", "(O)", s->result);
    s->pairs = l ? PySequence_List(l) : NULL;
    Py_XDECREF(l);
    return s->pairs ? MB_OK : py_fail(err, MB_EBACKEND, "reading the outputs");
}

/* Output names, dtypes and shapes from the first result. */
static int describe_outputs(session *s, mb_err *err)
{
    int rc = result_pairs(s, err);
    if (rc)
        return rc;
    size_t n = (size_t)PyList_GET_SIZE(s->pairs);
    if (n > MAX_OUTPUTS)
        n = MAX_OUTPUTS;
    for (size_t i = 0; i < MAX_OUTPUTS; i++)
        io_clear(&s->out[i]);
    for (size_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(s->pairs, (Py_ssize_t)i);
        PyObject *name = PyTuple_GetItem(pair, 0),
                 *arr = PyTuple_GetItem(pair, 1);
        PyObject *dt = arr ? PyObject_GetAttrString(arr, "dtype") : NULL;
        PyObject *dn = dt ? PyObject_GetAttrString(dt, "name") : NULL;
        PyObject *shape = arr ? PyObject_GetAttrString(arr, "shape") : NULL;
        const char *nm = name ? PyUnicode_AsUTF8(name) : NULL;
        const char *dts = dn ? PyUnicode_AsUTF8(dn) : NULL;
        io *x = &s->out[i];
        x->name = strdup(nm ? nm : "output");
        x->d.dtype = dtype_parse(dts);
        Py_ssize_t r = shape ? PyTuple_Size(shape) : -1;
        x->d.rank = r >= 0 && r <= MB_MAX_RANK ? (int)r : -1;
        for (int a = 0; a < x->d.rank; a++)
            x->d.dims[a] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, a));
        Py_XDECREF(dt);
        Py_XDECREF(dn);
        Py_XDECREF(shape);
        if (PyErr_Occurred())
            return py_fail(err, MB_EBACKEND, "describing the outputs");
        publish(x, &s->out_desc[i]);
    }
    s->n_out = n;
    s->described = 1;
    return MB_OK;
}

static int x_describe(void *sp, const mb_io_desc **in, size_t *n_in,
                      const mb_io_desc **out, size_t *n_out, mb_err *err)
{
    session *s = sp;
    if (s->result && !s->described) {
        int rc = describe_outputs(s, err);
        if (rc)
            return rc;
    }
    *in = s->in_desc;
    *n_in = s->n_in;
    *out = s->out_desc;
    *n_out = s->n_out;
    return MB_OK;
}

/* The inputs as [(memoryview, dtype, shape)] for the session's prepare. */
static PyObject *input_items(session *s, const mb_tensor *t, size_t n,
                             mb_err *err)
{
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        const char *dt = dtype_name(t[i].dtype);
        if (!dt) {
            Py_DECREF(l);
            mb_plugin_fail(err, MB_EDATA,
                           "input '%s': its dtype has no numpy twin",
                           s->in[i].name);
            return NULL;
        }
        PyObject *shape = PyTuple_New(t[i].rank);
        for (int a = 0; shape && a < t[i].rank; a++)
            PyTuple_SET_ITEM(shape, a, PyLong_FromLongLong(t[i].dims[a]));
        PyObject *mv =
            PyMemoryView_FromMemory(t[i].data ? (char *)t[i].data : (char *)"",
                                    (Py_ssize_t)t[i].nbytes, PyBUF_READ);
        PyObject *item =
            shape && mv ? Py_BuildValue("(OsO)", mv, dt, shape) : NULL;
        Py_XDECREF(shape);
        Py_XDECREF(mv);
        if (!item) {
            Py_DECREF(l);
            py_fail(err, MB_ENOMEM, "passing the inputs");
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, item);
    }
    return l;
}

static int x_prepare(void *sp, const mb_tensor *inputs, size_t n, mb_err *err)
{
    session *s = sp;
    if (n != s->n_in)
        return mb_plugin_fail(
            err, MB_EDATA, "the model takes %zu inputs, got %zu", s->n_in, n);
    PyObject *items = input_items(s, inputs, n, err);
    if (!items)
        return err ? err->code : MB_EDATA;
    PyObject *ns = PyObject_CallMethod(s->py, "prepare", "(O)", items);
    Py_DECREF(items);
    if (!ns)
        return py_fail(err, MB_EBACKEND, s->spec);
    s->compile_ns = PyLong_AsLongLong(ns);
    Py_DECREF(ns);
    Py_XSETREF(s->fn, PyObject_GetAttrString(s->py, "fn"));
    PyObject *a = PyObject_GetAttrString(s->py, "args");
    Py_XSETREF(s->args, a ? PySequence_Tuple(a) : NULL);
    Py_XDECREF(a);
    if (!s->fn || !s->args || PyErr_Occurred())
        return py_fail(err, MB_EBACKEND, s->spec);
    return MB_OK;
}

static int x_run(void *sp, mb_err *err)
{
    session *s = sp;
    PyObject *r = PyObject_Call(s->fn, s->args, NULL);
    if (!r)
        return py_fail(err, MB_EBACKEND, s->spec);
    Py_XSETREF(s->result, r);
    Py_CLEAR(s->pairs);
    return MB_OK;
}

static int x_fetch(void *sp, size_t index, mb_tensor *out, mb_err *err)
{
    session *s = sp;
    memset(out, 0, sizeof *out);
    int rc = result_pairs(s, err);
    if (rc)
        return rc;
    if (index >= (size_t)PyList_GET_SIZE(s->pairs))
        return mb_plugin_fail(err, MB_EINVAL,
                              "no output %zu (the model gave %zd)", index,
                              PyList_GET_SIZE(s->pairs));
    PyObject *pair = PyList_GET_ITEM(s->pairs, (Py_ssize_t)index);
    PyObject *name = PyTuple_GetItem(pair, 0), *arr = PyTuple_GetItem(pair, 1);
    PyObject *dt = arr ? PyObject_GetAttrString(arr, "dtype") : NULL;
    PyObject *dn = dt ? PyObject_GetAttrString(dt, "name") : NULL;
    const char *dts = dn ? PyUnicode_AsUTF8(dn) : NULL;
    mb_dtype t = dtype_parse(dts);
    Py_buffer view;
    int got = 0;
    if (!PyErr_Occurred() && t != MB_DTYPE_UNDEFINED)
        got =
            PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS | PyBUF_ND) == 0;
    const char *nm = name ? PyUnicode_AsUTF8(name) : NULL;
    if (!got || !nm || view.ndim > MB_MAX_RANK) {
        if (got)
            PyBuffer_Release(&view);
        Py_XDECREF(dt);
        Py_XDECREF(dn);
        if (PyErr_Occurred())
            return py_fail(err, MB_EBACKEND, "reading an output");
        return mb_plugin_fail(
            err, MB_EUNSUPPORTED,
            "output %zu has dtype %s or a rank mbench cannot hold", index,
            dts ? dts : "?");
    }
    out->data = malloc(view.len ? (size_t)view.len : 1);
    out->name = strdup(nm);
    if (out->data && out->name) {
        memcpy(out->data, view.buf, (size_t)view.len);
        out->nbytes = (size_t)view.len;
        out->dtype = t;
        out->rank = view.ndim;
        for (int a = 0; a < view.ndim; a++)
            out->dims[a] = view.shape[a];
        rc = MB_OK;
    } else {
        free(out->data);
        free(out->name);
        memset(out, 0, sizeof *out);
        rc = mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    }
    PyBuffer_Release(&view);
    Py_XDECREF(dt);
    Py_XDECREF(dn);
    return rc;
}

/* Emits every str -> str item of the dict that session.method() returns. */
static void emit_dict(session *s, const char *method, mb_info_fn emit,
                      void *user)
{
    PyObject *d = PyObject_CallMethod(s->py, method, NULL);
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (d && PyDict_Check(d) && PyDict_Next(d, &pos, &k, &v)) {
        const char *ks = PyUnicode_AsUTF8(k), *vs = PyUnicode_AsUTF8(v);
        if (ks && vs)
            emit(user, ks, vs);
    }
    if (!d || PyErr_Occurred()) {
        mb_err e = {0};
        py_fail(&e, MB_EBACKEND, method);
        emit(user, "error", e.msg);
    }
    Py_XDECREF(d);
}

static void x_model_info(void *sp, mb_info_fn emit, void *user)
{
    emit_dict(sp, "facts", emit, user);
}

static void x_session_info(void *sp, mb_info_fn emit, void *user)
{
    session *s = sp;
    if (s->compile_ns >= 0) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)s->compile_ns);
        emit(user, "compile_ns", v);
    }
    emit_dict(s, "runtime", emit, user);
}

/* A thread's first call on session s: its per-thread set-up. */
static int enter_thread(session *s, mb_err *err)
{
    pthread_t me = pthread_self();
    for (size_t i = 0; i < s->n_threads; i++)
        if (pthread_equal(s->threads[i], me))
            return MB_OK;
    if (s->n_threads == sizeof s->threads / sizeof s->threads[0])
        return mb_plugin_fail(err, MB_EUNSUPPORTED,
                              "a Python model serves at most %zu threads",
                              s->n_threads);
    PyObject *r = PyObject_CallMethod(s->py, "enter_thread", NULL);
    if (!r)
        return py_fail(err, MB_EBACKEND, s->spec);
    Py_DECREF(r);
    s->threads[s->n_threads++] = me;
    return MB_OK;
}

static int p_open(void *stp, const char *spec, const mb_kv *opts, size_t n,
                  void **out, mb_err *err)
{
    *out = NULL;
    int rc = prepare_python((state *)stp, spec, opts, n, err);
    if (rc)
        return rc;
    GIL_IN;
    rc = x_open(stp, spec, opts, n, out, err);
    if (!rc) {
        session *s = *out;
        s->threads[s->n_threads++] = pthread_self(); /* set up by open */
    }
    GIL_OUT;
    return rc;
}

static int p_describe(void *sp, const mb_io_desc **in, size_t *n_in,
                      const mb_io_desc **out, size_t *n_out, mb_err *err)
{
    GIL_IN;
    int rc = x_describe(sp, in, n_in, out, n_out, err);
    GIL_OUT;
    return rc;
}

static int p_prepare(void *sp, const mb_tensor *inputs, size_t n, mb_err *err)
{
    GIL_IN;
    int rc = enter_thread(sp, err);
    if (!rc)
        rc = x_prepare(sp, inputs, n, err);
    GIL_OUT;
    return rc;
}

static int p_run(void *sp, mb_err *err)
{
    GIL_IN;
    session *s = sp;
    int rc = pthread_equal(s->threads[s->n_threads - 1], pthread_self())
                 ? MB_OK
                 : enter_thread(s, err);
    if (!rc)
        rc = x_run(sp, err);
    GIL_OUT;
    return rc;
}

static int p_fetch(void *sp, size_t index, mb_tensor *out, mb_err *err)
{
    GIL_IN;
    int rc = x_fetch(sp, index, out, err);
    GIL_OUT;
    return rc;
}

static void p_model_info(void *sp, mb_info_fn emit, void *user)
{
    GIL_IN;
    x_model_info(sp, emit, user);
    GIL_OUT;
}

static void p_session_info(void *sp, mb_info_fn emit, void *user)
{
    GIL_IN;
    x_session_info(sp, emit, user);
    GIL_OUT;
}

static void p_close(void *sp)
{
    if (!sp)
        return;
    GIL_IN;
    x_close(sp);
    GIL_OUT;
}

static void p_unload(void *st)
{
    /* The interpreter stays: frameworks' threads and atexit hooks make
     * Py_FinalizeEx unsafe, and the worker process ends soon after. */
    free(st);
}

static const char *const kOptions[] = {"python",    "threads", "inter-threads",
                                       "sync",      "jit",     "device",
                                       "framework", "*",       NULL};

static const mb_backend kBackend = {
    .abi_version = MB_BACKEND_ABI_VERSION,
    .struct_size = sizeof(mb_backend),
    .name = "python",
    .load = p_load,
    .info = p_info,
    .open = p_open,
    .describe = p_describe,
    .prepare = p_prepare,
    .run = p_run,
    .fetch = p_fetch,
    .close = p_close,
    .unload = p_unload,
    .share = NULL,
    .caps = 0,
    .options = kOptions,
    .model_info = p_model_info,
    .session_info = p_session_info,
};

__attribute__((visibility("default"))) const mb_backend *mb_backend_entry(void);

const mb_backend *mb_backend_entry(void)
{
    return &kBackend;
}
