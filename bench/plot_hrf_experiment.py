#!/usr/bin/env python3
"""Plots canopy_bench_uts_hrf's JSON (DIR/hrf_experiment.json, from `canopy_bench_uts_hrf --out DIR`) as a
PNG: for each tree, grouped bars of each policy's mean speedup over hrf-direct, where a run's speedup is
cycles_makespan(hrf-direct) / cycles_makespan(policy) for the same seed (the JSON's speedup_mean), with
min-max whiskers over seeds (speedup_min, speedup_max) where they differ.

Draws with matplotlib (Debian: python3-matplotlib, which tools/deps.sh installs) on the Agg backend, so
it runs headless. Exit status: 0 written; 1 a missing or malformed JSON file, an unwritable PNG or no
matplotlib; 2 bad usage.

usage: plot_hrf_experiment.py [-h] [json] [png]
       (defaults: hrf_experiment.json in the current directory; hrf_experiment.png next to the JSON)
"""
import argparse
import os
import sys

from plot_common import NUMBER, InputError, headless_pyplot, need, read_json

PROG = "plot_hrf_experiment.py"
COLORS = ["0.55", "tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]  # hrf-direct first: grey


def load(path):
    """Returns (data, policies, trees, stats), stats[(tree, policy)] = (mean, min, max) speedup."""
    data = read_json(path)
    policies = need(data, "policies", list, "top level")
    trees = need(data, "trees", list, "top level")
    if not policies or not trees or not all(isinstance(p, str) for p in policies):
        raise InputError("top level: 'policies' must be a non-empty list of names and 'trees' non-empty")
    stats = {}
    for i, tree in enumerate(trees):
        where = f"trees[{i}]"
        name = need(tree, "name", str, where)
        need(tree, "nodes", NUMBER, where)
        for j, entry in enumerate(need(tree, "policies", list, where)):
            at = f"{where}.policies[{j}]"
            stats[name, need(entry, "policy", str, at)] = tuple(
                need(entry, key, NUMBER, at) for key in ("speedup_mean", "speedup_min", "speedup_max"))
        missing = [p for p in policies if (name, p) not in stats]
        if missing:
            raise InputError(f"{where} ({name}): no results for policy {', '.join(missing)}")
    return data, policies, trees, stats


def subtitle(data):
    """One line on the setup, from whichever of the bench's descriptive fields are present."""
    fields = (("device", "device {}"), ("memory_model", "memory model: {}"), ("block_size", "work-groups of {}"),
              ("compute_cycles_per_sha1", "{} cycles per SHA-1"))
    parts = [fmt.format(f"{data[key]:,}" if type(data[key]) is int else data[key])
             for key, fmt in fields if key in data]
    seeds, first = data.get("seeds"), data.get("first_seed", 1)
    if isinstance(seeds, int) and isinstance(first, int):
        parts.append(f"seed {first}" if seeds == 1 else f"seeds {first}–{first + seeds - 1}")
    return ", ".join(parts + (["--quick run"] if data.get("quick") else []))


def footnote(data, whiskers):
    """What the makespan, bars and whiskers are, and the bench's Pearson correlations (where present)."""
    r = [data.get(key) for key in ("pearson_indirect_speedup_vs_donations",
                                   "pearson_indirect_speedup_vs_donations_all_runs")]
    r = [f"{value:.2f}" if isinstance(value, NUMBER) else "n/a" for value in r]
    return ("Makespan: simulated cycles of the launch, same seed for both. Bars: mean over seeds"
            f"{'; whiskers: min–max' if whiskers else ''}.\n"
            f"Pearson r(hrf-indirect speedup, donations): {r[0]} across trees, {r[1]} across (tree, seed) runs.")


def plot(plt, data, policies, trees, stats, dst):
    # Wide enough for each bar's value label and each tree's tick label: 0.4 in a bar, 1.3 in a tree at least.
    fig, ax = plt.subplots(figsize=(max(10, 3.5 + len(trees) * max(1.3, 0.4 * len(policies))), 5.6))
    xs = range(len(trees))
    width = 0.8 / len(policies)
    spread_shown = False
    for j, policy in enumerate(policies):
        x = [i - 0.4 + (j + 0.5) * width for i in xs]
        mean, lo, hi = zip(*(stats[tree["name"], policy] for tree in trees))
        ax.bar(x, mean, width * 0.92, color=COLORS[j % len(COLORS)], label=policy, zorder=2)
        spread = [i for i in xs if hi[i] > lo[i]]
        if spread:
            spread_shown = True
            ax.errorbar([x[i] for i in spread], [mean[i] for i in spread], fmt="none", ecolor="black",
                        elinewidth=1, capsize=3, zorder=3,
                        yerr=[[mean[i] - lo[i] for i in spread], [hi[i] - mean[i] for i in spread]])
        for i in xs:
            ax.annotate(f"{mean[i]:.2f}", (x[i], max(mean[i], hi[i])), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=8)
    ax.axhline(1.0, color="0.2", linestyle="--", linewidth=1, zorder=2.5, label="1.0 = as fast as hrf-direct")
    top = max(max(s[0], s[2]) for s in stats.values())
    ax.set_ylim(0, max(1.25, top * 1.12))
    ax.set_xticks(list(xs), [f"{t['name']}\n{int(t['nodes']):,} nodes" for t in trees])
    ax.set_xlabel("UTS tree (scaled from the HRF paper's trees)")
    ax.set_ylabel("speedup over hrf-direct (×; higher is faster)\nmakespan(hrf-direct) / makespan(policy)")
    ax.yaxis.grid(True, color="0.88", zorder=0)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(title="policy", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle("UTS under each task policy: speedup over hrf-direct", fontweight="bold")
    ax.set_title(subtitle(data), fontsize=9, color="0.3")
    fig.text(0.01, 0.01, footnote(data, spread_shown), fontsize=8, color="0.3")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(dst, dpi=150, format="png")


def main():
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="?", default="hrf_experiment.json",
                        help="canopy_bench_uts_hrf's output (default: %(default)s)")
    parser.add_argument("png", nargs="?", help="the image to write (default: hrf_experiment.png next to the JSON)")
    args = parser.parse_args()
    dst = args.png or os.path.join(os.path.dirname(os.path.abspath(args.json)), "hrf_experiment.png")
    try:
        data, policies, trees, stats = load(args.json)
    except InputError as e:
        print(f"{PROG}: error: {args.json}: {e}", file=sys.stderr)
        return 1
    try:
        plt = headless_pyplot()
    except ImportError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    try:
        plot(plt, data, policies, trees, stats, dst)
    except OSError as e:
        print(f"{PROG}: error: cannot write {dst}: {e.strerror or e}", file=sys.stderr)
        return 1
    print("wrote", dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
