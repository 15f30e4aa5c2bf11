#!/usr/bin/env python3
"""Writes the generated seeds of the decode fuzzer into decode/: small JPEGs (baseline,
progressive, grey, CMYK, EXIF-rotated, with a Display P3 profile), GIFs (still and animated),
an animated PNG (APNG) and WebP, AVIF, HEIC (with the vips tool), and BMP/TIFF (sniffed, then refused).
The PngSuite and libwebp files beside them are copied from their test suites. Needs Pillow and vips."""
import os, subprocess
from PIL import Image, ImageDraw

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decode")

def picture(size=(24, 16), mode="RGB"):
    image = Image.new("RGB", size, (200, 40, 40))
    draw = ImageDraw.Draw(image)
    draw.rectangle([2, 2, size[0] // 2, size[1] // 2], fill=(20, 180, 60))
    draw.line([0, size[1] - 1, size[0] - 1, 0], fill=(30, 30, 220))
    return image.convert(mode)

def save(name, image, **options):
    with open(os.path.join(out, name), "wb") as f:
        image.save(f, **options)

save("gen-baseline.jpg", picture(), format="JPEG", quality=80)
save("gen-progressive.jpg", picture((40, 30)), format="JPEG", quality=70, progressive=True)
save("gen-grey.jpg", picture(mode="L"), format="JPEG")
save("gen-cmyk.jpg", picture(mode="CMYK"), format="JPEG")
save("gen-subsampled.jpg", picture((33, 17)), format="JPEG", subsampling=2, quality=50)
exif = Image.Exif()
exif[0x0112] = 6  # orientation: rotate 90° clockwise to display
save("gen-orientation6.jpg", picture(), format="JPEG", exif=exif.tobytes())
p3 = Image.open(os.path.join(os.path.dirname(out), "..", "..", "Tests", "ShashinVipsTests", "Resources", "colour", "red-in-display-p3.jpg"))
save("gen-display-p3.jpg", picture(), format="JPEG", icc_profile=p3.info.get("icc_profile"))
save("gen-still.gif", picture(mode="P"), format="GIF")
frames = [picture().rotate(angle).convert("P") for angle in (0, 90, 180)]
save("gen-animated.gif", frames[0], format="GIF", save_all=True, append_images=frames[1:], duration=50, loop=0)
# An APNG whose second frame is a sub-region blended over the first (Pillow writes the changed box).
save("gen-animated.png", frames[0].convert("RGBA"), format="PNG", save_all=True,
     append_images=[f.convert("RGBA") for f in frames[1:]], duration=50, loop=0, blend=1, disposal=0)
save("gen-animated.webp", picture(), format="WEBP", save_all=True, append_images=[picture().rotate(180)], duration=50)
save("gen-lossy.webp", picture((31, 21)), format="WEBP", quality=40)
save("gen-rgba.png", picture(mode="RGBA"), format="PNG")
save("gen.bmp", picture((4, 4)), format="BMP")
save("gen.tiff", picture((4, 4)), format="TIFF")
save("gen.avif", picture((16, 16)), format="AVIF", quality=30)
# Pillow writes no HEIC; libvips' command-line tool does (libvips-tools).
subprocess.run(["vips", "copy", os.path.join(out, "gen-rgba.png"), os.path.join(out, "gen.heic") + "[Q=20,compression=hevc]"], check=True)
