#!/bin/sh
# The pictures in docs/ from today's build, so they cannot go stale silently (docs/playing.md, "Pictures"):
# the demo headless at 1280x720 on whatever GL it finds (Mesa llvmpipe with no GPU), each from its input
# script.
#   ./scripts/pictures.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
demo="$build/game/marionette"
[ -x "$demo" ] || { echo "pictures: build first (./scripts/setup.sh $build)" >&2; exit 1; }
export SDL_VIDEODRIVER="${SDL_VIDEODRIVER:-offscreen}"
shoot() { # NAME ARGS...: docs/NAME.png
    name=$1
    shift
    "$demo" --headless --size 1280 720 "$@" --screenshot "docs/$name.png.new" >/dev/null 2>"/tmp/pictures_$name.log" ||
        { cat "/tmp/pictures_$name.log" >&2; rm -f "docs/$name.png.new"; exit 1; }
    mv "docs/$name.png.new" "docs/$name.png"
    echo "docs/$name.png"
}
shoot demo --frames 160 --crowd 120 --script docs/demo_script.txt --help-overlay
shoot shadow_single --frames 140 --script docs/shadow_single_script.txt
shoot crowd --frames 90 --crowd 1000 --script docs/crowd_script.txt
