#!/usr/bin/env bash
# Progressive previews: a 4000×3000 progressive JPEG (made with Pillow, libjpeg's standard
# progression) served by the embedded ImageServer at 600 KB/s, loaded with previews on and off in
# alternating order. Prints one JSON line a round: time to the first preview ÷ time to the final
# image, and decoding CPU (previews + final) ÷ decoding CPU of the final alone.
#   scripts/bench-progressive.sh [--rounds 5] [--budget 0.5] [--interval 0.5]   # builds release first
#   SMOKE=1 scripts/bench-progressive.sh    one round at 6 MB/s on the debug build: checks the script works
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-common.sh
[[ "${SMOKE:-0}" == 1 ]] && set -- --rounds 1 --bandwidth 6000 "$@"
python3 - "$workdir/progressive.jpg" <<'PY'
import sys
from PIL import Image, ImageFilter
w, h = 4000, 3000
# Smooth fields under fine grain, as a photo has: about 3 MB at quality 85.
fields = [Image.linear_gradient('L').resize((w, h)), Image.radial_gradient('L').resize((w, h)),
          Image.linear_gradient('L').transpose(Image.Transpose.ROTATE_90).resize((w, h))]
channels = [Image.blend(field, Image.effect_noise((w, h), 64).filter(ImageFilter.GaussianBlur(0.7)), 0.45)
            for field in fields]
Image.merge('RGB', channels).save(sys.argv[1], quality=85, progressive=True)
PY
echo "$(stat -c %s "$workdir/progressive.jpg") bytes; $(nproc) cores" >&2
"$bench" progressive "$workdir/progressive.jpg" --bandwidth 600 --thumbnail 300 "$@"
