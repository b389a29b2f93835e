#!/usr/bin/env bash
# install.sh - the installed layout (docs/INSTALL.md): `make install` into a
# temporary prefix; the installed mbench, a program linked against the
# installed libmbench.so and one linked statically with libmbench.a
# (pkg-config --static) each run a benchmark with ONNX Runtime from
# <prefix>/lib/mbench - found from their own location, before the build
# tree, without LD_LIBRARY_PATH (the rpath pkg-config gives for a private
# prefix; none and an ldconfig for the system's directories) - and still do
# with the build tree out of reach (hidden under an
# empty tmpfs in a private mount namespace: root, unshare).
. "$(dirname "$0")/lib.sh"
if [ -n "${MBENCH_SANITIZED:-}" ]; then skip "the installed layout" "sanitized build; runs in make test"; done_testing; fi
ORT_BUILD="$MBENCH_ROOT/build/ort/libonnxruntime.so.1"
if [ ! -f "$ORT_BUILD" ]; then skip "the installed layout" "no $ORT_BUILD (make ort)"; done_testing; fi
unset MBENCH_ORT_LIB
P="$T_TMP/prefix"
MODEL="$T_TMP/digits.onnx"
cp "$MBENCH_ROOT/models/digits_fp32.onnx" "$MODEL"
build_rel=${MBENCH_BUILD#"$MBENCH_ROOT"/}
# `make install PREFIX=P` compiles P in (build_info.h: the plugin
# directory), so it recompiles the files that include it and relinks.  It
# does that in a copy of the build directory (objects, their dependency
# files pointed at the copy, timestamps kept): the build tree that the other
# suites run stays as it is, and this suite runs beside them.
B="$T_TMP/build"
mkdir -p "$B"
for f in "$MBENCH_BUILD"/*; do
    case ${f##*/} in asan|bench|cache|dist|frameworks|fuzz|ort|tests|wheel-src) continue ;; esac
    cp -a "$f" "$B/"
done
find "$B/obj" -name '*.d' -exec sed -i -E "s#(^| )$build_rel/#\1$B/#g" {} +
build_rel=$B

check "make install PREFIX=... installs" make -s -C "$MBENCH_ROOT" --no-print-directory BUILD="$build_rel" install PREFIX="$P"
[ -f "$P/lib/mbench/libonnxruntime.so.1" ] && ok "ONNX Runtime is installed in <libdir>/mbench" || notok "ONNX Runtime is installed in <libdir>/mbench" "$(ls -R "$P/lib")"

# The man page and completion generated from the option tables are installed
# where man, bash-completion and zsh look, and they describe the options.
contains "the installed man page lists compare's options" "$(cat "$P/share/man/man1/mbench.1" 2>&1)" 'fail\-fast'
check "the installed bash completion registers mbench" bash -c "source '$P/share/bash-completion/completions/mbench'; complete -p mbench"
got=$(bash -c "source '$P/share/bash-completion/completions/mbench'; COMP_WORDS=(mbench compare --fail-f); COMP_CWORD=2; COMP_LINE='mbench compare --fail-f'; COMP_POINT=\${#COMP_LINE}; _mbench mbench --fail-f compare; printf '%s\n' \"\${COMPREPLY[@]}\"" 2>&1)
contains "the installed bash completion completes compare --fail-f" "$got" "--fail-fast"
[ -f "$P/share/zsh/site-functions/_mbench" ] && ok "the zsh completion is installed in site-functions" || notok "the zsh completion is installed in site-functions" "$(ls -R "$P/share")"

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
cf=$(pkg-config --cflags mbench)
[ "$(echo $cf)" = "-I$P/include" ] && ok "pkg-config --cflags mbench is mbench's include directory only" || notok "pkg-config --cflags mbench is mbench's include directory only" "got: $cf"
contains "libpng and libpq are private (Libs.private)" "$(grep '^Libs.private:' "$P/lib/pkgconfig/mbench.pc")" "-lpng16 -lpq"
contains "the other dependencies are in Requires.private" "$(grep '^Requires.private:' "$P/lib/pkgconfig/mbench.pc")" "jansson"
# $P/lib is no directory the loader searches: Libs carries an rpath to it.
[ "$(pkg-config --libs mbench | xargs)" = "-L$P/lib -Wl,-rpath,$P/lib -lmbench" ] && ok "pkg-config --libs mbench is libmbench only, with an rpath to a private libdir" || notok "pkg-config --libs mbench is libmbench only, with an rpath to a private libdir" "$(pkg-config --libs mbench)"

SRC="$FIX/install/ort_where.c"
# The shared-library program lives outside the prefix: only libmbench's own
# location (not the program's) leads to <libdir>/mbench.
mkdir -p "$T_TMP/elsewhere"
# shellcheck disable=SC2046
check "a program compiles and links against the installed libmbench.so" \
    cc -std=c11 -Wall -Werror -o "$T_TMP/elsewhere/ort_where_shared" "$SRC" $(pkg-config --cflags --libs mbench)
contains "the program's RUNPATH is the installed libdir, from pkg-config alone" "$(readelf -d "$T_TMP/elsewhere/ort_where_shared" | grep -E 'R(UN)?PATH')" "[$P/lib]"
# shellcheck disable=SC2046
check "a program links libmbench.a statically with pkg-config --static" \
    cc -std=c11 -Wall -Werror -o "$P/bin/ort_where_static" "$SRC" $(pkg-config --cflags mbench) \
    -Wl,-Bstatic -lmbench -Wl,-Bdynamic -Wl,--as-needed $(pkg-config --static --libs mbench)
if readelf -d "$P/bin/ort_where_static" | grep -q 'libmbench'; then
    notok "the static program does not need libmbench.so" "$(readelf -d "$P/bin/ort_where_static" | grep NEEDED)"
else ok "the static program does not need libmbench.so"; fi

# The python backend and the package it imports (Python models).
PYPLUG=0
if [ -f "$B/plugins/mbench_python.so" ]; then
    PYPLUG=1
    [ -f "$P/lib/mbench/plugins/mbench_python.so" ] && [ -f "$P/lib/mbench/python/mbench/frameworks/__init__.py" ] \
        && ok "the python backend is installed with the package it imports" \
        || notok "the python backend is installed with the package it imports" "$(ls -R "$P/lib/mbench" | head -20)"
fi

if [ $PYPLUG = 1 ]; then
    # Run through PATH (argv[0] "mbench"), from elsewhere: the plugins are
    # found beside the binary's own file, not beside argv[0].
    expect_exit "the installed mbench found through PATH finds its plugins" 0 \
        env -C "$T_TMP/elsewhere" -u MBENCH_PYTHON -u VIRTUAL_ENV PATH="$P/bin:$PATH" \
        mbench run "$FIX/python/models.py:numpy_mlp" --shape x=1,64 --processes 1 --min-time 0 --max-time 0.2s -q
fi

# With the build tree in place: the installed copy comes first.
expect_exit "the installed mbench runs a benchmark" 0 "$P/bin/mbench" run "$MODEL" --processes 1 --min-time 0 --max-time 0.3s --batch 1 --json "$T_TMP/inst.json"
lib=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["runtime"]["library_path"])' "$T_TMP/inst.json" 2>&1)
[ "$lib" = "$P/bin/../lib/mbench/libonnxruntime.so.1" ] && ok "the installed mbench uses <prefix>/lib/mbench before the build tree" || notok "the installed mbench uses <prefix>/lib/mbench before the build tree" "got: $lib"
expect_exit "the shared-library program runs a benchmark without LD_LIBRARY_PATH" 0 env -u LD_LIBRARY_PATH "$T_TMP/elsewhere/ort_where_shared" "$MODEL"
contains "libmbench.so uses <libdir>/mbench, found from its own location" "$LAST_OUT" "library $P/lib/mbench/libonnxruntime.so.1"
expect_exit "the static program runs a benchmark" 0 "$P/bin/ort_where_static" "$MODEL"
contains "the static program uses <prefix>/lib/mbench" "$LAST_OUT" "library $P/bin/../lib/mbench/libonnxruntime.so.1"

# What a packager gets: staged for /usr (a directory the loader searches by
# itself) no rpath and no ldconfig (the package's trigger runs it);
# RPATH=no none either; an install without DESTDIR into an ld.so.conf
# directory refreshes the loader's cache.  A stand-in ldconfig reports
# $P2/lib as one of its directories and records its calls.
P2="$T_TMP/prefix2"
cat >"$T_TMP/ldconfig" <<FAKE
#!/bin/sh
case "\$*" in *-v*) echo "$P2/lib: (from test)"; echo "/usr/lib/x86_64-linux-gnu: (from test)" ;; *) echo "called \$*" >>"$T_TMP/ldconfig.calls" ;; esac
FAKE
chmod +x "$T_TMP/ldconfig"
pcfile() { grep '^Libs:' "$1/pkgconfig/mbench.pc"; }
check "make install PREFIX=/usr DESTDIR=... stages" make -s -C "$MBENCH_ROOT" --no-print-directory BUILD="$build_rel" install PREFIX=/usr DESTDIR="$T_TMP/stage" LDCONFIG="$T_TMP/ldconfig"
[ "$(pcfile "$T_TMP/stage/usr/lib")" = 'Libs: -L${libdir} -lmbench' ] && ok "staged for /usr, Libs has no rpath" || notok "staged for /usr, Libs has no rpath" "$(pcfile "$T_TMP/stage/usr/lib")"
check "make install RPATH=no installs" make -s -C "$MBENCH_ROOT" --no-print-directory BUILD="$build_rel" install PREFIX="$T_TMP/prefix3" RPATH=no LDCONFIG="$T_TMP/ldconfig"
[ "$(pcfile "$T_TMP/prefix3/lib")" = 'Libs: -L${libdir} -lmbench' ] && ok "RPATH=no: Libs has no rpath" || notok "RPATH=no: Libs has no rpath" "$(pcfile "$T_TMP/prefix3/lib")"
[ ! -f "$T_TMP/ldconfig.calls" ] && ok "neither ran ldconfig" || notok "neither ran ldconfig" "$(cat "$T_TMP/ldconfig.calls")"
check "make install into an ld.so.conf directory installs" make -s -C "$MBENCH_ROOT" --no-print-directory BUILD="$build_rel" install PREFIX="$P2" LDCONFIG="$T_TMP/ldconfig"
[ "$(pcfile "$P2/lib")" = 'Libs: -L${libdir} -lmbench' ] && ok "an ld.so.conf libdir gets no rpath" || notok "an ld.so.conf libdir gets no rpath" "$(pcfile "$P2/lib")"
if [ "$(id -u)" -eq 0 ]; then
    [ "$(cat "$T_TMP/ldconfig.calls" 2>/dev/null)" = "called " ] && ok "and the loader's cache is refreshed (ldconfig, once)" || notok "and the loader's cache is refreshed (ldconfig, once)" "$(cat "$T_TMP/ldconfig.calls" 2>&1)"
fi
expect_exit "RPATH=maybe is refused before anything is installed" 2 make -s -C "$MBENCH_ROOT" --no-print-directory BUILD="$build_rel" install PREFIX="$T_TMP/prefix4" RPATH=maybe
contains "naming the values" "$LAST_ERR" "RPATH=maybe: use auto, yes or no"
[ ! -e "$T_TMP/prefix4" ] && ok "nothing was installed" || notok "nothing was installed" "$(ls -R "$T_TMP/prefix4" | head)"

# The build tree out of reach: an empty tmpfs over it, in a private mount
# namespace (the real tree is untouched for everything else running).
if [ "$(id -u)" -ne 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
    skip "the installed layout with the build tree removed" "needs root and unshare -m"
    done_testing
fi
cat >"$T_TMP/hidden.sh" <<HID
set -e
mount -t tmpfs none "$MBENCH_ROOT/build"
if [ -e "$ORT_BUILD" ]; then echo "build tree still visible"; exit 9; fi
"$P/bin/mbench" run "$MODEL" --processes 1 --min-time 0 --max-time 0.3s --batch 1 --json "$T_TMP/hidden.json" >/dev/null
echo "mbench ok"
"$T_TMP/elsewhere/ort_where_shared" "$MODEL"
"$P/bin/ort_where_static" "$MODEL"
if [ $PYPLUG = 1 ]; then
    env -u MBENCH_PYTHON -u VIRTUAL_ENV "$P/bin/mbench" run "$FIX/python/models.py:numpy_mlp" --shape x=1,64 --processes 1 --min-time 0 --max-time 0.2s -q --json "$T_TMP/hidden-py.json"
    echo "python model ok"
fi
HID
expect_exit "with the build tree hidden, all three run a benchmark" 0 unshare -m --propagation private sh "$T_TMP/hidden.sh"
contains "the installed mbench ran" "$LAST_OUT" "mbench ok"
contains "the shared-library program used the installed runtime" "$LAST_OUT" "library $P/lib/mbench/libonnxruntime.so.1"
contains "the static program used the installed runtime" "$LAST_OUT" "library $P/bin/../lib/mbench/libonnxruntime.so.1"
[ $PYPLUG = 1 ] && contains "and the installed mbench ran a Python model on the installed python backend" "$LAST_OUT" "python model ok"
its=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["iterations"] > 0)' "$T_TMP/hidden.json" 2>&1)
[ "$its" = True ] && ok "the hidden-tree run measured iterations" || notok "the hidden-tree run measured iterations" "$its"
done_testing
