#!/usr/bin/env bash
# Runs the package's built test bundle with Swift Testing's arguments (--filter, --skip,
# --no-parallel), as `swift test --skip-build` would. On Linux the bundle is an executable and runs
# directly: `swift test` loads and resolves the package graph again on every call (8–28 s on two
# cores), which the test scripts pay once per group. Elsewhere, or before a build, `swift test`.
#   SCRATCH=DIR   the build folder (default .build)
#   SANITIZE=X    the sanitizer the folder was built with (for the `swift test` form)
#   usage: scripts/run-test-bundle.sh [--quiet] [--filter P] [--skip P] [--no-parallel]
set -euo pipefail
SWIFT=${SWIFT:-swift}
scratch=${SCRATCH:-.build}
# The runner colours its output even into a pipe: plain text unless on a terminal.
[[ -t 1 ]] || export NO_COLOR=1
bundle="$scratch/debug/ShashinPackageTests.xctest"
if [[ "$(uname -s)" == "Linux" && -x "$bundle" ]]; then
    exec "$bundle" --testing-library swift-testing "$@"
fi
exec "$SWIFT" test --skip-build --scratch-path "$scratch" ${SANITIZE:+--sanitize="$SANITIZE"} "$@"
