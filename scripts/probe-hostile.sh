#!/usr/bin/env bash
# Probes `shashin fetch` (the pipeline) and `shashin http get --cache-dir` (the HTTP cache) against
# `shashin-dev hostile`, a raw-TCP origin that breaks HTTP's rules in exact bytes, then decodes
# issue 13's memory shapes from files; prints a Markdown table (behaviour, command, outcome,
# time, peak memory) for RELIABILITY.md.
#
#   scripts/probe-hostile.sh                 # release build; about 3 minutes (the 60 s idle timeout and the header flood are most of it)
#   CONFIG=debug scripts/probe-hostile.sh    # the debug build instead
#   LIFTED=1 scripts/probe-hostile.sh        # also decode the memory shapes with the budget lifted to 4 GB (needs ~1.5 GB free)
#   LOADERS=urlsession scripts/probe-hostile.sh   # the network probes on these loaders only (default: both)
#
# Time and peak memory are /usr/bin/time's wall clock and maximum resident set size of the whole
# `shashin` process (a bare `shashin` run on this machine peaks at about 60–70 MB of that).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
CONFIG=${CONFIG:-release}
LIFTED=${LIFTED:-0}
LOADERS=${LOADERS:-asynchttpclient urlsession}

NEED_PILLOW=1 scripts/install-deps.sh >&2 # libvips-tools: `vips` writes the progressive JPEG
echo "Building shashin and shashin-dev ($CONFIG)…" >&2
"$SWIFT" build -c "$CONFIG" --product shashin >&2
"$SWIFT" build -c "$CONFIG" --product shashin-dev >&2
bin_path=$("$SWIFT" build -c "$CONFIG" --show-bin-path)
shashin="$bin_path/shashin"
dev="$bin_path/shashin-dev"

work=$(mktemp -d)
origin_pid=""
cleanup() {
    [[ -n "$origin_pid" ]] && kill "$origin_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

"$dev" hostile --port 0 > "$work/origin.log" 2>&1 &
origin_pid=$!
for _ in $(seq 1 100); do grep -q "listening" "$work/origin.log" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^HostileOrigin listening on \(http:[^ ]*\)$/\1/p' "$work/origin.log")
[[ -n "$base" ]] || { echo "the hostile origin did not start" >&2; cat "$work/origin.log" >&2; exit 1; }
# A second origin: the target of the redirect to another loopback port.
"$dev" hostile --port 0 > "$work/other.log" 2>&1 &
other_pid=$!
trap 'kill "$other_pid" 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 100); do grep -q "listening" "$work/other.log" 2>/dev/null && break; sleep 0.1; done
other_port=$(sed -n 's/^HostileOrigin listening on http:\/\/127.0.0.1:\([0-9]*\)\/$/\1/p' "$work/other.log")

# Issue 13's decode shapes, all black: PNGs written here (zlib, streamed), the JPEG by libvips.
python3 - "$work" <<'PY'
import struct, sys, zlib
def png(path, width, height, depth, colour, interlaced):
    channels = {0: 1, 2: 3, 6: 4}[colour]
    passes = [(0,0,8,8),(4,0,8,8),(0,4,4,8),(2,0,4,4),(0,2,2,4),(1,0,2,2),(0,1,1,2)] if interlaced else [(0,0,1,1)]
    raw = 0
    for x, y, dx, dy in passes:
        cols = (width - x + dx - 1) // dx if width > x else 0
        rows = (height - y + dy - 1) // dy if height > y else 0
        if cols: raw += rows * (1 + (cols * channels * depth + 7) // 8)
    z = zlib.compressobj(1)
    idat, zeros = [], bytes(1 << 20)
    while raw:
        n = min(raw, len(zeros)); raw -= n
        idat.append(z.compress(zeros[:n]))
    idat.append(z.flush())
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 1 if interlaced else 0)))
        f.write(chunk(b"IDAT", b"".join(idat)))
        f.write(chunk(b"IEND", b""))
png(sys.argv[1] + "/png16-interlaced.png", 10000, 10000, 16, 2, True)
png(sys.argv[1] + "/grey.png", 10000, 10000, 8, 0, False)
PY
vips black "$work/progressive.jpg[interlace,Q=90]" 10000 10000 --bands 3

row() { printf '| %s | %s | `%s` | %s | %s | %s |\n' "$1" "$loader" "$2" "$3" "$4" "$5"; }

# probe NAME SHOWN-COMMAND -- COMMAND...: runs it (at most 400 s), reports the outcome (the
# error, or the first line of success), wall time and peak resident memory.
probe() {
    local name=$1 shown=$2; shift 3
    local status=0
    /usr/bin/time -f "%e %M" -o "$work/time" timeout 400 "$@" > "$work/out" 2> "$work/err" || status=$?
    local seconds kb outcome
    read -r seconds kb < <(tail -1 "$work/time")
    if [[ $status -eq 124 ]]; then
        outcome="still running after 400 s (killed)"
    elif grep -q '^error: ' "$work/err"; then
        outcome=$(grep -m1 '^error: ' "$work/err" | sed 's/^error: //')
    else
        outcome=$(head -1 "$work/out" | sed "s#$base##; s#file://$work/##; s/, [0-9.]* ms (network.*//")
    fi
    outcome=${outcome//|/\\|}
    row "$name" "$shown" "$outcome" "${seconds} s" "$((kb / 1024)) MB"
}

echo "| Behaviour | Loader | Command | Outcome | Time | Peak memory |"
echo "|---|---|---|---|---|---|"
fetch() { local path=$1; shift; probe "$label" "shashin fetch $path $*" -- "$shashin" fetch "$base$path" --loader "$loader" "$@"; }
httpget() { local path=$1; rm -rf "$work/cache"; probe "$label" "shashin http get $path --cache-dir D" -- "$shashin" http get "$base$path" --cache-dir "$work/cache" --loader "$loader"; }

for loader in $LOADERS; do

label="401 + WWW-Authenticate"; fetch auth-challenge; httpget auth-challenge
label="100 Continue, then 200"; fetch continue-100; httpget continue-100
label="103 Early Hints, then 200"; fetch early-hints-103; httpget early-hints-103
label="302 to file:///etc/passwd"; fetch redirect-to-file; httpget redirect-to-file
label="302 to data:"; fetch redirect-to-data; httpget redirect-to-data
label="302 to another loopback port"; fetch "redirect-to-loopback?to=$other_port"
label="302 to another loopback port, destination policy on"; fetch "redirect-to-loopback?to=$other_port" --refuse-internal-addresses
label="Name:value (no space)"; fetch header-without-space; httpget header-without-space
label="51,000 header lines"; fetch many-headers
label="two Content-Length values"; fetch two-content-lengths; httpget two-content-lengths
label="garbage status line"; fetch garbage-status-line; httpget garbage-status-line
label="HTTP/0.9 reply"; fetch http-0.9; httpget http-0.9
label="broken gzip body"; fetch broken-gzip; httpget broken-gzip
label="2 MB header line"; fetch huge-header-line; httpget huge-header-line
label="headers, 100 bytes, then silence"; fetch stall
label="Content-Length half the body"; fetch short-content-length
label="Content-Length twice the body"; fetch long-content-length; httpget long-content-length
done

loader="—" # files: no HTTP client

shape() {
    local name=$1 file=$2; shift 2
    probe "$name" "shashin fetch file://$file $*" -- "$shashin" fetch "file://$work/$file" "$@"
}
shape "16-bit interlaced PNG 10000² (RGB), thumbnail" png16-interlaced.png --thumbnail 256
shape "16-bit interlaced PNG 10000² (RGB), full" png16-interlaced.png
shape "progressive JPEG 10000², thumbnail" progressive.jpg --thumbnail 256
shape "grey PNG 10000², full" grey.png
shape "grey PNG 10000², thumbnail" grey.png --thumbnail 256
if [[ "$LIFTED" == 1 ]]; then
    shape "16-bit interlaced PNG 10000², thumbnail, budget 4 GB" png16-interlaced.png --thumbnail 256 --decode-budget-mb 4096
    shape "progressive JPEG 10000², thumbnail, budget 4 GB" progressive.jpg --thumbnail 256 --decode-budget-mb 4096
    shape "grey PNG 10000², full, budget 4 GB" grey.png --decode-budget-mb 4096
fi
ls -l "$work"/*.png "$work"/*.jpg | awk '{ printf "%s: %d bytes\n", $NF, $5 }' | sed "s#$work/##" >&2
