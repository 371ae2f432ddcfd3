#!/bin/sh
# The foot figures of docs/configuration.md ("Foot locking", "Foot IK") from the demo's trace alone
# (docs/trace.md), with jq and awk: anyone can run it.
#   ./scripts/trace_figures.sh [BUILD_DIR]      (default build; the demo must be built)
# 1. Foot IK on a 30 degree slope: demo.ini's ground set to `slope` (a copy of config/ in a temporary folder),
#    the player walking and running uphill (tests/data/demo/walk_and_run.txt); for every step where a foot is
#    planted (planted >= 0.5) and placed in full (placed = 1), how far its ankle is from the surface along the
#    normal (above_ground) against how high the animation has it above flat ground (the look stage's ankle
#    height above the entity's own height, world[13]): the largest difference.
# 2. The foot lock on flat ground, the same walk and run: per contact (a run of steps with held = 1), the
#    largest distance the ankle's x, z gets from where the hold began; the largest and the median.
# Prints one line per figure; exits non-zero when the demo or jq fails.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
demo="$build/game/marionette"
command -v jq >/dev/null || { echo "trace_figures: jq is missing (apt-get install jq)" >&2; exit 1; }
[ -x "$demo" ] || { echo "trace_figures: $demo is not built (./scripts/setup.sh $build)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$(pwd)

# A copy of config/ whose paths lead back to assets/, on the ground asked for.
config_on() { # FOLDER GROUND
    mkdir -p "$1"
    cp config/*.ini "$1/"
    sed -i "s#\.\./assets#$root/assets#g" "$1/characters.ini" "$1/clips.ini"
    sed -i "s/^ground = .*/ground = $2\nslope_degrees = 30/" "$1/demo.ini"
}

trace() { # CONFIG OUT
    SDL_VIDEODRIVER=offscreen "$demo" --headless --size 320 180 --frames 600 --config "$1" \
        --script tests/data/demo/walk_and_run.txt --trace "$2" --trace-joints foot.L,foot.R --trace-stages \
        >/dev/null 2>"$work/demo.log" || { cat "$work/demo.log" >&2; exit 1; }
}

config_on "$work/slope" slope
trace "$work/slope" "$work/slope.json"
# Each placed, planted foot: |above_ground - the animation's height above flat ground|, in mm.
# The same measure on the foot_lock stage (before placement, the ground under the placed ankle standing in)
# shows what the placement corrects.
jq -r '.[] | .poses[0] as $p | $p.feet | to_entries[] | .key as $f | .value
       | select(.planted >= 0.5 and .placed >= 1)
       | ($p.stages.look[$f].position[1] - $p.world[13]) as $animated
       | [((.above_ground - $animated) * 1000 | fabs),
          ((($p.stages.foot_lock[$f].position[1] - .ground_height) * .ground_normal[1] - $animated) * 1000 | fabs)]
       | @tsv' "$work/slope.json" |
    awk -F '\t' '{ if ($1 > worst) worst = $1; if ($2 > unplaced) unplaced = $2; n++ }
         END { printf "foot IK, 30 degree slope, walking and running uphill: %d planted-foot steps, the ankle within %.3f mm of its animated height above the surface (before placement: up to %.1f mm)\n", n, worst, unplaced }'

config_on "$work/flat" flat
trace "$work/flat" "$work/flat.json"
jq -r '.[] | .step as $s | .poses[0].feet[] | [$s, .joint, .held, .ankle[0], .ankle[2]] | @tsv' "$work/flat.json" |
    awk -F '\t' '
        function close_contact(foot) { if (open[foot]) { drift[++contacts] = worst[foot]; open[foot] = 0 } }
        { foot = $2
          if ($3 >= 1) {
              if (!open[foot]) { open[foot] = 1; x0[foot] = $4; z0[foot] = $5; worst[foot] = 0 }
              d = sqrt(($4 - x0[foot]) ^ 2 + ($5 - z0[foot]) ^ 2) * 1000
              if (d > worst[foot]) worst[foot] = d
          } else close_contact(foot) }
        END { for (f in open) close_contact(f)
              n = contacts; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (drift[j] < drift[i]) { t = drift[i]; drift[i] = drift[j]; drift[j] = t }
              printf "foot lock, flat ground, walking and running: %d contacts held, drift per contact at most %.3f mm (median %.3f mm)\n", n, n ? drift[n] : 0, n ? drift[int((n + 1) / 2)] : 0 }'
