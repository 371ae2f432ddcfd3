#!/bin/sh
# test_trace_schema: the demo's trace read the way a user's script reads it (jq, awk), every key of
# docs/trace.md checked for a walk with the player's and crowd members' poses at every stage; the figures of
# scripts/trace_figures.sh within what docs/configuration.md states ("Foot locking", "Foot IK"; and the
# measure shown able to fail: before the placement the slope's feet are centimetres off); and the options'
# mistakes refused in one line with no trace file left behind.
#   tests/test_trace_schema.sh DEMO BUILD_DIR
set -u
demo=$1
build=$2
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/trace_schema.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}
check() { # DESCRIPTION JQ-EXPRESSION (true for the whole trace)
    if [ "$(jq "$2" "$work/trace.json")" != "true" ]; then
        fail "$1"
    fi
}

export SDL_VIDEODRIVER=offscreen
"$demo" --headless --size 160 90 --frames 150 --crowd 2 --script tests/data/demo/walk_and_run.txt \
    --trace "$work/trace.json" --trace-joints all --trace-stages --trace-members 0,5 >"$work/out.txt" 2>&1 ||
    { cat "$work/out.txt"; fail "the demo did not run"; }

joints=$(jq '.[0].poses[0].joints | length' "$work/trace.json")
steps=$(jq length "$work/trace.json")
check "every step (120 a second) with the player and the two members asked for" \
    'length >= 150 and all(.[]; (.poses | length) == 3 and .poses[0].entity == "player"
        and .poses[1].entity == "member" and .poses[1].index == 0 and .poses[2].index == 5)'
check "member 5 was never spawned: present false and nothing else" \
    'all(.[]; .poses[2] == {"entity": "member", "index": 5, "present": false})'
check "the present entities: character, world of 16 numbers, heading, joints, stages, feet, pelvis_drop" \
    'all(.[].poses[:2][]; .present and (.character | type) == "string" and (.world | length) == 16
        and (.heading_degrees | type) == "number" and (.pelvis_drop | type) == "number"
        and (.stages | keys) == ["additive", "blend", "foot_ik", "foot_lock", "look"])'
[ "$joints" -gt 20 ] || fail "all joints: $joints"
check "every joint named, a finite position and a unit rotation; every stage as long as the joints" \
    "all(.[].poses[:2][]; (.joints | length) == $joints and all(.joints[]; (.name | type) == \"string\"
        and (.position | length) == 3 and (.rotation | length) == 4
        and ((.rotation | map(. * .) | add) - 1 | fabs) < 1e-4)
        and all(.stages[]; length == $joints))"
check "the last stage is the pose drawn: foot_ik equals joints" \
    'all(.[].poses[:2][]; [.joints[] | {position, rotation}] == .stages.foot_ik)'
check "the world transform: a rotation times the scale (1 for ours) over a translation" \
    'all(.[].poses[:2][]; .world as $w | (($w[0] * $w[0] + $w[1] * $w[1] + $w[2] * $w[2]) - 1 | fabs) < 1e-4
        and $w[3] == 0 and $w[7] == 0 and $w[11] == 0 and $w[15] == 1)'
check "two feet, each with every key, heights on flat ground 0 and normal up" \
    'all(.[].poses[:2][]; (.feet | length) == 2 and all(.feet[]; (keys == ["above_ground", "ankle",
        "ground_height", "ground_normal", "held", "joint", "placed", "planted"]) and .ground_height == 0
        and .ground_normal == [0, 1, 0] and (.above_ground - .ankle[1] | fabs) < 1e-6
        and .planted >= 0 and .planted <= 1 and .held >= 0 and .held <= 1 and .placed >= 0 and .placed <= 1))'
check "the player walks: it moves along +x, and some foot is held at some step" \
    '(.[-1].poses[0].world[12] - .[0].poses[0].world[12]) > 0.5 and any(.[].poses[0].feet[]; .held == 1)'

# The figures, as docs/configuration.md states them ("Foot locking", "Foot IK"), and the measure able to fail.
figures=$(./scripts/trace_figures.sh "$build") || fail "trace_figures.sh failed"
echo "$figures"
echo "$figures" | awk '/foot IK/ { for (i = 1; i <= NF; i++) if ($i == "within") within = $(i + 1);
                                   for (i = 1; i <= NF; i++) if ($i == "to") before = $(i + 1) }
                       END { exit !(within + 0 < 1.0 && before + 0 > 10.0) }' ||
    fail "foot IK: the ankle must be within 1 mm placed and more than 10 mm off before placement"
echo "$figures" | awk '/foot lock/ { for (i = 1; i <= NF; i++) { if ($i == "most") most = $(i + 1); if ($i == "contacts") n = $(i - 1) } }
                       END { exit !(most + 0 < 1.0 && n + 0 >= 10) }' ||
    fail "foot lock: at least 10 contacts, each drifting under 1 mm"

# Mistakes: one line each, exit non-zero, no trace file.
mistake() { # EXPECTED-TEXT ARGUMENTS...
    expected=$1
    shift
    rm -f "$work/bad.json"
    if "$demo" --headless --size 160 90 --frames 2 "$@" >"$work/bad.txt" 2>&1; then
        fail "accepted: $*"
    fi
    grep -q -- "$expected" "$work/bad.txt" || { fail "'$*' did not say '$expected':"; cat "$work/bad.txt"; }
    [ ! -e "$work/bad.json" ] || fail "'$*' left a trace file"
}
mistake "no character has a joint 'elbow.X'" --trace "$work/bad.json" --trace-joints foot.L,elbow.X
mistake "member 900000 is past the crowd's largest size" --trace "$work/bad.json" --trace-members 900000
mistake "go with --trace FILE" --trace-stages
mistake "is not a list of crowd member numbers" --trace "$work/bad.json" --trace-members 1,x

if [ "$failures" -gt 0 ]; then
    echo "$failures failed"
    exit 1
fi
echo "trace schema: every key checked over $steps steps ($joints joints, 5 stages); the figures hold"
