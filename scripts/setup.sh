#!/bin/sh
# Installs the Debian packages marionette needs (when missing), then configures and builds it.
#   ./scripts/setup.sh [BUILD_DIR] [extra cmake arguments...]
# Configures only when BUILD_DIR is new or the arguments differ from the last time (see below).
# SETUP_TARGETS="a b" builds only those targets (run.sh: just the demo); unset, everything.
# Root installs with apt-get, others through sudo; with neither, it prints the exact command to run.
set -eu
cd "$(dirname "$0")/.."

# Toolchain and libraries: cglm (math), libinih (config files), xxhash (the reload watcher's content
# hash), zlib (PNG output), meshoptimizer (levels of detail: engine/build/build_lod); SDL2, SDL2_image,
# GLEW and Mesa's GL/EGL drivers for the renderer (llvmpipe renders headless where there is no GPU).
# assimp-testmodels ships the public MD5 files the tests read; xvfb gives the window test an X server
# where there is no display. clang builds the libFuzzer targets (scripts/fuzz.sh; gcc has no libFuzzer)
# with libFuzzer and its sanitizer runtimes from libclang-rt-14-dev (only recommended by clang, so a
# minimal install without recommends lacks it). graphviz's dot draws `md5tool graph` pictures. jq reads the
# demo's trace in test_trace_schema and scripts/trace_figures.sh; assimp-utils (Debian's assimp) is the
# independent MD5 reader a recorded clip is checked against.
packages="gcc clang libclang-rt-14-dev libc6-dev make cmake pkg-config libcglm-dev libinih-dev libxxhash-dev zlib1g-dev libmeshoptimizer-dev assimp-testmodels
libsdl2-dev libsdl2-image-dev libglew-dev libgl1-mesa-dri libegl-mesa0 libegl1 libgles2 libegl-dev
xvfb xauth xdotool graphviz jq assimp-utils"

missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -n "$missing" ]; then
    install="apt-get install -y --no-install-recommends$missing"
    if [ "$(id -u)" = 0 ]; then
        echo "setup: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        $install
    elif command -v sudo >/dev/null 2>&1; then
        echo "setup: installing$missing (sudo)"
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive $install
    else
        echo "setup: missing packages; run as root: apt-get update && $install" >&2
        exit 1
    fi
fi

build_dir="${1:-build}"
[ $# -gt 0 ] && shift
# CMake's configure step takes seconds even when nothing changed: run it for a new build folder, or when
# the arguments differ from the last configure's (kept in BUILD_DIR/setup-arguments). `cmake --build`
# configures again by itself when a CMakeLists.txt changes.
record="$build_dir/setup-arguments"
if [ ! -f "$build_dir/CMakeCache.txt" ] || [ ! -f "$record" ] || [ "$(cat "$record")" != "$*" ]; then
    rm -f "$record"
    cmake -S . -B "$build_dir" "$@"
    printf '%s\n' "$*" >"$record"
fi
# shellcheck disable=SC2086 # one word per target
cmake --build "$build_dir" -j "$(nproc)" ${SETUP_TARGETS:+--target $SETUP_TARGETS}
