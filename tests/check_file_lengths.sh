#!/bin/sh
# check_file_lengths: no source file in engine/ or game/ is over 1,000 lines (issue 36: a file that grows past
# that is split by what its parts own, as crowd_spots.c came out of crowd.c). Prints each file over the limit
# as `path: N lines (at most 1000)` and fails when there is one.
#   tests/check_file_lengths.sh [ROOT]     ROOT defaults to this checkout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "${1:-$here/..}" && pwd -P) || exit 2
cd "$root" || exit 2
limit=1000
over=$(find engine game -type f \( -name '*.c' -o -name '*.h' \) -exec wc -l {} + 2>/dev/null |
    awk -v limit=$limit '$2 != "total" && $1 > limit { printf "%s: %d lines (at most %d)\n", $2, $1, limit }' |
    sort)
if [ -n "$over" ]; then
    echo "$over"
    exit 1
fi
echo "check_file_lengths: every file in engine/ and game/ within $limit lines"
