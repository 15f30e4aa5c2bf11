#!/usr/bin/env bash
# The whole test suite again under a sanitizer: `thread` (ThreadSanitizer) or `address`
# (AddressSanitizer), each in its own build folder (the flag rebuilds everything).
#
# Each test target runs in its own process: instrumented code is several times slower, and the
# socket tests' waits, shared with every other suite's work on two cores, would otherwise run out.
# Left out: the memory suites, one decoder test and the short soak, which read resident memory —
# the sanitizers' shadow memory and quarantine are what they would measure. (The soak's other
# checks — every task ends once, the pipeline drains — are the stress test's, which does run.) AddressSanitizer runs without LeakSanitizer: at exit it reports
# allocations Foundation, Dispatch and the test runner keep for the life of the process; leaks are
# watched instead by the soak's resident-memory check (RELIABILITY.md).
set -euo pipefail
sanitizer=${1:?usage: scripts/test-sanitized.sh thread|address}
SWIFT=${SWIFT:-swift}
scratch=.build-${sanitizer}-sanitized
memory_suites='DecoderMemory|ProcessorMemoryTests|DecompressionBombMemory|DecodeBudgetMemory|theDirectPathReleasesEverythingOnEveryPath'
process_suites='DiskCacheCrashTests|DiskCacheTwoProcessTests|LiveToolTests|LiveToolAuthenticationTests|LiveCacheToolTests|HostileHeaderFloodTests'
soak='SoakTests'
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# One suppression, for a false positive in the Swift runtime (scripts/tsan-suppressions.txt);
# any other report, ours or a dependency's, stops the run.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1 suppressions=$PWD/scripts/tsan-suppressions.txt}
# The stress test's 100,000 requests take minutes under a sanitizer; 10,000 find the same races.
export SHASHIN_STRESS_REQUESTS=${SHASHIN_STRESS_REQUESTS:-10000}

run() { SWIFT=$SWIFT SCRATCH=$scratch SANITIZE=$sanitizer scripts/run-test-bundle.sh "$@"; }

"$SWIFT" build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
run --filter ShashinCoreTests
run --filter ShashinVipsTests --skip "$memory_suites"
run --filter ImageServerTests
run --filter ShashinTests --skip "$process_suites|$soak"
run --filter "$process_suites"
echo "The suite is clean under the ${sanitizer} sanitizer."
