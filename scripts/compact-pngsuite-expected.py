#!/usr/bin/env python3
"""Turns PngSuite's expected pixels (pretty JSON, 4.9 MB) into one small PAM file per image.

Usage: scripts/compact-pngsuite-expected.py [PNGSUITE_DIR] [OUTPUT_DIR]
  PNGSUITE_DIR  the corpus with png/ and json/   (default: ../shared/corpora/pngsuite)
  OUTPUT_DIR    where NAME.pam files go          (default: Tests/ShashinVipsTests/Resources/pngsuite/expected)

json/NAME.json is a flat [r, g, b, a, ...] array. It has no dimensions, so they come from the
PNG's IHDR. The deliberately corrupt x*.png files have no expectation (they must fail) and are
skipped, even where a JSON exists.

16-bit images: json/NAME.json holds 16-bit samples. Decoders deliver 8 bits by dropping the low
byte (libpng's png_set_strip_16, libvips' cast with shift), so the expectation written here is
`v >> 8` of those samples. The corpus also ships json/NAME_to8.json reductions, but they are not
consistent: for 23 of the 29 files that have one it equals `v >> 8` exactly, while for the six
greyscale files basi0g16, basn0g16 and oi{1,2,4,9}n0g16 it follows no single rule (neither
`v >> 8`, `v // 257` nor `round(v / 257)`; differences of 1 in ~1500 of 4096 samples), and four
files (bas{i,n}{4,6}a16) have none. The script prints every file whose `_to8` copy disagrees.

PAM (netpbm P7, RGB_ALPHA, MAXVAL 255) is self-describing and is also the format of the
libwebp reference renderings, so the tests read both with one parser.
"""
import json
import pathlib
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def ihdr(png: bytes) -> tuple[int, int, int]:
    """Width, height and bit depth."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG with IHDR first")
    width, height, depth = struct.unpack(">IIB", png[16:25])
    return width, height, depth


def main() -> None:
    suite = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/corpora/pngsuite"
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "Tests/ShashinVipsTests/Resources/pngsuite/expected"
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for png_path in sorted((suite / "png").glob("*.png")):
        name = png_path.stem
        if name.startswith("x"):
            continue
        width, height, depth = ihdr(png_path.read_bytes())
        values = json.loads((suite / "json" / f"{name}.json").read_text())
        if depth == 16:
            values = [v >> 8 for v in values]
            to8 = suite / "json" / f"{name}_to8.json"
            if to8.exists():
                published = json.loads(to8.read_text())
                differing = sum(1 for a, b in zip(values, published) if a != b)
                if differing:
                    print(f"note: {name}: {differing} samples of {to8.name} differ from v >> 8 (v >> 8 used)")
        if len(values) != width * height * 4 or any(not 0 <= v <= 255 for v in values):
            raise ValueError(f"{name}: {len(values)} values for {width}x{height} RGBA8")
        header = f"P7\nWIDTH {width}\nHEIGHT {height}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        (out / f"{name}.pam").write_bytes(header.encode("ascii") + bytes(values))
        written += 1
    print(f"wrote {written} files to {out}")


if __name__ == "__main__":
    main()
