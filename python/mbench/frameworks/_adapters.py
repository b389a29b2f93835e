"""Adapters: one model object, timed the way its framework needs.

Every adapter ends the timed call when the result exists:
- torch: runs synchronously on the CPU; on a CUDA device the call ends
  with torch.cuda.synchronize().  Inference mode is entered once, on the
  thread that runs the model, and stays on (no per-call context cost).
- JAX: dispatch is asynchronous, so the timed call is
  jax.block_until_ready(compiled(*args)); the function is compiled ahead of
  time (jit -> lower -> compile) for each input shape in prepare(), and
  that time is the compile phase.  sync=0 drops the wait (for the test
  that shows why it is needed: the latency is then the dispatch only).
- numpy (any other callable): synchronous; nothing to wait for.

TorchScript (a torch.jit.ScriptModule, or jit=script|trace on an eager
module): its profiling executor runs the first calls unoptimised while
it records shapes and optimises on the next one; prepare() makes those
calls (num_profiled_runs + 1) and reports them as the compile phase.
jit=compile is torch.compile (PyTorch 2.0 and later).
"""
import functools
import inspect
import sys
import time

from . import _threads
from ._errors import SpecError

_NS = time.perf_counter_ns  # CLOCK_MONOTONIC on Linux, as the runner's
# sync=0 (JAX): the computation that may be queued, in seconds of it.
UNAWAITED_S = 1.0


# ---- input descriptions -------------------------------------------------

def _signature_names(fn, skip=0):
    """Names of the required positional parameters of fn (after skip)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY,
             inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in sig.parameters.values()
             if p.kind in kinds and p.default is inspect.Parameter.empty]
    return names[skip:]


def _io_entry(d, i):
    """(name, dtype, dims or None, dim_names) of one mbench_inputs entry."""
    if not isinstance(d, dict):
        raise SpecError("mbench_inputs must be a list of dicts with name, "
                        "dtype and shape")
    name = str(d.get("name", f"input{i}"))
    shape = d.get("shape")
    dims, names = None, None
    if shape is not None:
        dims, names = [], []
        for a in shape:
            if isinstance(a, int) and a >= 0:
                dims.append(a)
                names.append("")
            else:
                dims.append(-1)
                names.append(str(a) if a is not None else "batch")
    return name, str(d.get("dtype", "float32")), dims, names


def describe_inputs(meta, names):
    """The input list the C side describes: from mbench_inputs, else one
    input of input_shape (a named batch axis first), else the names with
    unknown shapes (then --shape or --data gives them)."""
    if meta.get("mbench_inputs"):
        return [_io_entry(d, i) for i, d in enumerate(meta["mbench_inputs"])]
    shape = meta.get("input_shape")
    if shape is not None and len(names) <= 1:
        dims = [-1] + [int(x) for x in shape]
        # a named size is a default the model takes others than
        dn = ["batch"] + list(meta.get("input_dim_names") or [""] * len(shape))
        return [(names[0] if names else "x",
                 str(meta.get("input_dtype", "float32")), dims, dn)]
    return [(n, "float32", None, None) for n in (names or ["x"])]


# ---- outputs ------------------------------------------------------------

def _children(result):
    """[(key, child)] of a container result, or None for a leaf: a dict
    (or a mapping such as transformers' ModelOutput) by its keys, a
    namedtuple or dataclass by its fields, a tuple or list by position."""
    import dataclasses
    if isinstance(result, dict) or (hasattr(result, "keys") and hasattr(
            result, "__getitem__") and not hasattr(result, "shape")):
        return [(str(k), result[k]) for k in result.keys()]
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return [(f.name, getattr(result, f.name))
                for f in dataclasses.fields(result)]
    if isinstance(result, (tuple, list)):
        fields = getattr(result, "_fields", None)  # a namedtuple
        return [(str(fields[i]) if fields else str(i), v)
                for i, v in enumerate(result)]
    return None


def _flatten(result, name, out):
    """Appends (name, leaf) for every leaf of result, depth first in order.
    The top level names its children by key or field, or "output0",
    "output1", ... by position; a nested child is its parent's name, a dot
    and its own key or position ("output0.1", "logits.0", "aux.score");
    None leaves are dropped."""
    kids = _children(result)
    if kids is None:
        if result is not None:
            out.append((name, result))
        return
    for key, v in kids:
        if name is None:
            child = key if not key.isdigit() else f"output{key}"
        else:
            child = f"{name}.{key}"
        _flatten(v, child, out)


def output_pairs(result, to_numpy):
    """[(name, C-contiguous numpy array)] of a result, named as _flatten
    says; a lone output (a tensor, or a container of one by position) is
    "output"."""
    pairs = []
    _flatten(result, None, pairs)
    if len(pairs) == 1 and pairs[0][0] in (None, "output0"):
        pairs = [("output", pairs[0][1])]
    import numpy as np
    out = []
    for name, leaf in pairs:
        a = np.ascontiguousarray(to_numpy(leaf))
        if a.dtype.name in ("float16", "bfloat16"):
            a = a.astype(np.float32)  # exact; the metrics take float32
        if a.dtype.kind not in "biuf":
            raise TypeError(f"output '{name}' is a {type(leaf).__name__} "
                            f"(numpy dtype {a.dtype}); mbench reads numeric "
                            f"tensors and arrays only: return those")
        out.append((name, a))
    return out


def _params_facts(arrays):
    """params, param_bytes and params_by_dtype:* of (dtype name, count,
    bytes) triples."""
    by, total, nbytes = {}, 0, 0
    for dtype, count, size in arrays:
        c, b = by.get(dtype, (0, 0))
        by[dtype] = (c + count, b + size)
        total += count
        nbytes += size
    facts = {"params": str(total), "param_bytes": str(nbytes)}
    for dtype, (c, b) in sorted(by.items()):
        facts[f"params_by_dtype:{dtype}"] = f"{c} {b}"
    return facts


def _arrays_from_c(items):
    """numpy arrays (copies) of the C side's (memoryview, dtype, shape)."""
    import numpy as np
    out = []
    for mv, dtype, shape in items:
        if dtype == "bfloat16":
            try:
                import ml_dtypes
                dt = np.dtype(ml_dtypes.bfloat16)
            except ImportError:
                raise SpecError("bfloat16 inputs need the ml_dtypes package "
                                "in this venv") from None
        else:
            dt = np.dtype(dtype)
        out.append(np.frombuffer(mv, dtype=dt).reshape(shape).copy())
    return out


# ---- the sessions -------------------------------------------------------

class Session:
    """What every adapter offers the C side (see the package docstring)."""
    framework = "python"
    version = ""
    threads = 0        # intra-op threads applied (open_model sets them)
    threads_from = ""
    sync = "none needed (the call is synchronous)"
    spec = ""

    def __init__(self, meta, names, adapter):
        self.inputs = describe_inputs(meta, names)
        self.output_names = []
        self.meta = meta
        self.adapter = adapter
        self.fn = None
        self.args = ()
        self.first_prepare = True
        self.shape_key = None
        self.dtype = adapter.get("dtype") or "float32"
        if self.dtype not in ("float32", "float16", "bfloat16"):
            raise SpecError(f"invalid dtype '{self.dtype}': expected "
                            f"float32, float16 or bfloat16")

    def prepare(self, items):
        arrays = _arrays_from_c(items)
        lo = self.meta.get("input_min_side")
        if lo and arrays and arrays[0].ndim >= 3 and min(arrays[0].shape[-2:]) < lo:
            h, w = arrays[0].shape[-2:]
            raise ValueError(f"{self.meta.get('input_what', 'the model')} takes images "
                             f"of at least {lo}x{lo}, not {h}x{w}; give a larger "
                             f"--shape")
        key = tuple((a.shape, a.dtype.str) for a in arrays)
        ns = self._prepare(arrays, key != self.shape_key)
        self.shape_key = key
        if self.first_prepare:
            self.first_prepare = False
            _threads.restore()
        return -1 if ns is None else int(ns)

    def runtime(self):
        r = {"name": self.framework, "version": self.version,
             "sync": self.sync, "python": sys.version.split()[0],
             "python_prefix": sys.prefix, "dtype": self.dtype,
             "threads": self.threads, "threads_from": self.threads_from}
        if self.meta.get("weights"):  # a built-in model's (compare warns)
            r["model_weights"] = self.meta["weights"]
        r.update(self._runtime())
        return {k: str(v) for k, v in r.items()}

    def _runtime(self):
        return {}

    def facts(self):
        f = {"format": self.meta.get("format", self.framework),
             "spec": self.spec}
        f.update(self._facts())
        return {k: str(v) for k, v in f.items()}

    def _facts(self):
        return {}

    def close(self):
        """Ends the session: writes the profile (profile=PREFIX)."""

    def enter_thread(self):
        """Per-thread set-up before a new thread calls the model (mbench
        load serves a model from several threads)."""

    def _no_profiler(self):
        if self.adapter.get("profile"):
            raise SpecError(f"profile=: mbench profiles torch models "
                            f"(torch.profiler); this is a {self.framework} "
                            f"model")


class NumpySession(Session):
    """Any callable on numpy arrays."""
    framework = "numpy"

    def __init__(self, obj, meta, adapter):
        super().__init__(meta, _signature_names(obj), adapter)
        import numpy as np
        self.version = np.__version__
        self.obj = obj
        self._no_profiler()

    def _prepare(self, arrays, new_shape):
        if self.dtype != "float32" and "framework" not in self.adapter and \
                self.shape_key is None and not _returns_jax(self.obj(*arrays)):
            raise SpecError(f"dtype={self.dtype}: mbench converts torch "
                            f"modules and JAX parameters; a plain callable "
                            f"computes in whatever dtype it is written for")
        if self.shape_key is None and "framework" not in self.adapter and \
                _returns_jax(self.obj(*arrays)):
            # A plain function that computes with jax.numpy: its result
            # arrives asynchronously, so it is timed as JAX (jitted,
            # synchronised), never as a synchronous callable.
            js = JaxSession(self.obj, self.meta, self.adapter)
            js._limited = _threads.restricted()
            js.inputs, js.spec = self.inputs, self.spec
            self.__class__ = JaxSession
            self.__dict__.update(js.__dict__)
            return self._prepare(arrays, True)
        self.fn, self.args = self.obj, tuple(arrays)
        return None

    def _runtime(self):
        return {"threads_note": "OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and "
                "MKL_NUM_THREADS (numpy's BLAS)"}

    def outputs(self, result):
        import numpy as np
        return output_pairs(result, np.asarray)

    def _facts(self):
        return {"format": "Python callable",
                "class": type(self.obj).__qualname__}


class TorchSession(Session):
    """torch.nn.Module (eager or TorchScript), or a callable on tensors."""
    framework = "torch"

    def __init__(self, obj, meta, adapter, threads, inter):
        import torch
        self.torch = torch
        fwd = obj.forward if isinstance(obj, torch.nn.Module) else obj
        names = _signature_names(fwd)
        if isinstance(obj, torch.jit.ScriptModule):
            names = self._script_names(obj) or names
        super().__init__(meta, names, adapter)
        self.version = torch.__version__
        if threads:
            torch.set_num_threads(threads)
        if inter and torch.get_num_interop_threads() != inter:
            torch.set_num_interop_threads(inter)
        self.device = adapter.get("device", "cpu")
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise SpecError(f"device={self.device}: torch reports no CUDA "
                            f"device (torch.cuda.is_available() is False)")
        self.jit = adapter.get("jit", "")
        if self.jit not in ("", "none", "script", "trace", "compile"):
            raise SpecError(f"invalid jit '{self.jit}' for a torch model: "
                            f"expected none, script, trace or compile")
        if self.jit == "compile" and not hasattr(torch, "compile"):
            raise SpecError(
                f"jit=compile: torch.compile needs PyTorch 2.0 or later; "
                f"this environment ({sys.prefix}) has torch {torch.__version__}"
                f" (Debian 12's python3-torch is 1.13); install torch>=2 in a "
                f"venv and pass python=VENV")
        self.model = obj
        self.tdtype = getattr(torch, self.dtype)
        if isinstance(obj, torch.nn.Module):
            obj.eval()
            if self.device != "cpu":
                obj.to(self.device)
            if self.dtype != "float32":
                obj.to(self.tdtype)
        self.mode = "TorchScript" if isinstance(
            obj, torch.jit.ScriptModule) else "eager"
        self.converted = None
        self.sync = ("none needed (torch runs synchronously on the CPU)"
                     if self.device == "cpu" else
                     "torch.cuda.synchronize()" if adapter.get("sync", "1")
                     != "0" else "NONE (sync=0: the time is the launch only)")
        # Inference mode for every later call on this thread.
        self._guard = torch.inference_mode()
        self._guard.__enter__()
        self.prof = None

    @staticmethod
    def _script_names(m):
        try:
            args = m.forward.schema.arguments
            return [a.name for a in args[1:]]
        except (AttributeError, RuntimeError):
            return []

    def _convert(self, args):
        """jit=script|trace|compile: the module to time (once)."""
        torch = self.torch
        if self.converted is not None:
            return self.converted
        m = self.model
        if self.jit in ("script", "trace"):
            with torch.inference_mode(False), torch.no_grad():
                m = torch.jit.script(m) if self.jit == "script" else \
                    torch.jit.trace(m, args)
            self.mode = "TorchScript (" + self.jit + ")"
        elif self.jit == "compile":
            m = torch.compile(m)
            self.mode = "torch.compile"
        self.converted = m
        return m

    def _prepare(self, arrays, new_shape):
        torch = self.torch
        args = tuple(self._tensor(a) for a in arrays)
        t0 = _NS()
        m = self._convert(args) if self.jit not in ("", "none") else self.model
        calls = 0
        if new_shape and isinstance(m, torch.jit.ScriptModule):
            calls = torch._C._jit_get_num_profiled_runs() + 1
        elif new_shape and self.jit == "compile":
            calls = 1
        for _ in range(calls):
            m(*args)
        compiled = self.jit not in ("", "none") or calls
        ns = _NS() - t0 if compiled else None
        self.profiled_calls = calls
        fn = m
        if self.adapter.get("profile"):
            fn = self._profiled(m)
        elif self.device != "cpu" and self.adapter.get("sync", "1") != "0":
            sync = torch.cuda.synchronize

            def fn(*a, _m=m, _s=sync):
                r = _m(*a)
                _s()
                return r
        self.fn, self.args = fn, args
        return ns

    def _tensor(self, a):
        """An input on the device, floating ones in the dtype= option's
        dtype (before timing, like the model's conversion)."""
        t = self.torch.from_numpy(a).to(self.device)
        return t.to(self.tdtype) if t.is_floating_point() and \
            self.dtype != "float32" else t

    def enter_thread(self):
        g = self.torch.inference_mode()  # thread-local, like the first one
        g.__enter__()
        self._thread_guards = getattr(self, "_thread_guards", []) + [g]

    def _profiled(self, m):
        """The timed call under torch's profiler, each call one model_run
        (the profile pass of `mbench profile`; never the timing pass)."""
        torch = self.torch
        if self.prof is None:
            self.prof = torch.autograd.profiler.profile(record_shapes=True)
            self.prof.__enter__()
        rf = torch.autograd.profiler.record_function
        sync = torch.cuda.synchronize if self.device != "cpu" else None

        def fn(*a, _m=m, _rf=rf, _s=sync):
            with _rf("model_run"):
                r = _m(*a)
                if _s:
                    _s()
            return r
        return fn

    def close(self):
        if self.prof is None:
            return
        prof, self.prof = self.prof, None
        prof.__exit__(None, None, None)
        write_trace(prof.function_events, self.adapter["profile"])

    def outputs(self, result):
        def to_numpy(t):
            if isinstance(t, self.torch.Tensor):
                t = t.detach().cpu()
                if t.dtype in (self.torch.float16, self.torch.bfloat16):
                    t = t.float()
                return t.numpy()
            return t
        return output_pairs(result, to_numpy)

    def _runtime(self):
        torch = self.torch
        r = {"threads": torch.get_num_threads(),
             "inter_threads": torch.get_num_interop_threads(),
             "mode": self.mode, "inference_mode": "on",
             "device": self.device,
             "build_info": torch.__config__.show().strip().replace("\n", "; ")}
        if "TorchScript" in self.mode:
            r["executor"] = ("profiling" if torch._C._get_graph_executor_optimize()
                             else "simple")
            r["profiled_runs"] = torch._C._jit_get_num_profiled_runs()
        if hasattr(torch, "compile"):
            r["torch_compile"] = "available"
        else:
            r["torch_compile"] = ("unavailable: torch.compile needs PyTorch "
                                  "2.0 or later")
        return r

    def _facts(self):
        torch = self.torch
        m = self.model
        f = {"format": f"PyTorch {self.mode}" if self.meta.get("format") is None
             else self.meta["format"], "class": type(m).__qualname__}
        if isinstance(m, torch.nn.Module):
            f.update(_params_facts(
                (str(p.dtype).replace("torch.", ""), p.numel(),
                 p.numel() * p.element_size()) for p in m.parameters()))
            f["buffer_values"] = str(sum(b.numel() for b in m.buffers()))
        return f


def write_trace(events, prefix):
    """torch.profiler events as the Chrome trace `mbench profile` reads
    (src/profile/trace.h): one Session model_run event per call, one Node
    event per operator called directly inside it (op_name "aten::conv2d",
    provider "torch-cpu"; the node is "007 aten::conv2d", the operator's
    place in its run), times in microseconds."""
    import json
    import os
    out, seen = [], {}
    for e in sorted(events, key=lambda e: e.time_range.start):
        ts, dur = e.time_range.start, e.time_range.elapsed_us()
        if e.name == "model_run":
            out.append({"cat": "Session", "name": "model_run", "ph": "X",
                        "ts": ts, "dur": dur, "tid": e.thread, "pid": 0})
            continue
        parent = e.cpu_parent
        if parent is None or parent.name != "model_run":
            continue
        # a node: the k-th operator of its run, the same in every run
        k = seen[id(parent)] = seen.get(id(parent), -1) + 1
        shapes = [{"float": list(s)} for s in (e.input_shapes or []) if s]
        out.append({"cat": "Node", "name": f"{k:03d} {e.name}_kernel_time",
                    "ph": "X", "ts": ts, "dur": dur, "tid": e.thread,
                    "pid": 0, "args": {"op_name": e.name,
                                       "provider": "torch-cpu",
                                       "input_type_shape": shapes}})
    path = f"{prefix}_torch_{os.getpid()}.json"
    with open(path, "w") as f:
        json.dump(out, f)


def _is_flax_like(obj):
    return callable(getattr(obj, "apply", None)) and hasattr(obj, "variables")


class JaxSession(Session):
    """A Flax-like model (.apply(variables, x), .variables), a jitted
    function, or a callable that computes with jax.  Parameters are
    arguments of the compiled function (a functools.partial's bound
    arguments too), never constants folded into it."""
    framework = "jax"

    def __init__(self, obj, meta, adapter):
        import jax
        self.jax = jax
        if _is_flax_like(obj):
            fn, params = obj.apply, (obj.variables,)
            names = _signature_names(obj.apply, skip=1)
        elif isinstance(obj, functools.partial) and not obj.keywords:
            fn, params = obj.func, tuple(obj.args)
            names = _signature_names(obj)
        else:
            fn, params = obj, ()
            names = _signature_names(obj)
        super().__init__(meta, names, adapter)
        self.version = jax.__version__
        self.obj, self.raw = obj, fn
        dev = adapter.get("device", "cpu")
        platform = "gpu" if dev.startswith(("cuda", "gpu")) else dev
        try:
            self.device = jax.devices(platform)[0]
        except RuntimeError as e:
            raise SpecError(f"device={dev}: jax has no such device ({e})")
        if self.dtype != "float32":
            params = _cast_floats(jax, params, self.dtype)
        self.params = jax.device_put(params, self.device)
        self.jit = adapter.get("jit", "1") not in ("0", "none")
        self.jitted = None
        self.block = adapter.get("sync", "1") != "0"
        self._no_profiler()
        self.sync = ("jax.block_until_ready()" if self.block else
                     "NONE (sync=0: the time is the dispatch only)")
        self.in_flight = None

    def _prepare(self, arrays, new_shape):
        jax = self.jax
        if self.dtype != "float32":
            arrays = _cast_floats(jax, list(arrays), self.dtype)
        xs = [jax.device_put(a, self.device) for a in arrays]
        jax.block_until_ready(xs)
        args = tuple(self.params) + tuple(xs)
        ns = None
        if not self.jit:
            call = self.raw
        else:
            # Compiled ahead of time (the compile phase, timed alone); the
            # timed call is then the jitted function, as users call it,
            # which finds that executable in jit's cache.
            if self.jitted is None:
                self.jitted = self.raw if hasattr(self.raw, "lower") else \
                    jax.jit(self.raw)
            call = self.jitted
            if new_shape:
                t0 = _NS()
                self.jitted.lower(*args).compile()
                ns = _NS() - t0
        if self.block:
            def fn(*a, _c=call, _b=jax.block_until_ready):
                return _b(_c(*a))
        else:
            fn = self._unawaited(call, args)
        self.fn, self.args = fn, args
        return ns

    def _unawaited(self, call, args):
        """sync=0: the call without the wait, with at most as many calls
        in flight as take UNAWAITED_S seconds to compute (the fastest of up
        to 3 awaited calls, outside the timing, says how long one takes).  Without a bound the
        runner's loop, seeing microseconds per call, queues hours of work
        that the process then has to finish before it can report: --max-time
        would bound nothing."""
        import collections
        jax = self.jax
        # the fastest of up to 3 awaited calls (within about 1 s): a load
        # spike in one call must not shrink the window
        one, spent = None, 0
        for _ in range(3):
            t0 = _NS()
            jax.block_until_ready(call(*args))
            t = max(_NS() - t0, 1)
            one = t if one is None else min(one, t)
            spent += t
            if spent > UNAWAITED_S * 1e9:
                break
        window = max(1, int(UNAWAITED_S * 1e9 / one))
        self.in_flight = window
        pending = collections.deque()

        def fn(*a, _c=call, _p=pending, _w=window, _b=jax.block_until_ready):
            r = _c(*a)
            _p.append(r)
            if len(_p) > _w:
                _b(_p.popleft())
            return r
        return fn

    def outputs(self, result):
        import numpy as np
        return output_pairs(self.jax.device_get(result), np.asarray)

    def _runtime(self):
        jax = self.jax
        r = {"device": str(self.device), "platform": self.device.platform,
             "jit": "jax.jit, compiled ahead of time per input shape "
             "(lower(*args).compile(): the compile phase)" if self.jit else
             "off (jit=0: op by op)",
             "jaxlib": getattr(sys.modules.get("jaxlib"), "__version__", "")}
        r["threads_note"] = ("XLA's pool sized by the CPU affinity while "
                             "its client was created" if self._limited else
                             "XLA's pool: every CPU the process may use")
        if not self._limited:
            import os
            r["threads"] = len(os.sched_getaffinity(0))
        r["backend_platform"] = jax.default_backend()
        if self.in_flight is not None:
            r["sync"] = (f"NONE (sync=0: the time is the dispatch only, with "
                         f"at most {self.in_flight} calls in flight, about "
                         f"{UNAWAITED_S:g} s of computation; past that, a "
                         f"call waits for the oldest)")
        return r

    def _facts(self):
        leaves = self.jax.tree_util.tree_leaves(self.params)
        f = {"class": type(self.obj).__qualname__,
             "format": self.meta.get("format") or "JAX callable"}
        if leaves:
            f.update(_params_facts(
                (str(x.dtype), int(x.size), int(x.size * x.dtype.itemsize))
                for x in leaves))
            f["variable_values"] = f["params"]
        n = getattr(self.obj, "param_count", None)
        if n is not None and leaves:
            # Trainable parameters only (BatchNorm statistics are variables
            # but not parameters, as torch counts them), in the dtype of
            # the first floating leaf.
            dt = next((x.dtype for x in leaves if x.dtype.kind == "f"),
                      leaves[0].dtype)
            f = {k: v for k, v in f.items()
                 if not k.startswith("params_by_dtype:")}
            f.update(_params_facts([(str(dt), int(n), int(n) * dt.itemsize)]))
        return f


def _cast_floats(jax, tree, dtype):
    """Every floating leaf of a pytree in dtype (float16/bfloat16)."""
    import jax.numpy as jnp
    dt = getattr(jnp, dtype)
    return jax.tree_util.tree_map(
        lambda x: jnp.asarray(x, dt) if jnp.issubdtype(
            jnp.asarray(x).dtype, jnp.floating) else x, tree)


def _returns_jax(result):
    """Does result hold a jax array (an asynchronous result)?"""
    leaves = []
    _flatten(result, None, leaves)
    return any(type(v).__module__.startswith(("jax", "jaxlib"))
               for _, v in leaves)


def _looks_jax(obj):
    """A jitted function, or a partial/callable whose code lives in jax or
    flax."""
    target = obj.func if isinstance(obj, functools.partial) else obj
    mod = getattr(type(target), "__module__", "") or ""
    fmod = getattr(target, "__module__", "") or ""
    return mod.startswith(("jax", "flax")) or fmod.startswith(("jax", "flax"))


def make_session(obj, meta, adapter, threads, inter):
    """The adapter for obj: by its type, or by framework=torch|jax|numpy."""
    fw = adapter.get("framework", "")
    if fw not in ("", "torch", "jax", "numpy"):
        raise SpecError(f"invalid framework '{fw}': expected torch, jax or "
                        f"numpy")
    torch = sys.modules.get("torch")
    if fw == "torch" or (not fw and torch is not None and
                         isinstance(obj, torch.nn.Module)):
        s = TorchSession(obj, meta, adapter, threads, inter)
    elif fw == "jax" or (not fw and (_is_flax_like(obj) or _looks_jax(obj))):
        s = JaxSession(obj, meta, adapter)
        s._limited = _threads.restricted()
    elif not callable(obj):
        raise SpecError(f"the model is a {type(obj).__name__}, which mbench "
                        f"cannot call: return a torch.nn.Module, a JAX/Flax "
                        f"callable or a Python callable on numpy arrays")
    else:
        s = NumpySession(obj, meta, adapter)
    if s.framework == "numpy" and adapter.get("jit"):
        raise SpecError(f"jit={adapter['jit']} applies to torch and jax "
                        f"models; this one is a plain callable (give "
                        f"framework=jax if it computes with jax)")
    return s
