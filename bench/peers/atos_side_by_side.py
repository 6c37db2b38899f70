#!/usr/bin/env python3
"""bench/peers/atos_side_by_side.py — Atos (Chen, Porumbescu, Owens et al., ICPP 2022) and canopy on the
same GPU and the same graphs: BFS, PageRank and colouring, one table (issue 45, item 2).

Atos has no licence file, so canopy never contains its code: the user fetches it (bench/peers/README.md),
and this script copies the parts it builds (single-GPU/, comm/, util/) into an ignored work directory,
makes two mechanical edits to the COPY so that CUDA 13 compiles it (cub::BlockScan loses CUB 2's PTX_ARCH
template argument; cudaMemPrefetchAsync takes a cudaMemLocation and flags), and builds
single-GPU/{bfs,pr,gc}/test_*.cu with nvcc. It writes every input in Atos's CSR binary from the graph
canopy runs on (`canopy graph --write-graph FILE --write-only`: canopy builds it, with its generators,
loaders and clean-up rules, and writes every arc it stores), runs both, checks both, and prints one table.

What is timed. Atos: CUDA events around the kernel launch(es) only, initialisation excluded (its
test_*.cu print "Time:" per round; the table shows the median). canopy: `device_ms` from its JSON when
present, else `wall_ms`, else `seconds` — host wall time from the first allocation to the answers read
back (allocation and copies included). The column says which ([d] device, [w] wall). On the CPU
emulator build canopy's time is the emulator's, and no ratio to a GPU is meaningful.

Usage:
  bench/peers/atos_side_by_side.py --dry-run [--canopy BIN] [--work DIR] [--atos DIR]
  bench/peers/atos_side_by_side.py --atos DIR [--canopy BIN] [--work DIR] [--inputs LIST]
                                   [--algorithms bfs,pagerank,color] [--prepare] ...
  --dry-run   no GPU and no Atos needed: canopy on small inputs on the emulator, the CSR writer against
              an independent reader, canopy's levels against a BFS of the file written for Atos, the
              patches on a synthetic snippet (and on DIR's files in memory when --atos is given); Atos's
              columns say so.
  --prepare   build Atos and write the inputs, then stop (no GPU needed): carry --work to a GPU machine.
Inputs (comma-separated): kronS (canopy --kronecker S), gridRxC (canopy --grid RxC), roadRxC
(bench/make_road_graph.py R C 1), mdual, copter2, 4elt (Debian's libmetis-doc). Default:
kron18,kron20,grid1024x1024,road1000x1000,mdual,copter2.
Exit: 0 every run succeeded and checked out; 1 a build, run or check failed; 2 usage error.
"""
import argparse
import array
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

PROG = "bench/peers/atos_side_by_side.py"
ATOS_REPO = "github.com/owensgroup/ATOS"
ATOS_COMMIT = "e11b724"
FETCH_HINT = (f"fetch {ATOS_REPO} at commit {ATOS_COMMIT}: git clone https://{ATOS_REPO} build/peers/ATOS "
              f"&& git -C build/peers/ATOS checkout {ATOS_COMMIT} (bench/peers/README.md)")
INPUT_FORMAT_VERSION = 2  # bump when the way an input is made changes: cached inputs are then rebuilt
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_INPUTS = "kron18,kron20,grid1024x1024,road1000x1000,mdual,copter2"
DRY_INPUTS = "kron10,grid24x24,road16x16"
METIS_DIR = "/usr/share/doc/libmetis-dev/examples/graphs"
ALGORITHMS = ("bfs", "pagerank", "color")


class UsageError(Exception):
    """Exit 2: the command line or the environment is wrong; the message names the fix."""


class RunError(Exception):
    """Exit 1: a build, a run or a check failed."""


def note(msg):
    print(msg, flush=True)


# ---------------------------------------------------------------------------------------------------
# CSR (structure only: Atos's graphs are unweighted)
# ---------------------------------------------------------------------------------------------------
class Csr:
    def __init__(self, n, offsets, targets):
        self.n = n
        self.offsets = offsets  # n + 1 entries
        self.targets = targets  # array('i') or list

    @property
    def arcs(self):
        return self.offsets[self.n]

    def max_degree_vertex(self):
        """canopy's csr_graph::max_degree_vertex: the lowest id of the largest out-degree."""
        off = self.offsets
        best, best_d = 0, -1
        for v in range(self.n):
            d = off[v + 1] - off[v]
            if d > best_d:
                best, best_d = v, d
        return best

    def bfs_levels(self, source):
        """FIFO BFS along out-arcs; -1 where not reached."""
        level = [-1] * self.n
        level[source] = 0
        off, tg = self.offsets, self.targets
        frontier = [source]
        d = 0
        while frontier:
            d += 1
            nxt = []
            for u in frontier:
                for e in range(off[u], off[u + 1]):
                    w = tg[e]
                    if level[w] < 0:
                        level[w] = d
                        nxt.append(w)
            frontier = nxt
        return level

    def has_isolated(self):
        off = self.offsets
        return any(off[v + 1] == off[v] for v in range(self.n))


def csr_from_adjacency(adj):
    offsets = array.array("q", [0])
    targets = array.array("i")
    for nbrs in adj:
        targets.extend(nbrs)
        offsets.append(len(targets))
    return Csr(len(adj), offsets, targets)


def read_canopy_mtx(path):
    """The Matrix Market file `canopy graph --write-graph` writes: a pattern matrix, one line per stored arc
    in CSR order (sources non-decreasing), 1-based. Returns the Csr canopy runs on, arc for arc."""
    with open(path) as f:
        header = f.readline().split()
        if header[:4] != ["%%MatrixMarket", "matrix", "coordinate", "pattern"]:
            raise RunError(f"{path}: not the Matrix Market pattern file canopy graph --write-graph writes")
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        n, n2, m = (int(x) for x in line.split())
        if n != n2:
            raise RunError(f"{path}: a {n} x {n2} matrix is not a graph")
        offsets = array.array("q", [0]) * (n + 1)
        targets = array.array("i", bytes(4 * m))
        e, last = 0, 0
        for line in f:
            u, v = line.split()
            u = int(u) - 1
            if u < last or e >= m:
                raise RunError(f"{path}: arc {e + 1} is out of CSR order or beyond the header's {m} arcs")
            last = u
            offsets[u + 1] += 1
            targets[e] = int(v) - 1
            e += 1
    if e != m:
        raise RunError(f"{path}: the header says {m} arcs, the file has {e}")
    for v in range(n):
        offsets[v + 1] += offsets[v]
    return Csr(n, offsets, targets)


# ---------------------------------------------------------------------------------------------------
# Atos's CSR binary (comm/csr.cuh Csr<int, int>::ReadFromBinary; datasets/csr.cuh WriteToBinary):
# int32 nodes, int32 edges, int32 row_offset[nodes + 1], int32 column_indices[edges], little-endian.
# ---------------------------------------------------------------------------------------------------
def write_atos_csr(path, g):
    if g.n >= 2 ** 31 or g.arcs >= 2 ** 31:
        raise RunError(f"{path}: {g.n} vertices / {g.arcs} arcs do not fit Atos's int32 CSR")
    off = array.array("i", g.offsets)
    tg = g.targets if isinstance(g.targets, array.array) and g.targets.typecode == "i" else array.array("i", g.targets)
    if sys.byteorder != "little":
        off.byteswap()
        tg = array.array("i", tg)
        tg.byteswap()
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<ii", g.n, g.arcs))
        off.tofile(f)
        tg.tofile(f)
    os.replace(tmp, path)


def read_atos_csr(path):
    """An independent reader (struct, not array) of the same layout, checking what Atos assumes."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise RunError(f"{path}: {len(data)} bytes, shorter than the 8-byte header")
    n, m = struct.unpack_from("<ii", data, 0)
    want = 4 * (2 + n + 1 + m)
    if n < 0 or m < 0 or len(data) != want:
        raise RunError(f"{path}: header says {n} vertices and {m} arcs ({want} bytes), file has {len(data)}")
    offsets = list(struct.unpack_from(f"<{n + 1}i", data, 8))
    targets = list(struct.unpack_from(f"<{m}i", data, 8 + 4 * (n + 1)))
    if offsets[0] != 0 or offsets[n] != m or any(offsets[i] > offsets[i + 1] for i in range(n)):
        raise RunError(f"{path}: row offsets are not 0 .. {m} and non-decreasing")
    if any(t < 0 or t >= n for t in targets):
        raise RunError(f"{path}: a column index is outside 0 .. {n - 1}")
    return Csr(n, offsets, targets)


def same_csr(a, b):
    return a.n == b.n and list(a.offsets) == list(b.offsets) and list(a.targets) == list(b.targets)


# ---------------------------------------------------------------------------------------------------
# The two mechanical edits to the copy of Atos (CUDA 13 / CCCL 3)
# ---------------------------------------------------------------------------------------------------
BLOCKSCAN_RE = re.compile(r"cub::BlockScan\s*<([^<>;]*)>")
PREFETCH_RE = re.compile(r"\bcudaMemPrefetchAsync\s*\(")


def _line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def patch_blockscan(text):
    """Drops CUB 2's PTX_ARCH argument: cub::BlockScan<T, X, ALGO, Y, Z, 700> -> <T, X, ALGO, Y, Z>.
    Returns (text, edits, already): edits are (line, before, after); already counts 5-argument uses."""
    edits, already, out, last = [], 0, [], 0
    for mt in BLOCKSCAN_RE.finditer(text):
        args = mt.group(1).split(",")
        if len(args) == 6 and re.fullmatch(r"\s*\d+\s*", args[5]):
            new = "cub::BlockScan<" + ",".join(args[:5]) + ">"
            out.append(text[last:mt.start()])
            out.append(new)
            last = mt.end()
            edits.append((_line_of(text, mt.start()), mt.group(0), new))
        elif len(args) <= 5:
            already += 1
    out.append(text[last:])
    return "".join(out), edits, already


def _split_call(text, open_paren):
    """The top-level comma-separated arguments of the call whose '(' is at open_paren, and the index of
    its ')'. Tracks (), [] and {} (not <>, which may be comparisons)."""
    args, start, i = [], open_paren + 1, open_paren
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    while i < len(text):
        ch = text[i]
        if ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                args.append(text[start:i])
                return args, i
        elif ch == "," and len(stack) == 1:
            args.append(text[start:i])
            start = i + 1
        i += 1
    raise RunError("cudaMemPrefetchAsync( without its closing parenthesis")


def patch_prefetch(text):
    """cudaMemPrefetchAsync(ptr, bytes, device[, stream]) (CUDA 12) ->
    cudaMemPrefetchAsync(ptr, bytes, cudaMemLocation{cudaMemLocationTypeDevice, device}, 0[, stream])
    (CUDA 13's signature: a location and flags). Returns (text, edits, already)."""
    edits, already, out, last = [], 0, [], 0
    for mt in PREFETCH_RE.finditer(text):
        if mt.start() < last:
            continue
        paren = mt.end() - 1
        args, close = _split_call(text, paren)
        if len(args) in (3, 4) and "cudaMemLocation" not in args[2]:
            dev = args[2].strip()
            loc = ("cudaMemLocation{cudaMemLocationTypeHost, 0}" if dev == "cudaCpuDeviceId"
                   else f"cudaMemLocation{{cudaMemLocationTypeDevice, {dev}}}")
            new_args = [args[0], args[1], " " + loc, " 0"] + ([args[3]] if len(args) == 4 else [])
            before = text[mt.start():close + 1]
            after = "cudaMemPrefetchAsync(" + ",".join(new_args) + ")"
            out.append(text[last:mt.start()])
            out.append(after)
            last = close + 1
            edits.append((_line_of(text, mt.start()), before, after))
        elif len(args) in (4, 5) and "cudaMemLocation" in args[2]:
            already += 1
        else:
            raise RunError(f"line {_line_of(text, mt.start())}: cudaMemPrefetchAsync with {len(args)} "
                           "arguments, neither CUDA 12's (3 or 4) nor CUDA 13's form; patch it by hand")
    out.append(text[last:])
    return "".join(out), edits, already


PATCHES = (("cub::BlockScan<..., 700> -> cub::BlockScan<...> (CUB 3 has no PTX_ARCH)", patch_blockscan),
           ("cudaMemPrefetchAsync(p, n, dev) -> (p, n, cudaMemLocation{Device, dev}, 0) (CUDA 13)",
            patch_prefetch))


def patch_tree(root, write, parts=None):
    """Applies both patches to every .cu/.cuh under root (only its subdirectories `parts` when given;
    writing only when write). Returns the log lines. Fails when a patch finds neither its old form nor its
    new one (not Atos e11b724?)."""
    log, totals = [], [[0, 0] for _ in PATCHES]
    walks = [os.walk(os.path.join(root, p)) for p in parts] if parts else [os.walk(root)]
    for dirpath, _, files in sorted(x for w in walks for x in w):
        for name in sorted(files):
            if not name.endswith((".cu", ".cuh")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            changed = text
            for k, (_, fn) in enumerate(PATCHES):
                try:
                    changed, edits, already = fn(changed)
                except RunError as e:
                    raise RunError(f"{os.path.relpath(path, root)}:{e}") from None
                totals[k][0] += len(edits)
                totals[k][1] += already
                for line, before, after in edits:
                    log.append(f"  {os.path.relpath(path, root)}:{line}: {' '.join(before.split())}  ->  "
                               f"{' '.join(after.split())}")
            if write and changed != text:
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(changed)
    for (what, _), (made, already) in zip(PATCHES, totals):
        if made == 0 and already == 0:
            raise RunError(f"patch '{what}': the pattern is nowhere under {root}; is it {ATOS_REPO} at "
                           f"commit {ATOS_COMMIT}? ({FETCH_HINT})")
        log.append(f"  {what}: {made} edit(s)" + (f", {already} already in the new form" if already else ""))
    return log


SYNTHETIC_SNIPPET = """\
template<int FETCH_SIZE> __global__ void k() {
    typedef cub::BlockScan<int, 576, cub::BLOCK_SCAN_RAKING,1,1,700> BlockScan;
    typedef cub::BlockScan<int, BLOCK_SIZE, cub::BLOCK_SCAN_RAKING, 1, 1, 700> BlockScan2;
    typedef cub::BlockScan<int, 128> Fine;
}
void f(int *p, size_t n, cudaStream_t s) {
    int device_id; CUDA_CHECK(cudaGetDevice(&device_id));
    CUDA_CHECK(cudaMemPrefetchAsync(p, sizeof(int)*(n+1), device_id));
    CUDA_CHECK(cudaMemPrefetchAsync(p, n, device_id, s));
    cudaMemPrefetchAsync(p, n, cudaCpuDeviceId);
}
"""


def check_patches_synthetic():
    """The patch functions on a snippet shaped like Atos's call sites; returns log lines."""
    text, e1, a1 = patch_blockscan(SYNTHETIC_SNIPPET)
    text, e2, a2 = patch_prefetch(text)
    want = [
        "cub::BlockScan<int, 576, cub::BLOCK_SCAN_RAKING,1,1> BlockScan;",
        "cub::BlockScan<int, BLOCK_SIZE, cub::BLOCK_SCAN_RAKING, 1, 1> BlockScan2;",
        "cub::BlockScan<int, 128> Fine;",
        "cudaMemPrefetchAsync(p, sizeof(int)*(n+1), cudaMemLocation{cudaMemLocationTypeDevice, device_id}, 0));",
        "cudaMemPrefetchAsync(p, n, cudaMemLocation{cudaMemLocationTypeDevice, device_id}, 0, s));",
        "cudaMemPrefetchAsync(p, n, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0);",
    ]
    missing = [w for w in want if w not in text]
    if missing or len(e1) != 2 or a1 != 1 or len(e2) != 3 or a2 != 0:
        raise RunError("patch functions on the synthetic snippet: expected 2 BlockScan and 3 prefetch edits "
                       f"(got {len(e1)} and {len(e2)}); missing from the result: {missing}\n{text}")
    # Idempotent: the patched text has nothing left to patch, and both forms are recognised.
    _, e3, a3 = patch_blockscan(text)
    _, e4, a4 = patch_prefetch(text)
    if e3 or e4 or a3 != 3 or a4 != 3:
        raise RunError("patch functions: patching the patched snippet again changed it or did not recognise it")
    # A tree with neither form fails, naming the commit.
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "x.cuh"), "w") as f:
            f.write("int main() { return 0; }\n")
        try:
            patch_tree(d, write=False)
            raise RunError("patch_tree accepted a tree without Atos's call sites")
        except RunError as e:
            if ATOS_COMMIT not in str(e):
                raise
    return [f"patches on a synthetic snippet: {len(e1)} BlockScan and {len(e2)} prefetch edits as expected, "
            "idempotent, and a tree without the call sites is refused"]


# ---------------------------------------------------------------------------------------------------
# Atos: copy, patch, build, run, parse
# ---------------------------------------------------------------------------------------------------
ATOS_PARTS = ("single-GPU", "comm", "util")
ATOS_TARGETS = {  # algorithm: (binary, source, extra defines)
    "bfs": ("bfs_32", "single-GPU/bfs/test_bfs.cu", ["-DFETCHSIZE=32"]),
    "pagerank": ("pr", "single-GPU/pr/test_pr.cu", []),
    "color": ("gc_32", "single-GPU/gc/test_gc.cu", ["-DFETCHSIZE=32"]),
}
# single-GPU/tests/Makefile's flags, with sm_90 for sm_70, C++17 for C++14 (CCCL 3 needs 17), and without
# -Xptxas -v (register reports only).
NVCC_FLAGS = ["-O3", "-lineinfo", "--expt-extended-lambda", "-std=c++17", "-Xcompiler", "-fopenmp"]
NVCC_LIBS = ["-lcuda", "-lgomp"]


def check_atos_dir(d):
    if not os.path.isdir(d):
        raise UsageError(f"--atos {d}: not a directory; {FETCH_HINT}")
    missing = [p for p in ATOS_PARTS if not os.path.isdir(os.path.join(d, p))]
    missing += [src for _, src, _ in ATOS_TARGETS.values() if not os.path.isfile(os.path.join(d, src))]
    if missing:
        raise UsageError(f"--atos {d}: no {', '.join(missing)} there; {FETCH_HINT}")
    commit = None
    try:
        p = subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if p.returncode == 0 and os.path.isdir(os.path.join(d, ".git")):
            commit = p.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    if commit and not commit.startswith(ATOS_COMMIT):
        note(f"warning: --atos {d} is at commit {commit[:12]}, not {ATOS_COMMIT}; the patches may not fit")
    return commit


def inside_repo_unignored(path):
    """True when path lies inside this git checkout and git does not ignore it."""
    path = os.path.abspath(path)
    try:
        if os.path.commonpath([path, REPO]) != REPO or not os.path.exists(os.path.join(REPO, ".git")):
            return False
        p = subprocess.run(["git", "-C", REPO, "check-ignore", "-q", path], capture_output=True, timeout=10)
        return p.returncode == 1
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return False


def find_nvcc(arg):
    for cand in ([arg] if arg else []) + [shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if cand and os.access(cand, os.X_OK):
            return cand
    raise UsageError("nvcc not found: install the CUDA toolkit, put nvcc on PATH or pass --nvcc PATH")


def tree_digest(root, extra):
    h = hashlib.sha256(extra.encode())
    for dirpath, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            p = os.path.join(dirpath, name)
            h.update(os.path.relpath(p, root).encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def prepare_atos(args, algorithms):
    """Copies Atos's parts into WORK/atos/src, patches the copy, builds the binaries (skipped when the
    patched sources and flags are those of the last build). Returns {algorithm: binary path}."""
    check_atos_dir(args.atos)
    if inside_repo_unignored(args.atos):
        raise UsageError(f"--atos {args.atos} is inside the repository and not ignored by git: Atos has no "
                         "licence and must never be committed; put it under build/ (e.g. build/peers/ATOS)")
    base = os.path.join(args.work, "atos")
    if inside_repo_unignored(base):
        raise UsageError(f"--work {args.work} is inside the repository and not ignored by git: Atos's code "
                         "must never be committed; use the default build/peers (build/ is ignored)")
    os.makedirs(base, exist_ok=True)
    src = os.path.join(base, "src")
    if os.path.exists(src):
        shutil.rmtree(src)
    for part in ATOS_PARTS:
        shutil.copytree(os.path.join(args.atos, part), os.path.join(src, part))
    note(f"Atos: copied {', '.join(ATOS_PARTS)} from {args.atos} to {src}; edits to the copy:")
    for line in patch_tree(src, write=True):
        note(line)
    nvcc = find_nvcc(args.nvcc)
    bindir = os.path.join(base, "bin")
    os.makedirs(bindir, exist_ok=True)
    flags = NVCC_FLAGS + [f"-arch={args.arch}", "-I", os.path.join(src, "util")] + shlex.split(args.nvcc_flags)
    bins, procs = {}, []
    for alg in algorithms:
        name, source, defines = ATOS_TARGETS[alg]
        out = os.path.join(bindir, name)
        cmd = [nvcc, "-o", out, os.path.join(src, source)] + flags + defines + NVCC_LIBS
        digest = tree_digest(src, " ".join(cmd))
        stamp = out + ".stamp"
        bins[alg] = out
        if os.access(out, os.X_OK) and os.path.exists(stamp) and open(stamp).read() == digest:
            note(f"Atos: {name} is up to date (same patched sources and flags)")
            continue
        note(f"Atos: building {name}: {' '.join(shlex.quote(c) for c in cmd)}")
        procs.append((name, cmd, stamp, digest, time.time()))
    running = []
    for name, cmd, stamp, digest, t0 in procs:
        while len(running) >= max(1, args.jobs):
            _wait_build(running.pop(0))
        running.append((name, cmd, stamp, digest, t0,
                        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for r in running:
        _wait_build(r)
    return bins


def _wait_build(r):
    name, cmd, stamp, digest, t0, p = r
    out, _ = p.communicate()
    log = stamp[:-len(".stamp")] + ".nvcc.log"
    with open(log, "w") as f:
        f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + out + f"exit {p.returncode}\n")
    if p.returncode != 0:
        tail = "\n".join(out.splitlines()[-40:])
        raise RunError(f"Atos: nvcc failed on {name} (exit {p.returncode}; log {log}):\n{tail}")
    with open(stamp, "w") as f:
        f.write(digest)
    warnings = sum(1 for ln in out.splitlines() if "warning" in ln.lower())
    note(f"Atos: built {name} in {time.time() - t0:.0f} s ({warnings} warning line(s); nvcc's output in {log})")


# Atos's termination is a vote after min_iter empty polls, tuned per graph in its run scripts
# (single-GPU/tests/run_*.sh); too few and it stops early with a wrong answer (which its own check and
# ours then report). Defaults from the scripts' nearest graph: social (soc-LiveJournal1) for Kronecker,
# road (road_usa, roadNet-CA) for grids, road-like graphs and meshes. --atos-min-iter overrides.
MIN_ITER = {
    "social": {"bfs": 50, "pagerank": 200, "color": 500},
    "road": {"bfs": 7000, "pagerank": 400, "color": 10},
    "mesh": {"bfs": 800, "pagerank": 100, "color": 10},
}


def atos_command(alg, binary, csr_path, spec, source, args):
    mi = args.min_iter_override.get(alg, MIN_ITER[spec.kind_class][alg])
    rounds = str(args.rounds)
    if alg == "bfs":  # option 3: persistent CTA workers (FETCH_SIZE 32), one queue
        return [binary, "-f", csr_path, "-o", "3", "-q", "1", "-i", str(mi), "-r", str(source), "-rounds", rounds]
    if alg == "pagerank":  # persistent warp workers, asynchronous residual push; -check 1: its CPU worklist
        return [binary, "-f", csr_path, "-l", str(args.damping), "-p", str(args.epsilon), "-i", str(mi),
                "-rounds", rounds, "-check", "1"]
    # colouring: the asynchronous one-queue version only (-run_bsp_async 2), warp workers (-o 2)
    return [binary, "-f", csr_path, "-run_bsp_async", "2", "-o", "2", "-i", str(mi), "-rounds", rounds]


NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-nan|-inf)"


def parse_atos(alg, out, args, n):
    """What Atos's test_*.cu print: "Time: MS" per round, and each one's own check."""
    r = {"times_ms": [float(x) for x in re.findall(r"^Time: " + NUM + r"\s*$", out, re.M)], "checks": []}
    if not r["times_ms"]:
        raise RunError("no 'Time:' line in Atos's output")
    r["ms"] = statistics.median(r["times_ms"])
    if alg == "bfs":
        m = re.search(r"ERROR between CPU and GPU implimentation: (-?\d+)", out)
        if not m:
            raise RunError("no 'ERROR between CPU and GPU' line in Atos's BFS output")
        r["own_check_error"] = int(m.group(1))
        if r["own_check_error"] != 0:
            r["checks"].append(f"Atos BFS differs from its own host BFS (sum |diff| {m.group(1)}): min_iter too "
                               "small? raise --atos-min-iter bfs=N")
        m = re.search(r"^device:\s*\n([-\d ]+)$", out, re.M)
        r["first_depths"] = [int(x) for x in m.group(1).split()] if m else None
        r["unreached"] = n + 1
        r["answer"] = f"err {r['own_check_error']}"
    elif alg == "pagerank":
        m = re.search(r"GPU sum_rank: " + NUM + r" GPU sum_res: " + NUM + r" GPU total mass: " + NUM, out)
        if not m:
            raise RunError("no 'GPU sum_rank:' line in Atos's PageRank output (was -check 1 passed?)")
        sum_rank, sum_res, mass = (float(x) for x in m.groups())
        # rank + (I - lambda P^T)^-1 res is invariant under pushes and equals the fixed point x; every term
        # is >= 0, so |x - rank|_1 = sum(res) / (1 - lambda) exactly when no vertex has in-arcs but no
        # out-arcs (true of symmetric graphs). Relative to |x|_1 = the total mass.
        r["sum_rank"], r["sum_res"], r["total_mass"] = sum_rank, sum_res, mass
        r["l1_rel"] = (sum_res / (1 - args.damping)) / mass if mass > 0 else float("nan")
        m = re.search(r"error from CPU " + NUM, out)
        r["l1_to_own_cpu_run"] = float(m.group(1)) if m else None
        left = [int(x) for x in re.findall(r"^num of (\d+) res larger than", out, re.M)]
        r["residuals_above_eps"] = left
        if any(left):
            r["checks"].append(f"Atos PageRank stopped with residuals >= epsilon in some round ({left}): min_iter "
                               "too small? raise --atos-min-iter pagerank=N")
        r["answer"] = f"L1 {r['l1_rel']:.2e}"
    else:
        m = re.findall(r"^use color (\d+)", out, re.M)
        if not m:
            raise RunError("no 'use color' line in Atos's colouring output")
        r["colors"] = int(m[-1])
        if "Pass Validation" not in out:
            r["checks"].append("Atos colouring failed its own validation (not a proper colouring): min_iter too "
                               "small? raise --atos-min-iter color=N")
        r["answer"] = f"{r['colors']} col"
    return r


# ---------------------------------------------------------------------------------------------------
# canopy
# ---------------------------------------------------------------------------------------------------
def canopy_ms(j):
    if isinstance(j.get("device_ms"), (int, float)):
        return float(j["device_ms"]), "d"
    if isinstance(j.get("wall_ms"), (int, float)):
        return float(j["wall_ms"]), "w"
    if isinstance(j.get("seconds"), (int, float)):
        return 1000.0 * j["seconds"], "w"
    raise RunError("canopy's JSON has none of device_ms, wall_ms, seconds")


def run_canopy(args, spec, alg, strategy, source, levels_path, timeout):
    """Runs canopy --repeat times; the first with --validate (and --output for BFS). Returns a dict."""
    base = [args.canopy, "graph", alg] + spec.canopy_flags() + ["--strategy", strategy, "--json"]
    if alg == "bfs":
        base += ["--source", str(source)]
    elif alg == "pagerank":
        tol = args.epsilon if strategy == "tasks" else args.mk_tolerance
        base += ["--damping", str(args.damping), "--tolerance", str(tol)]
    base += shlex.split(args.canopy_flags)
    runs, first = [], None
    for k in range(args.repeat):
        cmd = base + (["--validate"] + (["--output", levels_path] if levels_path else []) if k == 0 else [])
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RunError(f"timed out after {timeout} s: {' '.join(cmd)}") from None
        try:
            j = json.loads(p.stdout)
        except json.JSONDecodeError:
            raise RunError(f"exit {p.returncode}, no JSON from: {' '.join(cmd)}\n{p.stdout[-2000:]}"
                           f"{p.stderr[-2000:]}") from None
        if p.returncode != 0 or not j.get("ok", False):
            raise RunError(f"exit {p.returncode} ({j.get('reason', 'not ok')}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
        if k == 0:
            first = j
            first["command"] = " ".join(shlex.quote(c) for c in cmd)
        runs.append(canopy_ms(j))
    ms = statistics.median(x for x, _ in runs)
    kind = "d" if all(k == "d" for _, k in runs) else "w"
    r = {"ms": ms, "kind": kind, "times_ms": [x for x, _ in runs], "json": first, "checks": []}
    if first.get("validated") is not True:
        r["checks"].append(f"canopy {strategy} was not validated")
    if alg == "bfs":
        r["answer"] = f"depth {first.get('depth')}"
    elif alg == "pagerank":
        r["answer"] = f"L1 {first.get('l1_to_reference', float('nan')):.2e}"
    else:
        r["answer"] = f"{first.get('colors')} col"
    return r


def read_levels(path, n):
    lv = [None] * n
    with open(path) as f:
        for line in f:
            v, x = line.split()
            lv[int(v)] = int(x)
    return lv


def check_canopy_binary(path):
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(f"--canopy {path}: not an executable; build canopy first (cmake --preset cpu && "
                         "cmake --build --preset cpu) or pass --canopy BIN (a CUDA build on a GPU machine)")
    p = subprocess.run([path, "graph", "--help"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or "--json" not in p.stdout or "--write-graph" not in p.stdout:
        raise UsageError(f"--canopy {path}: 'canopy graph --help' does not offer --json and --write-graph; is "
                         "it canopy, built from this checkout?")
    info = subprocess.run([path, "info"], capture_output=True, text=True, timeout=60)
    return info.stdout.strip().splitlines()[:3] if info.returncode == 0 else []


# ---------------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------------
class InputSpec:
    def __init__(self, name, kind, params, kind_class):
        self.name, self.kind, self.params, self.kind_class = name, kind, params, kind_class
        self.file = None  # the file canopy reads (road, METIS)

    def canopy_flags(self):
        if self.kind == "kron":
            return ["--kronecker", str(self.params[0])]
        if self.kind == "grid":
            return ["--grid", f"{self.params[0]}x{self.params[1]}"]
        return ["--input", self.file]

    def describe(self):
        if self.kind == "kron":
            return f"Kronecker {self.params[0]} (canopy's generator, edge factor 16, seed 1)"
        if self.kind == "grid":
            return f"{self.params[0]}x{self.params[1]} grid (canopy's generator)"
        if self.kind == "road":
            return f"road-like {self.params[0]}x{self.params[1]} (bench/make_road_graph.py, seed 1)"
        return f"{self.name} (libmetis-doc)"


def parse_inputs(text, metis_dir):
    specs = []
    for tok in [t.strip() for t in text.split(",") if t.strip()]:
        if m := re.fullmatch(r"kron(\d+)", tok):
            s = int(m.group(1))
            if not 1 <= s <= 30:
                raise UsageError(f"--inputs {tok}: a Kronecker scale is 1 to 30")
            specs.append(InputSpec(tok, "kron", (s,), "social"))
        elif m := re.fullmatch(r"(grid|road)(\d+)x(\d+)", tok):
            r, c = int(m.group(2)), int(m.group(3))
            if r < 1 or c < 1 or r * c >= 2 ** 31:
                raise UsageError(f"--inputs {tok}: rows and columns at least 1, fewer than 2^31 vertices")
            specs.append(InputSpec(tok, m.group(1), (r, c), "road"))
        elif tok in ("mdual", "copter2", "4elt"):
            sp = InputSpec(tok, "metis", (), "mesh")
            sp.file = os.path.join(metis_dir, tok + ".graph")
            specs.append(sp)
        else:
            raise UsageError(f"--inputs: unknown input '{tok}' (kronS, gridRxC, roadRxC, mdual, copter2, 4elt)")
    if not specs:
        raise UsageError("--inputs: no inputs given")
    return specs


def build_input(spec, args, force=False):
    """The input's CSR, written in Atos's format to WORK/inputs/NAME.csr (cached with a sidecar); returns
    (Csr or None when cached, meta). For road and METIS inputs, spec.file is what canopy reads."""
    d = os.path.join(args.work, "inputs")
    os.makedirs(d, exist_ok=True)
    csr_path = os.path.join(d, spec.name + ".csr")
    meta_path = os.path.join(d, spec.name + ".json")
    key = {"name": spec.name, "kind": spec.kind, "params": list(spec.params), "version": INPUT_FORMAT_VERSION}
    if spec.kind == "road":
        spec.file = os.path.join(d, spec.name + ".gr")
        if not os.path.exists(spec.file):
            cmd = [sys.executable, os.path.join(REPO, "bench", "make_road_graph.py"), str(spec.params[0]),
                   str(spec.params[1]), "1", spec.file + ".tmp"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                raise RunError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
            os.replace(spec.file + ".tmp", spec.file)
    if spec.kind == "metis":
        key["file_bytes"] = os.path.getsize(spec.file)
    if not force and os.path.exists(csr_path) and os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("key") == key:
            return None, csr_path, meta
    t0 = time.time()
    # canopy builds the graph (its generators and loaders, its clean-up rules) and writes every arc it
    # stores: Atos reads exactly the graph canopy runs on, and nothing here re-implements a generator.
    mtx = os.path.join(d, spec.name + ".mtx")
    cmd = [args.canopy, "graph", "bfs"] + spec.canopy_flags() + ["--write-graph", mtx + ".tmp", "--write-only"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RunError(f"{' '.join(cmd)} exited {p.returncode}: {(p.stdout + p.stderr).strip()[-2000:]}")
    os.replace(mtx + ".tmp", mtx)
    g = read_canopy_mtx(mtx)
    os.remove(mtx)
    write_atos_csr(csr_path, g)
    meta = {"key": key, "vertices": g.n, "arcs": g.arcs, "source": g.max_degree_vertex(),
            "isolated_vertices": g.has_isolated(), "seconds_to_make": round(time.time() - t0, 2)}
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    note(f"input {spec.name}: {g.n} vertices, {g.arcs} arcs -> {csr_path} ({meta['seconds_to_make']} s)")
    return g, csr_path, meta


# ---------------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------------
def fmt_ms(r):
    if r is None:
        return "-"
    if isinstance(r, str):
        return r
    if "error" in r:
        return "FAILED"
    return f"{r['ms']:.3f} [{r['kind']}]" if "kind" in r else f"{r['ms']:.3f}"


def ratio(c, a):
    if not isinstance(c, dict) or not isinstance(a, dict) or "ms" not in c or "ms" not in a or a["ms"] <= 0:
        return "-"
    if c.get("json", {}).get("backend") == "cpu":
        return "(emulator)"  # canopy on the CPU emulator against a GPU: no ratio means anything
    return f"{c['ms'] / a['ms']:.2f}x"


def print_table(rows, atos_label):
    head = ["problem", "Atos ms", "canopy tasks ms", "canopy multi-kernel ms", "tasks/Atos", "mk/Atos",
            "Atos answer", "tasks answer", "mk answer", "checks"]
    body = []
    for r in rows:
        a, t, k = r.get("atos"), r.get("tasks"), r.get("multi-kernel")

        def ans(x):
            return x["answer"] if isinstance(x, dict) and "answer" in x else "-"
        body.append([r["problem"], fmt_ms(a) if a is not None else atos_label, fmt_ms(t), fmt_ms(k), ratio(t, a),
                     ratio(k, a), ans(a), ans(t), ans(k),
                     "ok" if not r["problems"] else f"{len(r['problems'])} FAILED"])
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    line = "  ".join(h.ljust(w) for h, w in zip(head, widths))
    note(line)
    note("-" * len(line))
    for b in body:
        note("  ".join((c.ljust(w) if i in (0, 6, 7, 8, 9) else c.rjust(w)) for i, (c, w) in enumerate(zip(b, widths))))


# ---------------------------------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------------------------------
def compare_first_depths(atos_r, canopy_levels, n):
    """Atos prints its first 20 BFS depths (n + 1 = unreached); canopy's --output gives them all.
    Returns (same: True, False or None when there is nothing to compare, message)."""
    got = atos_r.get("first_depths")
    if not got or canopy_levels is None:
        return None, "Atos's first depths not printed or canopy's levels missing: only Atos's own host BFS checks it"
    want = [(-1 if canopy_levels[v] is None or canopy_levels[v] < 0 else canopy_levels[v]) for v in range(min(20, n))]
    got = [(-1 if x == n + 1 else x) for x in got[:len(want)]]
    if got != want:
        return False, f"Atos's first {len(want)} depths {got} differ from canopy's validated levels {want}"
    return True, ("Atos's first 20 BFS depths equal canopy's validated levels; the rest is checked only by "
                  "Atos's own host BFS (it prints no more)")


def run_problem(args, spec, alg, g, csr_path, meta, atos_bins, dry):
    """One row: Atos (unless dry) and canopy's two strategies, with the cross-checks."""
    n, source = meta["vertices"], meta["source"]
    row = {"problem": f"{alg} {spec.name}", "input": spec.describe(), "vertices": n, "arcs": meta["arcs"],
           "problems": [], "notes": []}
    if alg == "bfs":
        row["source"] = source
    levels_path = os.path.join(args.work, "inputs", f"{spec.name}.{alg}.levels") if alg == "bfs" else None
    canopy_levels = None
    for strategy in ("tasks", "multi-kernel"):
        try:
            r = run_canopy(args, spec, alg, strategy, source, levels_path if strategy == "tasks" else None,
                           args.timeout)
            row[strategy] = r
            row["problems"] += r["checks"]
            j = r["json"]
            if j.get("vertices") != n or j.get("edges") != meta["arcs"]:
                row["problems"].append(f"canopy's graph has {j.get('vertices')} vertices and {j.get('edges')} arcs, "
                                       f"the Atos file {n} and {meta['arcs']}: not the same graph")
            if alg == "bfs" and strategy == "tasks":
                canopy_levels = read_levels(levels_path, n)
        except RunError as e:
            row[strategy] = {"error": str(e)}
            row["problems"].append(f"canopy {strategy}: {e}")
    # canopy's levels against a BFS of the CSR written for Atos: the two sides read the same graph.
    if alg == "bfs" and canopy_levels is not None:
        if g is None and meta["arcs"] <= args.py_check_arcs:
            g = read_atos_csr(csr_path)
        if g is not None and meta["arcs"] <= args.py_check_arcs:
            py = g.bfs_levels(source)
            if py != canopy_levels:
                bad = next(v for v in range(n) if py[v] != canopy_levels[v])
                row["problems"].append(f"canopy's BFS levels differ from a BFS of {csr_path} (vertex {bad}: "
                                       f"{canopy_levels[bad]} vs {py[bad]}): not the same graph")
            else:
                row["notes"].append(f"canopy's levels equal a Python BFS of {os.path.basename(csr_path)}")
        else:
            row["notes"].append(f"levels vs a Python BFS of the Atos file skipped ({meta['arcs']} arcs > "
                                f"--py-check-arcs {args.py_check_arcs}); vertex and arc counts compared")
    if alg == "pagerank" and meta.get("isolated_vertices"):
        row["notes"].append("has isolated vertices: Atos leaves them at 1 - lambda, canopy spreads dangling rank "
                            "uniformly, so the two L1 columns measure slightly different fixed points")
    if dry:
        return row
    try:
        cmd = atos_command(alg, atos_bins[alg], csr_path, spec, source, args)
        row["atos_command"] = " ".join(shlex.quote(c) for c in cmd)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            raise RunError(f"timed out after {args.timeout} s (Atos's termination vote never passed?)") from None
        log = os.path.join(args.work, "logs", f"atos.{alg}.{spec.name}.txt")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        with open(log, "w") as f:
            f.write(row["atos_command"] + "\n" + p.stdout + p.stderr)
        if p.returncode != 0:
            tail = "\n".join((p.stdout + p.stderr).splitlines()[-15:])
            raise RunError(f"exit {p.returncode} (log {log}):\n{tail}")
        a = parse_atos(alg, p.stdout, args, n)
        a["log"] = log
        row["atos"] = a
        row["problems"] += a["checks"]
        if alg == "bfs":
            same, why = compare_first_depths(a, canopy_levels, n)
            (row["problems"] if same is False else row["notes"]).append(why)
        if alg == "color":
            row["notes"].append("Atos checks its colouring is proper on the GPU; colours are counted by its own "
                                "loop (it prints no colours to compare vertex by vertex)")
    except RunError as e:
        row["atos"] = {"error": str(e)}
        row["problems"].append(f"Atos: {e}")
    return row


def gpu_name():
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=30)
        return p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else None
    except (OSError, subprocess.TimeoutExpired):
        return None


# Output shaped like Atos's test_*.cu prints (their cout/printf format strings), for the parsers' check.
SAMPLE_OUT = {
    "bfs": ("Vertices: 6 Edges: 10\nsource 0\nTime: 2.5\nworkload: 6\nTime: 1.25\nworkload: 6\nTime: 1.5\n"
            "workload: 6\nAve. Time: 1.75\nAve. Workload(vertices): 6\nenqueued nodes: 0\n"
            "ERROR between CPU and GPU implimentation: 0\nPrint the first 20 depth: \nhost:\n0 1 1 2 7 7 \n"
            "device:\n0 1 1 2 7 7 \n"),
    "pagerank": ("Time: 12.5\nworkload: 800\nnum of 0 res larger than 0.01\nAve. Time:    12.50\n"
                 "Ave Workload: 800\nCPU total mass: 6 CPU total res: 0.04 CPU total rank: 5.7\n"
                 "GPU rank: sum of rank 5.75 error from CPU 0.0125\n"
                 "GPU res: sum of res 0.0375 error from CPU 0.001 0 number of res larger than 0.01\n\n"
                 "GPU sum_rank: 5.75 GPU sum_res: 0.0375 GPU total mass: 6\n"),
    "color": ("Queue 0, capacity: 100, end=start: 7\nTime: 0.5\nQueue 0, capacity: 100, end=start: 7\nTime: 0.25\n"
              "Ave. Time: 0.375\nAve. Workload(vertices): 7\nuse color 3\nPass Validation\n"),
}


def check_parsers():
    a = argparse.Namespace(damping=0.85)
    b = parse_atos("bfs", SAMPLE_OUT["bfs"], a, 6)
    p = parse_atos("pagerank", SAMPLE_OUT["pagerank"], a, 6)
    c = parse_atos("color", SAMPLE_OUT["color"], a, 6)
    ok = (b["ms"] == 1.5 and b["own_check_error"] == 0 and b["first_depths"] == [0, 1, 1, 2, 7, 7]
          and compare_first_depths(b, [0, 1, 1, 2, -1, -1], 6)[0] is True
          and compare_first_depths(b, [0, 1, 2, 2, -1, -1], 6)[0] is False and not b["checks"]
          and p["ms"] == 12.5 and abs(p["l1_rel"] - 0.0375 / 0.15 / 6) < 1e-12 and not p["checks"]
          and c["ms"] == 0.375 and c["colors"] == 3 and not c["checks"])
    bad = parse_atos("color", SAMPLE_OUT["color"].replace("Pass", "Fail"), a, 6)
    if not ok or not bad["checks"]:
        raise RunError(f"the Atos output parsers misread their samples: {b} {p} {c}")
    return ["Atos output parsers: BFS, PageRank and colouring samples read as written (median times, checks, "
            "depths, residual L1, colours); a failed validation is caught"]


def dry_run_checks(args):
    """The checks that need neither a GPU nor Atos; returns log lines."""
    log = check_patches_synthetic()
    log += check_parsers()
    # Round trip of the writer against the independent reader, on a graph with isolated vertices.
    g = csr_from_adjacency([[1, 2], [0, 2], [0, 1], [4], [3, 5], [4], []])  # vertex 6 alone
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.csr")
        write_atos_csr(p, g)
        back = read_atos_csr(p)
        if not same_csr(g, back) or os.path.getsize(p) != 4 * (2 + 8 + 10):
            raise RunError(f"Atos CSR round trip: wrote {list(g.offsets)} {list(g.targets)}, read "
                           f"{back.offsets} {back.targets}")
        with open(p, "rb") as f:
            head = f.read(12)
        if head != struct.pack("<iii", 7, 10, 0):
            raise RunError(f"Atos CSR header bytes {head.hex()}: expected int32 7, 10, then offset 0")
    log.append("Atos CSR writer: a 7-vertex graph with an isolated vertex reads back equal")
    if args.atos:
        check_atos_dir(args.atos)
        log.append(f"patches on {args.atos} (in memory, nothing written):")
        log += patch_tree(args.atos, write=False, parts=ATOS_PARTS)
    return log


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--atos", help=f"a copy of {ATOS_REPO} at commit {ATOS_COMMIT} (never inside the repository "
                                   "unless ignored, e.g. build/peers/ATOS)")
    ap.add_argument("--work", default=os.path.join(REPO, "build", "peers"),
                    help="work directory: Atos's patched copy and binaries, the inputs, logs (default build/peers)")
    ap.add_argument("--canopy", default=os.path.join(REPO, "build", "cpu", "cli", "canopy"),
                    help="the canopy binary (default the emulator build; on a GPU machine a CUDA build)")
    ap.add_argument("--inputs", help=f"comma-separated (default {DEFAULT_INPUTS}; dry run {DRY_INPUTS})")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS), help="bfs,pagerank,color")
    ap.add_argument("--dry-run", action="store_true", help="no GPU, no Atos: check canopy's side and the script")
    ap.add_argument("--prepare", action="store_true", help="build Atos and write the inputs, then stop")
    ap.add_argument("--metis-dir", default=METIS_DIR, help="where mdual.graph and copter2.graph are")
    ap.add_argument("--nvcc", help="nvcc to build Atos with (default: on PATH, then /usr/local/cuda/bin)")
    ap.add_argument("--arch", default="sm_90", help="nvcc -arch (default sm_90)")
    ap.add_argument("--nvcc-flags", default="", help="more nvcc flags for Atos")
    ap.add_argument("--rounds", type=int, default=10, help="Atos's -rounds (the median is shown)")
    ap.add_argument("--repeat", type=int, help="canopy runs per problem, median shown (default 3; dry run 1)")
    ap.add_argument("--damping", type=float, default=0.85, help="PageRank damping, both sides (Atos's lambda)")
    ap.add_argument("--epsilon", type=float, default=0.01,
                    help="Atos's residual threshold on mean-1 ranks; canopy tasks get --tolerance EPS (X/V on "
                         "sum-1 ranks: the same threshold)")
    ap.add_argument("--mk-tolerance", type=float, default=1e-4,
                    help="canopy multi-kernel PageRank: stop at an L1 change <= X (accuracy printed beside)")
    ap.add_argument("--atos-min-iter", default="", help="override Atos's -i per algorithm, e.g. bfs=20000,color=100")
    ap.add_argument("--canopy-flags", default="", help="more flags for every canopy run")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1),
                    help="nvcc processes building Atos")
    ap.add_argument("--py-check-arcs", type=int, default=10_000_000,
                    help="compare canopy's BFS levels with a Python BFS of the Atos file up to this many arcs")
    ap.add_argument("--results", help="write every figure and command as JSON (default WORK/results.json)")
    args = ap.parse_args(argv)
    try:
        return run(args)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except RunError as e:
        print(f"{PROG}: FAILED: {e}", file=sys.stderr)
        return 1


def run(args):
    algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    bad = [a for a in algorithms if a not in ALGORITHMS]
    if bad or not algorithms:
        raise UsageError(f"--algorithms: {', '.join(bad) or 'none given'}; choose from {', '.join(ALGORITHMS)}")
    args.min_iter_override = {}
    for tok in [t for t in args.atos_min_iter.split(",") if t.strip()]:
        k, _, v = tok.partition("=")
        if k.strip() not in ALGORITHMS or not v.strip().isdigit():
            raise UsageError(f"--atos-min-iter: '{tok}' is not ALGORITHM=N (e.g. bfs=20000)")
        args.min_iter_override[k.strip()] = int(v)
    if args.rounds < 1 or (args.repeat is not None and args.repeat < 1) or args.timeout < 1 or args.jobs < 1:
        raise UsageError("--rounds, --repeat, --timeout and --jobs take positive numbers")
    if not 0 <= args.damping < 1 or args.epsilon <= 0 or args.mk_tolerance <= 0:
        raise UsageError("--damping is in [0, 1); --epsilon and --mk-tolerance are positive")
    if args.dry_run and args.prepare:
        raise UsageError("--dry-run and --prepare exclude each other")
    if not args.dry_run and not args.atos:
        raise UsageError(f"--atos DIR is required (or --dry-run): {FETCH_HINT}")
    args.work = os.path.abspath(args.work)
    if not args.dry_run and inside_repo_unignored(os.path.join(args.work, "atos")):
        raise UsageError(f"--work {args.work} is inside the repository and not ignored by git: Atos's code "
                         "must never be committed; use the default build/peers (build/ is ignored)")
    args.repeat = args.repeat or (1 if args.dry_run else 3)
    specs = parse_inputs(args.inputs or (DRY_INPUTS if args.dry_run else DEFAULT_INPUTS), args.metis_dir)
    for sp in list(specs):
        if sp.kind == "metis" and not os.path.isfile(sp.file):
            note(f"skipping {sp.name}: {sp.file} is missing (install Debian's libmetis-doc, or --metis-dir DIR)")
            specs.remove(sp)
    canopy_info = check_canopy_binary(args.canopy)  # --prepare too: canopy writes the inputs
    os.makedirs(args.work, exist_ok=True)

    results = {"script": PROG, "atos_repo": ATOS_REPO, "atos_commit_expected": ATOS_COMMIT,
               "dry_run": args.dry_run, "rows": [], "checks": []}
    if args.dry_run:
        note(f"{PROG} --dry-run: no GPU and no Atos; canopy {args.canopy}")
        for line in dry_run_checks(args):
            note(line)
            results["checks"].append(line)
        atos_bins = {}
    else:
        results["atos_commit"] = check_atos_dir(args.atos)
        atos_bins = prepare_atos(args, algorithms)
        results["atos_binaries"] = atos_bins

    built = []
    for sp in specs:
        g, path, meta = build_input(sp, args, force=args.dry_run)
        built.append((sp, g, path, meta))
        if args.dry_run and g is not None:
            back = read_atos_csr(path)
            if not same_csr(g, back):
                raise RunError(f"{path}: reads back different from what was written")
            line = f"input {sp.name}: {path} reads back equal ({g.n} vertices, {g.arcs} arcs)"
            note(line)
            results["checks"].append(line)
    if args.prepare:
        note(f"prepared: Atos binaries in {os.path.join(args.work, 'atos', 'bin')}, inputs in "
             f"{os.path.join(args.work, 'inputs')}; run without --prepare on the GPU machine")
        return 0
    if not args.dry_run and gpu_name() is None:
        raise RunError("no NVIDIA GPU answers here (nvidia-smi failed): run --prepare here and the rest on a GPU "
                       "machine, or --dry-run")
    results["gpu"] = None if args.dry_run else gpu_name()
    results["canopy"] = {"binary": args.canopy, "info": canopy_info}

    rows = []
    for sp, g, path, meta in built:
        for alg in algorithms:
            note(f"running {alg} on {sp.name} ...")
            row = run_problem(args, sp, alg, g, path, meta, atos_bins, args.dry_run)
            rows.append(row)
    results["rows"] = rows

    note("")
    where = "dry run: canopy on the CPU emulator" if args.dry_run else f"GPU: {results['gpu']}"
    note(f"Atos ({ATOS_REPO} @ {ATOS_COMMIT}) and canopy side by side; {where}; canopy {args.canopy}")
    print_table(rows, "not run (dry run)" if args.dry_run else "-")
    backend = next((r[s]["json"].get("backend") for r in rows for s in ("tasks", "multi-kernel")
                    if isinstance(r.get(s), dict) and "json" in r[s]), None)
    note("Atos ms: CUDA events around its kernel launch(es), initialisation excluded, median of --rounds. "
         "canopy ms: [d] device_ms; [w] canopy's JSON 'seconds', host wall from the first allocation to the "
         "answers read back (allocation and copies included)" +
         ("; here on the CPU emulator, not comparable with any GPU figure." if backend == "cpu" else "."))
    note("ratios: canopy / Atos (above 1: canopy slower). Answers: BFS 'err' = Atos's own host check "
         "(0 = exact), depth = canopy's; PageRank L1 = relative L1 to the fixed point (canopy: to its "
         "double-precision oracle; Atos: sum(res)/(1-lambda)/total mass, its unpushed rank); colours used.")
    if any(r["problems"] for r in rows):
        note("")
        for r in rows:
            for pr in r["problems"]:
                note(f"FAILED {r['problem']}: {pr}")
    notes = sorted({n for r in rows for n in r["notes"]})
    if notes:
        note("")
        for n in notes:
            note(f"note: {n}")
    out = args.results or os.path.join(args.work, "results.json")
    for r in rows:
        for s in ("tasks", "multi-kernel"):
            if isinstance(r.get(s), dict) and "json" in r[s]:
                r[s]["json"].pop("stats", None)
    with open(out, "w") as f:
        json.dump(results, f, indent=1, default=str)
    note(f"results: {out}")
    return 1 if any(r["problems"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
