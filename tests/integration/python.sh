#!/usr/bin/env bash
# The Python package: `pip install ./python` offline into a fresh venv
# (--system-site-packages for Debian's pytest, numpy, torch, pandas;
# --no-build-isolation --no-index: setuptools from Debian, no downloads),
# then its pytest suite (python/tests) against the installed copy, which
# carries its own libmbench.so.0 and plugins.  Skipped without python3-venv
# or python3-pytest.
. "$(dirname "$0")/lib.sh"
if [ -n "${MBENCH_SANITIZED:-}" ]; then
    skip "the Python package" "a sanitizer build's libmbench cannot be loaded into python3"
    done_testing
fi
if ! $PY -c 'import venv, ensurepip, pytest, setuptools' 2>/dev/null; then
    skip "the Python package" "python3-venv, python3-pytest or python3-setuptools missing (scripts/deps.sh test)"
    done_testing
fi
V="$T_TMP/venv"
check "a venv with the system site packages is created" $PY -m venv --system-site-packages "$V"
# A copy of python/, so that the build leaves nothing in the source tree.
cp -r "$MBENCH_ROOT/python" "$T_TMP/src"
rm -rf "$T_TMP/src/build" "$T_TMP/src"/*.egg-info
check "pip install . works offline (no index, no build isolation)" \
    env MBENCH_BUILD_DIR="$MBENCH_BUILD" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    "$V/bin/python" -m pip install --no-build-isolation --no-deps --no-index -q "$T_TMP/src"
SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
check "the installed package carries libmbench" test -f "$SITE/mbench/lib/libmbench.so.0"
if [ -f "$MBENCH_BUILD/plugins/mbench_torch.so" ]; then
    check "and the torch plugin" test -f "$SITE/mbench/lib/plugins/mbench_torch.so"
fi
check "import mbench works outside the source tree" \
    env -C "$T_TMP" "$V/bin/python" -c 'import mbench, sys; assert mbench.__file__.startswith(sys.argv[1]), mbench.__file__; print(mbench.version())' "$SITE"
# The suite; its results are TAP lines here, one per pytest test.
( cd "$T_TMP" && env MBENCH_EXPECT_PACKAGE_UNDER="$SITE" MBENCH_ROOT="$MBENCH_ROOT" MBENCH_BUILD="$MBENCH_BUILD" \
    "$V/bin/python" -m pytest -p no:cacheprovider -rs -q --junitxml="$T_TMP/junit.xml" \
    "$MBENCH_ROOT/python/tests" >"$T_TMP/pytest.log" 2>&1 )
rc=$?
if [ -f "$T_TMP/junit.xml" ]; then
    while IFS=$'\t' read -r st name msg; do
        case $st in
            ok) ok "$name" ;;
            skip) skip "$name" "$msg" ;;
            *) notok "$name" "$msg" ;;
        esac
    done < <($PY - "$T_TMP/junit.xml" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    name = f"pytest {case.get('classname').split('.')[-1]}::{case.get('name')}"
    bad = case.find("failure")
    if bad is None:
        bad = case.find("error")
    skipped = case.find("skipped")
    if bad is not None:
        msg = " | ".join((bad.get("message") or "").splitlines()[:3])
        print(f"fail\t{name}\t{msg[:300]}")
    elif skipped is not None:
        print(f"skip\t{name}\t{(skipped.get('message') or '')[:150]}")
    else:
        print(f"ok\t{name}\t")
PYEOF
)
fi
if [ $rc -ne 0 ]; then notok "pytest exits 0" "$(tail -20 "$T_TMP/pytest.log")"; else ok "pytest exits 0"; fi
done_testing
