"""mbench_events - report phases, counters and metrics to `mbench exec`.

Single file, standard library only.  Copy it next to your program or put
tools/ on PYTHONPATH.  When the program does not run under mbench (the
environment variable MBENCH_EVENTS_FD is absent) every call is a no-op.

    from mbench_events import phase, counter, metric

    with phase("init"):
        model = build()
    for epoch in range(3):
        with phase("epoch"):
            ...
            counter("samples", len(batch))
    metric("loss", 0.31)
    for batch in loader:                    # per-iteration timings of a loop
        with iteration("infer", items=len(batch)):
            model(batch)

Each call writes one JSON line ({"event": "start", "phase": "init", "t_ns":
...}) to the file descriptor; t_ns is time.monotonic_ns(), the same clock
(CLOCK_MONOTONIC) mbench uses.  See docs/EXEC.md.
"""
import contextlib
import json
import os
import time

__all__ = ["phase", "start", "end", "counter", "metric", "enabled",
           "iteration", "record_iter"]

_fd = None
_env = os.environ.get("MBENCH_EVENTS_FD")
if _env:
    try:
        _fd = int(_env)
        os.fstat(_fd)
    except (ValueError, OSError):
        _fd = None


def enabled():
    """True when running under mbench with an events pipe."""
    return _fd is not None


def _emit(obj):
    global _fd
    if _fd is None:
        return
    data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    try:
        while data:
            n = os.write(_fd, data)
            data = data[n:]
    except OSError:
        _fd = None  # mbench went away: stop reporting, keep running


def start(name):
    _emit({"event": "start", "phase": name, "t_ns": time.monotonic_ns()})


def end(name):
    _emit({"event": "end", "phase": name, "t_ns": time.monotonic_ns()})


@contextlib.contextmanager
def phase(name):
    """Times the block as phase `name` (phases nest)."""
    start(name)
    try:
        yield
    finally:
        end(name)


def counter(name, value=1):
    """Adds value to counter `name` (summed over the run)."""
    _emit({"event": "counter", "name": name, "value": value})


def metric(name, value):
    """Records metric `name` (the last value of a run counts)."""
    _emit({"event": "metric", "name": name, "value": float(value)})


def record_iter(name, ns, items=1):
    """Reports one iteration of loop `name` that took ns nanoseconds (an
    int > 0, measured by the program) and processed `items` samples."""
    ns = int(ns)
    if ns > 0:
        _emit({"event": "iter", "name": name, "ns": ns, "items": int(items)})


@contextlib.contextmanager
def iteration(name, items=1):
    """Times the block as one iteration of loop `name` (time.perf_counter_ns,
    the program's own monotonic clock)."""
    if _fd is None:
        yield
        return
    t0 = time.perf_counter_ns()
    try:
        yield
    finally:
        record_iter(name, max(1, time.perf_counter_ns() - t0), items)
