#!/usr/bin/env python3
"""bench/make_road_graph.py — a road-like test graph in DIMACS .gr form, for `canopy graph --input`.

A ROWS x COLS lattice whose points are jittered by up to 0.3 in each coordinate; each lattice edge is
kept with probability 0.8 and a diagonal added with probability 0.05; the largest connected component
is kept and renumbered. Arcs go both ways, weighted by 100 x the Euclidean length (at least 1). What it
has of a road network: degree 2-4, planar-ish, a diameter of the order of ROWS + COLS (341 hops for
200 x 200 with the default seed), weights that vary. What it lacks: a real network's hierarchy of roads.
docs/graph-experiment.md ("Graphs the experiment had not seen") runs it.

Usage: bench/make_road_graph.py ROWS COLS SEED OUT.gr
"""
import math
import random
import sys


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        rows, cols, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    except ValueError:
        print("bench/make_road_graph.py: ROWS, COLS and SEED are integers", file=sys.stderr)
        return 2
    if rows < 1 or cols < 1:
        print("bench/make_road_graph.py: ROWS and COLS must be at least 1", file=sys.stderr)
        return 2
    rng = random.Random(seed)
    pts = {}
    for r in range(rows):
        for c in range(cols):
            pts[(r, c)] = (r + rng.uniform(-0.3, 0.3), c + rng.uniform(-0.3, 0.3))
    edges = set()

    def add(a, b):
        if a in pts and b in pts:
            edges.add((min(a, b), max(a, b)))

    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.8:
                add((r, c), (r, c + 1))
            if rng.random() < 0.8:
                add((r, c), (r + 1, c))
            if rng.random() < 0.05:
                add((r, c), (r + 1, c + 1))
    idx = {p: i for i, p in enumerate(pts)}
    adj = [[] for _ in pts]
    for a, b in edges:
        adj[idx[a]].append(idx[b])
        adj[idx[b]].append(idx[a])
    seen = [False] * len(pts)
    best = []
    for s in range(len(pts)):
        if seen[s]:
            continue
        comp, i = [s], 0
        seen[s] = True
        while i < len(comp):
            for v in adj[comp[i]]:
                if not seen[v]:
                    seen[v] = True
                    comp.append(v)
            i += 1
        if len(comp) > len(best):
            best = comp
    keep = {v: i for i, v in enumerate(sorted(best))}
    arcs = []
    for a, b in sorted(edges):
        ia, ib = idx[a], idx[b]
        if ia in keep and ib in keep:
            (x1, y1), (x2, y2) = pts[a], pts[b]
            w = max(1, int(round(100 * math.hypot(x1 - x2, y1 - y2))))
            arcs.append((keep[ia] + 1, keep[ib] + 1, w))
            arcs.append((keep[ib] + 1, keep[ia] + 1, w))
    with open(sys.argv[4], "w") as f:
        f.write(f"c road-like: jittered {rows}x{cols} lattice, seed {seed} (bench/make_road_graph.py)\n")
        f.write(f"p sp {len(keep)} {len(arcs)}\n")
        for u, v, w in arcs:
            f.write(f"a {u} {v} {w}\n")
    print(f"{sys.argv[4]}: {len(keep)} vertices, {len(arcs)} arcs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
