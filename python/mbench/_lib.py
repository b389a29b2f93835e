"""Finding and calling libmbench through ctypes (docs/FRAMEWORKS.md says why
ctypes and not cffi or a C extension).

The library's public API (include/mbench.h) is small and string-shaped: a
runner takes key/value options and returns a JSON document, so five
functions and one error struct are all there is to declare.
"""
import ctypes
import ctypes.util
import os
import shutil

_HERE = os.path.dirname(os.path.abspath(__file__))


class MbenchError(RuntimeError):
    """A failed call: `status` is the mb_status name, `code` its number."""

    def __init__(self, code, status, message):
        super().__init__(message)
        self.code = code
        self.status = status


class _Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 1024)]


def _candidates():
    env = os.environ.get("MBENCH_LIB")
    if env:
        yield env
        return
    yield os.path.join(_HERE, "lib", "libmbench.so.0")  # installed by pip
    # Running from the source tree: python/mbench -> build/
    yield os.path.join(_HERE, "..", "..", "build", "libmbench.so.0")
    found = ctypes.util.find_library("mbench")
    if found:
        yield found
    yield "/usr/local/lib/libmbench.so.0"
    yield "/usr/lib/libmbench.so.0"


_lib = None
_path = None


def library():
    """The loaded libmbench (a ctypes.CDLL), loading it on first use."""
    global _lib, _path
    if _lib is not None:
        return _lib
    tried = []
    for p in _candidates():
        if os.path.sep in p and not os.path.exists(p):
            tried.append(p)
            continue
        try:
            lib = ctypes.CDLL(p)
        except OSError as e:
            tried.append(f"{p} ({e})")
            continue
        _declare(lib)
        _lib, _path = lib, os.path.realpath(p) if os.path.exists(p) else p
        return lib
    raise ImportError(
        "mbench: cannot find libmbench.so.0 (tried: " + ", ".join(tried) +
        "); build it with `make` in the mbench repository, install it with "
        "`make install`, or set MBENCH_LIB to its path")


def library_path():
    library()
    return _path


def _declare(lib):
    c = ctypes
    lib.mb_runner_new.restype = c.c_void_p
    lib.mb_runner_new.argtypes = []
    lib.mb_runner_free.restype = None
    lib.mb_runner_free.argtypes = [c.c_void_p]
    lib.mb_runner_set.restype = c.c_int
    lib.mb_runner_set.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p,
                                  c.POINTER(_Err)]
    # char ** out-parameters: the library allocates, we free() with libc.
    lib.mb_runner_run.restype = c.c_int
    lib.mb_runner_run.argtypes = [c.c_void_p, c.c_char_p,
                                  c.POINTER(c.c_void_p), c.POINTER(_Err)]
    lib.mb_runner_compare.restype = c.c_int
    lib.mb_runner_compare.argtypes = [c.c_void_p, c.POINTER(c.c_char_p),
                                      c.c_size_t, c.POINTER(c.c_void_p),
                                      c.POINTER(_Err)]
    if hasattr(lib, "mb_runner_validate"):
        lib.mb_runner_validate.restype = c.c_int
        lib.mb_runner_validate.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p,
                                           c.POINTER(c.c_int),
                                           c.POINTER(c.c_void_p),
                                           c.POINTER(_Err)]
    if hasattr(lib, "mb_render"):
        lib.mb_render.restype = c.c_int
        lib.mb_render.argtypes = [c.c_char_p, c.c_char_p,
                                  c.POINTER(c.c_void_p), c.POINTER(_Err)]
    lib.mb_status_name.restype = c.c_char_p
    lib.mb_status_name.argtypes = [c.c_int]
    lib.mb_version.restype = c.c_char_p
    lib.mb_version.argtypes = []
    lib.mb_now_ns.restype = c.c_int64
    lib.mb_now_ns.argtypes = []


_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


def has_validate():
    return hasattr(library(), "mb_runner_validate")


def _raise(lib, rc, err):
    status = lib.mb_status_name(rc).decode()
    raise MbenchError(rc, status, err.msg.decode(errors="replace"))


def _take_string(ptr):
    """The library's malloc'd string as str, freed."""
    if not ptr.value:
        return None
    try:
        return ctypes.string_at(ptr.value).decode()
    finally:
        _libc.free(ptr.value)


def render(doc_json, fmt):
    """A result document (JSON text) as fmt ("md", "html", "csv", "json")
    by libmbench's own writers (mb_render), as the CLI writes them."""
    lib = library()
    if not hasattr(lib, "mb_render"):
        raise MbenchError(-1, "MB_EUNSUPPORTED",
                          "this libmbench has no mb_render: rebuild or "
                          "reinstall mbench")
    out, err = ctypes.c_void_p(), _Err()
    rc = lib.mb_render(doc_json.encode(), fmt.encode(), ctypes.byref(out),
                       ctypes.byref(err))
    if rc:
        _raise(lib, rc, err)
    return _take_string(out)


class Runner:
    """One mb_runner: options set one by one, then one call."""

    def __init__(self, options):
        self.lib = library()
        self.h = self.lib.mb_runner_new()
        if not self.h:
            raise MemoryError("mb_runner_new")
        for k, v in options:
            err = _Err()
            rc = self.lib.mb_runner_set(self.h, k.encode(), v.encode(),
                                        ctypes.byref(err))
            if rc:
                self.close()
                _raise(self.lib, rc, err)

    def close(self):
        if self.h:
            self.lib.mb_runner_free(self.h)
            self.h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, model):
        out, err = ctypes.c_void_p(), _Err()
        rc = self.lib.mb_runner_run(self.h, model.encode(), ctypes.byref(out),
                                    ctypes.byref(err))
        text = _take_string(out)
        if rc:
            _raise(self.lib, rc, err)
        return text

    def compare(self, variants):
        arr = (ctypes.c_char_p * len(variants))(*[v.encode() for v in variants])
        out, err = ctypes.c_void_p(), _Err()
        rc = self.lib.mb_runner_compare(self.h, arr, len(variants),
                                        ctypes.byref(out), ctypes.byref(err))
        text = _take_string(out)
        if rc:
            _raise(self.lib, rc, err)
        return text

    def validate(self, baseline, candidate):
        out, err, passed = ctypes.c_void_p(), _Err(), ctypes.c_int(0)
        rc = self.lib.mb_runner_validate(self.h, baseline.encode(),
                                         candidate.encode(),
                                         ctypes.byref(passed),
                                         ctypes.byref(out), ctypes.byref(err))
        text = _take_string(out)
        if rc:
            _raise(self.lib, rc, err)
        return text


def cli():
    """The mbench command that belongs with the library: $MBENCH, beside
    the library (the build tree), else on PATH."""
    env = os.environ.get("MBENCH")
    if env:
        return env
    lib_dir = os.path.dirname(library_path())
    for p in (os.path.join(lib_dir, "mbench"),
              os.path.join(lib_dir, "..", "bin", "mbench"),
              os.path.join(_HERE, "..", "..", "build", "mbench")):
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.realpath(p)
    found = shutil.which("mbench")
    if found:
        return found
    raise MbenchError(8, "unsupported operation",
                      "the mbench command is needed for this call and was not "
                      "found; set MBENCH to its path or put it on PATH")
