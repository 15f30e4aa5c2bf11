#!/usr/bin/env bash
# Sourced by the bench-*-vs-pillow scripts: makes sure Pillow is there, builds `shashin` in
# release and sets `shashin` (its path) and `workdir` (a temporary folder removed on exit).
# Reads SWIFT, SCRATCH_PATH and NO_PILLOW (set: Pillow is not needed).
SWIFT=${SWIFT:-swift}
scratch=()
[[ -n "${SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SCRATCH_PATH")

[[ -n "${NO_PILLOW:-}" ]] || python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow

echo "Building shashin (release)…" >&2
"$SWIFT" build -c release --product shashin "${scratch[@]}" >&2
shashin="$("$SWIFT" build -c release --show-bin-path "${scratch[@]}")/shashin"

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
