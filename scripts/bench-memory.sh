#!/usr/bin/env bash
# Peak memory while decoding 100 different 12 MP JPEGs (4000×3000, ~2 MB each) as 256 px
# thumbnails one after another, through a default pipeline (memory cache on, disk cache off),
# served over loopback by `shashin serve` in a process of its own. Prints the JSON line of
# `shashin-bench memory` and a one-line verdict.
#
#   scripts/bench-memory.sh                 # from the repository root; builds release first
#   COUNT=20 scripts/bench-memory.sh
#   SMOKE=1 scripts/bench-memory.sh         # 3 pictures on the debug build: checks the script works
#
# The pictures are generated once (seeds 1...COUNT) into a cache folder, BENCH_MEMORY_DIR
# (default .build/bench-memory-jpegs), since making 100 of them takes a minute or two.
set -euo pipefail
cd "$(dirname "$0")/.."

[[ "${SMOKE:-0}" == 1 ]] && COUNT=3
COUNT=${COUNT:-100}
THUMBNAIL=${THUMBNAIL:-256}
DIR=${BENCH_MEMORY_DIR:-.build/bench-memory-jpegs}
NO_PILLOW=1 source scripts/bench-common.sh
mkdir -p "$DIR"

files=()
for seed in $(seq 1 "$COUNT"); do
    file="$DIR/photo-$seed-4000x3000.jpg"
    if [[ ! -s "$file" ]]; then
        "$shashin" generate --format jpeg --width 4000 --height 3000 --seed "$seed" -o "$file.tmp" >/dev/null
        mv "$file.tmp" "$file"
    fi
    files+=("$file")
done

# The server, on any free port: its first line names it.
"$shashin" serve --port 0 --files "$DIR" --gallery 0 > "$workdir/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$workdir"' EXIT
base=""
for _ in $(seq 600); do
    base=$(sed -n 's/^ImageServer listening on \(http:[^ ]*\)$/\1/p' "$workdir/serve.log")
    [[ -n "$base" ]] && break
    kill -0 $server 2>/dev/null || { cat "$workdir/serve.log" >&2; exit 1; }
    sleep 0.1
done
[[ -n "$base" ]] || { echo "shashin serve did not start" >&2; exit 1; }
base=${base%/}
urls=()
for file in "${files[@]}"; do urls+=("$base/files/$(basename "$file")"); done

result=$("$bench" memory --thumbnail "$THUMBNAIL" --warm-up "$base/gen/1-16x16.png" "${urls[@]}")
echo "$result"
python3 - "$result" <<'PY'
import json, os, sys
r = json.loads(sys.argv[1])
print(f"{r['images']} different 4000×3000 JPEGs → {r['outputs']} thumbnails in {r['seconds']} s: "
      f"idle {r['idle_resident_mb']} MB, peak {r['peak_resident_mb']} MB, peak above idle {r['peak_above_idle_mb']} MB "
      f"(of which the memory cache holds {r['memory_cache_mb']} MB of thumbnails); "
      f"goal < 100 MB above idle: {'met' if r['peak_above_idle_mb'] < 100 else 'NOT met'}; load average {os.getloadavg()[0]:.2f}")
PY
