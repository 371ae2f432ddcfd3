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
# The characters' normal and specular maps, close up under a light that has turned (demo.ini light_spin on a
# scratch copy of config/), then the same with the maps off (the maps key, M): docs/maps.png, maps_off.png.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pictures.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cp -r config "$scratch/config" && ln -s "$(pwd)/assets" "$scratch/assets"
sed 's/^light_spin = 0$/light_spin = 40/' config/demo.ini >"$scratch/config/demo.ini"
shoot maps --frames 150 --config "$scratch/config" --script docs/maps_script.txt
sed 's/^0.2 drag 120 0$/0.2 drag 120 0\n0.3 tap M/' docs/maps_script.txt >"$scratch/maps_off.txt"
shoot maps_off --frames 150 --config "$scratch/config" --script "$scratch/maps_off.txt"
