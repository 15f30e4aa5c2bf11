#!/usr/bin/env bash
# The pipeline's own cost per cold request: `PipelineCostBench` (Benchmarks/PipelineCost) built
# in release from BASE (a git revision, default main) and from the working tree, run in turn
# ROUNDS times each, alternating, so both sides see the same machine load. Each run prints one
# JSON line per pass and path (CPU and wall µs, voluntary context switches, per request, through the
# pipeline and for the loader and decoder called directly); the summary gives each side's range over
# every pass of every round, the medians, the pipeline's own share (pipeline − direct, medians) and
# the ratio of those shares.
#
#   scripts/bench-pipeline-cost.sh                        # main against the working tree
#   BASE=5c8617c ROUNDS=6 REQUESTS=20000 PASSES=3 WINDOW=1 scripts/bench-pipeline-cost.sh
#   MODE=data scripts/bench-pipeline-cost.sh              # pipeline.data(for:): no decoder, no image job
#   MODE=hit REQUESTS=20000 scripts/bench-pipeline-cost.sh  # memory-cache hits (REQUESTS × 100 a pass)
#   SMOKE=1 scripts/bench-pipeline-cost.sh                # the debug build alone, 200 requests a mode
#
# WINDOW is how many requests are in flight: 1 (default) loads one after another, so each hop
# wakes a thread and the figure is a cold request's latency cost; 32 keeps the threads busy, and
# the CPU per request is closer to the work itself.
#
# Only the core is built (SHASHIN_CORE_ONLY=1), in its own scratch folders under
# BENCH_PIPELINE_DIR (default .build-pipeline-cost), so no dependency is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BASE=${BASE:-main}
ROUNDS=${ROUNDS:-4}
REQUESTS=${REQUESTS:-20000}
PASSES=${PASSES:-3}
WINDOW=${WINDOW:-1}
MODE=${MODE:-image}
DIR=${BENCH_PIPELINE_DIR:-$root/.build-pipeline-cost}
mkdir -p "$DIR"

build() { # package-path scratch-path
    SHASHIN_CORE_ONLY=1 "${SWIFT:-swift}" build -c release --product PipelineCostBench \
        --package-path "$1" --scratch-path "$2" >"$2.log" 2>&1 || { cat "$2.log"; exit 1; }
    echo "$2/release/PipelineCostBench"
}

if [[ "${SMOKE:-0}" == 1 ]]; then
    # The debug build `make test` has made: proves the benchmark runs, figures discarded.
    "${SWIFT:-swift}" build --product PipelineCostBench >/dev/null
    "$("${SWIFT:-swift}" build --show-bin-path)/PipelineCostBench" 200 1 4
    "$("${SWIFT:-swift}" build --show-bin-path)/PipelineCostBench" 200 1 4 data
    "$("${SWIFT:-swift}" build --show-bin-path)/PipelineCostBench" 20 1 1 hit
    exit 0
fi
head_bin=$(build "$root" "$DIR/head")

# BASE's tree with this benchmark in it; unchanged files keep their times, so rebuilds are incremental.
rm -rf "$DIR/base-export" && mkdir -p "$DIR/base-export" "$DIR/base-src"
git archive "$BASE" | tar -x -C "$DIR/base-export"
rm -rf "$DIR/base-export/Sources/PipelineCostBench" "$DIR/base-export/Benchmarks/PipelineCost"
mkdir -p "$DIR/base-export/Benchmarks" && cp -r Benchmarks/PipelineCost "$DIR/base-export/Benchmarks/"
if ! grep -q PipelineCostBench "$DIR/base-export/Package.swift"; then
    echo 'package.targets.append(.executableTarget(name: "PipelineCostBench", dependencies: ["ShashinCore"], path: "Benchmarks/PipelineCost"))' \
        >>"$DIR/base-export/Package.swift"
fi
(cd "$DIR/base-export" && find . -type f) | while read -r file; do
    # Copied (with a new time) only when changed, so the build sees what changed.
    if ! cmp -s "$DIR/base-export/$file" "$DIR/base-src/$file"; then
        mkdir -p "$(dirname "$DIR/base-src/$file")" && cp "$DIR/base-export/$file" "$DIR/base-src/$file"
    fi
done
(cd "$DIR/base-src" && find . -type f) | while read -r file; do
    # Gone from BASE's tree (a file an earlier BASE had): gone from the copy too.
    [[ -e "$DIR/base-export/$file" ]] || rm -f "$DIR/base-src/$file"
done
base_bin=$(build "$DIR/base-src" "$DIR/base")

results="$DIR/results.jsonl"
: >"$results"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
    for side in base head; do
        bin=$base_bin; [[ $side == head ]] && bin=$head_bin
        "$bin" "$REQUESTS" "$PASSES" "$WINDOW" "$MODE" | sed "s/^{/{\"side\":\"$side\",\"round\":$round,/" | tee -a "$results"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$results" "$BASE" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def figures(side, path, field):
    values = sorted(r[field] for r in rows if r["side"] == side and r["path"] == path)
    return values[0], statistics.median(values), values[-1]
for field, name in (("cpu_microseconds_per_request", "CPU µs"), ("wall_microseconds_per_request", "wall µs"),
                    ("voluntary_switches_per_request", "context switches")):
    line = []
    for side, label in (("base", sys.argv[2]), ("head", "working tree")):
        low, median, high = figures(side, "pipeline", field)
        direct = figures(side, "direct", field)[1]
        places = 3 if high < 1 else 1  # memory hits are fractions of a microsecond
        line.append(f"{label} {low:.{places}f}–{high:.{places}f} (median {median:.{places}f}; direct {direct:.{places}f}; "
                    f"pipeline's own {median - direct:.{places}f})")
    base, head = figures("base", "pipeline", field)[1] - figures("base", "direct", field)[1], \
        figures("head", "pipeline", field)[1] - figures("head", "direct", field)[1]
    ratio = f"{head / base:.2f}×" if base > 0 else "— (base's own share is 0)"
    print(f"{name}/request: " + ", ".join(line) + f"; pipeline's own, working tree ÷ base {ratio}")
PY
