"""The Python side of mbench's `python` backend (plugins/python).

The backend embeds CPython in the measured worker process; this package is
what it calls.  The C side keeps the schedule, the clock and the
statistics: it times `session.fn(*session.args)` itself, nothing here
measures latency.

    session = open_model(spec, options, seed)
    session.inputs          # [(name, dtype, shape or None, dim_names)]
    session.output_names    # names known before the first run (may be [])
    compile_ns = session.prepare(arrays)   # -1 when nothing was compiled
    result = session.fn(*session.args)     # the timed call (synchronised)
    session.outputs(result) # [(name, numpy array)], C-contiguous
    session.close()         # ends profiling (profile=PREFIX) and writes it
    session.enter_thread()  # a new thread's first call (mbench load)
    session.facts()         # the model: format, params, ... (str -> str)
    session.runtime()       # framework, version, sync, threads (str -> str)

Specs (docs/FRAMEWORKS.md): PATH.py:FACTORY, py:MODULE:FACTORY,
torchvision:NAME, flax:NAME and pickle:PATH.  Importing this package
imports neither torch nor jax: each lives in its own venv.
"""
from ._errors import SpecError, error_line
from ._spec import resolve

__all__ = ["open_model", "SpecError", "error_line", "ADAPTER_OPTIONS"]

# Options the adapter itself reads; every other option is a keyword
# argument of the factory (weights=..., seed=...).  "python" is the C
# side's (which venv hosts the model) and never reaches the factory.
ADAPTER_OPTIONS = ("threads", "inter-threads", "sync", "jit", "device",
                   "framework", "profile", "dtype")


def open_model(spec, options, seed=0):
    """Builds the model named by spec and wraps it for timing.

    options: dict of str -> str (the backend options); seed: the run's
    --seed (the factory's own seed is its `seed=` option).  Raises
    SpecError (or the factory's own exception) on failure."""
    from . import _threads
    opts = {k: v for k, v in options.items() if k != "python"}
    adapter = {k: opts.pop(k) for k in ADAPTER_OPTIONS if k in opts}
    threads = _threads.parse("threads", adapter.get("threads"))
    inter = _threads.parse("inter-threads", adapter.get("inter-threads"))
    threads_from = "--threads" if threads else "default: the physical cores"
    if not threads:  # the same default for every framework
        threads = _threads.default_threads()
    _threads.before_imports(threads)
    try:
        obj, meta = resolve(spec, opts)
        from ._adapters import make_session
        session = make_session(obj, meta, adapter, threads, inter)
    except BaseException:
        _threads.restore()
        raise
    session.spec = spec
    session.threads, session.threads_from = threads, threads_from
    global last_session
    last_session = session
    return session


# The session open_model made last (bench/python_overhead.c times its
# model with a bare Python loop beside mbench's).
last_session = None
