#!/bin/sh
# check_layers: the arrows between the tree's layers, read from the #include lines of engine/, game/ and
# tools/ (issue 17). Prints each violation as file:line and fails when
#   - a file in engine/ includes a header of game/ or tools/ (the engine knows neither);
#   - a file in game/ includes a header of tools/ (the demo needs no tool);
#   - a file outside engine/platform/ includes an SDL header (SDL.h, SDL_*.h, SDL2/...): one room knows SDL;
#   - a file outside engine/gfx/ and engine/platform/ includes a GL header (GL/..., EGL/..., epoxy/...): the
#     renderer and the window are the rooms that know GL (architecture.md's "must not know"); a benchmark
#     asks gfx (gfx_finish, gfx_renderer_name);
#   - a file in game/, or in engine/ outside engine/md5/ and engine/build/, includes a header of a format
#     reader (engine/md5/): files are read and written through the loader table (build/loader.h), so a new
#     format is one reader and one row, and nothing above the build step knows what a format's text looks like.
# tests/ is not scanned: tests drive and inspect everything, SDL included.
# A quoted include is looked up where the build finds it (the including file's folder, engine/, the
# repository root, game/, tools/ and each tools/*/ folder); the first file that exists names the layer.
# Angle-bracket includes are system headers (<png.h> is libpng, not tools/common/png.h) and are checked
# only for SDL and GL. A name found nowhere (a generated or system header) is not a layer question.
#   tests/check_layers.sh [ROOT]     ROOT defaults to this checkout. There are no exceptions: no list of
#                                    files allowed to break a rule.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "${1:-$here/..}" && pwd -P) || exit 2
cd "$root" || exit 2

violations=0
report() { # FILE:LINE MESSAGE
    echo "$1: $2"
    violations=$((violations + 1))
}

layer_of() { # PATH relative to the root, maybe with ../ in it: engine, game, tools or other
    case $1 in
    *..*) resolved=$(cd "$(dirname "$1")" 2>/dev/null && pwd -P) || resolved=""
        resolved=${resolved#"$root"/} ;;
    *) resolved=$1 ;;
    esac
    case $resolved in
    engine/* | engine) echo engine ;;
    game/* | game) echo game ;;
    tools/* | tools) echo tools ;;
    *) echo other ;;
    esac
}

resolve() { # FOLDER NAME: the first candidate that exists, relative to the root; nothing if none does
    for candidate in "$1/$2" "engine/$2" "$2" "game/$2" "tools/$2" tools/*/"$2"; do
        if [ -f "$candidate" ]; then
            echo "$candidate"
            return
        fi
    done
}

files=$(find engine game tools -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | LC_ALL=C sort)
for file in $files; do
    folder=$(dirname "$file")
    layer=${file%%/*}
    includes=$(awk '{
        if (match($0, /^[ \t]*#[ \t]*include[ \t]*[<"][^>"]*[>"]/)) {
            spec = substr($0, RSTART, RLENGTH)
            sub(/^[ \t]*#[ \t]*include[ \t]*/, "", spec)
            print FNR " " spec
        }
    }' "$file")
    [ -n "$includes" ] || continue
    while read -r line spec; do
        name=${spec#?}
        name=${name%?}
        case $name in
        SDL.h | SDL_*.h | SDL2/*)
            case $file in
            engine/platform/*) ;;
            *) report "$file:$line" "includes $spec: only engine/platform/ may include SDL" ;;
            esac
            continue
            ;;
        esac
        case $name in
        GL/* | EGL/* | epoxy/* | glad/*)
            case $file in
            engine/gfx/* | engine/platform/*) ;;
            *) report "$file:$line" "includes $spec: only engine/gfx/ and engine/platform/ may include GL" ;;
            esac
            continue
            ;;
        esac
        case $spec in
        \"*) ;;
        *) continue ;;
        esac
        case $layer in
        engine | game) ;;
        *) continue ;;
        esac
        target=$(resolve "$folder" "$name")
        [ -n "$target" ] || continue
        target_layer=$(layer_of "$target")
        canonical=$target
        case $target in
        *..*) canonical=$(cd "$(dirname "$target")" 2>/dev/null && pwd -P)/$(basename "$target")
            canonical=${canonical#"$root"/} ;;
        esac
        case $canonical in
        engine/md5/*)
            case $file in
            engine/md5/* | engine/build/*) ;;
            engine/* | game/*) report "$file:$line" "includes $spec ($canonical): only engine/build/ may know a format reader" ;;
            esac
            ;;
        esac
        case $layer:$target_layer in
        engine:game | engine:tools | game:tools)
            report "$file:$line" "includes $spec ($target): $layer/ must not depend on $target_layer/" ;;
        esac
    done <<EOF
$includes
EOF
done

if [ "$violations" -gt 0 ]; then
    echo "check_layers: $violations violation(s)"
    exit 1
fi
echo "check_layers: engine/, game/ and tools/ keep their arrows ($(printf '%s\n' "$files" | wc -l | tr -d ' ') files)"
exit 0
