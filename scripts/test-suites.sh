#!/usr/bin/env bash
# The plain test suites of `make test`, each group in a process of its own, against the debug
# build `swift build --build-tests` made. Why the groups are apart:
# - the decoder's CPU-heavy tests would otherwise share the two cores with the socket tests,
#   whose servers then answer late;
# - the memory suites count libvips' process-wide allocations, vips-tracked bytes or peak
#   memory, which a neighbour's decode moves: they also run one test at a time (`--no-parallel`);
# - the process suites start `shashin` and `shashin-dev` processes (and kill them) and load the
#   machine in bursts the socket tests' waits need not share. (The header flood holds the thread
#   libcurl shares between every URLSession of a process.) A suite that starts a process belongs
#   here: Foundation's `Process.run` reads past its buffer while listing /proc/self/fd when the
#   process has many descriptors open, as the socket suites' process does, which
#   AddressSanitizer stops on (scripts/test-sanitized.sh runs the same groups).
#
# The groups run the built bundle through scripts/run-test-bundle.sh (directly on Linux), with
# Swift Testing's `--quiet`: each group prints its failures and its summary line only.
# VERBOSE=1 prints every test as it starts and ends (to see which one hangs).
#
#   scripts/test-suites.sh [GROUP ...]   GROUP: core feed vips memory server process (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
quiet=(--quiet)
[[ "${VERBOSE:-0}" == 1 ]] && quiet=()

memory_suites='DecoderMemory|ProcessorMemoryTests|DecompressionBombMemory|DecodeBudgetMemory|theDirectPathReleasesEverythingOnEveryPath'
process_suites='DiskCacheCrashTests|DiskCacheTwoProcessTests|LiveToolTests|LiveToolAuthenticationTests|LiveCacheToolTests|SoakTests|HostileHeaderFloodTests'

run() { SWIFT=$SWIFT scripts/run-test-bundle.sh ${quiet[@]+"${quiet[@]}"} "$@"; }

group() {
    local started=$SECONDS
    echo "== $1"
    case $1 in
        core)    run --filter ShashinCoreTests ;;
        feed)    run --filter ShashinFeedTests ;;
        vips)    run --filter ShashinVipsTests --skip "$memory_suites" ;;
        memory)  run --no-parallel --filter "$memory_suites" ;;
        server)  run --filter 'ImageServerTests|ShashinTests' --skip "$process_suites" ;;
        process) run --filter "$process_suites" ;;
        *) echo "unknown group: $1 (core feed vips memory server process)" >&2; return 2 ;;
    esac
    echo "== $1: $((SECONDS - started)) s"
}

groups=("$@")
(( ${#groups[@]} )) || groups=(core feed vips memory server process)
for g in "${groups[@]}"; do group "$g"; done
