"""One-line errors for the python backend: what went wrong and the fix."""
import os
import sys
import traceback

# Which venv `make frameworks` makes for a framework's modules.
_ENV_OF = {"torch": "torch", "torchvision": "torch", "jax": "jax",
           "jaxlib": "jax", "flax": "jax", "optax": "jax"}


class SpecError(Exception):
    """A model spec or option the backend cannot use; the message is the
    whole story (one line, with the fix)."""


# The pip extra that brings a framework's modules (a wheel user's fix).
_EXTRA_OF = {"torch": "torch", "torchvision": "torch", "jax": "jax",
             "jaxlib": "jax", "flax": "jax"}


def from_wheel():
    """Whether this package was installed by pip (a wheel: its native
    files are inside it), not run from the source tree."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.exists(os.path.join(pkg, "lib", "libmbench.so.0"))


def _missing_module(exc):
    name = (getattr(exc, "name", None) or "").split(".")[0]
    env = _ENV_OF.get(name)
    where = sys.prefix
    if from_wheel():
        extra = _EXTRA_OF.get(name)
        what = f"'mbench[{extra}]'" if extra else name
        return (f"the Python environment {where} has no module '{name}': "
                f"{where}/bin/pip install {what} (or choose a venv that has "
                f"it with python=VENV)")
    if env:
        return (f"the Python environment {where} has no module '{name}': run "
                f"`make frameworks` (it makes build/frameworks/{env}) or "
                f"choose a venv that has it with python=VENV "
                f"(docs/FRAMEWORKS.md)")
    return (f"the Python environment {where} has no module '{name}': install "
            f"it there, or choose another venv with python=VENV or "
            f"MBENCH_PYTHON")


def _where(tb):
    """file:line of the innermost frame outside this package."""
    here = os.path.dirname(os.path.abspath(__file__))
    frames = traceback.extract_tb(tb)
    for f in reversed(frames):
        if not os.path.abspath(f.filename).startswith(here):
            return f"{f.filename}:{f.lineno} in {f.name}"
    return None


def error_line(exc):
    """The one line mbench prints for exception exc."""
    if isinstance(exc, SpecError):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError):
        return _missing_module(exc)
    msg = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {msg[0] if msg else ''}".rstrip(": ")
    # torch and jax put the cause on the last line of long messages
    if len(msg) > 1 and len(msg[0]) < 8:
        text = f"{type(exc).__name__}: {msg[-1]}"
    where = _where(exc.__traceback__)
    return f"{text} ({where})" if where else text
