#!/usr/bin/env bash
# Runs test suites again and again and counts, per suite, the runs in which it passed: how
# RELIABILITY.md's pass rates are measured. Each run is one `swift test` process over every
# suite matched by FILTER (suites then share the machine as in `make test`); a failing run's
# output is kept in LOG_DIR.
#
#   scripts/repeat-tests.sh [--sanitize thread|address] RUNS FILTER [SKIP]
#   scripts/repeat-tests.sh 50 DiskCacheTwoProcessTests
#   scripts/repeat-tests.sh --sanitize thread 20 'ImageServerTests|ShashinTests' 'SoakTests'
#
# Builds first (under a sanitizer in the build folder scripts/test-sanitized.sh uses).
set -euo pipefail
SWIFT=${SWIFT:-swift}
sanitizer=""
if [[ "${1:-}" == "--sanitize" ]]; then sanitizer=$2; shift 2; fi
runs=${1:?usage: scripts/repeat-tests.sh [--sanitize thread|address] RUNS FILTER [SKIP]}
filter=${2:?a --filter pattern}
skip=${3:-}
log_dir=${LOG_DIR:-$(mktemp -d /tmp/shashin-repeat-XXXXXX)}
mkdir -p "$log_dir"

args=()
build=(build --build-tests)
scratch=.build
if [[ -n "$sanitizer" ]]; then
    scratch=".build-${sanitizer}-sanitized"
    build+=(--sanitize="$sanitizer" --scratch-path ".build-${sanitizer}-sanitized")
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1 suppressions=$PWD/scripts/tsan-suppressions.txt}
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi
[[ -n "$skip" ]] && args+=(--skip "$skip")
"$SWIFT" "${build[@]}" >"$log_dir/build.log" 2>&1 || { tail -20 "$log_dir/build.log"; exit 1; }

declare -A passed failed
whole_runs_passed=0
for ((run = 1; run <= runs; run++)); do
    log="$log_dir/run-$run.log"
    status=0
    SWIFT=$SWIFT SCRATCH=$scratch SANITIZE=$sanitizer scripts/run-test-bundle.sh ${args[@]+"${args[@]}"} --filter "$filter" >"$log" 2>&1 || status=$?
    # Swift Testing prints one line per suite: `✔ Suite X passed` / `✘ Suite X failed`; XCTest is not used here.
    while IFS=$'\t' read -r mark name; do
        if [[ "$mark" == "✔" ]]; then passed[$name]=$(( ${passed[$name]:-0} + 1 )); else failed[$name]=$(( ${failed[$name]:-0} + 1 )); fi
    done < <(sed -nE 's/^(✔|✘) Suite "?([^"]+[^" ])"? (passed|failed) .*/\1\t\2/p' "$log")
    if [[ $status -eq 0 ]]; then
        whole_runs_passed=$((whole_runs_passed + 1)); rm -f "$log"
    else
        echo "run $run failed (exit $status): $log"
    fi
done

echo "${sanitizer:-plain}: $whole_runs_passed of $runs runs passed whole (filter '$filter'${skip:+, skipping '$skip'})"
while IFS= read -r name; do
    p=${passed[$name]:-0}; f=${failed[$name]:-0}
    echo "  $name: $p of $((p + f)) passed"
done < <(printf '%s\n' "${!passed[@]}" "${!failed[@]}" | sort -u)
[[ $whole_runs_passed -eq $runs ]]
