#!/usr/bin/env python3
"""Pillow's side of the animation comparison, and the file both sides decode.

  pillow_animation.py make FILE [--frames 100 --width 480 --height 270 --seed 1]
      writes an animated GIF, or an APNG when FILE ends in .png: a gradient with shapes moving
      over it, 40 ms a frame, looping forever (Pillow's GIF and APNG writers store only the
      region that changed in each frame).
  pillow_animation.py bench FILE [--iterations 10 --thumbnail 128]
      decodes every frame to a thumbnail, over and over, as a Python service making animated
      thumbnails does: ImageSequence.Iterator + convert('RGBA') + thumbnail((size, size)), each
      frame kept with its duration. The file is read into memory once, as `shashin-bench
      decode` does. One process (one core), after one warm-up decode.

Prints one JSON line: {"tool": "pillow", "images_per_second": ..., "frames": ..., "output": ...}.
"""
import argparse
import io
import json
import random
import time

from PIL import Image, ImageDraw, ImageSequence


def make(path, frames, width, height, seed):
    rng = random.Random(seed)
    shapes = [(rng.randrange(width), rng.randrange(height), rng.randrange(10, 60), rng.randrange(-8, 9), rng.randrange(-6, 7),
               tuple(rng.randrange(256) for _ in range(3))) for _ in range(12)]
    background = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(background)
    for x in range(width):
        draw.line([(x, 0), (x, height)], fill=(x * 255 // width, 80, 255 - x * 255 // width))
    images = []
    for f in range(frames):
        image = background.copy()
        draw = ImageDraw.Draw(image)
        for x, y, r, dx, dy, colour in shapes:
            cx, cy = (x + dx * f) % width, (y + dy * f) % height
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour)
        images.append(image)
    # The suffix picks the writer: GIF, or APNG for .png.
    images[0].save(path, save_all=True, append_images=images[1:], duration=40, loop=0)


def thumbnails(data, size):
    image = Image.open(io.BytesIO(data))
    frames = []
    for frame in ImageSequence.Iterator(image):
        thumb = frame.convert("RGBA")
        thumb.thumbnail((size, size))
        frames.append((thumb, frame.info.get("duration", 0)))
    return frames


def bench(path, iterations, size):
    with open(path, "rb") as f:
        data = f.read()
    first = thumbnails(data, size)  # warm-up: imports, first-touch allocations
    began = time.perf_counter()
    for _ in range(iterations):
        thumbnails(data, size)
    seconds = time.perf_counter() - began
    print(json.dumps({"tool": "pillow", "images": iterations, "seconds": round(seconds, 4),
                      "images_per_second": round(iterations / seconds, 2), "frames": len(first),
                      "output": "%dx%d" % first[0][0].size}))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["make", "bench"])
    parser.add_argument("file")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--width", type=int, default=480)
    parser.add_argument("--height", type=int, default=270)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--thumbnail", type=int, default=128)
    args = parser.parse_args()
    if args.command == "make":
        make(args.file, args.frames, args.width, args.height, args.seed)
    else:
        bench(args.file, args.iterations, args.thumbnail)


if __name__ == "__main__":
    main()
