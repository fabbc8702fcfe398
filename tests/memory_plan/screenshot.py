#!/usr/bin/env python3
"""Screenshot test of the memory map (`etkit memory X.pte --html`).

Writes the map of the unsafe-chain fixture, renders it in a headless
Chromium (or Chrome), decodes the PNG (no imaging library needed) and
checks that the picture really shows the map: tensor rectangles in the
legend colours of `input` and `aten::relu`, the red unsafe overlap, and
the live-bytes curve's fill.  Exit 77 (skipped, said on stdout) when no
browser is installed.

Usage: screenshot.py ETKIT PROGRAM.pte WORKDIR
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome",
                 "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def decode_png(data):
    """RGB(A) 8-bit PNG -> (width, height, channels, rows of bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * ch
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, ch, rows


def count_colour(img, rgb, tolerance=24):
    width, height, ch, rows = img
    n = 0
    for row in rows:
        for x in range(0, width * ch, ch):
            if (abs(row[x] - rgb[0]) <= tolerance and
                    abs(row[x + 1] - rgb[1]) <= tolerance and
                    abs(row[x + 2] - rgb[2]) <= tolerance):
                n += 1
    return n


def main():
    etkit, program, work = sys.argv[1:4]
    browser = find_browser()
    if not browser:
        print("SKIPPED: no headless browser (chromium) installed")
        return 77
    os.makedirs(work, exist_ok=True)
    html = os.path.join(work, "memory_map.html")
    png = os.path.join(work, "memory_map.png")
    subprocess.run([etkit, "memory", program, "--html", html], check=True,
                   stdout=subprocess.DEVNULL)
    if os.path.exists(png):
        os.remove(png)
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--window-size=1100,900",
                    "--screenshot=" + png, "file://" + os.path.abspath(html)],
                   check=True, timeout=120, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(png, "rb") as f:
        img = decode_png(f.read())
    checks = {
        "input rectangle (#4e79a7)": (0x4e, 0x79, 0xa7),
        "aten::relu rectangles (#f28e2b)": (0xf2, 0x8e, 0x2b),
        "unsafe overlap (red)": (0xf0, 0x40, 0x15),
        "live-bytes curve (#cde)": (0xcc, 0xdd, 0xee),
    }
    bad = 0
    for what, rgb in checks.items():
        n = count_colour(img, rgb)
        print("%s: %d pixels" % (what, n))
        if n < 500:
            print("FAIL: the screenshot does not show the " + what)
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
