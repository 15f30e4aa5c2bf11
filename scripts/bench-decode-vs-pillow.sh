#!/usr/bin/env bash
# Shashin (libvips) against Pillow, decoding the same 4000×3000 JPEG to a 256 px thumbnail, on
# one worker and on two at once (Shashin: threads in one process; Pillow: processes, as the GIL
# requires). Prints one table with images/s and the ratios; every number comes from this run.
#
#   scripts/bench-decode-vs-pillow.sh            # from the repository root; builds release first
#   ROUNDS=5 ITERATIONS=60 scripts/bench-decode-vs-pillow.sh
#
# Each round runs the four measurements in turn (alternating which tool goes first); the table
# shows the median of the rounds. Environment: ROUNDS (default 5), ITERATIONS images per
# measurement (default 40), THUMBNAIL (256), SEED (1), SCRATCH_PATH (SwiftPM's build folder,
# default .build), SWIFT (swift).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
ITERATIONS=${ITERATIONS:-40}
THUMBNAIL=${THUMBNAIL:-256}
SEED=${SEED:-1}
source scripts/bench-common.sh
jpeg="$workdir/photo-4000x3000.jpg"
"$shashin" generate --format jpeg --width 4000 --height 3000 --seed "$SEED" -o "$jpeg" >&2

export SHASHIN_BIN="$shashin" BENCH_JPEG="$jpeg" ROUNDS ITERATIONS THUMBNAIL
exec python3 - <<'PY'
import json, os, platform, statistics, subprocess, sys

shashin, jpeg = os.environ["SHASHIN_BIN"], os.environ["BENCH_JPEG"]
rounds, iterations, size = int(os.environ["ROUNDS"]), int(os.environ["ITERATIONS"]), os.environ["THUMBNAIL"]
pillow_script = os.path.join("scripts", "pillow_thumbnail.py")
load_before = os.getloadavg()[0]

def run(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return json.loads(out)

def shashin_run(workers):
    return run([shashin, "bench-decode", jpeg, "--threads", str(workers), "--iterations", str(iterations), "--thumbnail", size])

def pillow_run(workers):
    return run([sys.executable, pillow_script, jpeg, "--processes", str(workers), "--iterations", str(iterations), "--thumbnail", size])

results = {(tool, w): [] for tool in ("shashin", "pillow") for w in (1, 2)}
outputs = {}
for r in range(rounds):
    order = [("shashin", shashin_run), ("pillow", pillow_run)]
    if r % 2: order.reverse()
    for workers in (1, 2):
        for tool, fn in order:
            result = fn(workers)
            results[(tool, workers)].append(result["images_per_second"])
            outputs[tool] = result["output"]
            print(f"  round {r + 1}: {tool:7} {workers} worker(s): {result['images_per_second']:7.2f} images/s", file=sys.stderr)

median = {k: statistics.median(v) for k, v in results.items()}

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"

pillow_version = run([sys.executable, "-c", "import json, PIL; from PIL import features; print(json.dumps(PIL.__version__ + ' (libjpeg-turbo ' + str(features.version('libjpeg_turbo')) + ')'))"])
try:
    vips_version = subprocess.run(["pkg-config", "--modversion", "vips"], capture_output=True, text=True).stdout.strip() or "?"
except OSError:
    vips_version = "?"
print()
print(f"Decode {os.path.getsize(jpeg):,} byte 4000×3000 JPEG → {size} px thumbnail "
      f"(Shashin {outputs['shashin']} RGBA via VipsImageDecoder, libvips {vips_version}; Pillow {pillow_version} {outputs['pillow']} RGB via draft+thumbnail)")
print(f"median of {rounds} rounds × {iterations} images; machine: {os.cpu_count()} CPUs, {cpu_model()}; "
      f"1-min load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
print()
print(f"| workers | Shashin images/s | Pillow images/s | Shashin ÷ Pillow |")
print(f"|--------:|-----------------:|----------------:|-----------------:|")
for w in (1, 2):
    s, p = median[("shashin", w)], median[("pillow", w)]
    print(f"| {w} | {s:.1f} | {p:.1f} | {s / p:.2f}× |")
print(f"| 2 ÷ 1 (scaling) | {median[('shashin', 2)] / median[('shashin', 1)]:.2f}× | "
      f"{median[('pillow', 2)] / median[('pillow', 1)]:.2f}× | |")
print()
print(f"Goal 1 core, Shashin ≥ Pillow: {'met' if median[('shashin', 1)] >= median[('pillow', 1)] else 'NOT met'} "
      f"({median[('shashin', 1)] / median[('pillow', 1)]:.2f}×); "
      f"goal 2 cores ≈ 2× one: Shashin {median[('shashin', 2)] / median[('shashin', 1)]:.2f}×")
PY
