#!/usr/bin/env python3
"""Plots canopy_bench_uts_hrf's JSON as a PNG: grouped bars of each policy's speedup over hrf-direct
(cycles_max_cu(hrf-direct) / cycles_max_cu(policy)) per tree.

Standard library only (no matplotlib): the bars, axes, grid lines and a built-in 5x7 bitmap font are drawn
into an RGB pixel buffer, which is written as a PNG with zlib + struct.

usage: plot_hrf_experiment.py [hrf_experiment.json] [hrf_experiment.png]
       (defaults: hrf_experiment.json in the current directory; the PNG next to the JSON)
"""
import json
import math
import os
import struct
import sys
import zlib

# 5x7 glyphs, one string of 7 rows x 5 columns per character ('#' = ink). Lower case prints as upper.
FONT = {
    "0": ".###.#...##..###.#.###..##...#.###.", "1": "..#...##....#....#....#....#...###.",
    "2": ".###.#...#....#...#...#...#...#####", "3": "####.....#...#...##.....##...#.###.",
    "4": "...#...##..#.#.#..#.#####...#....#.", "5": "######....####.....#....##...#.###.",
    "6": "..##..#...#....####.#...##...#.###.", "7": "#####....#...#...#...#....#....#...",
    "8": ".###.#...##...#.###.#...##...#.###.", "9": ".###.#...##...#.####....#...#..##..",
    "A": ".###.#...##...#######...##...##...#", "B": "####.#...##...#####.#...##...#####.",
    "C": ".###.#...##....#....#....#...#.###.", "D": "####.#...##...##...##...##...#####.",
    "E": "######....#....####.#....#....#####", "F": "######....#....####.#....#....#....",
    "G": ".###.#...##....#.####...##...#.####", "H": "#...##...##...#######...##...##...#",
    "I": ".###...#....#....#....#....#...###.", "J": "..###...#....#....#....#.#..#..##..",
    "K": "#...##..#.#.#..##...#.#..#..#.#...#", "L": "#....#....#....#....#....#....#####",
    "M": "#...###.###.#.##...##...##...##...#", "N": "#...##...###..##.#.##..###...##...#",
    "O": ".###.#...##...##...##...##...#.###.", "P": "####.#...##...#####.#....#....#....",
    "Q": ".###.#...##...##...##.#.##..#..##.#", "R": "####.#...##...#####.#.#..#..#.#...#",
    "S": ".#####....#.....###.....#....#####.", "T": "#####..#....#....#....#....#....#..",
    "U": "#...##...##...##...##...##...#.###.", "V": "#...##...##...##...##...#.#.#...#..",
    "W": "#...##...##...##.#.##.#.##.#.#.#.#.", "X": "#...##...#.#.#...#...#.#.#...##...#",
    "Y": "#...##...#.#.#...#....#....#....#..", "Z": "#####....#...#...#...#...#....#####",
    ".": "..........................##...##..", "-": "...............#####...............",
    "/": "....#....#...#...#...#...#....#....", "(": "...#...#...#....#....#.....#.....#.",
    ")": ".#.....#.....#....#....#...#...#...", ":": "......##...##........##...##.......",
    "=": "..........#####.....#####..........", ",": ".....................##...#...#....",
    "%": "##...##..#...#...#...#...#..##...##", " ": "." * 35,
}

POLICY_COLORS = [(90, 90, 90), (31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189)]


class Canvas:
    def __init__(self, w, h, bg=(255, 255, 255)):
        self.w, self.h = w, h
        self.px = bytearray(bytes(bg) * (w * h))

    def rect(self, x0, y0, x1, y1, c):
        x0, x1 = max(0, min(x0, x1)), min(self.w, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.h, max(y0, y1))
        row = bytes(c) * (x1 - x0)
        for y in range(y0, y1):
            i = (y * self.w + x0) * 3
            self.px[i:i + len(row)] = row

    def text(self, x, y, s, c=(0, 0, 0), scale=2):
        """Draws s with its top-left corner at (x, y); returns the width drawn."""
        for k, ch in enumerate(s.upper()):
            g = FONT.get(ch, FONT[" "])
            for r in range(7):
                for col in range(5):
                    if g[r * 5 + col] == "#":
                        gx = x + (k * 6 + col) * scale
                        self.rect(gx, y + r * scale, gx + scale, y + (r + 1) * scale, c)
        return text_width(s, scale)

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3]) for y in range(self.h))

        def chunk(tag, data):
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)))
            f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
            f.write(chunk(b"IEND", b""))


def text_width(s, scale=2):
    return (len(s) * 6 - 1) * scale if s else 0


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "hrf_experiment.json"
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(src)), "hrf_experiment.png")
    with open(src) as f:
        data = json.load(f)
    policies = data["policies"]
    trees = data["trees"]
    speed = {(t["name"], p["policy"]): p["speedup_mean"] for t in trees for p in t["policies"]}
    spread = {(t["name"], p["policy"]): (p["speedup_min"], p["speedup_max"]) for t in trees for p in t["policies"]}
    ymax_data = max(hi for _, hi in spread.values()) if spread else 1.0
    step = 0.25 if ymax_data <= 2.0 else 0.5
    ymax = max(1.25, math.ceil(ymax_data / step + 0.4) * step)

    W, H = 960, 560
    left, right, top, bottom = 90, 30, 70, 110
    pw, ph = W - left - right, H - top - bottom
    cv = Canvas(W, H)

    def ypix(v):
        return top + ph - int(round(v / ymax * ph))

    # Title and y-axis label.
    title = "UTS ON HRF8 (SCM, TIMED): SPEEDUP OVER HRF-DIRECT (MAKESPAN)"
    cv.text((W - text_width(title, 2)) // 2, 20, title, scale=2)
    # Horizontal grid lines with tick labels.
    v = 0.0
    while v <= ymax + 1e-9:
        y = ypix(v)
        cv.rect(left, y, left + pw, y + 1, (225, 225, 225))
        lab = "%.2f" % v
        cv.text(left - 10 - text_width(lab, 2), y - 7, lab, scale=2)
        v += step
    # The 1.0 line (hrf-direct), darker.
    y1 = ypix(1.0)
    cv.rect(left, y1, left + pw, y1 + 2, (120, 120, 120))
    # Bars.
    groups = len(trees)
    gw = pw / max(1, groups)
    bw = int(gw * 0.8 / max(1, len(policies)))
    for gi, t in enumerate(trees):
        gx = left + int(gi * gw + gw * 0.1)
        for pi, p in enumerate(policies):
            s = speed.get((t["name"], p), 0.0)
            x0 = gx + pi * bw
            cv.rect(x0 + 2, ypix(s), x0 + bw - 2, ypix(0), POLICY_COLORS[pi % len(POLICY_COLORS)])
            lo, hi = spread.get((t["name"], p), (s, s))
            if hi > lo:  # the spread over seeds: a whisker from min to max
                xm = x0 + bw // 2
                cv.rect(xm - 1, ypix(hi), xm + 1, ypix(lo) + 1, (0, 0, 0))
                cv.rect(xm - 4, ypix(hi), xm + 5, ypix(hi) + 1, (0, 0, 0))
                cv.rect(xm - 4, ypix(lo), xm + 5, ypix(lo) + 1, (0, 0, 0))
            lab = "%.2f" % s
            sc = 1 if text_width(lab, 2) > bw - 2 else 2
            cv.text(x0 + (bw - text_width(lab, sc)) // 2, min(ypix(s), ypix(hi)) - 8 * sc - 2, lab, scale=sc)
        name = "%s (%s NODES)" % (t["name"], "{:,}".format(t["nodes"]))
        sc = 2 if text_width(name, 2) < gw - 4 else 1
        cv.text(int(left + gi * gw + (gw - text_width(name, sc)) / 2), top + ph + 10, name, scale=sc)
    # Axes.
    cv.rect(left, top, left + 2, top + ph + 1, (0, 0, 0))
    cv.rect(left, top + ph, left + pw, top + ph + 2, (0, 0, 0))
    # Legend (below the plot).
    lx, ly = left, H - 50
    for pi, p in enumerate(policies):
        cv.rect(lx, ly, lx + 18, ly + 14, POLICY_COLORS[pi % len(POLICY_COLORS)])
        lx += 26 + cv.text(lx + 26, ly, p, scale=2) + 30
    corr = data.get("pearson_indirect_speedup_vs_donations")
    corr_all = data.get("pearson_indirect_speedup_vs_donations_all_runs")
    note = ("PEARSON(HRF-INDIRECT SPEEDUP, DONATIONS) = " + ("%.2f" % corr if corr is not None else "N/A")
            + " ACROSS TREES, " + ("%.2f" % corr_all if corr_all is not None else "N/A") + " ACROSS RUNS;"
            + " WHISKERS: MIN-MAX OVER SEEDS")
    cv.text(left, H - 24, note, scale=1)
    cv.png(dst)
    print("wrote", dst)


if __name__ == "__main__":
    main()
