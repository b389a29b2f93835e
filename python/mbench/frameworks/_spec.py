"""Model specs into Python objects.

    PATH.py:FACTORY      FACTORY(**options) from the file PATH.py (its
                         directory goes first on sys.path, so it can import
                         its neighbours); FACTORY may be dotted (Class.make)
    py:MODULE:FACTORY    the same from an importable module
    torchvision:NAME     any torchvision classifier, random weights (or
                         weights=FILE.npz), in eval mode
    flax:NAME            the project's Flax twin of torchvision:NAME
                         (mbench.models: resnet50, vit_b_16)
    pickle:PATH          a pickled model or callable (cloudpickle when
                         installed, else pickle); takes no options

The factory gets every option the adapter does not read, as strings
(weights=..., seed=...).  resolve() returns (object, meta): meta holds
what the spec knows about the inputs ("input_shape": per-sample shape,
"input_dtype", or "mbench_inputs": the list of the TorchScript
mbench.json) and a "format" name, taken from the object's attributes of
those names when it has them.
"""
import importlib
import importlib.util
import os
import sys

from ._errors import SpecError

PREFIXES = ("torchvision:", "flax:", "py:", "pickle:")


def _attr(obj, dotted, where):
    for part in dotted.split("."):
        if not hasattr(obj, part):
            names = sorted(n for n in dir(obj) if not n.startswith("_"))
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise SpecError(f"{where} has no '{dotted}' (it has: {shown})")
        obj = getattr(obj, part)
    return obj


def _call(factory, kwargs, what):
    if not callable(factory):
        raise SpecError(f"{what} is a {type(factory).__name__}, not a "
                        f"factory: name a function or class that returns "
                        f"the model")
    return factory(**kwargs)


def _from_file(path, factory, kwargs):
    if not os.path.isfile(path):
        raise SpecError(f"model file {path} does not exist; check the path "
                        f"(a Python model is PATH.py:FACTORY)")
    full = os.path.abspath(path)
    d = os.path.dirname(full)
    if d not in sys.path:
        sys.path.insert(0, d)
    name = "mbench_model_" + os.path.splitext(os.path.basename(full))[0]
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None or spec.loader is None:
        raise SpecError(f"{path} cannot be imported as a Python module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # pickle and dataclasses look modules up here
    spec.loader.exec_module(mod)
    return _call(_attr(mod, factory, path), kwargs, f"{path}:{factory}")


def _from_module(rest, kwargs):
    modname, sep, factory = rest.partition(":")
    if not sep or not modname or not factory:
        raise SpecError(f"invalid spec 'py:{rest}': expected "
                        f"py:MODULE:FACTORY, e.g. py:mypkg.models:make")
    mod = importlib.import_module(modname)
    return _call(_attr(mod, factory, f"module {modname}"), kwargs,
                 f"py:{rest}")


def _weights_fact(prefix, kwargs):
    """Where a built-in model's weights come from (model.weights in the
    result): compare warns when two variants' differ."""
    w = kwargs.get("weights")
    if w:
        return "file " + os.path.abspath(str(w))
    return f"random ({prefix}'s init, seed {kwargs.get('seed', 0)})"


def _torchvision(name, kwargs):
    try:
        from mbench import models
        make = models.torchvision_model
    except ModuleNotFoundError as e:
        if not (e.name or "").startswith("mbench"):
            raise  # numpy, torch: error_line says how to get it
        make = None
    except (ImportError, AttributeError):
        make = None
    if make is not None:
        m = make(name, **kwargs)
    else:  # without the project's models: plain random initialisation
        if kwargs:
            raise SpecError(f"torchvision:{name}: options "
                            f"{', '.join(sorted(kwargs))} need mbench.models")
        import torch
        import torchvision.models as tvm
        if name not in tvm.list_models(module=tvm):
            raise SpecError(f"torchvision has no classifier '{name}'")
        torch.manual_seed(0)
        m = tvm.get_model(name, weights=None).eval()
    side = 299 if name == "inception_v3" else 224
    meta = {"input_shape": tuple(getattr(m, "input_shape", (3, side, side))),
            "format": "torchvision",
            "weights": _weights_fact("torchvision", kwargs)}
    if getattr(m, "input_flexible", False):
        # named sizes are defaults --shape may change (docs/BACKENDS.md)
        meta["input_dim_names"] = ("", "height", "width")
        meta["input_min_side"] = int(getattr(m, "input_min_side", 1))
        meta["input_what"] = f"torchvision:{name}"
    return m, meta


def _flax(name, kwargs):
    try:
        from mbench import models
        make = models.flax_model
    except ModuleNotFoundError as e:
        if not (e.name or "").startswith("mbench"):
            raise  # numpy, jax: error_line says how to get it
        raise SpecError(f"flax:{name} needs mbench.models.flax_model, which "
                        f"this mbench package does not have") from None
    except (ImportError, AttributeError):
        raise SpecError(f"flax:{name} needs mbench.models.flax_model, which "
                        f"this mbench package does not have") from None
    m = make(name, **kwargs)
    shape = tuple(getattr(m, "input_shape", (3, 224, 224)))
    return m, {"input_shape": shape, "format": "flax",
               "weights": _weights_fact("flax", kwargs)}


def _unpickle(path, kwargs):
    if kwargs:
        raise SpecError(f"pickle:{path} takes no factory options (got "
                        f"{', '.join(sorted(kwargs))})")
    if not os.path.isfile(path):
        raise SpecError(f"pickle file {path} does not exist; check the path")
    try:
        import cloudpickle as loader
    except ImportError:
        import pickle as loader
    with open(path, "rb") as f:
        return loader.load(f)


def _int_seed(spec, kwargs):
    """The built-in builders take seed=N as an int."""
    if "seed" in kwargs:
        try:
            kwargs = dict(kwargs, seed=int(kwargs["seed"]))
        except ValueError:
            raise SpecError(f"{spec}: invalid seed '{kwargs['seed']}': "
                            f"expected an integer") from None
    return kwargs


def resolve(spec, kwargs):
    """(object, meta) for spec; raises SpecError for a malformed spec."""
    meta = {}
    if spec.startswith(("torchvision:", "flax:")):
        kwargs = _int_seed(spec, kwargs)
    if spec.startswith("torchvision:"):
        return _torchvision(spec[len("torchvision:"):], kwargs)
    if spec.startswith("flax:"):
        return _flax(spec[len("flax:"):], kwargs)
    if spec.startswith("py:"):
        obj = _from_module(spec[3:], kwargs)
    elif spec.startswith("pickle:"):
        obj = _unpickle(spec[len("pickle:"):], kwargs)
    else:
        path, sep, factory = spec.rpartition(":")
        if not sep or not path.endswith(".py") or not factory:
            raise SpecError(
                f"invalid Python model '{spec}': expected PATH.py:FACTORY, "
                f"py:MODULE:FACTORY, torchvision:NAME, flax:NAME or "
                f"pickle:PATH")
        obj = _from_file(path, factory, kwargs)
    for key in ("input_shape", "input_dtype", "mbench_inputs"):
        if hasattr(obj, key):
            meta[key] = getattr(obj, key)
    return obj, meta
