#!/usr/bin/env python3
"""circles.py - the file-level call graph of src/ and cli/, and its circles.

scripts/layers.py keeps the folders in order; inside a folder, two files
can still call into each other (a.c calls b.c, which calls back into
a.c), which makes them one unit in two files.  This script reads the
object files of a build (nm: the functions each object defines, the
symbols each one leaves undefined) and draws an edge a -> b when a calls
a function that b defines.  References to data (the command table of
cli/, a writer table) are registrations, not calls, and are not edges.
Every strongly connected component of more than one file is a circle;
each is printed with the calls that close it.

Exit 0 when there is no circle, 1 when there is one, 2 on bad usage.

Usage: scripts/circles.py OBJ_DIR     (e.g. build/obj)"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers import sccs  # noqa: E402  (Tarjan, the same as the folders')


def symbols(obj, flags):
    out = subprocess.run(["nm"] + flags + [obj], capture_output=True,
                         text=True, check=False).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


def call_graph(objs):
    defines = {}  # function -> object
    for o in objs:
        for parts in symbols(o, ["--defined-only", "-g"]):
            if len(parts) == 3 and parts[1] == "T":
                defines[parts[2]] = o
    calls = {}  # (a, b) -> [function]
    for o in objs:
        for parts in symbols(o, ["-u"]):
            target = defines.get(parts[-1])
            if target and target != o:
                calls.setdefault((o, target), []).append(parts[-1])
    return calls


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    top = sys.argv[1]
    objs = sorted(os.path.join(d, f) for d, _, fs in os.walk(top)
                  for f in fs if f.endswith(".o"))
    if not objs:
        print("circles.py: no object files under %s: build first" % top,
              file=sys.stderr)
        return 2
    calls = call_graph(objs)
    succ = {}
    for a, b in calls:
        succ.setdefault(a, set()).add(b)
    circles = [c for c in sccs(set(objs), succ) if len(c) > 1]
    name = lambda o: os.path.relpath(o, top)[:-2] + ".c"
    for c in circles:
        print("circle of files: %s" % " ".join(name(o) for o in c))
        members = set(c)
        for a in c:
            for b in sorted(succ.get(a, set()) & members):
                print("  %s -> %s: %s" % (name(a), name(b),
                                          ", ".join(sorted(calls[(a, b)])[:4])))
    if circles:
        return 1
    print("no two files call into each other (%d files, %d call edges)" %
          (len(objs), len(calls)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
