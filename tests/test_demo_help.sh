#!/bin/sh
# test_demo_help: `marionette --help` names every file --config reads (it named three of the five), and
# exits 0 without opening a window.
#   tests/test_demo_help.sh MARIONETTE
set -u
out=$("$1" --help) || { echo "FAIL: --help exited non-zero"; exit 1; }
fail=0
for file in characters.ini clips.ini states.ini controls.ini demo.ini; do
    echo "$out" | grep -q "$file" || { echo "FAIL: --help does not name $file"; fail=1; }
done
[ $fail = 0 ] && echo "--help names all five files --config reads"
exit $fail
