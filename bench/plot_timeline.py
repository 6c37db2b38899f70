#!/usr/bin/env python3
"""Draws a canopy timeline (the Chrome trace-event JSON that `--trace FILE` writes; docs/emulator.md,
"Timeline (--trace)") as utilization over time per compute unit: for each CU, a stacked area of the
fraction of its sub-groups that are running tasks, in queue operations (pick, pack, share), stealing,
idle (polling for work), at a barrier, or in none of the traced spans (the scheduler's glue, discovery,
a sub-group that has not started or has finished). Time is the trace's own unit: simulated cycles
under --timed, scheduler steps otherwise (the trace's otherData.time_unit).

A nested span counts as its innermost kind (an idle poll inside a pick is idle time), so the fractions
of a track add up to 1. An aggregated trace (past --trace-events) plots the same way: its spans already
carry each window's time per kind.

Also prints, per CU, the fraction of sub-group time in each category over the whole run.

Draws with matplotlib (Debian: python3-matplotlib, which tools/deps.sh installs) on the Agg backend, so
it runs headless. Exit status: 0 written; 1 a missing or malformed trace, an unwritable PNG or no
matplotlib; 2 bad usage.
"""
import argparse
import json
import sys

from plot_common import headless_pyplot

PROG = "plot_timeline.py"
# (label, span kinds, colour), bottom to top; the last one is what no span covers.
CATEGORIES = [
    ("running tasks", {"run"}, "tab:green"),
    ("queue ops (pick, pack, share)", {"pick", "pack", "share"}, "tab:blue"),
    ("resolving joins (continuations inline)", {"resolve"}, "tab:cyan"),
    ("stealing", {"steal"}, "tab:purple"),
    ("idle", {"idle"}, "tab:red"),
    ("barrier", {"barrier"}, "tab:orange"),
]
UNTRACED = ("no span (glue, not started, done)", "0.85")


class InputError(Exception):
    """The trace cannot be plotted; the message says why."""


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise InputError(f"{path} is not JSON: {e}") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise InputError(f"{path} is not a trace-event JSON object (no traceEvents list)")
    return doc


def tracks_by_cu(doc):
    """{cu pid: {tid: [(ts, dur, name)]}} for the spans of processes named 'CU n'."""
    cu_pids = set()
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            if str(e.get("args", {}).get("name", "")).startswith("CU "):
                cu_pids.add(e["pid"])
    cus = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("pid") in cu_pids:
            cus.setdefault(e["pid"], {}).setdefault(e["tid"], []).append((e["ts"], e.get("dur", 0), e["name"]))
    if not cus:
        raise InputError("the trace has no sub-group spans (was the run traced with --trace?)")
    return cus


def exclusive_segments(spans):
    """Yields (begin, end, kind) covering each span minus the spans nested in it."""
    spans = sorted(spans, key=lambda s: (s[0], -s[1]))
    stack = []  # (end, kind)
    cursor = None
    for ts, dur, name in spans:
        while stack and stack[-1][0] <= ts:
            end, kind = stack.pop()
            if cursor < end:
                yield cursor, end, kind
                cursor = end
        if stack and cursor < ts:
            yield cursor, ts, stack[-1][1]
        cursor = ts
        stack.append((ts + dur, name))
    while stack:
        end, kind = stack.pop()
        if cursor < end:
            yield cursor, end, kind
            cursor = end


def binned(cus, bins):
    """(edges width, end, {cu: {kind: [time per bin]}}, {cu: tracks})."""
    end = max(ts + dur for tracks in cus.values() for spans in tracks.values() for ts, dur, _ in spans)
    end = max(end, 1)
    width = end / bins
    out = {}
    for cu, tracks in cus.items():
        per_kind = {}
        for spans in tracks.values():
            for a, b, kind in exclusive_segments(spans):
                row = per_kind.setdefault(kind, [0.0] * bins)
                for i in range(min(int(a // width), bins - 1), min(int(b // width), bins - 1) + 1):
                    lo = i * width
                    hi = (i + 1) * width if i < bins - 1 else b
                    row[i] += max(0.0, min(b, hi) - max(a, lo))
        out[cu] = per_kind
    return width, end, out


def main(argv):
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Plot a canopy --trace timeline as per-CU utilization over time (a PNG).",
        epilog="The trace is what `canopy uts|graph|stress ... --trace FILE` or the experiments' --trace-dir "
        "write (docs/emulator.md, 'Timeline (--trace)').",
    )
    ap.add_argument("trace", help="the trace JSON file")
    ap.add_argument("png", nargs="?", help="output PNG (default: the trace's name with .png)")
    ap.add_argument("--bins", type=int, default=200, help="time bins across the run (default 200)")
    ap.add_argument("--title", help="the figure's title (default: the trace's file name and device)")
    args = ap.parse_args(argv)
    if args.bins < 1:
        ap.error("--bins must be at least 1")
    png = args.png or (args.trace[:-5] if args.trace.endswith(".json") else args.trace) + ".png"
    try:
        doc = load(args.trace)
        cus = tracks_by_cu(doc)
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    meta = doc.get("otherData", {})
    unit = meta.get("time_unit", "time")
    width, end, per_cu = binned(cus, args.bins)

    print(f"{args.trace}: {len(cus)} CUs, {sum(len(t) for t in cus.values())} sub-group tracks, "
          f"{end:.0f} {unit}")
    header = ["CU", "tracks"] + [c[0].split(" (")[0] for c in CATEGORIES] + ["no span"]
    print("  ".join(f"{h:>14}" for h in header))
    for cu in sorted(per_cu):
        total = len(cus[cu]) * end
        fr = [sum(sum(per_cu[cu].get(k, [0])) for k in kinds) / total for _, kinds, _ in CATEGORIES]
        print("  ".join(f"{v:>14}" for v in [cu, len(cus[cu])] + [f"{x:.3f}" for x in fr + [1 - sum(fr)]]))

    try:
        plt = headless_pyplot()
    except ImportError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    order = sorted(per_cu)
    fig, axes = plt.subplots(len(order), 1, sharex=True, squeeze=False,
                             figsize=(11, 1.1 + 0.9 * len(order)))
    xs = [(i + 0.5) * width for i in range(args.bins)]
    for ax, cu in zip(axes[:, 0], order):
        n = len(cus[cu])
        ys = []
        for _, kinds, _ in CATEGORIES:
            ys.append([sum(per_cu[cu].get(k, [0.0] * args.bins)[i] for k in kinds) / (n * width)
                       for i in range(args.bins)])
        ys.append([max(0.0, 1 - sum(y[i] for y in ys)) for i in range(args.bins)])
        ax.stackplot(xs, ys, colors=[c[2] for c in CATEGORIES] + [UNTRACED[1]], linewidth=0)
        ax.set_ylim(0, 1)
        ax.set_xlim(0, end)
        ax.set_ylabel(f"CU {cu}\n({n} sg)", rotation=0, ha="right", va="center", fontsize=8)
        ax.set_yticks([0, 1])
        ax.tick_params(labelsize=7)
    axes[-1, 0].set_xlabel(unit)
    title = args.title or f"{args.trace.split('/')[-1]}: {meta.get('device', '?')}, fraction of sub-groups per CU"
    fig.suptitle(title, fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c[2]) for c in CATEGORIES] + [
        plt.Rectangle((0, 0), 1, 1, color=UNTRACED[1])]
    fig.legend(handles, [c[0] for c in CATEGORIES] + [UNTRACED[0]], loc="lower center", ncol=3, fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 0.96))
    try:
        fig.savefig(png, dpi=110)
    except OSError as e:
        print(f"{PROG}: cannot write {png}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
