#!/usr/bin/env bash
# Every C/C++ file git tracks is formatted as the committed .clang-format
# says (make format-check); `make format` fixes it.
. "$(dirname "$0")/lib.sh"
if ! command -v clang-format >/dev/null || ! git -C "$MBENCH_ROOT" rev-parse >/dev/null 2>&1; then
    skip "format-check" "needs clang-format and a git checkout"
    done_testing
fi
expect_exit "every tracked C/C++ file is clang-formatted (make format fixes it)" 0 \
    make -s -C "$MBENCH_ROOT" format-check
done_testing
