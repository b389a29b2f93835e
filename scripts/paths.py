#!/usr/bin/env python3
"""paths.py - every file path that a comment or a document names exists.

Reads the files git tracks (or, with --files, every file under ROOT): the
comments of C, C++, Python and shell sources and Makefiles, and the whole
text of Markdown files and man pages.  A path is a word of the form
DIR/.../NAME.EXT whose first folder is a folder of this tree: at the top
(src/runner/cmprun.c), under src/, include/ or tests/ (runner/planopt.h,
as #include lines write them), or beside the file that names it.  It
must exist as a file or folder under one of those bases.  Words with a
wildcard or a placeholder (*, {}, <>, $, %) are not paths, nor are words
inside a URL, under build/ (made by make) or outside the tree (../ past
its root), nor a name with a one-letter capital placeholder (cmd_X.c).

Usage: scripts/paths.py ROOT [--files]
Prints one line per missing path, "FILE:LINE: PATH", and exits 1 when
there is one, 0 when every path exists (2: ROOT is not a source tree).
"""
import os
import re
import subprocess
import sys

# Extensions a named file has; a word ending otherwise is prose
# ("and/or", "p50/p99"), not a path.
EXT = ("c", "h", "cpp", "cc", "hpp", "py", "sh", "md", "json", "txt", "csv",
       "onnx", "npy", "npz", "pt", "toml", "cfg", "in", "1", "supp", "html",
       "js", "svg", "yml", "yaml", "log", "pc", "png", "jpg", "inc")
WORD = re.compile(r"(?<![\w./~$@-])((?:\.\./|\./)?[A-Za-z_][\w.+-]*(?:/[\w.+-]+)+)")
SOURCE = {".c": "c", ".h": "c", ".cpp": "c", ".cc": "c", ".hpp": "c",
          ".py": "hash", ".sh": "hash", ".md": "text", ".1": "text"}


def kind_of(path):
    base = os.path.basename(path)
    if base == "Makefile" or base.endswith(".mk"):
        return "hash"
    return SOURCE.get(os.path.splitext(base)[1])


def c_comments(text):
    """(line number, comment text) of each line inside a C comment."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        elif ch in "\"'":
            j = i + 1   # a string or character literal: skipped
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def hash_comments(text):
    """Lines (or their tails) after a # that starts a comment."""
    out = []
    for no, ln in enumerate(text.split("\n"), 1):
        m = re.search(r"(^|\s)#(?![!{#])", ln)
        if m:
            out.append((no, ln[m.end():]))
    return out


def texts(path, kind):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return []
    if kind == "c":
        return c_comments(text)
    if kind == "hash":
        return hash_comments(text)
    return list(enumerate(text.split("\n"), 1))


def listed(root, walk):
    if not walk:
        try:
            out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                                 capture_output=True).stdout.decode()
            return [p for p in out.split("\0") if p]
        except (OSError, subprocess.CalledProcessError):
            pass
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in (".git", "build")]
        found += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return found


def missing(root, rel, word):
    """None when word names something that exists (or is no path)."""
    w = word.rstrip(".,:;)")
    if "://" in w or w.startswith(("build/", "/")):
        return None
    last = w.rsplit("/", 1)[1]
    if "." not in last or last.rsplit(".", 1)[1] not in EXT:
        return None
    here = os.path.dirname(os.path.join(root, rel))
    bases = [root] + [os.path.join(root, d) for d in ("src", "include", "tests")] + [here]
    first = w.split("/")[0]
    if re.search(r"(^|[/_-])[A-Z]([._/-]|$)", w):
        return None   # a placeholder: cli/cmd_X.c
    if first in ("..", "."):
        # beside the file, or from the root as commands are run
        full = [os.path.normpath(os.path.join(b, w)) for b in (here, root)]
        if any(os.path.exists(f) for f in full):
            return None
        if os.path.relpath(full[1], root).startswith(".."):
            return None   # outside the tree (the brief's ../shared)
        return w
    homes = [b for b in bases if os.path.isdir(os.path.join(b, first))]
    if not homes:
        return None   # not a folder of this tree: another project's path
    return None if any(os.path.exists(os.path.join(b, w)) for b in homes) else w


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    root = argv[1]
    if not os.path.isdir(os.path.join(root, "src")):
        print(f"paths.py: {root} has no src/: give the root of an mbench tree", file=sys.stderr)
        return 2
    bad = 0
    for rel in sorted(listed(root, "--files" in argv)):
        kind = kind_of(rel)
        if not kind or rel.startswith("docs/logs/"):
            continue   # logs quote the tree as it was when they were made
        for no, text in texts(os.path.join(root, rel), kind):
            if re.search(r"[*{}<>$%]", text) is None:
                words = WORD.findall(text)
            else:
                words = [x for x in WORD.findall(text)
                         if not re.search(re.escape(x) + r"[*{<$%]", text)
                         and not re.search(r"[*}>$%]" + re.escape(x), text)]
            for word in words:
                m = missing(root, rel, word)
                if m:
                    print(f"{rel}:{no}: {m}")
                    bad += 1
    if bad:
        print(f"{bad} path(s) named in comments or docs do not exist", file=sys.stderr)
        return 1
    print("every path named in comments and docs exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
