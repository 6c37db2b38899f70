#!/usr/bin/env python3
"""bench/make_snap_graphs.py — the two ~20,000-vertex SNAP edge lists of docs/graph-experiment.md
("Graphs not seen before: ... SNAP edge lists"): road20k.txt (a 140 x 140 grid, 8% of its edges
dropped, 5% diagonals added: high diameter) and ba20k.txt (Barabasi-Albert, 20,000 vertices, 4 edges
per new vertex: power-law hubs), both seeded, so the rows reproduce. Read them with `canopy graph ...
--input F --format snap --symmetrize`: one direction per edge, as SNAP's undirected lists give them.
(bench/make_road_graph.py writes a weighted, jittered road-like graph in DIMACS form instead.)

usage: bench/make_snap_graphs.py OUTDIR
"""
import os
import random
import sys


def road(path, n=140, drop=0.08, diagonal=0.05):
    with open(path, "w") as f:
        f.write(f"# road-like: {n} x {n} grid, {drop:.0%} of edges dropped, {diagonal:.0%} diagonals (canopy)\n")
        f.write("# FromNodeId\tToNodeId\n")
        for r in range(n):
            for c in range(n):
                v = r * n + c
                if c + 1 < n and random.random() > drop:
                    f.write(f"{v}\t{v + 1}\n")
                if r + 1 < n and random.random() > drop:
                    f.write(f"{v}\t{v + n}\n")
                if r + 1 < n and c + 1 < n and random.random() < diagonal:
                    f.write(f"{v}\t{v + n + 1}\n")


def barabasi_albert(path, vertices=20000, m=4):
    ends = []  # every edge's two ends: a uniform pick from it is a pick by degree
    with open(path, "w") as f:
        f.write(f"# Barabasi-Albert: {vertices} vertices, {m} edges per new vertex (canopy)\n")
        for v in range(m, vertices):
            chosen = set()
            while len(chosen) < m:
                chosen.add(random.choice(ends) if ends else random.randrange(v))
            for u in chosen:
                f.write(f"{v}\t{u}\n")
                ends += [u, v]


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    # An OUTDIR that starts with '-' is a flag mistaken for a folder (a bare --help once made
    # a folder named "--help"): refuse it rather than write there.
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    random.seed(7)
    road(os.path.join(out, "road20k.txt"))
    barabasi_albert(os.path.join(out, "ba20k.txt"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
