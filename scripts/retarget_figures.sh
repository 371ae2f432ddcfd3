#!/bin/sh
# The retargeting figures of docs/your-own-model.md ("Borrowed clips") from the demo's final-pose trace alone
# (docs/trace.md), with jq and awk.
#   ./scripts/retarget_figures.sh [BUILD_DIR] [REAL_MD5_DIR]   (default build, and $MARIONETTE_REAL_MD5)
# Each body below gets a starter config from `md5tool new-character` given its mesh and one idle clip, so it
# borrows the shipped library (walk, run, ...) retargeted through the joint map it finds; then the player walks,
# runs and walks again (tests/data/demo/walk_and_run.txt) and the trace records every joint after the last stage:
#   reference  our mannequin playing its own clips (config/ as shipped)
#   fremd      the mannequin's mesh with German joint names (no "head", "foot" or "hip" to find by name), turned
#              to +Y up, -Z forward and scaled by 0.9 (md5tool convert), with its idle clip the same way
#   ikfeet     a made biped whose feet hang from IK targets under the root, not from its shins (md5tool synth
#              --ik-feet: one vertex a joint), so the foot lock carries each foot with its shin
#   boneman    a Blender export (CC0; REAL_MD5_DIR/boneman): other names, other proportions, a bind pose turned
#              a quarter from its clips, feet hanging from IK targets under the root (skipped without the folder)
# Per body, one line: foot contacts while walking or running (runs of steps where the foot lock holds the
# foot, the trace's feet[].held = 1, as scripts/trace_figures.sh counts them; for a body without the lock,
# where the clips plant it, feet[].planted at 0.5 or more: the contacts the engine found in each clip; with
# the player at 0.5 m/s or more throughout: a stance that starts or ends standing is the idle's, left out)
# and how far the ankle slides during each (the largest horizontal distance from where the contact began:
# median and worst, mm); the least the head is above the hips (m); the largest turn of any joint from one 1/120 s
# step to the next (degrees: a flipped joint would show as a jump near 180); how much the distance from each
# knee (the map's lower leg) to its ankle changes over the run (mm: a foot on an IK target that the lock or IK
# moved away from its shin would show here); then every contact's slide.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
real=${2:-${MARIONETTE_REAL_MD5:-}}
demo="$build/game/marionette"
md5tool="$build/tools/md5tool"
command -v jq >/dev/null || { echo "retarget_figures: jq is missing (apt-get install jq)" >&2; exit 1; }
[ -x "$demo" ] && [ -x "$md5tool" ] || { echo "retarget_figures: build first (./scripts/setup.sh $build)" >&2; exit 1; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
root=$(pwd)

# German joint names for the mannequin's.
german() {
    sed -e 's/"root"/"wurzel"/; s/"hips"/"becken"/; s/"spine\.0\([123]\)"/"wirbel.\1"/; s/"neck"/"hals"/' \
        -e 's/"head"/"kopf"/; s/"clavicle\./"schluesselbein./; s/"upperarm\./"oberarm./; s/"forearm\./"unterarm./' \
        -e 's/"hand\./"greifer./; s/"thumb\.0\([12]\)\./"daumen.\1./; s/"fingers\.0\([12]\)\./"finger.\1./' \
        -e 's/"thigh\./"oberschenkel./; s/"shin\./"schienbein./; s/"foot\./"fuss./; s/"toe\./"zeh./' \
        -e 's/\.L"/.links"/; s/\.R"/.rechts"/' "$1"
}
mkdir -p "$work/fremd"
german assets/models/mannequin.md5mesh | sed 's#"\.\./textures/mannequin\.tga"#"mannequin.tga"#' > "$work/fremd/z.md5mesh"
german assets/clips/idle.md5anim > "$work/fremd/z.md5anim"
"$md5tool" convert "$work/fremd/z.md5mesh" "$work/fremd/fremd.md5mesh" --up +Y --forward -Z --scale 0.9 >/dev/null
"$md5tool" convert "$work/fremd/z.md5anim" "$work/fremd/fremd_ruhe.md5anim" --up +Y --forward -Z --scale 0.9 >/dev/null
cp assets/textures/mannequin.tga "$work/fremd/"

# reference: config/ with its paths leading back to assets/.
mkdir -p "$work/reference"
cp config/*.ini "$work/reference/"
sed -i "s#\.\./assets#$root/assets#g" "$work/reference/characters.ini" "$work/reference/clips.ini"

mkdir -p "$work/ikfeet"
"$md5tool" synth "$work/ikfeet" --ik-feet >/dev/null

bodies="reference fremd ikfeet"
"$md5tool" new-character ikfeet "$work/ikfeet/ikbiped.md5mesh" "$work/ikfeet/ikbiped_idle.md5anim" \
    --out "$work/ikfeet/config" > "$work/ikfeet.log" 2>&1 || { cat "$work/ikfeet.log" >&2; exit 1; }
"$md5tool" new-character fremd "$work/fremd/fremd.md5mesh" "$work/fremd/fremd_ruhe.md5anim" --out "$work/fremd/config" \
    > "$work/fremd.log" 2>&1 || { cat "$work/fremd.log" >&2; exit 1; }
if [ -n "$real" ] && [ -f "$real/boneman/boneman.md5mesh" ]; then
    mkdir -p "$work/boneman"
    "$md5tool" new-character boneman "$real/boneman/boneman.md5mesh" "$real/boneman/boneman_idle.md5anim" \
        --out "$work/boneman/config" > "$work/boneman.log" 2>&1 || { cat "$work/boneman.log" >&2; exit 1; }
    bodies="$bodies boneman"
else
    echo "boneman: skipped (no REAL_MD5_DIR/boneman; see docs/tests.md)"
fi

for body in $bodies; do
    config="$work/$body/config"
    [ "$body" = reference ] && config="$work/reference"
    # The joints to measure: the map's (characters.ini map.*), ours by name for the reference.
    joint() { # ROLE
        if [ "$body" = reference ]; then
            case $1 in foot.?|head|hips) echo "$1" ;; lower_leg.L) echo shin.L ;; lower_leg.R) echo shin.R ;; esac
        else
            sed -n "s/^map\.$1 = \([^ ]*\).*/\1/p" "$config/characters.ini"
        fi
    }
    feet="$(joint foot.L),$(joint foot.R)"
    SDL_VIDEODRIVER=offscreen "$demo" --headless --size 320 180 --frames 1200 --config "$config" \
        --script tests/data/demo/walk_and_run.txt --trace "$work/$body.json" --trace-joints all \
        >/dev/null 2>"$work/$body.demo.log" || { cat "$work/$body.demo.log" >&2; exit 1; }
    # A contact: the foot lock holding it (held = 1); for a body without the lock, the clips planting it.
    by=held
    grep -q '^foot_lock = false' "$config/characters.ini" && by=planted
    jq -r --arg by "$by" --arg head "$(joint head)" --arg hips "$(joint hips)" --arg kl "$(joint lower_leg.L)" \
        --arg kr "$(joint lower_leg.R)" --arg al "$(joint foot.L)" --arg ar "$(joint foot.R)" '
        .[] | . as $step | .poses[0] as $p | ($p.joints | map({(.name): .}) | add) as $named
        | [($p.feet | map([(if $by == "held" then .held else .planted * 2 end), .ankle[0], .ankle[2], $step.player.speed] | map(tostring) | join(",")) | join(";")),
           ($named[$head].position[1] - $named[$hips].position[1]),
           ($p.joints | map(.rotation | map(tostring) | join(",")) | join(";")),
           ([[$kl, $al], [$kr, $ar]] | map(. as [$k, $a] | [range(3) | ($named[$k].position[.] - $named[$a].position[.])]
                                            | map(. * .) | add | sqrt | tostring) | join(","))] | @tsv' "$work/$body.json" |
    awk -F '\t' -v body="$body" -v feet="$feet" -v by="$by" '
        function close_contact(k) { if (open[k] && slowest[k] >= 0.5) drift[++contacts] = worst[k]; open[k] = 0 }
        { n++
          count = split($1, foot, ";")
          for (k = 1; k <= count; k++) {
              split(foot[k], f, ",")
              if (f[1] >= 1) {
                  if (!open[k]) { open[k] = 1; x0[k] = f[2]; z0[k] = f[3]; worst[k] = 0; slowest[k] = f[4] }
                  if (f[4] < slowest[k]) slowest[k] = f[4]
                  slide = sqrt((f[2] - x0[k]) ^ 2 + (f[3] - z0[k]) ^ 2) * 1000
                  if (slide > worst[k]) worst[k] = slide
              } else close_contact(k) }
          if (n == 1 || $2 < head) head = $2
          split($4, shin, ",")
          for (k = 1; k <= 2; k++) { if (n == 1 || shin[k] < shin_low[k]) shin_low[k] = shin[k]
                                     if (n == 1 || shin[k] > shin_high[k]) shin_high[k] = shin[k]
                                     if (shin_high[k] - shin_low[k] > shin_change) shin_change = shin_high[k] - shin_low[k] }
          joints = split($3, rotation, ";")
          for (i = 1; i <= joints; i++) {
              split(rotation[i], q, ",")
              if (n > 1) { d = q[1] * p[i, 1] + q[2] * p[i, 2] + q[3] * p[i, 3] + q[4] * p[i, 4]
                           if (d < 0) d = -d; if (d > 1) d = 1
                           a = 2 * atan2(sqrt(1 - d * d), d) * 57.29578; if (a > turn) turn = a }
              for (c = 1; c <= 4; c++) p[i, c] = q[c] } }
        END {
            for (k = 1; k <= 2; k++) close_contact(k)
            for (i = 1; i <= contacts; i++) for (j = i + 1; j <= contacts; j++)
                if (drift[j] < drift[i]) { t = drift[i]; drift[i] = drift[j]; drift[j] = t }
            median = contacts ? drift[int((contacts + 1) / 2)] : 0
            printf "%-9s feet %s, %s: %d contacts, the ankle slides per contact median %.1f mm, worst %.1f mm; head above hips by at least %.3f m; largest joint turn in a step %.1f degrees; knee to ankle changes by at most %.1f mm\n",
                   body, feet, by == "held" ? "foot lock on" : "no foot lock", contacts, median, contacts ? drift[contacts] : 0, head, turn, shin_change * 1000
            printf "%-9s slide of each contact, mm, smallest first:", ""
            for (i = 1; i <= contacts; i++) printf " %.1f", drift[i]
            printf "\n" }'
done
