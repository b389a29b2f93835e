"""Per-iteration samples from a Python loop, for `mbench exec`.

Under `mbench exec`, the environment variable MBENCH_EVENTS_FD names a pipe;
each timed iteration is one JSON line on it (the agreed protocol, see
docs/FRAMEWORKS.md):

    {"event":"iter","name":"infer","ns":1234567,"items":8}

ns is the iteration's duration by this process's monotonic clock
(time.perf_counter_ns, CLOCK_MONOTONIC on Linux), an integer > 0; items is
the number of samples in the iteration (for samples/s).  mbench exec turns
the samples of one loop into the latency statistics of `mbench run`.

Outside mbench (MBENCH_EVENTS_FD unset) nothing is written and the loop
runs unchanged; the timer still keeps its own samples in .samples_ns.
An iteration whose body raises is not reported.
"""
import functools
import json
import os
import time

_fd = None          # the events pipe, looked up once
_fd_checked = False


def _events_fd():
    global _fd, _fd_checked
    if not _fd_checked:
        _fd_checked = True
        v = os.environ.get("MBENCH_EVENTS_FD")
        if v:
            try:
                fd = int(v)
                os.fstat(fd)
                _fd = fd
            except (ValueError, OSError):
                _fd = None
    return _fd


def _reset():
    """Forget the looked-up descriptor (tests change the environment)."""
    global _fd, _fd_checked
    _fd, _fd_checked = None, False


def record_iter(name, ns, items=1):
    """Reports one iteration of loop `name` that took ns nanoseconds.
    Returns True when it was written to mbench, False outside mbench (or
    when the pipe is gone: mbench stopped reading)."""
    global _fd
    if not isinstance(name, str) or not name:
        raise ValueError("the loop name must be a non-empty string")
    ns, items = int(ns), int(items)
    if ns <= 0:
        ns = 1  # a clock step below its resolution still took time
    if items < 1:
        raise ValueError(f"items must be >= 1, got {items}")
    fd = _events_fd()
    if fd is None:
        return False
    line = json.dumps({"event": "iter", "name": name, "ns": ns,
                       "items": items}, separators=(",", ":")) + "\n"
    try:
        os.write(fd, line.encode())  # one write < PIPE_BUF: atomic
    except OSError:
        _fd = None  # mbench went away: the loop goes on, unreported
        return False
    return True


class timer:
    """Times iterations of a loop: a context manager or a decorator.

        with mbench.timer("infer", items=batch):
            model(x)

        @mbench.timer("step")
        def step(): ...

    Each `with` block (each call of the decorated function) is one
    iteration.  For JAX, block until the result is ready inside the block
    (jax.block_until_ready), or the time measured is the dispatch only;
    for PyTorch on GPU, torch.cuda.synchronize()."""

    def __init__(self, name="infer", items=1):
        if not isinstance(name, str) or not name:
            raise ValueError("the loop name must be a non-empty string")
        self.name = name
        self.items = items
        self.samples_ns = []
        self._t0 = None

    def __enter__(self):
        self._t0 = time.perf_counter_ns()
        return self

    def __exit__(self, exc_type, exc, tb):
        ns = time.perf_counter_ns() - self._t0
        if exc_type is None:
            self.samples_ns.append(ns)
            record_iter(self.name, ns, self.items)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        wrapper.timer = self
        return wrapper
