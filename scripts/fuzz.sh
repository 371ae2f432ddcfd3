#!/bin/sh
# Runs the libFuzzer targets of tests/fuzz, one after the other, for SECONDS each.
#   ./scripts/fuzz.sh SECONDS [TARGET...]     TARGET: fuzz_md5mesh fuzz_md5anim fuzz_config fuzz_settings
#                                             fuzz_ini_writer fuzz_scripts (default: all)
#   FUZZ_RUNS=N ./scripts/fuzz.sh 0 ...       until N executions instead (SECONDS 0: no time limit)
#   FUZZ_JOBS=J ...                           J fuzzing processes sharing the corpus (one per core), each
#                                             running SECONDS or N/J executions; figures are their sums
#   FUZZ_TIMEOUT=S ...                        an execution taking S seconds is a hang (default 10). The clock
#                                             is the wall's: a long run niced under other work needs more
# Configures and builds build-fuzz with clang the first time. Each target's corpus grows in
# build-fuzz/corpus/TARGET across runs; the seeds (tests/data, assets/, config/, docs/, and the .md5mesh and
# .md5anim files of MARIONETTE_REAL_MD5 when that setting names a folder: docs/tests.md, "Test data") are
# copied fresh into build-fuzz/seeds/TARGET every run. Prints executions and exec/s per target; exits non-zero
# on any crash, leak or timeout, naming the file that reproduces it (replay: build-fuzz/tests/fuzz/TARGET
# FILE; add it to tests/ as a regression test).
set -eu
cd "$(dirname "$0")/.."

if [ $# -lt 1 ]; then
    echo "usage: $0 SECONDS [fuzz_md5mesh|fuzz_md5anim|fuzz_config|fuzz_settings|fuzz_ini_writer|fuzz_scripts...]" >&2
    exit 2
fi
seconds=$1
shift
targets=${*:-fuzz_md5mesh fuzz_md5anim fuzz_config fuzz_settings fuzz_ini_writer fuzz_scripts}
build=build-fuzz
root=$(pwd)
# The config and settings targets write their input as files, three per execution: in memory (/dev/shm)
# that costs a quarter less than on a disk. An explicit TMPDIR wins.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang cmake -S . -B "$build" -DMARIONETTE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF
fi
# shellcheck disable=SC2086 # one word per target
cmake --build "$build" -j "$(nproc)" --target $targets
# Third-party seeds: the folder the build was configured with (empty or missing: none).
real_md5=$(sed -n 's/^MARIONETTE_REAL_MD5:[A-Z]*=//p' "$build/CMakeCache.txt")

copy_seeds() { # FOLDER FILE...: the files that exist, under their own names
    folder=$1
    shift
    for file in "$@"; do
        [ -f "$file" ] && cp "$file" "$folder/"
    done
    return 0
}

# One config seed: characters.ini, clips.ini and states.ini joined by the 0x1e byte fuzz_config cuts at,
# with the paths of tests/data/config rewritten for the fuzzer's folder (config/ beside assets/). Whole-line
# comments are left out (inline ones stay): the shipped files are two-thirds documentation, which every
# execution would parse twice per character under coverage instrumentation for no new coverage.
config_seed() { # OUT CHARACTERS CLIPS STATES
    out=$1
    {
        cat "$2"
        printf '\036'
        cat "$3"
        printf '\036'
        cat "$4"
    } | sed -e '/^[[:space:]]*;/d' -e 's#\.\./\.\./\.\./assets/#../assets/#g' -e 's#\.\./\.\./\.\./config/##g' >"$out"
}

seed() { # TARGET FOLDER
    case $1 in
    fuzz_md5mesh)
        copy_seeds "$2" tests/data/quirks/*.md5mesh tests/data/quirks/camera.md5camera assets/models/*.md5mesh
        [ -z "$real_md5" ] || copy_seeds "$2" "$real_md5"/*.md5mesh "$real_md5"/*/*.md5mesh ;;
    fuzz_md5anim)
        copy_seeds "$2" tests/data/quirks/*.md5anim assets/clips/*.md5anim
        [ -z "$real_md5" ] || copy_seeds "$2" "$real_md5"/*.md5anim "$real_md5"/*/*.md5anim ;;
    fuzz_config)
        config_seed "$2/config" config/characters.ini config/clips.ini config/states.ini
        for file in tests/data/config/*.ini; do
            name=$(basename "$file" .ini)
            case $name in
            characters_*) config_seed "$2/$name" "$file" config/clips.ini config/states.ini ;;
            states_*) config_seed "$2/$name" config/characters.ini config/clips.ini "$file" ;;
            *) config_seed "$2/$name" config/characters.ini "$file" config/states.ini ;;
            esac
        done ;;
    fuzz_settings) # controls.ini, demo.ini and an input script, joined by 0x1e as fuzz_settings cuts them;
        # also each script after two empty files (the defaults), short inputs that mutate fast
        for file in tests/data/demo/*.txt docs/*_script.txt; do
            name=$(basename "$file" .txt)
            { cat config/controls.ini; printf '\036'; cat config/demo.ini; printf '\036'; cat "$file"; } >"$2/$name"
            { printf '\036\036'; cat "$file"; } >"$2/$name-alone"
        done ;;
    fuzz_ini_writer) # names and paths as new-character is given them, cut by 0x1e; 0x1d opens a section.
        # The shipped configs' values are the seeds' words: each file's values, one piece each.
        for file in config/*.ini tests/data/config/*.ini; do
            sed -n 's/^[^;#[][^=]*= *//p' "$file" | tr '\n' '\036' >"$2/$(basename "$file" .ini)"
        done
        printf 'hero\036../a ;b/a ;b.md5mesh\036\035clips\036../n\nl/x.md5anim\036 lead\036trail \036;c' >"$2/specials" ;;
    fuzz_scripts) # an input script, 0x1e, a trace script: each of ours with each other's kind empty
        for file in tests/data/demo/*.txt docs/*_script.txt; do
            { cat "$file"; printf '\036'; } >"$2/input-$(basename "$file" .txt)"
        done
        for file in tests/data/trace/*.txt; do
            [ -f "$file" ] && { printf '\036'; cat "$file"; } >"$2/trace-$(basename "$file")"
        done
        printf '\0360 set speed 1.4\n0.1 trigger jump\n0.2 set grounded false\n0.25 end\n' >"$2/trace-short" ;;
    *)
        echo "fuzz: unknown target $1" >&2
        return 1 ;;
    esac
}

# A small ASan quarantine: the default 256 MB makes every allocation touch fresh pages, which made the
# config fuzzer three times slower; use after free within the last 16 MB of frees is still caught.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
# fuzz_config writes its three ini files every execution: in memory, not through a disk's write-back.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi

failed=""
for target in $targets; do
    corpus=$build/corpus/$target
    seeds=$build/seeds/$target
    crashes=$build/crashes
    log=$build/$target.log
    rm -rf "$seeds"
    mkdir -p "$corpus" "$seeds" "$crashes"
    seed "$target" "$seeds"
    case $target in
    fuzz_config) dictionary=tests/fuzz/config.dict ;;
    fuzz_settings) dictionary=tests/fuzz/settings.dict ;;
    fuzz_ini_writer) dictionary=tests/fuzz/ini_writer.dict ;;
    fuzz_scripts) dictionary=tests/fuzz/scripts.dict ;;
    *) dictionary=tests/fuzz/md5.dict ;;
    esac
    echo "fuzz: $target for ${seconds}s${FUZZ_RUNS:+ or $FUZZ_RUNS runs} (log $log)"
    # max_len: whole meshes of 400 KB make every execution slow; their first 16 KB (joints and a
    # first mesh) still seed every section. timeout: an input taking FUZZ_TIMEOUT (10) s is a hang.
    status=0
    start=$(date +%s)
    jobs=${FUZZ_JOBS:-1}
    runs_each=${FUZZ_RUNS:+$((FUZZ_RUNS / jobs))}
    job_logs=$root/$build/jobs/$target
    rm -rf "$job_logs"
    mkdir -p "$job_logs"
    # With jobs, libFuzzer writes each one's output to fuzz-N.log in the folder it runs in.
    (cd "$job_logs" && "$root/$build/tests/fuzz/$target" -max_total_time="$seconds" ${runs_each:+-runs=$runs_each} \
        -max_len=16384 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 -dict="$root/$dictionary" \
        -artifact_prefix="$root/$crashes/$target-" ${FUZZ_JOBS:+-jobs=$jobs -workers=$jobs} \
        "$root/$corpus" "$root/$seeds") >"$log" 2>&1 || status=$?
    if [ "$jobs" -gt 1 ]; then
        # A job that crashed ends with libFuzzer's own report; the parent may still exit 0.
        if grep -q "^==[0-9]*==ERROR\|^SUMMARY: \|ERROR: libFuzzer" "$job_logs"/fuzz-*.log; then
            status=1
            cat "$job_logs"/fuzz-*.log >>"$log"
        fi
        runs=$(cat "$job_logs"/fuzz-*.log | sed -n 's/^stat::number_of_executed_units: *//p' |
            awk '{ sum += $1 } END { print sum }')
        speed=$(cat "$job_logs"/fuzz-*.log | sed -n 's/^stat::average_exec_per_sec: *//p' |
            awk '{ sum += $1 } END { print sum }')
    else
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    fi
    elapsed=$(($(date +%s) - start))
    size=$(find "$corpus" -type f | wc -l)
    echo "fuzz: $target: ${runs:-?} executions in ${elapsed}s, ${speed:-?} exec/s, corpus $size files, exit $status"
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log"
        artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
        echo "fuzz: $target FAILED; reproduce with: $build/tests/fuzz/$target ${artifact:-(see $log)}"
        failed="$failed $target"
    fi
done

if [ -n "$failed" ]; then
    echo "fuzz: failed:$failed" >&2
    exit 1
fi
