#!/usr/bin/env bash
# api_example.sh - docs/examples/api_compare.c compiles against the public
# header and the shared library (which exports only the public API) and
# runs a benchmark and a comparison through it.
. "$(dirname "$0")/lib.sh"
SO="$MBENCH_BUILD/libmbench.so.0"
if [ ! -f "$SO" ]; then skip "the API example" "no shared library in $MBENCH_BUILD"; done_testing; fi
if [ -n "${MBENCH_SANITIZED:-}" ]; then
    # The sanitized library needs the sanitizer runtime in the program too.
    skip "the API example" "built without sanitizers; runs in make test"; done_testing
fi
check "the API example compiles against include/ and libmbench.so" \
    cc -std=c11 -Wall -Werror -I"$MBENCH_ROOT/include" "$MBENCH_ROOT/docs/examples/api_compare.c" \
    "$SO" -Wl,-rpath,"$MBENCH_BUILD" -o "$T_TMP/api_compare"
expect_exit "the API example runs a benchmark and a comparison" 0 "$T_TMP/api_compare"
contains "the comparison judged the slower variant" "$LAST_OUT" "slower"
exported=$(nm -D --defined-only "$SO" | awk '{print $3}')
if echo "$exported" | grep -q '^mb__'; then
    notok "libmbench.so exports no internal mb__ symbol" "$(echo "$exported" | grep '^mb__' | head -5)"
else
    ok "libmbench.so exports no internal mb__ symbol"
fi
done_testing
