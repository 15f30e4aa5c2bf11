#!/usr/bin/env bash
# The disk cache's store cost at ENTRIES entries (default 100,000) against BASE's (a git revision,
# default 74c3d7d: the tree before processed results were filed in groups): `DiskStoreCostBench`
# (Benchmarks/DiskStoreCost) built in release from BASE (with -DBASELINE) and from the working
# tree, run in turn ROUNDS times each (which side goes first alternates), so both see the same
# machine load. Each run fills a cache of its own and prints the median µs per 4 KB store of an
# original and of a processed result over PASSES (default 21) passes of 1,000 (wall clock, and
# the process's CPU time, which other processes' load disturbs less), and the ms to remove one
# image's 5 processed variants (BASE: by listing every entry; the working tree: through the
# group index).
#
#   scripts/bench-disk-store.sh
#   BASE=main ROUNDS=11 PASSES=21 ENTRIES=100000 scripts/bench-disk-store.sh
#   SMOKE=1 scripts/bench-disk-store.sh     # the debug build alone, 2,000 entries: proves it runs
#
# Only the core is built (SHASHIN_CORE_ONLY=1), in scratch folders under BENCH_DISK_STORE_DIR
# (default .build-disk-store), so no dependency is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BASE=${BASE:-74c3d7d}
ROUNDS=${ROUNDS:-7}
ENTRIES=${ENTRIES:-100000}
PASSES=${PASSES:-21}
DIR=${BENCH_DISK_STORE_DIR:-$root/.build-disk-store}
mkdir -p "$DIR"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [[ "${SMOKE:-0}" == 1 ]]; then
    SHASHIN_CORE_ONLY=1 "${SWIFT:-swift}" build --product DiskStoreCostBench --scratch-path "$DIR/smoke" >"$DIR/smoke.log" 2>&1 \
        || { cat "$DIR/smoke.log"; exit 1; }
    "$DIR/smoke/debug/DiskStoreCostBench" "$scratch/cache" 2000 3
    exit 0
fi

build() { # package-path scratch-path [extra swiftc flags...]
    local package=$1 path=$2; shift 2
    SHASHIN_CORE_ONLY=1 "${SWIFT:-swift}" build -c release --product DiskStoreCostBench \
        --package-path "$package" --scratch-path "$path" "$@" >"$path.log" 2>&1 || { cat "$path.log"; exit 1; }
    echo "$path/release/DiskStoreCostBench"
}
head_bin=$(build "$root" "$DIR/head")

# BASE's tree with this benchmark in it.
rm -rf "$DIR/base-src" && mkdir -p "$DIR/base-src"
git archive "$BASE" | tar -x -C "$DIR/base-src"
mkdir -p "$DIR/base-src/Benchmarks" && rm -rf "$DIR/base-src/Benchmarks/DiskStoreCost" && cp -r Benchmarks/DiskStoreCost "$DIR/base-src/Benchmarks/"
if ! grep -q DiskStoreCostBench "$DIR/base-src/Package.swift"; then
    cat >>"$DIR/base-src/Package.swift" <<'SWIFT'
if coreOnly {
    package.targets.append(.executableTarget(name: "DiskStoreCostBench", dependencies: ["ShashinCore"], path: "Benchmarks/DiskStoreCost"))
}
SWIFT
fi
base_bin=$(build "$DIR/base-src" "$DIR/base" -Xswiftc -DBASELINE)

results="$DIR/results.jsonl"
: >"$results"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
    # The side that runs first alternates, so neither always meets the other's leftovers.
    order="base head"; (( round % 2 == 0 )) && order="head base"
    for side in $order; do
        bin=$base_bin; [[ $side == head ]] && bin=$head_bin
        "$bin" "$scratch/$side-$round" "$ENTRIES" "$PASSES" | sed "s/^{/{\"side\":\"$side\",\"round\":$round,/" | tee -a "$results"
        # Each run's cache (about 0.5 GB at 100,000 entries) goes before the next run, so later
        # rounds do not run beside the write-back of earlier ones.
        rm -rf "$scratch/$side-$round"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$results" "$BASE" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def values(side, field): return sorted(r[field] for r in rows if r["side"] == side)
for field, name, unit in (("storeMicroseconds", "store of an original (wall clock)", "µs"),
                          ("storeCPUMicroseconds", "store of an original (CPU time)", "µs"),
                          ("processedStoreMicroseconds", "store of a processed result (wall clock)", "µs"),
                          ("processedStoreCPUMicroseconds", "store of a processed result (CPU time)", "µs"),
                          ("removalMilliseconds", "removal of an image's 5 variants", "ms")):
    base, head = values("base", field), values("head", field)
    ratios = sorted(h / b for h, b in zip((r[field] for r in rows if r["side"] == "head"),
                                          (r[field] for r in rows if r["side"] == "base")))
    print(f"{name}: {sys.argv[2]} {base[0]:.3f}–{base[-1]:.3f} {unit}, working tree {head[0]:.3f}–{head[-1]:.3f} {unit}; "
          f"working tree ÷ {sys.argv[2]}, round by round: {ratios[0]:.2f}–{ratios[-1]:.2f}× (median {statistics.median(ratios):.2f}×)")
PY
