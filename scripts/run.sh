#!/bin/sh
# Installs what is missing, builds, and plays the demo (arguments go to it: --crowd 500, --help, ...).
#   ./scripts/run.sh
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${SDL_VIDEODRIVER:-}" != offscreen ]; then
    case " $* " in
    *" --headless "*) ;;
    *) echo "run: no display here; the demo needs a window (or pass --headless, or use xvfb-run -a)" >&2 ;;
    esac
fi
exec "$root/build/game/marionette" "$@"
