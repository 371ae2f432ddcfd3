#!/bin/sh
# Writes what the built programs say about every test file into OUT_DIR, so that a refactoring can be
# checked to change nothing: run it on the build before and the build after, then `diff -r` the two.
#   ./scripts/behaviour.sh BUILD_DIR OUT_DIR
# What it writes (one file per command, the command's stdout and stderr and its exit status):
#   md5tool info --json, check and pose --json of every .md5mesh/.md5anim under tests/data and assets/;
#   md5tool skin --json of each generated body in bind pose and in a clip;
#   md5tool trace --json of every script of tests/data/trace against config/ (and its own folders);
#   the demo's --trace JSON of tests/data/demo and docs/*_script.txt, headless, and its last frame as a PNG
#   (the HUD prints the frame rate, so pictures differ there from run to run: compare them by eye).
# Paths in the outputs are written relative to the repository, so two checkouts compare equal.
set -u
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD_DIR OUT_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(pwd)
md5tool=$build/tools/md5tool
[ -x "$md5tool" ] || md5tool=$(find "$build/tools" -name md5tool -type f -perm -u+x | head -1)
demo=$build/game/marionette

record() { # NAME COMMAND...: output with the checkout's path taken out, then the exit status
    record_name=$1
    shift
    "$@" >"$out/$record_name.raw" 2>&1
    status=$?
    sed "s#$out/##g; s#$root/##g; s#$root##g" "$out/$record_name.raw" >"$out/$record_name"
    rm -f "$out/$record_name.raw"
    echo "exit $status" >>"$out/$record_name"
}

flat() { # a path as one file name
    echo "$1" | tr '/' '_'
}

for file in $(find tests/data assets -name '*.md5mesh' -o -name '*.md5anim' | sort); do
    record "info_$(flat "$file")" "$md5tool" info --json "$file"
done
for anim in $(find tests/data assets -name '*.md5anim' | sort); do
    record "check_$(flat "$anim")" "$md5tool" check assets/models/mannequin.md5mesh "$anim"
    record "pose_$(flat "$anim")" "$md5tool" pose --json assets/models/mannequin.md5mesh "$anim" --frame 1.5
done
for body in mannequin robot; do
    record "skin_$body" "$md5tool" skin --json "assets/models/$body.md5mesh"
    record "skin_${body}_walk" "$md5tool" skin --json "assets/models/$body.md5mesh" assets/clips/walk.md5anim --time 0.4
done
for script in tests/data/trace/*.txt; do
    name=$(basename "$script" .txt)
    record "trace_$name" "$md5tool" trace config --script "$script" --json
    for folder in tests/data/trace/*/; do
        record "trace_${name}_$(basename "$folder")" "$md5tool" trace "$folder" --script "$script" --json
    done
done
for script in tests/data/demo/*.txt docs/*_script.txt; do
    name=$(basename "$script" .txt)
    SDL_VIDEODRIVER=offscreen record "demo_$name" "$demo" --headless --frames 240 --size 320 240 \
        --script "$script" --trace "$out/demo_$name.json" --screenshot "$out/demo_$name.png"
done
echo "behaviour: $(ls "$out" | wc -l) files in $out"
