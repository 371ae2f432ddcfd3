#!/bin/sh
# The skinning figures of docs/your-own-model.md ("Skinning") from md5tool alone (jq and awk): the twist test
# limb (md5tool synth --limb: a cylinder of two joints, ring 20 of 32 vertices on the second joint) skinned at
# its joint twisted 90 and 150 degrees about its own axis, with linear blend and with dual quaternions
# (md5tool skin --skinning); the area of ring 20 seen along the limb (the shoelace formula over each vertex's
# y and z - 1) against the untwisted ring's.
#   ./scripts/skin_figures.sh [BUILD_DIR]      (default build)
set -eu
cd "$(dirname "$0")/.."
tool="${1:-build}/tools/md5tool"
command -v jq >/dev/null || { echo "skin_figures: jq is missing (apt-get install jq)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" synth "$work" --limb >/dev/null

area() { # FRAME SKINNING: ring 20's area, in square metres
    "$tool" skin --json "$work/limb.md5mesh" "$work/limb_twist.md5anim" --frame "$1" --skinning "$2" |
        jq -r '.meshes[0].positions[640:672][] | "\(.[1]) \(.[2] - 1)"' |
        awk '{ y[NR] = $1; z[NR] = $2 }
             END { for (i = 1; i <= NR; i++) { j = i % NR + 1; twice += y[i] * z[j] - y[j] * z[i] }
                   printf "%.9f\n", (twice < 0 ? -twice : twice) / 2 }'
}

rest=$(area 0 linear)
for degrees in 90 150; do
    linear=$(area "$degrees" linear)
    dual=$(area "$degrees" dq)
    awk -v d="$degrees" -v r="$rest" -v l="$linear" -v q="$dual" 'BEGIN {
        printf "twisted %d degrees: the joint'"'"'s cross-section keeps %.1f%% with linear blend, %.1f%% with dual quaternions\n", d, 100 * l / r, 100 * q / r }'
done
