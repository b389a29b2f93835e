"""Models and inputs given as Python objects: what mbench.run() does with
a callable or a module that is not in a file, and with arrays or shapes
given as `inputs`.

A model object is pickled into a temporary file and measured as the
`pickle:PATH` spec of the python backend (cloudpickle when it is
installed here, so that functions and classes defined in __main__ or a
notebook travel by value; else the standard pickle, which records them by
reference and therefore only works for objects whose classes and
functions can be imported by name).  Nothing here imports torch or jax.
"""
import functools
import os
import pickle
import pickletools
import sys

from ._lib import MbenchError

# Model specs that run on the python backend (docs/FRAMEWORKS.md).
PREFIXES = ("torchvision:", "flax:", "py:", "pickle:")

_HOW = ("put it in a file and pass 'PATH.py:FACTORY' (a function that "
        "returns the model), or install cloudpickle in this environment "
        "and the model's (pip install cloudpickle)")


def is_python_spec(spec):
    """Does the model spec name a Python model (PATH.py:FACTORY,
    py:MODULE:FACTORY, torchvision:NAME, flax:NAME, pickle:PATH)?"""
    s = str(spec)
    if s.startswith(PREFIXES):
        return True
    path, sep, factory = s.rpartition(":")
    return bool(sep and factory and path.endswith(".py"))


def _globals(data):
    """(module, name) of everything the pickle records by reference."""
    found, strings = [], []
    for op, arg, _pos in pickletools.genops(data):
        if op.name == "GLOBAL":
            found.append(tuple(str(arg).split(" ", 1)))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.append((strings[-2], strings[-1]))
        if isinstance(arg, str):
            strings.append(arg)
    return found


def _system_dirs():
    import site
    import sysconfig
    dirs = set(site.getsitepackages() + [site.getusersitepackages()])
    dirs.update(v for k, v in sysconfig.get_paths().items()
                if k in ("stdlib", "platstdlib", "purelib", "platlib"))
    return {os.path.realpath(d) for d in dirs if d}


def import_roots(data):
    """The sys.path entries of this interpreter from which the modules a
    pickle names were imported, other than the stdlib and site-packages
    (a project's own directory, a test directory): the measuring process
    gets them on its PYTHONPATH, so it imports the same modules."""
    roots, system = [], _system_dirs()
    for mod in sorted({m.split(".")[0] for m, _ in _globals(data)}):
        f = getattr(sys.modules.get(mod), "__file__", None)
        if not f or mod == "__main__":
            continue
        f = os.path.realpath(f)
        for entry in sys.path:
            e = os.path.realpath(entry or os.getcwd())
            if e in system or not f.startswith(e + os.sep):
                continue
            if e not in roots:
                roots.append(e)
            break
    return roots


def pickle_name(obj):
    """The pickle's file name, after the object (Mlp.pkl, forward.pkl): the
    model's name in the result document, by which gate and store match
    runs."""
    import re
    if isinstance(obj, functools.partial):
        obj = obj.func
    name = getattr(obj, "__name__", None) if isinstance(
        obj, type) or callable(obj) and hasattr(obj, "__code__") else None
    name = name or type(obj).__name__
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:60].strip(".") or "model"
    return name + ".pkl"


def pickle_model(obj, path):
    """Writes obj to path for the pickle: spec; returns the directories the
    measuring process needs on its PYTHONPATH (import_roots).  MbenchError
    (invalid argument) when it cannot be pickled or would not load
    elsewhere."""
    try:
        import cloudpickle as dumper
    except ImportError:
        dumper = pickle
    what = type(obj).__qualname__
    try:
        data = dumper.dumps(obj, protocol=4)
    except Exception as e:  # PicklingError, TypeError, AttributeError, ...
        raise MbenchError(2, "invalid argument",
                          f"mbench.run: cannot pickle the model (a {what}: "
                          f"{type(e).__name__}: {e}); {_HOW}") from None
    if dumper is pickle:
        names = [n for m, n in _globals(data) if m == "__main__"]
        if names:
            raise MbenchError(
                2, "invalid argument",
                f"mbench.run: the model (a {what}) uses "
                f"{', '.join(sorted(set(names)))} from __main__, which "
                f"pickle records by name and the measuring process cannot "
                f"import; {_HOW}")
    with open(path, "wb") as f:
        f.write(data)
    return import_roots(data)


def input_names(obj):
    """The names the python backend gives the model's inputs: its
    adapter's rule (mbench.frameworks), without importing a framework."""
    from .frameworks._adapters import _is_flax_like, _signature_names
    torch = sys.modules.get("torch")
    names = []
    if torch is not None and isinstance(obj, torch.nn.Module):
        names = _signature_names(obj.forward)
        if isinstance(obj, torch.jit.ScriptModule):
            try:
                names = [a.name for a in obj.forward.schema.arguments[1:]]
            except (AttributeError, RuntimeError):
                pass
    elif _is_flax_like(obj):
        names = _signature_names(obj.apply, skip=1)
    elif isinstance(obj, functools.partial) and not obj.keywords:
        names = _signature_names(obj)
    elif callable(obj):
        names = _signature_names(obj)
    return names or ["x"]


def _is_shape(v):
    return isinstance(v, (tuple, list)) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in v)


def _is_array(v):
    return hasattr(v, "shape") and hasattr(v, "dtype")


def input_options(inputs, names, workdir):
    """Run options for `inputs`: a per-sample shape (tuple of ints) ->
    --shape NAME=1,...; an array (axis 0: samples) -> --data FILE.npy; a
    list of arrays (one per input) or a dict NAME -> array or shape.
    names: the model's input names (a callable's), or None when unknown
    (a spec string: then dict keys must name them)."""
    if inputs is None:
        return {}
    if _is_shape(inputs) or _is_array(inputs):
        inputs = [inputs]
    if isinstance(inputs, (list, tuple)):
        if names is None and len(inputs) > 1:
            raise ValueError("inputs: give a dict NAME -> array or shape "
                             "for a model named by a spec string")
        names = names or ["x"]
        if len(inputs) != len(names):
            raise ValueError(f"inputs: {len(inputs)} given, but the model "
                             f"takes {len(names)} ({', '.join(names)})")
        inputs = dict(zip(names, inputs))
    if not isinstance(inputs, dict):
        raise ValueError("inputs: expected a per-sample shape (tuple of "
                         "ints), an array whose axis 0 is the samples, a "
                         "list of them (one per input) or a dict NAME -> "
                         "one of them")
    shapes = {k: [1] + list(v) for k, v in inputs.items() if _is_shape(v)}
    arrays = {k: v for k, v in inputs.items() if _is_array(v)}
    bad = [k for k in inputs if k not in shapes and k not in arrays]
    if bad:
        raise ValueError(f"inputs['{bad[0]}']: expected a per-sample shape "
                         f"(tuple of ints) or an array")
    opts = {}
    if shapes:
        opts["shape"] = shapes
    if arrays:
        import numpy as np
        if len(arrays) == 1 and len(inputs) == 1:
            path = os.path.join(workdir, "inputs.npy")
            np.save(path, np.asarray(next(iter(arrays.values()))))
        else:
            path = os.path.join(workdir, "inputs.npz")
            np.savez(path, **{k: np.asarray(v) for k, v in arrays.items()})
        opts["data"] = path
    return opts


def _venv_of_this_python():
    """This interpreter's venv (sys.prefix), or None outside a venv."""
    return sys.prefix if sys.prefix != sys.base_prefix else None


def host_python(spec, is_object=False):
    """The venv that should host a Python model measured for this process
    (the python= option), or None for the python backend's own choice
    (docs/FRAMEWORKS.md): a pickled object runs in this interpreter's venv
    (it came from here), and so does a spec whose framework this venv has
    (torchvision for torchvision:, flax for flax:) or a PATH.py/py: spec.
    Outside a venv, or with MBENCH_PYTHON set (even empty), the backend
    chooses."""
    venv = _venv_of_this_python()
    if venv is None or "MBENCH_PYTHON" in os.environ:
        return None
    if not is_object:
        need = {"torchvision:": "torchvision", "flax:": "flax"}
        mod = next((m for p, m in need.items() if str(spec).startswith(p)),
                   None)
        if mod is not None:
            import importlib.util
            if importlib.util.find_spec(mod) is None:
                return None
    return venv


def env_with_roots(roots):
    """The environment for the mbench command with roots first on
    PYTHONPATH, or None (this process's) when there are none."""
    if not roots:
        return None
    env = dict(os.environ)
    old = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(roots + [p for p in old if p not in roots])
    return env
