#!/usr/bin/env python3
"""Pixel assertions on a PNG written by `gpulab view --screenshot`.

  png_pixels.py FILE size                 -> prints "W H"
  png_pixels.py FILE components R G B     -> connected regions of exactly that colour, of at
                                             least 20 pixels (the holes of glyphs drawn over
                                             a strip, like the inside of an "0", do not count)
  png_pixels.py FILE columns R G B        -> distinct runs of that colour along the row
                                             where it is most frequent
  png_pixels.py FILE distinct             -> number of distinct colours

Pure Python (zlib only): 8-bit RGB/RGBA, non-interlaced, as stb_image_write writes.
"""
import struct, sys, zlib


def read_png(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, inter = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and ctype in (2, 6) and inter == 0, 'unsupported PNG'
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    px = [[tuple(r[x * bpp:x * bpp + 3]) for x in range(w)] for r in rows]
    return w, h, px


def components(w, h, px, col):
    seen = [[False] * w for _ in range(h)]
    n = 0
    for y in range(h):
        for x in range(w):
            if px[y][x] == col and not seen[y][x]:
                size = 0
                stack = [(x, y)]
                seen[y][x] = True
                while stack:
                    cx, cy = stack.pop()
                    size += 1
                    for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                        if 0 <= nx < w and 0 <= ny < h and not seen[ny][nx] and px[ny][nx] == col:
                            seen[ny][nx] = True
                            stack.append((nx, ny))
                n += size >= 20
    return n


def main():
    path, what = sys.argv[1], sys.argv[2]
    w, h, px = read_png(path)
    if what == 'size':
        print(w, h)
    elif what == 'distinct':
        print(len({p for r in px for p in r}))
    else:
        col = tuple(int(v) for v in sys.argv[3:6])
        if what == 'components':
            print(components(w, h, px, col))
        elif what == 'columns':
            best = max(range(h), key=lambda y: sum(1 for p in px[y] if p == col))
            row, runs, inside = px[best], 0, False
            for p in row:
                if p == col and not inside: runs += 1
                inside = p == col
            print(runs)


if __name__ == '__main__':
    main()
