#!/bin/sh
# Runs one benchmark on several builds in turn, round after round, and prints each round's figures, each
# build's median and its ratio to the first build's: the way docs/benchmarks.md compares builds on a shared,
# noisy machine (the same runs alternating, never one build's runs after the other's).
#   ./scripts/bench_builds.sh [--rounds N] [--pin CPUS] [--figure TEXT] BUILD ... -- PROGRAM [ARGS ...]
# BUILD: a build folder holding tools/PROGRAM (build/, say), or a git revision of this repository (d887bad,
#   HEAD~3, a tag), checked out beside the others under $MARIONETTE_BENCH_BUILDS (default
#   /tmp/marionette-bench-builds) and built there once, RelWithDebInfo as ours, PROGRAM's target only.
#   Revisions need a clone with history and git; each is a `git worktree` of this clone (delete the folder,
#   then `git worktree prune`, to be rid of them). Compare revisions with revisions: the same code built in
#   a folder of its own (build/) and in a worktree differs by a few percent in where its code lands alone
#   (docs/benchmarks.md, 2026-11-29, fifth session); commit a change to measure it.
# --rounds N: rounds (1 to 100, default 5). --pin CPUS: run under `taskset -c CPUS` (one core for one thread:
#   the two cores of our machines are not equally fast). --figure TEXT: the figure is the first number after
#   TEXT on the first line holding it (default "update ": crowd_bench's update, ms a frame).
# Example (docs/benchmarks.md, issue 36):
#   ./scripts/bench_builds.sh --pin 0 2677a18 d887bad build -- crowd_bench --characters 10000 --threads 1 \
#       --frames 100 --no-render
# Exit status: 0, 1 when a run gives no figure, 2 for a wrong command line or a build that cannot be made.
set -u
cd "$(dirname "$0")/.."
usage() {
    echo "usage: $0 [--rounds N] [--pin CPUS] [--figure TEXT] BUILD ... -- PROGRAM [ARGS ...]" >&2
    exit 2
}
rounds=5
pin=
figure="update "
while [ $# -gt 0 ]; do
    case $1 in
    --rounds)
        [ $# -ge 2 ] || usage
        case $2 in '' | *[!0-9]*) echo "$0: --rounds: $2 is not a whole number (1 to 100)" >&2; exit 2 ;; esac
        [ "$2" -ge 1 ] && [ "$2" -le 100 ] || { echo "$0: --rounds: $2 is outside 1 to 100" >&2; exit 2; }
        rounds=$2
        shift 2 ;;
    --pin)
        [ $# -ge 2 ] || usage
        command -v taskset >/dev/null || { echo "$0: --pin needs taskset (util-linux)" >&2; exit 2; }
        pin=$2
        shift 2 ;;
    --figure)
        [ $# -ge 2 ] && [ -n "$2" ] || usage
        figure=$2
        shift 2 ;;
    --) break ;;
    -*) usage ;;
    *) break ;;
    esac
done

# The builds, up to "--"; each becomes a program path and a label.
scratch=${MARIONETTE_BENCH_BUILDS:-/tmp/marionette-bench-builds}
labels=
count=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    count=$((count + 1))
    eval "build_$count=\$1"
    shift
done
[ $# -ge 2 ] && [ "$count" -ge 1 ] || usage
shift
program=$1
shift
case $program in */* | '') echo "$0: $program: give the program's name (crowd_bench), not a path" >&2; exit 2 ;; esac

i=1
while [ $i -le $count ]; do
    eval "build=\$build_$i"
    if [ -d "$build" ]; then
        path=$build/tools/$program
        label=$build
    else
        command -v git >/dev/null || { echo "$0: $build: no such folder, and no git to read it as a revision" >&2; exit 2; }
        revision=$(git rev-parse --short --verify --quiet "$build^{commit}") ||
            { echo "$0: $build: neither a folder nor a revision of this repository" >&2; exit 2; }
        tree=$scratch/$revision
        if [ ! -x "$tree/build/tools/$program" ]; then
            echo "building $program at $revision in $tree" >&2
            mkdir -p "$scratch" || exit 2
            [ -d "$tree" ] || git worktree add --detach -f "$tree" "$revision" >/dev/null 2>&1 ||
                { echo "$0: $build: could not check out $revision in $tree" >&2; exit 2; }
            { cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
                cmake --build "$tree/build" -j2 --target "$program" >/dev/null; } ||
                { echo "$0: $build: $program did not build at $revision (in $tree)" >&2; exit 2; }
        fi
        path=$tree/build/tools/$program
        label=$build
    fi
    [ -x "$path" ] || { echo "$0: $build: no $path (build it first)" >&2; exit 2; }
    eval "path_$i=\$path; label_$i=\$label"
    i=$((i + 1))
done

# The runs, in turn; every figure goes to a table: build index, round, figure.
table=$(mktemp) || exit 2
trap 'rm -f "$table"' EXIT
status=0
round=1
while [ $round -le "$rounds" ]; do
    i=1
    line="round $round:"
    while [ $i -le $count ]; do
        eval "path=\$path_$i"
        if [ -n "$pin" ]; then
            output=$(taskset -c "$pin" "$path" "$@" 2>&1)
        else
            output=$("$path" "$@" 2>&1)
        fi
        value=$(printf '%s\n' "$output" | awk -v text="$figure" '
            index($0, text) { rest = substr($0, index($0, text) + length(text))
                              if (match(rest, /[0-9]+(\.[0-9]+)?/)) { print substr(rest, RSTART, RLENGTH); exit } }')
        if [ -z "$value" ]; then
            eval "label=\$label_$i"
            echo "$0: $label: no figure after \"$figure\" in what $program printed:" >&2
            printf '%s\n' "$output" | tail -5 >&2
            status=1
            value=nan
        fi
        echo "$i $round $value" >>"$table"
        line="$line $value"
        i=$((i + 1))
    done
    echo "$line"
    round=$((round + 1))
done

# Medians, and each build's ratio to the first: of the medians, and the median of the round-by-round ratios
# (which a slow spell common to one round does not move).
i=1
while [ $i -le $count ]; do
    eval "label=\$label_$i"
    awk -v build=$i -v label="$label" '
        function median(values, n,    i, j, t) {
            for (i = 2; i <= n; i++) for (j = i; j > 1 && values[j - 1] > values[j]; j--) {
                t = values[j]; values[j] = values[j - 1]; values[j - 1] = t }
            return n % 2 ? values[(n + 1) / 2] : (values[n / 2] + values[n / 2 + 1]) / 2 }
        $3 == "nan" { bad[$2] = 1 }
        $1 == 1 { first[$2] = $3 }
        $1 == build { mine[$2] = $3 }
        END {
            n = 0; r = 0
            for (round in mine) if (!(round in bad)) {
                all[++n] = mine[round]; firsts[n] = first[round]
                if (first[round] > 0) ratios[++r] = mine[round] / first[round] }
            if (n == 0) { printf "%s: no figures\n", label; exit }
            m = median(all, n); f = median(firsts, n)
            printf "%s: median %.3f of %d rounds", label, m, n
            if (build > 1 && f > 0) printf "; %.3fx the first build by medians, %.3fx round by round", m / f, median(ratios, r)
            printf "\n" }' "$table"
    i=$((i + 1))
done
exit $status
