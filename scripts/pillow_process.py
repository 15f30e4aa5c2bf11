#!/usr/bin/env python3
"""Pillow's side of the processor comparison: one operation on a 1024×1024 RGBA image, over and over.

The image is the PNG `shashin generate --format png --width 1024 --height 1024 --seed 1` writes
(lossless: the same pixels `shashin-bench process` builds in memory), loaded and converted to RGBA
once, before measuring. Each run is what a Python image service would write:

  resize   im.resize((256, 256), Image.LANCZOS)            (Pillow premultiplies RGBA itself)
  rounded  a new "L" mask, ImageDraw.rounded_rectangle(radius=R, fill=255) on it, then a copy
           of the image with putalpha(mask)                 (Pillow's usual idiom; not antialiased)
  blur     im.filter(ImageFilter.GaussianBlur(R))

After one warm-up run, each of --iterations runs is timed on its own; prints one JSON line with
the median: {"tool": "pillow", "op": ..., "median_ms": ...}.
"""
import argparse
import json
import statistics
import time

import PIL
from PIL import Image, ImageDraw, ImageFilter


def make_operation(op, radius):
    if op == "resize":
        return lambda im: im.resize((256, 256), Image.LANCZOS)
    if op == "rounded":
        r = 64 if radius is None else radius

        def rounded(im):
            mask = Image.new("L", im.size, 0)
            ImageDraw.Draw(mask).rounded_rectangle((0, 0, im.width - 1, im.height - 1), radius=r, fill=255)
            out = im.copy()
            out.putalpha(mask)
            return out
        return rounded
    if op == "blur":
        r = 4 if radius is None else radius
        return lambda im: im.filter(ImageFilter.GaussianBlur(r))
    raise ValueError(op)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--op", choices=("resize", "rounded", "blur"), required=True)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--radius", type=float, default=None)
    args = parser.parse_args()

    image = Image.open(args.file)
    image.load()
    image = image.convert("RGBA")
    operation = make_operation(args.op, args.radius)
    output = operation(image)  # warm-up
    times = []
    for _ in range(args.iterations):
        began = time.perf_counter()
        result = operation(image)
        result.load()
        times.append((time.perf_counter() - began) * 1000)
    print(json.dumps({
        "tool": "pillow",
        "pillow": PIL.__version__,
        "op": args.op,
        "iterations": args.iterations,
        "median_ms": round(statistics.median(times), 3),
        "min_ms": round(min(times), 3),
        "max_ms": round(max(times), 3),
        "input": f"{image.width}x{image.height}",
        "input_byte_sum": sum(image.tobytes()),
        "output": f"{output.width}x{output.height}",
    }))


if __name__ == "__main__":
    main()
