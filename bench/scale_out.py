#!/usr/bin/env python3
"""bench/scale_out.py — canopy uts over MPI ranks against one rank, in the same run (docs/scale-out.md).

For each tree and rank count it runs `mpiexec -n R canopy uts --tree T --json --threads 1` and reads
the rounds protocol's counters: rounds, nodes moved, the job's frontier summed over rounds (nodes
staged through a host) and the critical path (the sum over rounds of the most nodes one rank ran).
On this machine the ranks share 2 cores, so their wall time is printed but is not a speed-up. What
carries over to real devices is the model (docs/scale-out.md, "Where it stops scaling"):

    T(R) = C / rate + rounds * (launch + 4 * collective) + 28 B * frontier / host_link
           + 28 B * moved / network

with C the critical path in nodes, against T(1) = nodes / rate + launch for the whole tree in one
launch on one device. It prints the model's speed-up for each link in LINKS, from one device's rate
(--rate, nodes/s: default the H100's T1 run, docs/gpu-check.md).

Usage: bench/scale_out.py [--canopy PATH] [--mpiexec PATH] [--trees T1,T3] [--ranks 1,2,4]
                          [--round-nodes N] [--rate NODES_PER_S] [--quick]
Exit: 0 done, 1 a run failed or was not exact, 2 usage error.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

# (name, launch + read-back s, one collective's latency s, host link B/s, network B/s)
LINKS = [
    ("one node, NVLink/xGMI", 10e-6, 2e-6, 25e9, 50e9),
    ("one node, PCIe + host MPI", 10e-6, 5e-6, 25e9, 12e9),
    ("cluster, InfiniBand", 10e-6, 20e-6, 25e9, 12e9),
]
NODE_BYTES = 28


def run(args, tree, ranks):
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    cmd = [args.mpiexec, "-n", str(ranks), args.canopy, "uts", "--tree", tree, "--json", "--threads", "1",
           "--round-nodes", str(args.round_nodes)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"bench/scale_out.py: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    j = json.loads(p.stdout)
    if not j.get("ok") or j.get("ranks") != ranks:
        sys.exit(f"bench/scale_out.py: {' '.join(cmd)} was not exact:\n{p.stdout}")
    j["wall"] = wall
    return j


def model(j, rate, link):
    _, launch, coll, host, net = link
    so = j["scale_out"]
    return (so["critical_path_nodes"] / rate + so["rounds"] * (launch + 4 * coll) +
            NODE_BYTES * so["frontier_nodes"] / host + NODE_BYTES * so["nodes_moved"] / net)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--canopy", default="build/cpu/cli/canopy")
    ap.add_argument("--mpiexec", default=shutil.which("mpiexec") or "mpiexec")
    ap.add_argument("--trees", default="T1,T3")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--round-nodes", type=int, default=65536)
    ap.add_argument("--rate", type=float, default=4130071 / 3.83e-3,
                    help="one device's nodes/s (default: T1 on an H100, docs/gpu-check.md)")
    ap.add_argument("--quick", action="store_true", help="T1 on 2 ranks (CI's smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.trees, args.ranks = "T1", "2"
    try:
        trees = args.trees.split(",")
        ranks = [int(r) for r in args.ranks.split(",")]
    except ValueError:
        print("bench/scale_out.py: --ranks takes numbers, e.g. 1,2,4", file=sys.stderr)
        return 2
    if not os.path.exists(args.canopy):
        print(f"bench/scale_out.py: {args.canopy} not found: build it (cmake --build --preset cpu)",
              file=sys.stderr)
        return 2
    print(f"round budget {args.round_nodes} nodes a rank; one device {args.rate:.3g} nodes/s; "
          f"the model's speed-up is over one device running the tree in one launch")
    head = (f"{'tree':<5} {'ranks':>5} {'rounds':>6} {'moved':>9} {'frontier':>10} {'critical':>9} "
            f"{'nodes/crit':>10} {'wall s':>7}  " + "  ".join(f"{l[0]:>26}" for l in LINKS))
    print(head)
    for tree in trees:
        for r in ranks:
            j = run(args, tree, r)
            so = j["scale_out"]
            one = j["nodes"] / args.rate + LINKS[0][1]
            speedups = [one / model(j, args.rate, link) for link in LINKS]
            print(f"{tree:<5} {r:>5} {so['rounds']:>6} {so['nodes_moved']:>9} {so['frontier_nodes']:>10} "
                  f"{so['critical_path_nodes']:>9} {j['nodes'] / so['critical_path_nodes']:>10.2f} "
                  f"{j['wall']:>7.2f}  " + "  ".join(f"{s:>26.2f}" for s in speedups))
    return 0


if __name__ == "__main__":
    sys.exit(main())
