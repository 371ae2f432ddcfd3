#!/bin/sh
# test_check_layers: tests/check_layers.sh on a small tree with violations planted at known lines: it must
# fail, name exactly those file:line pairs (an engine file including game/ and, through ../, tools/; a game
# file including tools/; SDL outside engine/platform/, spelled <SDL.h>, "SDL_keycode.h" and SDL2/...; GL
# outside engine/gfx/ and engine/platform/, in a benchmark; a format reader's header, engine/md5/, included
# from engine/cache/ through ../ and from game/, while engine/build/ and tools/ may),
# and pass the same tree once they are taken out; check_file_lengths.sh on planted long files; and
# check_links.cmake on a small CMake project with a link from game/ to tools/ planted.
#   tests/test_check_layers.sh [CMAKE_COMMAND]
set -u
checker=$(cd "$(dirname "$0")" && pwd)/check_layers.sh
tree=$(mktemp -d "${TMPDIR:-/tmp}/check_layers.XXXXXX") || exit 1
trap 'rm -rf "$tree"' EXIT
failures=0
fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

mkdir -p "$tree/engine/base" "$tree/engine/anim" "$tree/engine/platform" "$tree/game" "$tree/tools/common" \
    "$tree/tools/md5tool" "$tree/tests"
plant() { # PATH, then the file's lines on stdin
    cat >"$tree/$1"
}
plant engine/base/json.h </dev/null
plant game/crowd.h </dev/null
plant tools/common/png.h </dev/null
plant tools/md5tool/md5tool_trace.h </dev/null
plant engine/base/uses_game.c <<'EOF'
/* line 1 */
#include "crowd.h"
EOF
plant engine/anim/uses_tools.c <<'EOF'
#include <math.h>
#include "../base/json.h"
  #  include "../../tools/common/png.h"
#include <png.h>
EOF
plant game/uses_tools.c <<'EOF'
#include "base/json.h"
#include "crowd.h"
#include "md5tool_trace.h"
EOF
plant game/keys.h <<'EOF'
#include <stdbool.h>
#include "SDL_keycode.h"
EOF
plant engine/platform/platform.c <<'EOF'
#include <SDL.h>
#include <SDL_image.h>
EOF
plant tools/md5tool/window.c <<'EOF'
#include "crowd.h"
#include "png.h"
#include <SDL2/SDL.h>
EOF
plant game/clean.c <<'EOF'
#include <stdio.h>
EOF
mkdir -p "$tree/engine/gfx" "$tree/tools/bench"
plant engine/gfx/gfx.c <<'EOF'
#include <GL/glew.h>
EOF
plant tools/bench/bench.c <<'EOF'
#include <stdio.h>
#include <GL/glew.h>
EOF
mkdir -p "$tree/engine/md5" "$tree/engine/build" "$tree/engine/cache"
plant engine/md5/md5.h </dev/null
plant engine/build/loader.c <<'EOF'
#include "../md5/md5.h"
EOF
plant engine/cache/reads_md5.c <<'EOF'
#include "../build/loader.c"
#include "../md5/md5.h"
EOF
plant game/writes_md5.c <<'EOF'
#include "md5/md5.h"
EOF
plant tools/md5tool/reads_md5.c <<'EOF'
#include "md5/md5.h"
EOF
output=$(sh "$checker" "$tree")
status=$?
echo "$output"
[ "$status" -eq 1 ] || fail "exit status $status with violations planted, expected 1"
for expected in engine/base/uses_game.c:2 engine/anim/uses_tools.c:3 game/uses_tools.c:3 game/keys.h:2 \
    tools/md5tool/window.c:3 tools/bench/bench.c:2 engine/cache/reads_md5.c:2 game/writes_md5.c:1; do
    printf '%s\n' "$output" | grep -q "^$expected: " || fail "no violation reported at $expected"
done
lines=$(printf '%s\n' "$output" | grep -c '^[^ ]*:[0-9][0-9]*: ')
[ "$lines" -eq 8 ] || fail "$lines violations reported, expected exactly the 8 planted"
printf '%s\n' "$output" | grep -q "^check_layers: 8 violation(s)$" || fail "no count line saying 8"

# Taken out again: the same tree passes.
rm "$tree/engine/base/uses_game.c" "$tree/engine/anim/uses_tools.c" "$tree/game/uses_tools.c" \
    "$tree/game/keys.h" "$tree/tools/md5tool/window.c" "$tree/tools/bench/bench.c" "$tree/engine/cache/reads_md5.c" \
    "$tree/game/writes_md5.c"
output=$(sh "$checker" "$tree")
status=$?
echo "$output"
[ "$status" -eq 0 ] || fail "exit status $status on a clean tree, expected 0"

# check_links.cmake on a small CMake project: a game library reaching a tools library through another one
# is named; the engine library, linking nothing above it, is clean. Then the ctest entry's script mode.
cmake_command=${1:-cmake}
check_links=$(dirname "$checker")/check_links.cmake
links=$tree/links
mkdir -p "$links/engine" "$links/tools" "$links/game"
printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(links NONE)' \
    'add_subdirectory(engine)' 'add_subdirectory(tools)' 'add_subdirectory(game)' \
    "include(\"$check_links\")" \
    'marionette_link_violations(game_violations game_library tools)' \
    'marionette_link_violations(engine_violations engine_library game tools)' \
    'message(STATUS "game: [${game_violations}]")' 'message(STATUS "engine: [${engine_violations}]")' \
    >"$links/CMakeLists.txt"
echo 'add_library(engine_library INTERFACE)' >"$links/engine/CMakeLists.txt"
printf '%s\n' 'add_library(tools_library INTERFACE)' 'target_link_libraries(tools_library INTERFACE engine_library)' \
    >"$links/tools/CMakeLists.txt"
printf '%s\n' 'add_library(helper_library INTERFACE)' \
    'target_link_libraries(helper_library INTERFACE engine_library tools_library)' \
    'add_library(game_library INTERFACE)' 'target_link_libraries(game_library INTERFACE helper_library)' \
    >"$links/game/CMakeLists.txt"
output=$("$cmake_command" -S "$links" -B "$links/build" 2>&1)
echo "$output" | grep -e '-- game: ' -e '-- engine: '
echo "$output" | grep -qxF -e '-- game: [tools/CMakeLists.txt: game_library links tools_library]' ||
    fail "check_links did not name game_library linking tools_library (tools/CMakeLists.txt)"
echo "$output" | grep -qxF -e '-- engine: []' || fail "check_links found violations in a clean engine library"
output=$("$cmake_command" "-DVIOLATIONS=game/CMakeLists.txt: a links b|x: c links d" -P "$check_links" 2>&1)
[ $? -ne 0 ] || fail "check_links script mode passed with violations"
echo "$output" | grep -qxF 'x: c links d' || fail "check_links script mode did not print each violation"
"$cmake_command" -DVIOLATIONS= -P "$check_links" >/dev/null 2>&1 ||
    fail "check_links script mode failed with no violations"

# check_file_lengths.sh on the same tree: a planted engine file of 1,001 lines and a game header of 1,200 are
# named with their counts, a tool of 1,500 (tools/ is not held to it) and a file of exactly 1,000 are not;
# with the two shortened, the tree passes.
lengths=$(dirname "$checker")/check_file_lengths.sh
long() { # PATH LINES
    mkdir -p "$(dirname "$tree/$1")"
    seq 1 "$2" | sed 's#^#/* line #; s#$# */#' >"$tree/$1"
}
long engine/anim/long.c 1001
long game/long.h 1200
long engine/base/exact.c 1000
long tools/bench/long_tool.c 1500
output=$(sh "$lengths" "$tree")
status=$?
echo "$output"
[ "$status" -eq 1 ] || fail "check_file_lengths: exit status $status with long files planted, expected 1"
printf '%s\n' "$output" | grep -qxF 'engine/anim/long.c: 1001 lines (at most 1000)' ||
    fail "check_file_lengths did not name engine/anim/long.c at 1001 lines"
printf '%s\n' "$output" | grep -qxF 'game/long.h: 1200 lines (at most 1000)' ||
    fail "check_file_lengths did not name game/long.h at 1200 lines"
[ "$(printf '%s\n' "$output" | grep -c ' lines (at most 1000)$')" -eq 2 ] ||
    fail "check_file_lengths named other files than the two planted"
long engine/anim/long.c 10
long game/long.h 999
sh "$lengths" "$tree" >/dev/null || fail "check_file_lengths failed once the long files were shortened"

if [ "$failures" -gt 0 ]; then
    echo "test_check_layers: $failures failure(s)"
    exit 1
fi
echo "test_check_layers: all passed"
