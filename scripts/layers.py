#!/usr/bin/env python3
"""layers.py - the folder-level include graph of src/ and cli/.

Every `#include "DIR/FILE.h"` in src/DIR0/*.{c,h} is an edge DIR0 -> DIR
(cli/*.c is the folder "cli"; include/mbench*.h is "include").  Prints the
edges with how many includes make each, then every cycle between folders
(a strongly connected component of more than one folder) with the includes
that close it.  Exit 0 when there is no cycle, 1 when there is one.
With --allow FILE (lines "a -> b", # comments) the cycles that exist today
are tolerated while they are being broken: only a cycle that needs an edge
not in FILE fails, and an allowed edge that is gone is reported so that the
list only shrinks.
Usage: scripts/layers.py [ROOT] [--edges] [--allow FILE]"""
import os
import re
import sys

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(root, path):
    rel = os.path.relpath(path, root)
    parts = rel.split(os.sep)
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return parts[0]  # cli, include


def graph(root):
    edges = {}  # (a, b) -> [file: include]
    for top in ("src", "cli"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                p = os.path.join(d, f)
                a = folder_of(root, p)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for inc in INC.findall(text):
                    if "/" in inc:
                        b = inc.split("/")[0]
                        if not os.path.isdir(os.path.join(root, "src", b)):
                            continue  # build/gen and the like
                    elif inc.startswith("mbench"):
                        b = "include"
                    else:
                        continue  # same folder, or a generated header
                    if a != b:
                        edges.setdefault((a, b), []).append(
                            "%s: %s" % (os.path.relpath(p, root), inc))
    return edges


def sccs(nodes, succ):
    """Tarjan's strongly connected components."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def read_allowed(path):
    allowed = set()
    with open(path) as fh:
        for line in fh:
            line = line.split("#")[0].strip()
            if line:
                a, b = [x.strip() for x in line.split("->")]
                allowed.add((a, b))
    return allowed


def main():
    argv = sys.argv[1:]
    allow = None
    if "--allow" in argv:
        i = argv.index("--allow")
        allow = read_allowed(argv[i + 1])
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    edges = graph(root)
    succ, nodes = {}, set()
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        nodes |= {a, b}
    if "--edges" in argv:
        for (a, b), why in sorted(edges.items()):
            print("%s -> %s (%d)" % (a, b, len(why)))
    cycles = [c for c in sccs(nodes, succ) if len(c) > 1]
    bad = 0
    for c in cycles:
        print("cycle between folders: %s" % " ".join(c))
        for (a, b), why in sorted(edges.items()):
            if a in c and b in c:
                new = allow is not None and (a, b) not in allow
                bad += new
                print("  %s%s -> %s: %s" % (
                    "NEW " if new else "", a, b, "; ".join(why[:3]) +
                    (" ..." if len(why) > 3 else "")))
    if allow is not None:
        for a, b in sorted(allow - set(edges)):
            print("note: the allowed edge %s -> %s is gone: remove it from "
                  "the list" % (a, b))
    if not cycles:
        print("no include cycle between folders (%d folders, %d edges)" %
              (len(nodes), len(edges)))
    if allow is not None:
        if bad:
            print("%d include edge(s) make a new cycle between folders: "
                  "include downwards (docs/DESIGN.md, Layers) or move the "
                  "file" % bad)
        return 1 if bad else 0
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
