#!/usr/bin/env python3
"""Builds an ImageNet-like JPEG corpus from a few source photos (never commit the output).

Each output image is a random crop (area 10-100% of the photo, aspect 3:4 to 4:3) of a source
photo, resized so that its longer side is 500 px (ImageNet's typical 500x375 / 375x500 shape),
with a random horizontal flip, a small brightness change and sensor grain (--grain; about
80 KB per file at the default), saved as baseline JPEG at quality
90 (ImageNet's files are mostly quality 90-96 baseline JPEGs of about 110 KB). Deterministic in
--seed. Needs Pillow (Debian: python3-pil).

    make_jpeg_corpus.py --src DIR_OF_PHOTOS --out DIR --count 4000 [--jobs 16]

Source photos used for the published calibration: the nature photographs of Debian's
mate-backgrounds package (/usr/share/backgrounds/mate/nature/*.jpg; licences in its
copyright file).
"""
import argparse
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor

from PIL import Image, ImageEnhance

_SOURCES = []


def _load_sources(paths):
    global _SOURCES
    _SOURCES = []
    for p in paths:
        im = Image.open(p).convert("RGB")
        # Bound the source size so that crops of any area resize fast.
        im.thumbnail((2400, 2400))
        _SOURCES.append(im)


def _make(args):
    index, seed, out_dir, long_side, quality, grain = args
    rng = random.Random(seed * 1_000_003 + index)
    src = _SOURCES[rng.randrange(len(_SOURCES))]
    w, h = src.size
    area = w * h * rng.uniform(0.10, 1.0)
    aspect = rng.uniform(3 / 4, 4 / 3)
    cw = min(w, max(16, int(round((area * aspect) ** 0.5))))
    ch = min(h, max(16, int(round((area / aspect) ** 0.5))))
    x = rng.randrange(w - cw + 1)
    y = rng.randrange(h - ch + 1)
    im = src.crop((x, y, x + cw, y + ch))
    scale = long_side / max(cw, ch)
    im = im.resize((max(1, round(cw * scale)), max(1, round(ch * scale))), Image.BILINEAR)
    if rng.random() < 0.5:
        im = im.transpose(Image.FLIP_LEFT_RIGHT)
    im = ImageEnhance.Brightness(im).enhance(rng.uniform(0.85, 1.15))
    if grain > 0:
        # Sensor grain: wallpapers are smoother than camera photos, and a JPEG's size and
        # decode time grow with its detail.
        noise = Image.effect_noise(im.size, grain * 10).convert("RGB")
        im = Image.blend(im, noise, 0.1)
    path = os.path.join(out_dir, f"img_{index:06d}.jpg")
    im.save(path, "JPEG", quality=quality, optimize=False, progressive=False)
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="directory of source photos (*.jpg)")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--count", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--long-side", type=int, default=500)
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--grain", type=float, default=9.0,
                    help="strength of the added sensor grain (0: none)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    paths = sorted(
        os.path.join(a.src, f) for f in os.listdir(a.src) if f.lower().endswith((".jpg", ".jpeg"))
    )
    if not paths:
        sys.exit(f"make_jpeg_corpus: {a.src}: no *.jpg source photo")
    os.makedirs(a.out, exist_ok=True)
    work = [(i, a.seed, a.out, a.long_side, a.quality, a.grain) for i in range(a.count)]
    with ProcessPoolExecutor(a.jobs, initializer=_load_sources, initargs=(paths,)) as pool:
        sizes = list(pool.map(_make, work, chunksize=64))
    mean_kb = sum(sizes) / len(sizes) / 1e3
    print(f"make_jpeg_corpus: {len(sizes)} JPEGs in {a.out}, mean {mean_kb:.1f} KB, "
          f"total {sum(sizes) / 1e9:.2f} GB, from {len(paths)} source photos")


if __name__ == "__main__":
    main()
