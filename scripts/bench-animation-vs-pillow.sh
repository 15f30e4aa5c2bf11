#!/usr/bin/env bash
# Shashin against Pillow, decoding every frame of the same animated GIF (or APNG with
# FORMAT=apng; 100 frames of 480×270, made by scripts/pillow_animation.py) to 128 px thumbnails,
# on one core: Shashin's VipsImageDecoder (the frames composed on a canvas, each shrunk as it is
# decoded) against Pillow's ImageSequence + convert('RGBA') + thumbnail. Also the peak resident
# memory of each process (GNU time's maximum RSS) over the same work. Prints one table; every number comes
# from this run.
#
#   scripts/bench-animation-vs-pillow.sh          # from the repository root; builds release first
#   ROUNDS=5 ITERATIONS=10 scripts/bench-animation-vs-pillow.sh
#   FORMAT=apng scripts/bench-animation-vs-pillow.sh   # the same frames as an APNG
#
# Each round runs both tools in turn (alternating which goes first); the ratios are per round,
# reported as median and range. Environment: ROUNDS (5), ITERATIONS files decoded per
# measurement (10), THUMBNAIL (128), FRAMES (100), SEED (1), FORMAT (gif or apng), SCRATCH_PATH,
# SWIFT, SMOKE.
set -euo pipefail
cd "$(dirname "$0")/.."

# SMOKE=1: one round of one file, 10 frames, on the debug build (scripts/bench-common.sh).
[[ "${SMOKE:-0}" == 1 ]] && { ROUNDS=1; ITERATIONS=1; FRAMES=10; }
ROUNDS=${ROUNDS:-5}
ITERATIONS=${ITERATIONS:-10}
THUMBNAIL=${THUMBNAIL:-128}
FRAMES=${FRAMES:-100}
SEED=${SEED:-1}
FORMAT=${FORMAT:-gif}
case "$FORMAT" in gif) suffix=gif ;; apng) suffix=png ;; *) echo "FORMAT is gif or apng, not $FORMAT" >&2; exit 2 ;; esac
source scripts/bench-common.sh

file="$workdir/animation-${FRAMES}x480x270.$suffix"
python3 scripts/pillow_animation.py make "$file" --frames "$FRAMES" --seed "$SEED"

export SHASHIN_BENCH="$bench" BENCH_FILE="$file" ROUNDS ITERATIONS THUMBNAIL
exec python3 - <<'PY'
import json, os, statistics, subprocess, sys
sys.path.insert(0, "scripts")  # the script runs from the repository root
import bench_machine

bench, path = os.environ["SHASHIN_BENCH"], os.environ["BENCH_FILE"]
rounds, iterations, size = int(os.environ["ROUNDS"]), int(os.environ["ITERATIONS"]), os.environ["THUMBNAIL"]
load_before = os.getloadavg()[0]

def run(command):
    # GNU time writes the peak RSS (KB) as the last line of stderr.
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], check=True, capture_output=True, text=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["peak_kb"] = int(done.stderr.strip().splitlines()[-1])
    return result

commands = {
    "shashin": [bench, "decode", path, "--threads", "1", "--iterations", str(iterations), "--thumbnail", size],
    "pillow": [sys.executable, "scripts/pillow_animation.py", "bench", path, "--iterations", str(iterations), "--thumbnail", size],
}
speed = {tool: [] for tool in commands}
peak = {tool: [] for tool in commands}
facts = {}
for r in range(rounds):
    for tool in (commands if r % 2 == 0 else reversed(list(commands))):
        result = run(commands[tool])
        speed[tool].append(result["images_per_second"])
        peak[tool].append(result["peak_kb"])
        facts[tool] = (result["frames"], result["output"])
        print(f"  round {r + 1}: {tool:8} {result['images_per_second']:6.2f} files/s, peak {result['peak_kb'] / 1024:6.1f} MB", file=sys.stderr)

time_ratios = sorted(p / s for s, p in zip(speed["shashin"], speed["pillow"]))   # Shashin's time ÷ Pillow's
peak_ratios = sorted(s / p for s, p in zip(peak["shashin"], peak["pillow"]))
pillow_version = subprocess.run([sys.executable, "-c", "import PIL; print(PIL.__version__)"], capture_output=True, text=True).stdout.strip()
print()
print(f"Every frame of {os.path.basename(path)} ({os.path.getsize(path):,} bytes) to {size} px: Shashin (VipsImageDecoder, "
      f"libvips {bench_machine.vips_version()}) against Pillow {pillow_version} (ImageSequence + convert RGBA + thumbnail), one core")
print(f"{rounds} rounds × {iterations} files; machine: {os.cpu_count()} CPUs, {bench_machine.cpu_model()}; "
      f"1-min load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
print()
print("| tool | files/s (median) | peak RSS MB (median) | frames | output |")
print("|---|--:|--:|--:|---|")
for tool in commands:
    print(f"| {tool} | {statistics.median(speed[tool]):.2f} | {statistics.median(peak[tool]) / 1024:.1f} | {facts[tool][0]} | {facts[tool][1]} |")
print()
print(f"Shashin time ÷ Pillow time, per round: median {statistics.median(time_ratios):.2f}× (range {time_ratios[0]:.2f}–{time_ratios[-1]:.2f}×)")
print(f"Shashin peak RSS ÷ Pillow peak RSS, per round: median {statistics.median(peak_ratios):.2f}× (range {peak_ratios[0]:.2f}–{peak_ratios[-1]:.2f}×)")
print(f"Goal on one core, Shashin's time ≤ Pillow's: {'met' if statistics.median(time_ratios) <= 1 else 'NOT met'}")
PY
