#!/usr/bin/env python3
"""Pillow's side of the decode comparison: one JPEG to a thumbnail, over and over.

Each decode is what a Python image service does for a list thumbnail:
Image.open + draft('RGB', (size, size)) (libjpeg-turbo's DCT-domain 1/2, 1/4 or 1/8 scaling)
+ thumbnail((size, size)) + load(). The file is read into memory once, as `shashin-bench
decode` does, so neither side measures the file system.

With --processes N, N worker processes (multiprocessing; Pillow holds the GIL while decoding,
so threads would not scale) each decode iterations/N images at once, after a warm-up image each;
the time is from releasing the workers together to the last one finishing.

With --to-srgb, an image carrying an ICC profile is then converted to sRGB with ImageCms
(profileToProfile from the embedded profile to ImageCms' sRGB, relative colorimetric): the same
work Shashin does for such a file.

Prints one JSON line: {"tool": "pillow", "processes": N, "images_per_second": ...}.
"""
import argparse
import io
import json
import multiprocessing as mp
import time

from PIL import Image, ImageCms
import PIL

SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def thumbnail(data: bytes, size: int, to_srgb: bool = False):
    image = Image.open(io.BytesIO(data))
    image.draft("RGB", (size, size))
    image.thumbnail((size, size))
    image.load()
    profile = image.info.get("icc_profile")
    if to_srgb and profile:
        image = ImageCms.profileToProfile(image, ImageCms.ImageCmsProfile(io.BytesIO(profile)), SRGB,
                                          renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, outputMode="RGB")
    return image


def worker(path, size, count, to_srgb, ready, start, results):
    with open(path, "rb") as f:
        data = f.read()
    thumbnail(data, size, to_srgb)  # warm-up: imports, first-touch allocations
    ready.release()
    start.wait()
    began = time.perf_counter()
    for _ in range(count):
        thumbnail(data, size, to_srgb)
    results.put((began, time.perf_counter()))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=40, help="images in all, split across processes")
    parser.add_argument("--thumbnail", type=int, default=256)
    parser.add_argument("--to-srgb", action="store_true", help="convert an embedded ICC profile's colours to sRGB (ImageCms)")
    args = parser.parse_args()

    per_worker = max(1, args.iterations // args.processes)
    with open(args.file, "rb") as f:
        data = f.read()
    output = thumbnail(data, args.thumbnail, args.to_srgb).size
    converted = args.to_srgb and bool(Image.open(io.BytesIO(data)).info.get("icc_profile"))

    ctx = mp.get_context("fork")
    ready, start, results = ctx.Semaphore(0), ctx.Event(), ctx.Queue()
    workers = [ctx.Process(target=worker, args=(args.file, args.thumbnail, per_worker, args.to_srgb, ready, start, results))
               for _ in range(args.processes)]
    for w in workers:
        w.start()
    for _ in workers:
        ready.acquire()
    start.set()
    spans = [results.get() for _ in workers]
    for w in workers:
        w.join()
    seconds = max(end for _, end in spans) - min(began for began, _ in spans)
    images = per_worker * args.processes
    print(json.dumps({
        "tool": "pillow",
        "pillow": PIL.__version__,
        "processes": args.processes,
        "images": images,
        "seconds": round(seconds, 4),
        "images_per_second": round(images / seconds, 2),
        "ms_per_image_per_worker": round(seconds * 1000 / per_worker, 2),
        "output": f"{output[0]}x{output[1]}" + (" ICC→sRGB" if converted else ""),
    }))


if __name__ == "__main__":
    main()
