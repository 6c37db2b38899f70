#!/usr/bin/env python3
"""The HRF experiment's GPU table (tools/gpu-check.sh --hrf): device time per tree x policy x core from
the `hrf-CORE-TREE-POLICY.json` files `canopy uts --json` wrote into OUT, each policy's speedup over
hrf-direct on this GPU beside the timed scoped-cache model's for the same tree shape (MODEL:
bench/hrf_model_speedups.tsv). Prints the table and writes OUT/hrf.tsv.

usage: hrf_gpu_table.py OUT MODEL
"""
import json
import os
import sys

TREES = ("T1", "T2", "T3", "T4", "T5", "T1L")
POLICIES = ("hrf-direct", "hrf-indirect", "steal-emulated")
DONATIONS = ("donations_to_workgroup", "donations_to_device", "redonations_to_device")


def load_model(path):
    """(core, tree, policy) -> the model's speedup over hrf-direct."""
    model = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 5:
                sys.exit(f"hrf_gpu_table: {path}:{n}: wants 5 tab-separated columns, has {len(cols)}")
            core, tree, policy, _cycles, speedup = cols
            model[(core, tree, policy)] = float(speedup)
    return model


def load_runs(out):
    """The runs that passed (a missing or unreadable JSON is a run that failed: gpu-check said so)."""
    rows = []
    for core in ("ring", "locked"):
        for tree in TREES:
            for policy in POLICIES:
                try:
                    with open(os.path.join(out, f"hrf-{core}-{tree}-{policy}.json")) as f:
                        j = json.load(f)
                except (OSError, ValueError):
                    continue
                st = j.get("stats", {})
                ms = j.get("device_ms")
                rows.append({"core": core, "tree": tree, "policy": policy,
                             "device_ms": ms if isinstance(ms, (int, float)) else None,
                             "donations": sum(st.get(k, 0) for k in DONATIONS),
                             "steals": st.get("steals_received", 0), "nodes": j.get("nodes")})
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    out, model_path = sys.argv[1], sys.argv[2]
    model = load_model(model_path)
    rows = load_runs(out)
    base = {(r["core"], r["tree"]): r["device_ms"] for r in rows if r["policy"] == "hrf-direct"}
    def show(v, width, spec):
        return format(v, f"{width}{spec}") if v is not None else "-".rjust(width)

    print(f"\n{'core':7} {'tree':5} {'policy':15} {'device ms':>10} {'vs direct':>9} {'model':>6} "
          f"{'gpu/model':>9} {'donations':>9} {'steals':>7}")
    with open(os.path.join(out, "hrf.tsv"), "w") as f:
        f.write("core\ttree\tpolicy\tdevice_ms\tspeedup_vs_hrf_direct\tmodel_speedup\tdonations\tsteals\tnodes\n")
        for r in rows:
            b, ms = base.get((r["core"], r["tree"])), r["device_ms"]
            speedup = b / ms if b and ms else None
            m = model.get((r["core"], r["tree"], r["policy"]))
            # Where the GPU and the model disagree by more than 1.5x, the note names the cost responsible.
            agree = speedup / m if speedup and m else None
            flag = " <- disagree > 1.5x" if agree and (agree > 1.5 or agree < 1 / 1.5) else ""
            f.write(f"{r['core']}\t{r['tree']}\t{r['policy']}\t{ms}\t{speedup}\t{m}\t{r['donations']}\t"
                    f"{r['steals']}\t{r['nodes']}\n")
            print(f"{r['core']:7} {r['tree']:5} {r['policy']:15} {show(ms, 10, '.3f')} "
                  f"{show(speedup, 9, '.3f')} {show(m, 6, '.3f')} {show(agree, 9, '.2f')} {r['donations']:9} "
                  f"{r['steals']:7}{flag}")
    print("vs direct: hrf-direct's device ms over this policy's, on this GPU; model: the same ratio of the "
          "timed model's makespans (hrf8, work-groups of 64, trees scaled to ~125 K nodes); '-' where the "
          "model has no such tree (T3, T1L) or a run failed")


if __name__ == "__main__":
    main()
