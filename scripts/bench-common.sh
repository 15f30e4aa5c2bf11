#!/usr/bin/env bash
# Sourced by the bench-*.sh scripts: makes sure Pillow and the tools are there, builds `shashin`
# (generate, serve) and `shashin-bench` (the measuring commands) and sets `shashin` and `bench`
# (their paths) and `workdir` (a temporary folder removed on exit).
# Reads SWIFT, SCRATCH_PATH, NO_PILLOW (set: Pillow is not needed) and SMOKE.
#
# SMOKE=1 is the scripts' smoke mode, which `make check` runs (`make bench-smoke`): the debug
# executables that `make test` has already built, and counts the caller makes tiny, so a script
# that no longer works fails CI in seconds. Its figures mean nothing and are never recorded.
SWIFT=${SWIFT:-swift}
scratch=()
[[ -n "${SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SCRATCH_PATH")
configuration=release
if [[ "${SMOKE:-0}" == 1 ]]; then
    configuration=debug
    echo "SMOKE=1: a debug build and tiny counts; the figures and verdicts printed below mean nothing." >&2
fi

# Pillow, vipsthumbnail and vips, GNU time: whatever of them is missing (a dpkg query when none is).
[[ -n "${NO_PILLOW:-}" ]] || NEED_PILLOW=1 scripts/install-deps.sh >&2

echo "Building shashin and shashin-bench ($configuration)…" >&2
"$SWIFT" build -c "$configuration" --product shashin "${scratch[@]}" >&2
"$SWIFT" build -c "$configuration" --product shashin-bench "${scratch[@]}" >&2
bin_path=$("$SWIFT" build -c "$configuration" --show-bin-path "${scratch[@]}")
shashin="$bin_path/shashin"
bench="$bin_path/shashin-bench"

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
