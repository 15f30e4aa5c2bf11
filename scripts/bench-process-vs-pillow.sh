#!/usr/bin/env bash
# Shashin's built-in processors against Pillow on the same 1024×1024 RGBA pixels: resize to
# 256×256, rounded corners (radius 64) and Gaussian blur (radius 4). Prints one table with the
# median ms per operation and the ratio Shashin ÷ Pillow time (goal ≤ 1.0×); every number comes
# from this run.
#
#   scripts/bench-process-vs-pillow.sh            # from the repository root; builds release first
#   ROUNDS=5 ITERATIONS=40 scripts/bench-process-vs-pillow.sh
#
# Each round runs both tools on each operation (alternating which goes first); each run prints
# the median of ITERATIONS timed operations after a warm-up, and the table shows the median of
# the rounds' medians. Environment: ROUNDS (default 3), ITERATIONS (default 20), SEED (1),
# SCRATCH_PATH (SwiftPM's build folder, default .build), SWIFT (swift), SMOKE.
set -euo pipefail
cd "$(dirname "$0")/.."

# SMOKE=1: one round of one operation each, on the debug build (scripts/bench-common.sh).
[[ "${SMOKE:-0}" == 1 ]] && { ROUNDS=1; ITERATIONS=1; }
ROUNDS=${ROUNDS:-3}
ITERATIONS=${ITERATIONS:-20}
SEED=${SEED:-1}
source scripts/bench-common.sh
png="$workdir/graphic-1024x1024.png"
"$shashin" generate --format png --width 1024 --height 1024 --seed "$SEED" -o "$png" >&2

export SHASHIN_BENCH="$bench" BENCH_PNG="$png" ROUNDS ITERATIONS SEED
exec python3 - <<'PY'
import json, os, platform, statistics, subprocess, sys
sys.path.insert(0, "scripts")  # the script runs from the repository root
import bench_machine

bench, png = os.environ["SHASHIN_BENCH"], os.environ["BENCH_PNG"]
rounds, iterations, seed = int(os.environ["ROUNDS"]), os.environ["ITERATIONS"], os.environ["SEED"]
pillow_script = os.path.join("scripts", "pillow_process.py")
ops = [("resize", "resize 1024² → 256² (Lanczos 3)", None), ("rounded", "rounded corners, radius 64", "64"),
       ("blur", "Gaussian blur, radius (σ) 4", "4")]
load_before = os.getloadavg()[0]

def run(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return json.loads(out)

def shashin_run(op, radius):
    return run([bench, "process", "--op", op, "--iterations", iterations, "--seed", seed]
               + (["--radius", radius] if radius else []))

def pillow_run(op, radius):
    return run([sys.executable, pillow_script, png, "--op", op, "--iterations", iterations]
               + (["--radius", radius] if radius else []))

results = {(tool, op): [] for tool in ("shashin", "pillow") for op, _, _ in ops}
sums, outputs = {}, {}
for r in range(rounds):
    order = [("shashin", shashin_run), ("pillow", pillow_run)]
    if r % 2: order.reverse()
    for op, _, radius in ops:
        for tool, fn in order:
            result = fn(op, radius)
            results[(tool, op)].append(result["median_ms"])
            sums[tool] = result["input_byte_sum"]
            outputs[(tool, op)] = result["output"]
            print(f"  round {r + 1}: {tool:7} {op:7}: {result['median_ms']:8.3f} ms", file=sys.stderr)

if sums["shashin"] != sums["pillow"]:
    sys.exit(f"The two sides worked on different pixels (byte sums {sums['shashin']} and {sums['pillow']})")
median = {k: statistics.median(v) for k, v in results.items()}

pillow_version = run([sys.executable, "-c", "import json, PIL; print(json.dumps(PIL.__version__))"])
vips_version = bench_machine.vips_version()
print()
print(f"Process the same 1024×1024 RGBA pixels (`shashin generate --format png --width 1024 --height 1024 --seed {seed}`; "
      f"byte sums match) on one thread: Shashin (libvips {vips_version}) against Pillow {pillow_version}")
print(f"median of {rounds} rounds, each the median of {iterations} runs after a warm-up; machine: {os.cpu_count()} CPUs, "
      f"{bench_machine.cpu_model()}; 1-min load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
print()
print("| operation | output | Shashin ms | Pillow ms | Shashin ÷ Pillow time | goal ≤ 1.0× |")
print("|---|---|---:|---:|---:|---|")
for op, label, _ in ops:
    s, p = median[("shashin", op)], median[("pillow", op)]
    print(f"| {label} | {outputs[('shashin', op)]} | {s:.2f} | {p:.2f} | {s / p:.2f}× | {'met' if s <= p else 'NOT met'} |")
PY
