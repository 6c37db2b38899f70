#!/usr/bin/env python3
"""Plots canopy_bench_graph_experiment's JSON (DIR/graph_experiment.json) as one PNG of three rows:

  (a) per device: speedup of persistent + XF barrier over multi-kernel against the per-launch cost (the
      JSON's launch_sweep and each row's speedup_sweep), one line per (algorithm, graph), with Sorensen
      et al.'s Table 4 range (0.22-2.34) shaded and 1.0 marked;
  (b) per device: each tasks policy's speedup over hrf-direct per (algorithm, graph), grouped bars, with
      Orr et al.'s steal-rsp figures (1.17 over scopes alone, 1.06 over stealing alone) in the legend;
  (c) per device: persistent and tasks over multi-kernel per (algorithm, graph), log scale, with Atos'
      3.44x marked.

Draws with matplotlib (Debian: python3-matplotlib, which tools/deps.sh installs) on the Agg backend, so
it runs headless. Exit status: 0 written; 1 a missing or malformed JSON file, an unwritable PNG or no
matplotlib; 2 bad usage.

usage: plot_graph_experiment.py [-h] [json] [png]
       (defaults: graph_experiment.json in the current directory; graph_experiment.png next to the JSON)
"""
import argparse
import math
import os
import sys

from plot_common import NUMBER, InputError, headless_pyplot, need, read_json

PROG = "plot_graph_experiment.py"
POLICIES = ["hrf-direct", "hrf-indirect", "steal-emulated", "steal-rsp"]
COLORS = {"hrf-direct": "0.55", "hrf-indirect": "tab:blue", "steal-emulated": "tab:orange", "steal-rsp": "tab:green"}
ALGO_COLORS = {"bfs": "tab:blue", "sssp": "tab:orange", "pagerank": "tab:green", "color": "tab:red"}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def load(path):
    data = read_json(path)
    sweep = need(data, "launch_sweep", list, "top level")
    if not sweep or not all(isinstance(x, NUMBER) for x in sweep):
        raise InputError("top level: 'launch_sweep' must be a non-empty list of numbers")
    need(data, "launch_cycles", NUMBER, "top level")
    devices = [need(d, "name", str, f"devices[{i}]") for i, d in enumerate(need(data, "devices", list, "top level"))]
    if not devices:
        raise InputError("top level: 'devices' is empty")
    a_rows, b_rows, c_rows = need(data, "a", list, "top level"), need(data, "b", list, "top level"), need(
        data, "c", list, "top level")
    for i, r in enumerate(a_rows):
        where = f"a[{i}]"
        for k in ("device", "algorithm", "graph"):
            need(r, k, str, where)
        sw = need(r, "speedup_sweep", list, where)
        if len(sw) != len(sweep) or not all(isinstance(x, NUMBER) and math.isfinite(x) for x in sw):
            raise InputError(f"{where}: 'speedup_sweep' must hold {len(sweep)} finite numbers")
    for i, r in enumerate(b_rows):
        where = f"b[{i}]"
        for k in ("device", "algorithm", "graph"):
            need(r, k, str, where)
        sp = need(r, "speedup_vs_hrf_direct", dict, where)
        for p in POLICIES:
            need(sp, p, NUMBER, f"{where}.speedup_vs_hrf_direct")
    for i, r in enumerate(c_rows):
        where = f"c[{i}]"
        for k in ("device", "algorithm", "graph"):
            need(r, k, str, where)
        for k in ("multi_kernel_cycles", "persistent_cycles"):
            if need(r, k, NUMBER, where) <= 0:
                raise InputError(f"{where}: '{k}' must be positive")
        if r.get("tasks_cycles") is not None and need(r, "tasks_cycles", NUMBER, where) <= 0:
            raise InputError(f"{where}: 'tasks_cycles' must be positive or null (not run)")
    return data, devices, sweep, a_rows, b_rows, c_rows


def plot(data, devices, sweep, a_rows, b_rows, c_rows, png):
    try:
        plt = headless_pyplot()
    except ImportError as e:
        raise InputError(str(e)) from None
    nd = len(devices)
    fig, axes = plt.subplots(3, nd, figsize=(7.5 * nd, 15), squeeze=False)
    graphs = []
    for r in a_rows + b_rows + c_rows:
        if r["graph"] not in graphs:
            graphs.append(r["graph"])
    marker = {g: MARKERS[i % len(MARKERS)] for i, g in enumerate(graphs)}
    launch = data["launch_cycles"]
    for col, dev in enumerate(devices):
        # (a)
        ax = axes[0][col]
        ax.axhspan(0.22, 2.34, color="0.92", zorder=0, label="Sorensen Table 4 range (0.22-2.34)")
        ax.axhline(1.0, color="0.3", lw=0.8)
        ax.axvline(launch, color="0.6", ls=":", lw=0.8, label=f"default L = {launch:,} cycles")
        for r in a_rows:
            if r["device"] != dev:
                continue
            ax.plot(sweep, r["speedup_sweep"], marker=marker[r["graph"]], color=ALGO_COLORS.get(r["algorithm"], "k"),
                    lw=1, ms=4, label=f"{r['algorithm']} {r['graph']}")
        ax.set_xlabel("per-launch cost L (cycles)")
        ax.set_ylabel("speedup persistent / multi-kernel")
        ax.set_yscale("log")
        ax.set_title(f"(a) {dev}: multi-kernel vs persistent + XF barrier")
        ax.legend(fontsize=6, ncol=2)
        # (b)
        ax = axes[1][col]
        rows = [r for r in b_rows if r["device"] == dev]
        if not rows:
            ax.text(0.5, 0.5, f"(b) {dev}: the tasks strategy did not run here\n(--tasks-first-device-only kept it off)",
                    ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
        width = 0.8 / len(POLICIES)
        for k, p in enumerate(POLICIES if rows else []):
            xs = [i + (k - (len(POLICIES) - 1) / 2) * width for i in range(len(rows))]
            label = p
            if p == "steal-rsp":
                label += " (Orr: 1.17x scopes alone, 1.06x stealing alone)"
            ax.bar(xs, [r["speedup_vs_hrf_direct"][p] for r in rows], width, color=COLORS[p], label=label)
        if rows:
            ax.axhline(1.0, color="0.3", lw=0.8)
            ax.set_xticks(range(len(rows)))
            ax.set_xticklabels([f"{r['algorithm']}\n{r['graph']}" for r in rows], fontsize=7)
            ax.set_ylabel("speedup over hrf-direct (tasks)")
            ax.set_title(f"(b) {dev}: policies on graph tasks")
            ax.legend(fontsize=7)
        # (c)
        ax = axes[2][col]
        rows = [r for r in c_rows if r["device"] == dev]
        xs = range(len(rows))
        ax.bar([x - 0.2 for x in xs], [r["multi_kernel_cycles"] / r["persistent_cycles"] for r in rows], 0.4,
               color="tab:purple", label="persistent / multi-kernel")
        ax.bar([x + 0.2 for x in xs],
               [r["multi_kernel_cycles"] / r["tasks_cycles"] if r.get("tasks_cycles") else 0 for r in rows], 0.4,
               color="tab:blue", label="tasks (hrf-indirect) / multi-kernel (absent: not run)")
        ax.axhline(1.0, color="0.3", lw=0.8)
        ax.axhline(3.44, color="tab:red", ls="--", lw=0.8, label="Atos BFS 3.44x over level-synchronous")
        ax.set_yscale("log")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{r['algorithm']}\n{r['graph']}" for r in rows], fontsize=7)
        ax.set_ylabel("speedup over multi-kernel")
        ax.set_title(f"(c) {dev}: tasks vs persistent vs multi-kernel (at L)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    try:
        fig.savefig(png, dpi=110)
    except OSError as e:
        raise InputError(f"cannot write {png}: {e.strerror}") from None


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="Plot canopy_bench_graph_experiment's JSON as a PNG.")
    ap.add_argument("json", nargs="?", default="graph_experiment.json")
    ap.add_argument("png", nargs="?")
    args = ap.parse_args()
    png = args.png or os.path.join(os.path.dirname(args.json) or ".", "graph_experiment.png")
    try:
        loaded = load(args.json)
        plot(*loaded, png)
    except InputError as e:
        print(f"{PROG}: {args.json}: {e}", file=sys.stderr)
        return 1
    print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
