#!/bin/sh
# test_bench_builds: scripts/bench_builds.sh, the in-turn comparison of builds that docs/benchmarks.md's
# figures come from. Two made-up "builds" whose program prints known figures (2, 4, 3 ms a round against
# 3, 6, 6) must give medians 3 and 6, 2.000x by medians and 1.500x round by round (ratios 1.5, 1.5, 2); the
# real crowd_bench must give a figure a round for each build; wrong command lines and a run without a figure
# must fail with a message.
#   tests/test_bench_builds.sh BUILD_DIR
set -u
build=$1
cd "$(dirname "$0")/.."
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
fail=0

# Each made-up build's program prints the next of its figures each run (a counter file beside it).
for name in old new; do
    mkdir -p "$scratch/$name/tools"
    case $name in old) figures="2 4 3" ;; new) figures="3 6 6" ;; esac
    cat >"$scratch/$name/tools/fake_bench" <<SCRIPT
#!/bin/sh
here=\$(dirname "\$0")
n=\$(cat "\$here/count" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >"\$here/count"
set -- $figures
shift \$((n - 1))
echo "fake: warming up"
echo "   10 characters: update \$1.00 ms (crowd step 1.00, palettes 0.50)"
SCRIPT
    chmod +x "$scratch/$name/tools/fake_bench"
done
out=$(./scripts/bench_builds.sh --rounds 3 "$scratch/old" "$scratch/new" -- fake_bench --anything) ||
    { echo "FAIL: the made-up builds: exit status $?"; fail=1; }
echo "$out"
echo "$out" | grep -q "^round 1: 2.00 3.00$" || { echo "FAIL: round 1 should read 2.00 3.00"; fail=1; }
echo "$out" | grep -q "^round 3: 3.00 6.00$" || { echo "FAIL: round 3 should read 3.00 6.00"; fail=1; }
echo "$out" | grep -q "old: median 3.000 of 3 rounds$" || { echo "FAIL: old's median should be 3"; fail=1; }
echo "$out" | grep -q "new: median 6.000 of 3 rounds; 2.000x the first build by medians, 1.500x round by round$" ||
    { echo "FAIL: new should be 6, 2.000x by medians and 1.500x round by round"; fail=1; }

# The real benchmark, one build against itself: a figure a round for each.
out=$(./scripts/bench_builds.sh --rounds 2 "$build" "$build" -- crowd_bench --characters 20 --threads 1 --frames 3 \
      --warmup 1 --wander-seconds 0 --no-render) || { echo "FAIL: crowd_bench: exit status $?"; fail=1; }
echo "$out"
[ "$(echo "$out" | grep -c '^round [12]: [0-9.]* [0-9.]*$')" = 2 ] ||
    { echo "FAIL: crowd_bench should give two rounds of two figures"; fail=1; }

# What must be refused, with a message, before anything runs (2), and a run without a figure (1).
expect() {
    wanted=$1
    shift
    message=$(./scripts/bench_builds.sh "$@" 2>&1 >/dev/null)
    status=$?
    if [ $status -ne "$wanted" ] || [ -z "$message" ]; then
        echo "FAIL: bench_builds.sh $*: exit status $status (wanted $wanted), message '$message'"
        fail=1
    else
        echo "refused as it should be ($status): $(echo "$message" | head -1)"
    fi
}
expect 2 --rounds 0 "$scratch/old" -- fake_bench
expect 2 --rounds many "$scratch/old" -- fake_bench
expect 2 "$scratch/old" -- tools/fake_bench
expect 2 "$scratch/old" fake_bench
expect 2 "$scratch/old" "$scratch/none" -- fake_bench
expect 2 "$scratch" -- fake_bench
expect 1 --rounds 1 --figure "no such words" "$scratch/old" -- fake_bench
exit $fail
