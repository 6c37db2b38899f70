#!/usr/bin/env python3
"""tools/mutate.py — the suite against a list of mutations (tools/mutate.sh runs it; docs/mutations.md).

For each mutation of the list (tools/mutations.txt): copy the checkout once into a scratch directory
(tracked and untracked files, as they are now), build there with the cpu preset, apply the mutation (a
literal text that must occur exactly once in its file, replaced), build only the targets it names, run
only the tests it names (a ctest regex), and restore the file. A mutation is *caught* when some test
fails; a *survivor* is a mutation every named test passes with. The compiler cache (docs/build-cache.md)
makes each restore a hit. First, every named test runs on the unmutated tree: a failure there stops
the run, since a mutant cannot be judged against a suite that already fails.

Exit status: 0 every mutation caught, 1 a survivor or a list error (a pattern found 0 or 2+ times, a
mutant that does not compile), 2 a usage error.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))


def parse_list(path):
    """Blocks: a [name] line, then key = value lines (file, find, replace, targets, tests, why; or
    equivalent = the argument, for a mutant no test can tell apart). In find and replace, \\n is a line
    break and \\\\ a backslash; # starts a comment line."""
    muts, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line.strip())
            if m:
                cur = {"name": m.group(1), "line": n}
                muts.append(cur)
                continue
            m = re.fullmatch(r"([a-z]+) = (.*)", line)
            if not m or cur is None:
                sys.exit(f"mutate: {path}:{n}: expected '[name]' or 'key = value', got: {line}")
            k, v = m.group(1), m.group(2)
            if k in ("find", "replace"):
                v = re.sub(r"\\(n|\\)", lambda x: "\n" if x.group(1) == "n" else "\\", v)
            cur[k] = v
    names = [m["name"] for m in muts]
    for m in muts:
        if names.count(m["name"]) > 1:
            sys.exit(f"mutate: {path}: two mutations named {m['name']}")
        need = ("file", "equivalent") if "equivalent" in m else ("file", "find", "replace", "targets", "tests")
        for k in need:
            if k not in m:
                sys.exit(f"mutate: {path}:{m['line']}: [{m['name']}] has no '{k} = ...'")
    return muts


def run(cmd, cwd, log, timeout=None):
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            out.write(f"(timed out after {timeout} s)\n")
            return 124


def failed_tests(log_text):
    # ctest's summary lines: "  12 - Suite.Name/param  # GetParam() = ... (Failed)".
    return sorted(set(re.findall(r"^\s*\d+ - (\S+).*\((?:Failed|Timeout|Exception|SEGFAULT|Subprocess \w+|[A-Za-z ]+)\)\s*$",
                                 log_text, re.M)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", default=os.path.join(ROOT, "tools", "mutations.txt"), help="the mutation list")
    ap.add_argument("--scratch", default="/tmp/canopy-mutate", help="the scratch copy (rebuilt from the checkout)")
    ap.add_argument("--jobs", type=int, default=2, help="build and ctest jobs (2)")
    ap.add_argument("--skip-baseline", action="store_true", help="do not run the tests on the unmutated tree first")
    ap.add_argument("names", nargs="*", help="only these mutations (default: all)")
    a = ap.parse_args()
    muts = parse_list(a.list)
    if a.names:
        unknown = set(a.names) - {m["name"] for m in muts}
        if unknown:
            print(f"mutate: no mutation named {', '.join(sorted(unknown))} in {a.list}", file=sys.stderr)
            return 2
        muts = [m for m in muts if m["name"] in a.names]
    start = time.time()

    # The scratch copy: what `git ls-files` lists, tracked or not (ignored files stay behind).
    src = os.path.join(a.scratch, "src")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    os.makedirs(src, exist_ok=True)
    for rel in filter(None, files):
        s, d = os.path.join(ROOT, rel), os.path.join(src, rel)
        if not os.path.isfile(s):
            continue  # deleted in the work tree
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if not os.path.exists(d) or open(s, "rb").read() != open(d, "rb").read():
            # A fresh mtime, not the checkout's (no copy2): the scratch build's objects may be newer than
            # the checkout's edit (a mutant built after it), and ninja would keep the mutant's objects.
            shutil.copyfile(s, d)
    log = os.path.join(a.scratch, "mutate.log")
    open(log, "w").close()
    build = os.path.join(src, "build", "cpu")
    print(f"mutate: {len(muts)} mutations from {os.path.relpath(a.list, ROOT)}; scratch copy {src}; log {log}")
    if run(["cmake", "--preset", "cpu"], src, log) != 0:
        print("mutate: the scratch copy does not configure (see the log)", file=sys.stderr)
        return 1

    active = [m for m in muts if "equivalent" not in m]
    targets = sorted({t for m in active for t in m["targets"].split()})
    # Only equivalent mutants selected: nothing to build or run (an empty --target is a CMake error).
    if targets and run(["cmake", "--build", build, "-j", str(a.jobs), "--target", *targets], src, log) != 0:
        print("mutate: the unmutated scratch copy does not build (see the log)", file=sys.stderr)
        return 1
    if not a.skip_baseline and active:
        # One alternation of every mutation's regex (no grouping: CMake's regular expressions allow only
        # a few parentheses, and each regex is an alternation already).
        regex = "|".join(dict.fromkeys(m["tests"] for m in active))
        mark = os.path.getsize(log)
        rc = run(["ctest", "--test-dir", build, "-j", str(a.jobs), "-R", regex, "--output-on-failure"], src, log)
        out = open(log, encoding="utf-8", errors="replace").read()[mark:]
        if rc != 0 or "No tests were found" in out:
            bad = failed_tests(out)
            print(f"mutate: the unmutated tree fails {', '.join(bad) or 'its tests (see the log)'}: fix that first",
                  file=sys.stderr)
            return 1
        print(f"mutate: baseline: the named tests pass on the unmutated tree ({time.time() - start:.0f} s)")

    rows, survivors, errors = [], 0, 0
    for m in muts:
        t0 = time.time()
        if "equivalent" in m:
            rows.append((m["name"], "equivalent", m["equivalent"], 0))
            continue
        path = os.path.join(src, m["file"])
        try:
            text = open(path, encoding="utf-8").read()
        except OSError:
            rows.append((m["name"], "LIST ERROR", f"{m['file']}: no such file", 0))
            errors += 1
            continue
        count = text.count(m["find"])
        if count != 1:
            rows.append((m["name"], "LIST ERROR", f"the pattern occurs {count} times in {m['file']} (want 1)", 0))
            errors += 1
            continue
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(m["find"], m["replace"]))
            if run(["cmake", "--build", build, "-j", str(a.jobs), "--target", *m["targets"].split()], src, log) != 0:
                rows.append((m["name"], "LIST ERROR", "the mutant does not compile", time.time() - t0))
                errors += 1
                continue
            mark = os.path.getsize(log)
            rc = run(["ctest", "--test-dir", build, "-j", str(a.jobs), "-R", m["tests"], "--output-on-failure"],
                     src, log, timeout=1800)
            out = open(log, encoding="utf-8", errors="replace").read()[mark:]
            if re.search(r"No tests were found", out):
                rows.append((m["name"], "LIST ERROR", f"no test matches /{m['tests']}/", time.time() - t0))
                errors += 1
            elif rc != 0:
                bad = failed_tests(out)
                rows.append((m["name"], "caught", f"{len(bad)} failed: " + " ".join(bad[:3]) +
                             (" ..." if len(bad) > 3 else ""), time.time() - t0))
            else:
                rows.append((m["name"], "SURVIVED", f"every test of /{m['tests']}/ passed", time.time() - t0))
                survivors += 1
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        print(f"  {rows[-1][1]:<10} {m['name']} ({rows[-1][3]:.0f} s)", flush=True)

    print()
    w = max(len(r[0]) for r in rows) if rows else 4
    for name, verdict, detail, secs in rows:
        print(f"{verdict:<10}  {name:<{w}}  {secs:5.0f} s  {detail}")
    caught = sum(1 for r in rows if r[1] == "caught")
    equiv = sum(1 for r in rows if r[1] == "equivalent")
    print(f"\nmutate: {caught} caught, {survivors} survived, {equiv} equivalent, {errors} list errors "
          f"in {time.time() - start:.0f} s")
    return 0 if survivors == 0 and errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
