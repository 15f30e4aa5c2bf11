#!/usr/bin/env python3
"""Writes Tests/ShashinVipsTests/Resources/apng/: an APNG made by Pillow's writer and the frames
Pillow's reader composes from it, the oracle the APNG decoder is checked against.

  pillow-regions.png   5 frames of 32×24 RGBA: shapes moving over a gradient with a transparent
                       hole; disposal NONE/PREVIOUS/BACKGROUND and blend SOURCE/OVER vary by
                       frame, and Pillow stores each later frame as the box that changed.

Pillow's reader agrees with the APNG specification only where this file keeps to: pixels
opaque or fully transparent (it pastes a frame by its alpha rather than composing over: a
128-alpha pixel over itself stays 128, where the specification's OVER gives 192), and no
PREVIOUS right after a BACKGROUND (it restores the canvas as it was before the earlier frame's
disposal). The decoder's tests compute those cases by hand.
  pillow-regions.rgba  Pillow's composed frames, each 32×24×4 bytes, one after the other.

Run from the repository root: python3 scripts/make-apng-fixture.py (needs Pillow)."""
import os
from PIL import Image, ImageDraw, ImageSequence

out = os.path.join("Tests", "ShashinVipsTests", "Resources", "apng")
size = (32, 24)

def frame(index):
    image = Image.new("RGBA", size)
    draw = ImageDraw.Draw(image)
    for x in range(size[0]):
        draw.line([(x, 0), (x, size[1])], fill=(x * 8, 90, 255 - x * 8, 255))
    draw.rectangle([20, 2, 27, 7], fill=(0, 0, 0, 0))                         # a hole
    draw.rectangle([2 + 4 * index, 10, 9 + 4 * index, 17], fill=(250, 250, 20, 255))
    draw.ellipse([14, 12 + index, 22, 20 + index], fill=(20, 200, 40, 255))
    return image

frames = [frame(i) for i in range(5)]
path = os.path.join(out, "pillow-regions.png")
frames[0].save(path, save_all=True, append_images=frames[1:], duration=[40, 80, 120, 40, 200], loop=3,
               disposal=[0, 2, 1, 0, 0], blend=[0, 1, 1, 0, 1])
with Image.open(path) as image, open(os.path.join(out, "pillow-regions.rgba"), "wb") as raw:
    for composed in ImageSequence.Iterator(image):
        raw.write(composed.convert("RGBA").tobytes())
