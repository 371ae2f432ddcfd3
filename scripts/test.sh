#!/bin/sh
# The project's test command: setup + build + every test, twice: an optimized build with warnings as
# errors, then a build with AddressSanitizer and UndefinedBehaviorSanitizer; then each libFuzzer target for
# 60 seconds (scripts/fuzz.sh, built with clang in build-fuzz). Exits non-zero on any failure.
set -eu
cd "$(dirname "$0")/.."

./scripts/setup.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARIONETTE_WERROR=ON
ctest --test-dir build --output-on-failure -j "$(nproc)"

./scripts/setup.sh build-sanitize -DCMAKE_BUILD_TYPE=Debug -DMARIONETTE_WERROR=ON -DMARIONETTE_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)"

./scripts/fuzz.sh 60
