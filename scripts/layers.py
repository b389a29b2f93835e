#!/usr/bin/env python3
"""layers.py - the folder-level include graph of src/ and cli/.

Every `#include "DIR/FILE.h"` in src/DIR0/*.{c,h} is an edge DIR0 -> DIR
(cli/*.c is the folder "cli"; include/mbench*.h is "include").  Prints the
edges with how many includes make each, then every cycle between folders
(a strongly connected component of more than one folder) with the includes
that close it.  Exit 0 when there is no cycle, 1 when there is one.

With --order the edges are also checked against the layer order below
(docs/DESIGN.md, Layers): a folder includes only folders of a lower line,
and every folder must be on a line.  Bottom to top:

  include    (the public headers)
  core
  model plan
  backend data
  runner
  accuracy load
  compare
  doc        (the typed view, the field table, lookups and number formats)
  store
  exec regress profile
  request    (what the CLI and the API both call: requests from options)
  report     (the writers and the output manager; profile's files too)
  api
  cli

Usage: scripts/layers.py [ROOT] [--edges] [--order]"""
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


def layer_order():
    """The lines of the order in this file's docstring: folder -> rank."""
    rank, lines = {}, __doc__.split("Bottom to top:")[1].split("Usage:")[0]
    for i, line in enumerate(l for l in lines.splitlines() if l.strip()):
        for name in line.split("(")[0].split():
            rank[name] = i
    return rank


def order_errors(edges, nodes):
    """Edges that do not go down the layer order, and unplaced folders."""
    rank, bad = layer_order(), []
    for v in sorted(nodes - set(rank)):
        bad.append("folder %s is not in the layer order: add it to "
                   "scripts/layers.py and docs/DESIGN.md" % v)
    for (a, b), why in sorted(edges.items()):
        if a in rank and b in rank and rank[a] <= rank[b]:
            bad.append("%s -> %s does not go down the layer order: %s" %
                       (a, b, "; ".join(why[:3])))
    return bad


def main():
    argv = sys.argv[1:]
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
    for c in cycles:
        print("cycle between folders: %s" % " ".join(c))
        for (a, b), why in sorted(edges.items()):
            if a in c and b in c:
                print("  %s -> %s: %s" % (a, b, "; ".join(why[:3]) +
                                          (" ..." if len(why) > 3 else "")))
    if cycles:
        print("%d include cycle(s) between folders: include downwards "
              "(docs/DESIGN.md, Layers) or move the file" % len(cycles))
    else:
        print("no include cycle between folders (%d folders, %d edges)" %
              (len(nodes), len(edges)))
    bad = order_errors(edges, nodes) if "--order" in argv else []
    for line in bad:
        print(line)
    if "--order" in argv and not bad:
        print("every edge goes down the layer order")
    return 1 if cycles or bad else 0


if __name__ == "__main__":
    sys.exit(main())
