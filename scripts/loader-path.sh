#!/usr/bin/env bash
# Is a library directory one that the dynamic loader searches by itself?
#
#   scripts/loader-path.sh LIBDIR     exit 0: yes (prints how: "builtin" or
#                                     "ldconfig"), 1: no (a program linked
#                                     against a library there needs an rpath)
#
# The loader searches its built-in directories (/lib, /usr/lib and their
# lib64 and multiarch forms) and the libraries listed in ld.so.cache, which
# ldconfig builds from the directories of /etc/ld.so.conf (Debian:
# /usr/local/lib, /usr/lib/<multiarch>, ...).  Those directories are taken
# from `ldconfig -v -N -X` (it reads the configuration, changes nothing) and
# compared by their real paths (merged /usr: /lib is /usr/lib).  A library
# newly installed into an ldconfig directory is found only after `ldconfig`
# has run: `make install` runs it (docs/INSTALL.md).
#
# LDCONFIG names the ldconfig program (default: ldconfig on PATH or /sbin).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/loader-path.sh LIBDIR" >&2; exit 2; }
want=$(realpath -m "$1")
ldc=${LDCONFIG:-$(command -v ldconfig || echo /sbin/ldconfig)}
arch=$(gcc -dumpmachine 2>/dev/null || true)
for d in /lib /usr/lib /lib64 /usr/lib64 ${arch:+/lib/$arch /usr/lib/$arch}; do
    if [ "$(realpath -m "$d")" = "$want" ]; then echo builtin; exit 0; fi
done
while IFS= read -r d; do
    if [ "$(realpath -m "$d")" = "$want" ]; then echo ldconfig; exit 0; fi
done < <("$ldc" -v -N -X 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p')
exit 1
