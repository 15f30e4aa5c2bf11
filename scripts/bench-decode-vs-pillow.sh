#!/usr/bin/env bash
# Shashin (libvips) against Pillow, decoding the same file to a 256 px thumbnail: a 4000×3000
# JPEG, a 2000×2000 PNG, a 4000×3000 WebP and a 2000×1072 JPEG in Display P3 (its ICC profile
# embedded, as in every iPhone photo), on one worker (and, for the first JPEG, on two at once:
# Shashin threads in one process, Pillow processes, as the GIL requires). For the Display P3
# photo Pillow also converts the thumbnail to sRGB with ImageCms (`--to-srgb`), as Shashin does.
# libvips' own `vipsthumbnail` runs alongside for reference. Prints one table with images/s and
# the ratios; every number comes from this run.
#
#   scripts/bench-decode-vs-pillow.sh            # from the repository root; builds release first
#   ROUNDS=5 ITERATIONS=60 FORMATS="jpeg p3jpeg" scripts/bench-decode-vs-pillow.sh
#
# Each round runs the measurements in turn (alternating which tool goes first); the table shows
# the median of the rounds. Environment: ROUNDS (default 5), ITERATIONS images per measurement
# (default 40), THUMBNAIL (256), SEED (1), FORMATS ("jpeg png webp p3jpeg"), SCRATCH_PATH
# (SwiftPM's build folder, default .build), SWIFT (swift), SMOKE. p3jpeg needs the `vips` command
# (Debian: libvips-tools, which `NEED_PILLOW=1 scripts/install-deps.sh` installs) to embed the
# profile.
set -euo pipefail
cd "$(dirname "$0")/.."

# SMOKE=1: one round of two images per measurement, on the debug build (scripts/bench-common.sh).
[[ "${SMOKE:-0}" == 1 ]] && { ROUNDS=1; ITERATIONS=2; }
ROUNDS=${ROUNDS:-5}
ITERATIONS=${ITERATIONS:-40}
THUMBNAIL=${THUMBNAIL:-256}
SEED=${SEED:-1}
FORMATS=${FORMATS:-jpeg png webp p3jpeg}
source scripts/bench-common.sh

files=()
for format in $FORMATS; do
    case "$format" in
        jpeg) size=(4000 3000) ;;
        png) size=(2000 2000) ;;
        webp) size=(4000 3000) ;;
        p3jpeg) size=(2000 1072) ;;
        *) echo "unknown format $format" >&2; exit 1 ;;
    esac
    file="$workdir/picture-${size[0]}x${size[1]}.$format"
    if [[ "$format" == p3jpeg ]]; then
        # The sRGB picture's colours stored as Display P3 samples, libvips' P3 profile embedded.
        command -v vips >/dev/null || { echo "p3jpeg needs the vips command (Debian: libvips-tools)" >&2; exit 1; }
        "$shashin" generate --format jpeg --width "${size[0]}" --height "${size[1]}" --seed "$SEED" -o "$workdir/srgb.jpeg" >&2
        file="$workdir/photo-display-p3-${size[0]}x${size[1]}.jpg"
        vips icc_transform "$workdir/srgb.jpeg" "$file[Q=90]" p3 --input-profile srgb
    else
        "$shashin" generate --format "$format" --width "${size[0]}" --height "${size[1]}" --seed "$SEED" -o "$file" >&2
    fi
    files+=("$file")
done

export SHASHIN_BENCH="$bench" BENCH_FILES="${files[*]}" WORKDIR="$workdir" ROUNDS ITERATIONS THUMBNAIL
exec python3 - <<'PY'
import json, os, platform, shutil, statistics, subprocess, sys, time
sys.path.insert(0, "scripts")  # the script runs from the repository root
import bench_machine

bench, files, workdir = os.environ["SHASHIN_BENCH"], os.environ["BENCH_FILES"].split(), os.environ["WORKDIR"]
rounds, iterations, size = int(os.environ["ROUNDS"]), int(os.environ["ITERATIONS"]), os.environ["THUMBNAIL"]
pillow_script = os.path.join("scripts", "pillow_thumbnail.py")
vipsthumbnail = shutil.which("vipsthumbnail")
load_before = os.getloadavg()[0]

def run(command, env=None):
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout.strip().splitlines()[-1]
    return json.loads(out)

def shashin_run(path, workers):
    return run([bench, "decode", path, "--threads", str(workers), "--iterations", str(iterations), "--thumbnail", size])

def pillow_run(path, workers):
    # ImageCms to sRGB only for the Display P3 photo (the others carry no profile).
    to_srgb = ["--to-srgb"] if fmt(path) == "jpg" else []
    return run([sys.executable, pillow_script, path, "--processes", str(workers), "--iterations", str(iterations), "--thumbnail", size, *to_srgb])

def vips_run(path, workers):
    # One process over N links to the file (to the cheap .v format), minus a run over one:
    # what remains is vipsthumbnail's time per image without its start-up. Distinct names and
    # no operation cache, or libvips would reuse the first load.
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    links = []
    for i in range(iterations + 1):
        link = os.path.join(workdir, f"link-{i}-{os.path.basename(path)}")
        if not os.path.exists(link):
            os.symlink(os.path.abspath(path), link)
        links.append(link)
    out = os.path.join(workdir, "thumb-%s.v")
    def timed(files):
        began = time.perf_counter()
        subprocess.run([vipsthumbnail, "--vips-cache-max=0", *files, "--size", size, "-o", out], check=True, env=env, capture_output=True)
        return time.perf_counter() - began
    seconds = timed(links) - timed(links[:1])
    return {"images_per_second": iterations / seconds, "output": "?"}

def fmt(path):
    # "jpg": the Display P3 photo; "jpeg", "png", "webp": the generated pictures.
    return os.path.splitext(path)[1][1:]

measurements = []  # (file, tool, workers)
for path in files:
    for workers in ((1, 2) if fmt(path) == "jpeg" else (1,)):
        measurements += [(path, "shashin", workers), (path, "pillow", workers)]
    if vipsthumbnail:
        measurements.append((path, "vipsthumbnail", 1))
runners = {"shashin": shashin_run, "pillow": pillow_run, "vipsthumbnail": vips_run}
results = {m: [] for m in measurements}
outputs = {}
for r in range(rounds):
    order = measurements if r % 2 == 0 else list(reversed(measurements))
    for m in order:
        path, tool, workers = m
        result = runners[tool](path, workers)
        results[m].append(result["images_per_second"])
        outputs[(path, tool)] = result["output"]
        print(f"  round {r + 1}: {fmt(path):4} {tool:13} {workers} worker(s): {result['images_per_second']:7.2f} images/s", file=sys.stderr)

median = {k: statistics.median(v) for k, v in results.items()}

pillow_version = run([sys.executable, "-c", "import json, PIL; from PIL import features; print(json.dumps(PIL.__version__ + ' (libjpeg-turbo ' + str(features.version('libjpeg_turbo')) + ', libwebp ' + str(features.version('webp')) + ')'))"])
vips_version = bench_machine.vips_version()
print()
print(f"Decode to a {size} px thumbnail: Shashin (VipsImageDecoder, libvips {vips_version}, RGBA) against Pillow {pillow_version} "
      f"(open + draft + thumbnail + load, RGB or RGBA; + ImageCms to sRGB for the Display P3 .jpg) and vipsthumbnail {'(not installed)' if not vipsthumbnail else '(libvips-tools, one process, VIPS_CONCURRENCY=1)'}")
print(f"median of {rounds} rounds × {iterations} images; machine: {os.cpu_count()} CPUs, {bench_machine.cpu_model()}; "
      f"1-min load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
print()
# Each round measures both tools back to back, so its own ratio sees the same machine load:
# the median of those paired ratios is steadier than the ratio of the two medians.
def paired(path, workers):
    ratios = sorted(p / s for s, p in zip(results[(path, "shashin", workers)], results[(path, "pillow", workers)]))
    return statistics.median(ratios), ratios[0], ratios[-1]

print("| file | workers | Shashin images/s | Pillow images/s | Shashin time ÷ Pillow time (medians) | per round: median (range) | vipsthumbnail images/s | output (Shashin / Pillow) |")
print("|---|--:|--:|--:|--:|--:|--:|---|")
for path in files:
    name = f"{os.path.basename(path)} ({os.path.getsize(path):,} bytes)"
    for workers in ((1, 2) if fmt(path) == "jpeg" else (1,)):
        s, p = median[(path, "shashin", workers)], median[(path, "pillow", workers)]
        v = median.get((path, "vipsthumbnail", workers))
        mid, low, high = paired(path, workers)
        print(f"| {name} | {workers} | {s:.1f} | {p:.1f} | **{p / s:.2f}×** | {mid:.2f}× ({low:.2f}–{high:.2f}) | {f'{v:.1f}' if v else '–'} | "
              f"{outputs[(path, 'shashin')]} / {outputs[(path, 'pillow')]} |")
print()
for path in files:
    mid = paired(path, 1)[0]
    print(f"Goal {os.path.basename(path)} on one core, Shashin's time ≤ Pillow's (median of per-round ratios): {'met' if mid <= 1 else 'NOT met'} ({mid:.2f}×)")
PY
