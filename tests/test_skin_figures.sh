#!/bin/sh
# test_skin_figures: scripts/skin_figures.sh, the twisted-joint figures of docs/your-own-model.md ("Skinning")
# through md5tool's public interface (synth --limb, skin --skinning linear|dq), gives what that guide states:
# at 90 degrees linear blend keeps 50.0% of the joint's cross-section, at 150 degrees 6.7% (cos^2 of half
# the angle), dual quaternions 100.0% at both.
#   tests/test_skin_figures.sh BUILD_DIR
set -u
cd "$(dirname "$0")/.."
out=$(./scripts/skin_figures.sh "$1") || { echo "FAIL: skin_figures.sh failed"; exit 1; }
echo "$out"
expected="twisted 90 degrees: the joint's cross-section keeps 50.0% with linear blend, 100.0% with dual quaternions
twisted 150 degrees: the joint's cross-section keeps 6.7% with linear blend, 100.0% with dual quaternions"
[ "$out" = "$expected" ] || { echo "FAIL: expected:"; echo "$expected"; exit 1; }
