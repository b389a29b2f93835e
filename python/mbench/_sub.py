"""Runs the mbench command for a call, in a subprocess, and returns its
result document.

Python models (torchvision:, flax:, PATH.py:FACTORY, py:, pickle:) are
measured this way, never through libmbench loaded into this interpreter:
the library forks its measured workers without exec, and a worker of a
Python host that then loads the python backend would start a second
CPython (Debian's libpython) inside a process already running one, with
this process's torch/JAX thread pools (OpenMP after fork) and GIL state
copied into it.  The command (fork + exec) gives each measured process a
clean interpreter of the chosen venv; the document is the same either way
(docs/FRAMEWORKS.md, "The Python package").
"""
import json
import os
import subprocess
import sys
import tempfile
import threading

from . import _lib
from ._lib import MbenchError
from ._opts import pairs

_FLAGS = {}

# CLI exit codes (docs/CLI.md) -> the status names of mb_status.
_STATUS = {2: "invalid argument", 3: "runtime error", 130: "interrupted"}


def cli_flags(command):
    """{flag name: type} of a command's options, from the bundled
    command's own option table (`mbench __dump-options json`)."""
    if command not in _FLAGS:
        p = subprocess.run([_lib.cli(), "__dump-options", "json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0:
            raise MbenchError(p.returncode, "runtime error",
                              "mbench __dump-options failed: " + p.stderr.strip())
        for c in json.loads(p.stdout):
            _FLAGS[c["name"]] = {o["name"]: o["type"] for o in c["options"]}
        _FLAGS.setdefault(command, {})
    return _FLAGS[command]


def cli_args(command, options):
    """The command-line options of the (key, value) pairs that
    mb_runner_set would take (_opts.pairs): a key that is one of the
    command's flags becomes --KEY VALUE (a switch --KEY when its value is
    1), any other key --backend-opt KEY=VALUE, as mb_runner_set treats
    it."""
    flags = cli_flags(command)
    args = []
    for key, value in pairs(options):
        if key not in flags:
            args += ["--backend-opt", f"{key}={value}"]
        elif flags[key] == "switch":
            if value == "1":
                args.append("--" + key)
        else:
            args += ["--" + key, value]
    return args


def _pump(stream, sink, keep, echo_error=True):
    for line in stream:
        keep.append(line)
        del keep[:-40]
        if sink is not None and (echo_error or
                                 not line.startswith("mbench: error: ")):
            sink.write(line)
            sink.flush()


def document(command, positionals, options, verbose=False, env=None,
             ok_codes=(0,), echo_error=True):
    """Runs `mbench COMMAND POSITIONALS... OPTIONS --json FILE` and returns
    the document (a dict).  verbose: mbench's console report and progress
    are shown as they come (through sys.stdout/sys.stderr, so notebooks
    see them); otherwise -q.  Raises MbenchError with mbench's own
    one-line error when the command exits with a code not in ok_codes
    (validate: 1 is a failed verdict, with its document).  echo_error
    False: the command's error line is not shown, only raised (an attempt
    whose failure the caller handles, e.g. a preferred device)."""
    with tempfile.TemporaryDirectory(prefix="mbench-") as d:
        out = os.path.join(d, "result.json")
        argv = [_lib.cli(), command] + [str(p) for p in positionals] + \
            cli_args(command, options) + ["--json", out]
        if not verbose:
            argv.append("-q")
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env=env, errors="replace")
        err_lines, out_lines = [], []
        t = threading.Thread(target=_pump, args=(
            p.stdout, sys.stdout if verbose else None, out_lines))
        t.start()
        _pump(p.stderr, sys.stderr if verbose else None, err_lines,
              echo_error)
        t.join()
        rc = p.wait()
        doc = None
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)
        if rc in ok_codes and doc is not None:
            return doc
        msg = [x.strip() for x in err_lines if x.strip()]
        why = next((x for x in reversed(msg) if x.startswith("mbench: error: ")),
                   msg[-1] if msg else f"mbench {command} exited with {rc}")
        why = why[len("mbench: error: "):] if why.startswith("mbench: error: ") else why
        e = MbenchError(rc, _STATUS.get(rc, "runtime error"), why)
        e.document = doc  # a compare's document with a FAILED variant
        raise e
