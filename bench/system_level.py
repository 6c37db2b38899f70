#!/usr/bin/env python3
"""bench/system_level.py — canopy uts over 1-4 emulated devices in one launch against one device, and
against one device with as many CUs as all of them, in the same run (docs/scale-out.md, "Several
devices in one launch").

Every run is on the emulator's timed scoped-cache model (`--memory-model scoped --timed`), so the
figures are simulated cycles (the launch's makespan), not this machine's wall time. For each device
count D it runs `canopy uts FLAGS --devices D --device DEVICE`, and once `--device BIG` (one device with
D_max times the CUs: hrf32 for 4 x hrf8), and prints each makespan and its speed-up over one DEVICE.
Every run must be exact (the published counts where the tree has them, else the sequential reference,
through --check).

Usage: bench/system_level.py [--canopy PATH] [--flags "-t 1 -a 3 -d 8 -b 4 -r 19"] [--devices 1,2,3,4]
                             [--device hrf8] [--big hrf32] [--quick]
Exit: 0 done, 1 a run failed or was not exact, 2 usage error.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys


def run(args, extra):
    cmd = [args.canopy, "uts", *shlex.split(args.flags), "--memory-model", "scoped", "--timed", "--check",
           "--json", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench/system_level.py: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    j = json.loads(p.stdout)
    if not j.get("ok"):
        sys.exit(f"bench/system_level.py: {' '.join(cmd)} was not exact:\n{p.stdout}")
    return j


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--canopy", default=os.path.join(here, "..", "build", "cpu", "cli", "canopy"))
    ap.add_argument("--flags", default="-t 1 -a 3 -d 8 -b 4 -r 19")
    ap.add_argument("--devices", default="1,2,3,4")
    ap.add_argument("--device", default="hrf8")
    ap.add_argument("--big", default="hrf32")
    ap.add_argument("--quick", action="store_true", help="T1's shape at depth 5, devices 1 and 2")
    args = ap.parse_args()
    if args.quick:
        args.flags, args.devices = "-t 1 -a 3 -d 5 -b 4 -r 19", "1,2"
    try:
        counts = [int(x) for x in args.devices.split(",")]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        print(f"bench/system_level.py: --devices takes counts >= 1, e.g. 1,2,4 (got {args.devices})",
              file=sys.stderr)
        return 2
    if not os.access(args.canopy, os.X_OK):
        print(f"bench/system_level.py: {args.canopy} is not an executable (build canopy first)", file=sys.stderr)
        return 2
    print(f"tree: {args.flags}; each device {args.device}; timed scoped-cache model (simulated cycles)")
    print(f"{'run':<28} {'nodes':>8} {'makespan':>11} {'over 1':>7} {'donated':>8} {'from sys':>9} {'dry':>5}")
    base = None
    for d in counts:
        j = run(args, ["--device", args.device, "--devices", str(d)])
        s = j["stats"]
        cyc = s["cycles_makespan"]
        base = base or (cyc if d == 1 else None)
        ratio = f"{base / cyc:.2f}" if base else "-"
        print(f"{f'{d} x {args.device}, one launch':<28} {j['nodes']:>8} {cyc:>11} {ratio:>7} "
              f"{s.get('donations_to_system', 0):>8} {s.get('tasks_system', 0):>9} {s.get('devices_dry', 0):>5}")
    if args.big:
        j = run(args, ["--device", args.big])
        cyc = j["stats"]["cycles_makespan"]
        ratio = f"{base / cyc:.2f}" if base else "-"
        print(f"{f'1 x {args.big} (one L2)':<28} {j['nodes']:>8} {cyc:>11} {ratio:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
