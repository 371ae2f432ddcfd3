#!/bin/sh
# Installs what is missing, builds, and runs md5tool with the given arguments (the demo comes later).
#   ./scripts/run.sh info ../shared/real-md5/boneman/boneman.md5mesh
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
exec "$root/build/tools/md5tool" "$@"
