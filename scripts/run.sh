#!/bin/sh
# Installs what is missing, builds, and plays the demo (arguments go to it: --crowd 500, --help, ...).
#   ./scripts/run.sh [--xvfb] [marionette options...]
# The first run builds the demo (engine and game, not the tests and tools: about a minute on two cores;
# the build's progress is shown). Later runs build only what changed and skip CMake's configure step
# unless build/ is new or the arguments changed (scripts/test.sh builds everything).
# The demo needs a window: with no display (DISPLAY and WAYLAND_DISPLAY unset, SDL_VIDEODRIVER not
# offscreen, no --headless) it says so and exits with status 1, before building anything. --xvfb (an
# option of this script, anywhere among the arguments) runs the demo under xvfb-run instead: an X server
# with no screen, so nothing is seen, but --script, --screenshot and --trace work as on a desktop.
# F12's screenshots go to screenshots/ in the current folder.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"

xvfb=false
headless=false
for argument in "$@"; do
    shift
    case $argument in
    --xvfb) xvfb=true; continue ;;
    --headless | --help | -h) headless=true ;;
    esac
    set -- "$@" "$argument"
done

if ! $xvfb && ! $headless && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] &&
    [ "${SDL_VIDEODRIVER:-}" != offscreen ]; then
    echo "run: no display (DISPLAY and WAYLAND_DISPLAY are unset): use a desktop session, or" \
        "./scripts/run.sh --xvfb ... (xvfb-run, nothing shown) or --headless" >&2
    exit 1
fi

SETUP_TARGETS=marionette "$root/scripts/setup.sh" "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
if $xvfb; then
    exec xvfb-run -a -s '-screen 0 1280x720x24' "$root/build/game/marionette" "$@"
fi
exec "$root/build/game/marionette" "$@"
