#!/bin/sh
# tests/codegen/check_codegen.sh <hip|hip-gfx940|cuda> <repo-root> — do canopy's scopes reach the hardware?
#
# Compiles tests/codegen/scopes_kernels.cpp through platform/ (the real backend headers) and greps the
# code of each kernel, cg_<operation>_<order>_<scope>, for the instructions the vendor memory model
# requires, and for the absence of those a narrower scope must not pay for. A scope mapped one step
# too wide or too narrow, or an order dropped, fails at least one check.
#
#   hip:  hipcc for gfx90a, device code only.
#         ISA, checked against the "Memory Model GFX90A" code sequences of LLVM's AMDGPUUsage (not in
#         tgsplit mode; global memory):
#           acquire, workgroup/wavefront   no buffer_wbinvl1_vol: the work-group's waves share the CU's L1
#           acquire, agent                 load with glc (reads L2), s_waitcnt vmcnt(0), then
#                                          buffer_wbinvl1_vol before any later load (drops stale L1 lines)
#           acquire, system                as agent, with buffer_invl2 before the L1 invalidate
#           release, workgroup/wavefront   no s_waitcnt vmcnt(0) and no buffer_wbl2 before the store: the
#                                          L1 is write-through and shared by the work-group, stores stay
#                                          in order
#           release, agent                 s_waitcnt vmcnt(0) between the earlier stores and the releasing
#                                          access (they have reached L2, the coherence point of the
#                                          agent); no buffer_wbl2
#           release, system                buffer_wbl2 (write L2 back for the host), then s_waitcnt vmcnt(0)
#           relaxed load, agent/system     glc (coherent read of L2); relaxed load, narrower: no glc
#           seq_cst                        both halves; fences the same, between the plain accesses
#           read-modify-writes             native global_atomic_<op> instructions, never a CAS loop
#         LLVM IR of the same kernels: every atomic and fence carries the syncscope of its canopy scope
#         (wavefront, workgroup, agent, system = none / "one-as") and the LLVM ordering of its order.
#         This also separates sub-group from work-group scope, whose gfx90a code is identical.
#         subgroup_barrier(): IR fence syncscope("wavefront") release, wave.barrier, acquire; ISA: no
#         s_barrier (that is the work-group's) and no cache maintenance.
#         ROCm 7: tests/codegen/rocm7_warpsize.cpp compiles platform/ and the task runtime for gfx90a and
#         gfx1030 with a warpSize that is not a constant expression, and checks the compile-time width.
#   hip-gfx940: hipcc for gfx940 (MI300's ISA family), "Memory Model GFX942" sequences: device release
#         = buffer_wbl2 sc1 (write the L2 back to memory visible to other XCDs' L2s), device acquire =
#         buffer_inv sc1 after the load; system adds sc0; work-group and sub-group scopes need neither.
#   cuda: nvcc -ptx for sm_90. libcu++ emits the PTX memory model's scoped instructions; the PTX ISA
#         scopes are .cta (block), .gpu (device), .sys (system), and canopy maps sub-group to .cta
#         (PTX has no warp scope):
#           loads   ld.relaxed.<s> / ld.acquire.<s> / fence.sc.<s> then ld.acquire.<s> (seq_cst)
#           stores  st.relaxed.<s> / st.release.<s> / fence.sc.<s> then st.relaxed.<s> (seq_cst)
#           RMW     atom.<op>.<order>.<s>         fences  fence.acq_rel.<s> / fence.sc.<s>
#         and no other scope qualifier appears in the kernel.
#         Sub-groups: subgroup_barrier() is bar.warp.sync; no `activemask` anywhere, neither in these
#         kernels nor in the task runtime's PTX (tests/codegen/compile_runtime.cpp): under independent
#         thread scheduling it names only the lanes that happen to be converged, so a *_sync with it
#         would not wait for the others; the member mask is computed from %tid.x and %ntid.x.
#
# Exit status: 0 all checks passed, 1 a check failed or the compiler rejected the file, 77 the compiler
# is missing (ctest reports the test as skipped). HIPCC / NVCC in the environment override the compiler.
set -u

if [ $# -ne 2 ] || { [ "$1" != hip ] && [ "$1" != hip-gfx940 ] && [ "$1" != cuda ]; }; then
    echo "usage: $0 <hip|hip-gfx940|cuda> <repo-root>" >&2
    exit 2
fi
backend=$1
root=$2
src="$root/tests/codegen/scopes_kernels.cpp"
# platform/ speaks the vocabulary layer (vocabulary/: scopes, sites, the backend check).
include="$root/platform/include"
vocab="$root/vocabulary/include"
runtime_includes="-I$root/platform/include -I$vocab -I$root/runtime/include -I$root/queues/include -I$root/sync/include -I$root/workloads/include"

work=$(mktemp -d "${TMPDIR:-/tmp}/canopy-codegen.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
mkdir "$work/fn"

checks=0
failures=0
ok() {
    checks=$((checks + 1))
    printf 'ok    %s\n' "$1"
}
fail() {
    checks=$((checks + 1))
    failures=$((failures + 1))
    printf 'FAIL  %s\n' "$1"
}

# The split code of one kernel: $1 is <kind>.<kernel>, kind = isa | ir | ptx.
fn() { printf '%s/fn/%s' "$work" "$1"; }

require_fn() {
    if [ ! -s "$(fn "$1")" ]; then
        fail "$1: kernel not found in the compiler output"
        return 1
    fi
}

# POSIX sh has no local variables: helpers use _-prefixed names only. Regular expressions are POSIX EREs. They are handed to awk through the environment (never -v, which
# would interpret backslashes), and written with [(] [)] [.] instead of backslash escapes.

# has <kind.kernel> <ere> <why>: some instruction matches.
has() {
    require_fn "$1" || return 0
    if RE=$2 awk 'BEGIN { re = ENVIRON["RE"] } $0 ~ re { found = 1 } END { exit !found }' "$(fn "$1")"; then
        ok "$1: has /$2/: $3"
    else
        fail "$1: no instruction matches /$2/: $3"
        sed 's/^/        /' "$(fn "$1")"
    fi
}

# lacks <kind.kernel> <ere> <why>: no instruction matches.
lacks() {
    require_fn "$1" || return 0
    if RE=$2 awk 'BEGIN { re = ENVIRON["RE"] } $0 ~ re { found = 1 } END { exit found }' "$(fn "$1")"; then
        ok "$1: no /$2/: $3"
    else
        fail "$1: unexpected /$2/: $3"
        sed 's/^/        /' "$(fn "$1")"
    fi
}

# in_order <kind.kernel> <why> <ere>...: instructions matching the EREs appear in this order.
in_order() {
    _k=$1
    _why=$2
    shift 2
    require_fn "$_k" || return 0
    printf '%s\n' "$@" >"$work/patterns"
    _seq=$(awk 'NR > 1 { printf " -> " } { printf "/%s/", $0 }' "$work/patterns")
    if awk 'NR == FNR { pat[++n] = $0; next } i < n && $0 ~ pat[i + 1] { i++ } END { exit !(i == n) }' \
        "$work/patterns" "$(fn "$_k")"; then
        ok "$_k: in order $_seq: $_why"
    else
        fail "$_k: not in order $_seq: $_why"
        sed 's/^/        /' "$(fn "$_k")"
    fi
}

# between <kind.kernel> <present|absent> <from-ere> <to-ere> <ere> <why>: whether an instruction
# matching <ere> lies strictly between the first match of <from-ere> and the next match of <to-ere>.
between() {
    require_fn "$1" || return 0
    if FROM=$3 TO=$4 RE=$5 awk '
        BEGIN { from = ENVIRON["FROM"]; to = ENVIRON["TO"]; re = ENVIRON["RE"]; state = 0 }
        state == 0 && $0 ~ from { state = 1; next }
        state == 1 && $0 ~ to { state = 2; exit }
        state == 1 && $0 ~ re { found = 1 }
        END { exit !(state == 2 && found) }' "$(fn "$1")"; then
        _result=present
    else
        _result=absent
    fi
    if [ "$_result" = "$2" ]; then
        ok "$1: /$5/ $2 between /$3/ and /$4/: $6"
    else
        fail "$1: /$5/ should be $2 between /$3/ and /$4/: $6"
        sed 's/^/        /' "$(fn "$1")"
    fi
}

# Each kernel of a compiler's output into its own file, $work/fn/KIND.cg_NAME, which has, lacks,
# in_order and between read.
# ISA: a kernel runs from its label to s_endpgm; keep instructions only.
split_isa() {
    awk -v dir="$work/fn" '
        /^cg_[A-Za-z0-9_]+:/ { name = $1; sub(/:.*/, "", name); out = dir "/isa." name; next }
        out != "" && /^[ \t]*[a-z]/ { sub(/^[ \t]+/, ""); print > out }
        out != "" && /s_endpgm/ { close(out); out = "" }' "$1"
}
# LLVM IR: from define to the closing brace; keep atomics and fences.
split_ir() {
    awk -v dir="$work/fn" '
        /^define .*@cg_[A-Za-z0-9_]+[(]/ { match($0, /@cg_[A-Za-z0-9_]+/); out = dir "/ir." substr($0, RSTART + 1, RLENGTH - 1); next }
        out != "" && /^}/ { close(out); out = ""; next }
        out != "" && /^[ \t]*(%[^ ]+ = )?(load atomic|store atomic|atomicrmw|cmpxchg|fence) / { sub(/^[ \t]+/, ""); print > out }' "$1"
}
# PTX: an entry runs from .entry to the closing brace; keep instructions only.
split_ptx() {
    awk -v dir="$work/fn" '
        /^[.]visible [.]entry cg_[A-Za-z0-9_]+[(]/ { name = $3; sub(/[(].*/, "", name); out = dir "/ptx." name; next }
        out != "" && /^}/ { close(out); out = ""; next }
        out != "" && /^[ \t]*[a-z]/ { sub(/^[ \t]+/, ""); print > out }' "$1"
}

# ---------------------------------------------------------------------------------------------------
find_hipcc() {
    hipcc=${HIPCC:-}
    if [ -z "$hipcc" ]; then
        hipcc=$(command -v hipcc 2>/dev/null || true)
    fi
    if [ -z "$hipcc" ] && [ -x /opt/rocm/bin/hipcc ]; then
        hipcc=/opt/rocm/bin/hipcc
    fi
    if [ -z "$hipcc" ]; then
        echo "SKIP: hipcc not found (set HIPCC to run the gfx90a codegen checks)"
        exit 77
    fi
    echo "compiler: $hipcc"
}

check_hip() {
    find_hipcc
    # hipcc is a wrapper that adds link flags even to -S; they are unused here, not mistakes.
    flags="-x hip --offload-arch=gfx90a --cuda-device-only -S -O2 -std=c++20 -DCANOPY_BACKEND_HIP=1 \
-I$include -I$vocab -Wall -Wextra -Werror -Wno-unused-command-line-argument"
    # shellcheck disable=SC2086
    if ! "$hipcc" $flags "$src" -o "$work/gfx90a.s" >"$work/log" 2>&1 ||
        ! "$hipcc" $flags -emit-llvm "$src" -o "$work/gfx90a.ll" >>"$work/log" 2>&1; then
        cat "$work/log"
        echo "FAIL  hipcc could not compile $src"
        exit 1
    fi

    split_isa "$work/gfx90a.s"
    split_ir "$work/gfx90a.ll"

    load='^global_load_dword '
    load_glc='^global_load_dword .* glc'
    store='^global_store_dword '
    vmwait='^s_waitcnt .*vmcnt[(]0[)]'
    inv1='^buffer_wbinvl1'
    inv2='^buffer_invl2'
    wb2='^buffer_wbl2'

    for s in subgroup workgroup device system; do
        case $s in
        subgroup) ir_scope=wavefront ;;
        workgroup) ir_scope=workgroup ;;
        device) ir_scope=agent ;;
        system) ir_scope=system ;;
        esac

        # LLVM IR: the scope and the order of every atomic and fence.
        for k in load_relaxed load_acquire load_seq_cst store_relaxed store_release store_seq_cst \
            fetch_add_relaxed fetch_add_acq_rel fence_acquire fence_release fence_seq_cst; do
            case $k in
            *_relaxed) order=monotonic ;;
            *_acquire) order=acquire ;;
            *_release) order=release ;;
            *_acq_rel) order=acq_rel ;;
            *_seq_cst) order=seq_cst ;;
            esac
            f="ir.cg_${k}_$s"
            require_fn "$f" || continue
            if SCOPE=$ir_scope ORDER=$order awk '
                {
                    scope = "system"
                    if (match($0, /syncscope[(]"[^"]*"[)]/)) {
                        scope = substr($0, RSTART + 11, RLENGTH - 13)
                        sub(/-?one-as$/, "", scope)
                        if (scope == "") scope = "system"
                    }
                    ord = ""
                    if (match($0, / (monotonic|acquire|release|acq_rel|seq_cst)(,|$)/)) {
                        ord = substr($0, RSTART + 1, RLENGTH - 1); sub(/,$/, "", ord)
                    }
                    if (scope != ENVIRON["SCOPE"] || ord != ENVIRON["ORDER"]) bad = 1
                    n++
                }
                END { exit !(n > 0 && !bad) }' "$(fn "$f")"; then
                ok "$f: every atomic is syncscope $ir_scope, $order: $(head -n 1 "$(fn "$f")")"
            else
                fail "$f: expected syncscope $ir_scope and ordering $order"
                sed 's/^/        /' "$(fn "$f")"
            fi
        done

        # ISA, gfx90a.
        case $s in
        subgroup | workgroup)
            why="$s scope shares the CU's L1: no cache maintenance"
            lacks "isa.cg_load_relaxed_$s" "$load_glc" "$why (the load may hit in L1)"
            lacks "isa.cg_load_acquire_$s" "$inv1|$inv2" "$why (an acquire invalidates nothing)"
            lacks "isa.cg_load_acquire_$s" "$load_glc" "$why (the load may hit in L1)"
            lacks "isa.cg_load_seq_cst_$s" "$inv1|$inv2" "$why"
            between "isa.cg_store_release_$s" absent "$store" "$store" "$vmwait|$wb2" \
                "$why (a release does not wait for earlier stores)"
            between "isa.cg_store_seq_cst_$s" absent "$store" "$store" "$vmwait|$wb2|$inv1" "$why"
            lacks "isa.cg_fetch_add_acq_rel_$s" "$inv1|$inv2|$wb2" "$why"
            between "isa.cg_fence_acquire_$s" absent "$load" "$load" "$inv1|$inv2" "$why"
            between "isa.cg_fence_release_$s" absent "$store" "$store" "$vmwait|$wb2" "$why"
            between "isa.cg_fence_seq_cst_$s" absent "$store" "$store" "$vmwait|$wb2|$inv1" "$why"
            ;;
        device)
            has "isa.cg_load_relaxed_$s" "$load_glc" "agent scope reads the coherent L2 (glc), not a stale L1"
            lacks "isa.cg_load_relaxed_$s" "$inv1" "a relaxed load invalidates nothing"
            in_order "isa.cg_load_acquire_$s" "agent acquire: wait for the load, then invalidate L1 before later accesses" \
                "$load_glc" "$vmwait" "^buffer_wbinvl1_vol" "$store"
            lacks "isa.cg_load_acquire_$s" "$inv2|$wb2" "agent scope never touches L2 coherence (that is system scope)"
            in_order "isa.cg_load_seq_cst_$s" "seq_cst load: release-side wait, glc load, acquire-side invalidate" \
                "$vmwait" "$load_glc" "$vmwait" "^buffer_wbinvl1_vol"
            between "isa.cg_store_relaxed_$s" absent "$store" "$store" "$vmwait|$wb2" "a relaxed store orders nothing"
            between "isa.cg_store_release_$s" present "$store" "$store" "$vmwait" \
                "agent release: earlier stores must reach L2 before the releasing store"
            lacks "isa.cg_store_release_$s" "$wb2|$inv1" "agent release needs no L2 write-back nor L1 invalidate"
            between "isa.cg_store_seq_cst_$s" present "$store" "$store" "$vmwait" "seq_cst store releases"
            lacks "isa.cg_fetch_add_relaxed_$s" "$inv1|$wb2" "a relaxed RMW orders nothing"
            in_order "isa.cg_fetch_add_acq_rel_$s" "agent acq_rel RMW: wait for earlier accesses, atomic at L2, then invalidate L1" \
                "$vmwait" "^global_atomic_add .* glc" "$vmwait" "^buffer_wbinvl1_vol"
            lacks "isa.cg_fetch_add_acq_rel_$s" "$inv2|$wb2" "agent scope never touches L2 coherence"
            in_order "isa.cg_fence_acquire_$s" "agent acquire fence: invalidate L1 between the two loads" \
                "$load" "$vmwait" "^buffer_wbinvl1_vol" "$load"
            between "isa.cg_fence_release_$s" present "$store" "$store" "$vmwait" \
                "agent release fence: the first store reaches L2 before the second"
            lacks "isa.cg_fence_release_$s" "$wb2" "agent release needs no L2 write-back"
            in_order "isa.cg_fence_seq_cst_$s" "agent seq_cst fence: wait, then invalidate L1" \
                "$store" "$vmwait" "^buffer_wbinvl1_vol" "$store"
            ;;
        system)
            has "isa.cg_load_relaxed_$s" "$load_glc" "system scope reads past L1 (glc)"
            in_order "isa.cg_load_acquire_$s" "system acquire: invalidate L2 (non-coherent lines) and L1" \
                "$load_glc" "$vmwait" "$inv2" "^buffer_wbinvl1_vol" "$store"
            in_order "isa.cg_store_release_$s" "system release: write L2 back, wait, then store" \
                "$store" "$wb2" "$vmwait" "$store"
            in_order "isa.cg_fetch_add_acq_rel_$s" "system acq_rel RMW: write back, atomic, invalidate L2 and L1" \
                "$wb2" "$vmwait" "^global_atomic_add .* glc" "$vmwait" "$inv2" "^buffer_wbinvl1_vol"
            in_order "isa.cg_fence_acquire_$s" "system acquire fence invalidates L2 and L1 between the loads" \
                "$load" "$inv2" "^buffer_wbinvl1_vol" "$load"
            in_order "isa.cg_fence_release_$s" "system release fence writes L2 back between the stores" \
                "$store" "$wb2" "$vmwait" "$store"
            in_order "isa.cg_fence_seq_cst_$s" "system seq_cst fence: write back, wait, invalidate L2 and L1" \
                "$store" "$wb2" "$vmwait" "$inv2" "^buffer_wbinvl1_vol" "$store"
            ;;
        esac
    done

    # Every read-modify-write is one native instruction (a CAS loop would be a wrong or slow lowering).
    for pair in sub:global_atomic_add bit_and:global_atomic_and bit_or:global_atomic_or \
        bit_xor:global_atomic_xor min:global_atomic_umin max:global_atomic_umax \
        exchange:global_atomic_swap add64:global_atomic_add_x2 exchange_float:global_atomic_swap; do
        op=${pair%%:*}
        insn=${pair#*:}
        has "isa.cg_op_${op}_device" "^$insn .* glc" "fetch_$op is native $insn"
        lacks "isa.cg_op_${op}_device" "^global_atomic_cmpswap" "no CAS loop"
    done
    has "isa.cg_op_cas_device" "^global_atomic_cmpswap .* glc" "compare_exchange is global_atomic_cmpswap"
    in_order "isa.cg_op_load64_acquire_device" "a 64-bit agent acquire load is one glc load plus invalidate" \
        "^global_load_dwordx2 .* glc" "$vmwait" "^buffer_wbinvl1_vol"

    # Sub-group hand-off: a wavefront-scope fence pair around the wave barrier, nothing in the ISA.
    in_order "ir.cg_subgroup_barrier" "subgroup_barrier is a wavefront-scope release then acquire" \
        '^fence syncscope[(]"wavefront"[)] release' '^fence syncscope[(]"wavefront"[)] acquire'
    lacks "isa.cg_subgroup_barrier" "^s_barrier" "a sub-group barrier is not the work-group's s_barrier"
    lacks "isa.cg_subgroup_barrier" "$inv1|$inv2|$wb2" "lanes of a wavefront share the L1: no cache maintenance"

    # The system level's moves (runtime/system_level.hpp, compiled alone by system_level_kernels.cpp):
    # the orders its termination argument rests on. The emulator performs a work-item's RMWs in program
    # order, so only the IR shows these (docs/mutations.md).
    sl="$root/tests/codegen/system_level_kernels.cpp"
    # shellcheck disable=SC2086
    if "$hipcc" -x hip --offload-arch=gfx90a --cuda-device-only -S -O2 -std=c++20 -DCANOPY_BACKEND_HIP=1 \
        $runtime_includes -Wall -Wextra -Werror -Wno-unused-command-line-argument -emit-llvm "$sl" \
        -o "$work/system_level.ll" >"$work/log" 2>&1; then
        split_ir "$work/system_level.ll"
        sys_rmw='^%[^ ]+ = atomicrmw add .* syncscope[(]"one-as"[)] monotonic'
        in_order "ir.cg_system_dry" "dry: an agent acquire fence, then the system credit's removal" \
            '^fence syncscope[(]"agent"[)] acquire' "$sys_rmw"
        in_order "ir.cg_system_donate" "donate: the tasks' system credit, the device count's agent release, then dry's acquire and removal" \
            "$sys_rmw" '^%[^ ]+ = atomicrmw add .* syncscope[(]"agent-one-as"[)] release' \
            '^fence syncscope[(]"agent"[)] acquire' "$sys_rmw"
        in_order "ir.cg_system_take" "take: the device count (agent), then the device's and the tasks' system credits" \
            '^%[^ ]+ = atomicrmw add .* syncscope[(]"agent-one-as"[)] monotonic' "$sys_rmw" "$sys_rmw"
    else
        fail "hipcc could not compile tests/codegen/system_level_kernels.cpp"
        sed 's/^/        /' "$work/log"
    fi

    # ROCm 7: warpSize is not a constant expression there; canopy must not need it to be.
    r7="$root/tests/codegen/rocm7_warpsize.cpp"
    # shellcheck disable=SC2086
    if "$hipcc" -x hip --offload-arch=gfx90a --offload-arch=gfx1030 -c -O2 -std=c++20 -DCANOPY_BACKEND_HIP=1 \
        $runtime_includes -Wall -Wextra -Werror -Wno-unused-command-line-argument "$r7" -o "$work/rocm7.o" \
        >"$work/log" 2>&1; then
        ok "rocm7_warpsize.cpp: platform/ and the runtime compile for gfx90a and gfx1030 with a run-time warpSize (ROCm 7), wave sizes 64 and 32"
    else
        fail "rocm7_warpsize.cpp: canopy needs warpSize to be a constant expression (ROCm 7 breaks this)"
        sed 's/^/        /' "$work/log"
    fi
}

# ---------------------------------------------------------------------------------------------------
check_hip_gfx940() {
    find_hipcc
    flags="-x hip --offload-arch=gfx940 --cuda-device-only -S -O2 -std=c++20 -DCANOPY_BACKEND_HIP=1 \
-I$include -I$vocab -Wall -Wextra -Werror -Wno-unused-command-line-argument"
    # shellcheck disable=SC2086
    if ! "$hipcc" $flags "$src" -o "$work/gfx940.s" >"$work/log" 2>&1; then
        cat "$work/log"
        echo "FAIL  hipcc could not compile $src for gfx940"
        exit 1
    fi
    split_isa "$work/gfx940.s"

    load='^global_load_dword '
    store='^global_store_dword '
    vmwait='^s_waitcnt .*vmcnt[(]0[)]'
    wbl2_dev='^buffer_wbl2 sc1$'
    inv_dev='^buffer_inv sc1$'
    cache='^buffer_wbl2|^buffer_inv'
    for s in subgroup workgroup; do
        why="$s scope stays in the CU (not tgsplit): no L2 write-back or invalidate"
        for k in load_acquire load_seq_cst store_release store_seq_cst fetch_add_acq_rel fence_acquire \
            fence_release fence_seq_cst; do
            lacks "isa.cg_${k}_$s" "$cache" "$why"
        done
    done
    s=device
    has "isa.cg_load_relaxed_$s" "$load.* sc1$" "agent scope loads bypass the non-coherent L1 (sc1)"
    in_order "isa.cg_load_acquire_$s" "agent acquire on gfx940: sc1 load, wait, buffer_inv sc1 before later accesses" \
        "$load.* sc1$" "$vmwait" "$inv_dev" "$store"
    in_order "isa.cg_store_release_$s" "agent release on gfx940: buffer_wbl2 sc1, wait, then the store" \
        "$store" "$wbl2_dev" "$vmwait" "$store.* sc1$"
    in_order "isa.cg_fetch_add_acq_rel_$s" "agent acq_rel RMW on gfx940: write back, atomic, wait, invalidate" \
        "$wbl2_dev" "^global_atomic_add " "$vmwait" "$inv_dev"
    between "isa.cg_fence_release_$s" present "$store" "$store" "$wbl2_dev" \
        "agent release fence on gfx940 writes the L2 back (buffer_wbl2 sc1) between the stores"
    between "isa.cg_fence_acquire_$s" present "$load" "$load" "$inv_dev" \
        "agent acquire fence on gfx940 invalidates (buffer_inv sc1) between the loads"
    lacks "isa.cg_store_release_$s" '^buffer_wbl2 sc0 sc1' "agent scope is not system scope"
    s=system
    in_order "isa.cg_store_release_$s" "system release on gfx940: buffer_wbl2 sc0 sc1, wait, store" \
        "$store" '^buffer_wbl2 sc0 sc1$' "$vmwait" "$store"
    in_order "isa.cg_load_acquire_$s" "system acquire on gfx940: load, wait, buffer_inv sc0 sc1" \
        "$load" "$vmwait" '^buffer_inv sc0 sc1$'
}

# ---------------------------------------------------------------------------------------------------
check_cuda() {
    nvcc=${NVCC:-}
    if [ -z "$nvcc" ]; then
        nvcc=$(command -v nvcc 2>/dev/null || true)
    fi
    if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
        nvcc=/usr/local/cuda/bin/nvcc
    fi
    if [ -z "$nvcc" ]; then
        echo "SKIP: nvcc not found (set NVCC to run the sm_90 PTX codegen checks)"
        exit 77
    fi
    echo "compiler: $nvcc"
    if ! "$nvcc" -x cu -ptx -arch=sm_90 -std=c++20 --extended-lambda --expt-relaxed-constexpr \
        -DCANOPY_BACKEND_CUDA=1 -I"$include" -I"$vocab" -Xcompiler=-Wall,-Wextra,-Werror -Werror all-warnings \
        "$src" -o "$work/sm_90.ptx" >"$work/log" 2>&1; then
        cat "$work/log"
        echo "FAIL  nvcc could not compile $src"
        exit 1
    fi

    split_ptx "$work/sm_90.ptx"

    for s in subgroup workgroup device system; do
        case $s in
        subgroup | workgroup) q=cta ;;
        device) q=gpu ;;
        system) q=sys ;;
        esac
        why="canopy scope $s is PTX .$q"
        has "ptx.cg_load_relaxed_$s" "^ld[.]relaxed[.]${q}[.]" "$why"
        has "ptx.cg_load_acquire_$s" "^ld[.]acquire[.]${q}[.]" "$why"
        in_order "ptx.cg_load_seq_cst_$s" "seq_cst load = fence.sc + ld.acquire, $why" \
            "^fence[.]sc[.]$q;" "^ld[.]acquire[.]${q}[.]"
        has "ptx.cg_store_relaxed_$s" "^st[.]relaxed[.]${q}[.]" "$why"
        in_order "ptx.cg_store_release_$s" "the plain store precedes the st.release, $why" \
            "^st[.]global[.]" "^st[.]release[.]${q}[.]"
        in_order "ptx.cg_store_seq_cst_$s" "seq_cst store = fence.sc + st.relaxed, $why" \
            "^st[.]global[.]" "^fence[.]sc[.]$q;" "^st[.]relaxed[.]${q}[.]"
        has "ptx.cg_fetch_add_relaxed_$s" "^atom[.]add[.]relaxed[.]${q}[.]" "$why"
        has "ptx.cg_fetch_add_acq_rel_$s" "^atom[.]add[.]acq_rel[.]${q}[.]" "$why"
        in_order "ptx.cg_fence_acquire_$s" "acquire fence between the loads, $why" \
            "^ld[.]global" "^fence[.]acq_rel[.]$q;" "^ld[.]global"
        in_order "ptx.cg_fence_release_$s" "release fence between the stores, $why" \
            "^st[.]global" "^fence[.]acq_rel[.]$q;" "^st[.]global"
        in_order "ptx.cg_fence_seq_cst_$s" "seq_cst fence between the stores, $why" \
            "^st[.]global" "^fence[.]sc[.]$q;" "^st[.]global"
        # No other scope may appear anywhere in these kernels.
        other=$(printf 'cta gpu sys' | sed "s/$q//; s/^ *//; s/ *$//; s/  */|/g")
        for k in load_relaxed load_acquire load_seq_cst store_relaxed store_release store_seq_cst \
            fetch_add_relaxed fetch_add_acq_rel fence_acquire fence_release fence_seq_cst; do
            lacks "ptx.cg_${k}_$s" "[.]($other)([.;]|$)" "$why, never another scope"
        done
    done

    for pair in sub:atom.add.relaxed.gpu.u32 bit_and:atom.and.relaxed.gpu.b32 bit_or:atom.or.relaxed.gpu.b32 \
        bit_xor:atom.xor.relaxed.gpu.b32 min:atom.min.relaxed.gpu.u32 max:atom.max.relaxed.gpu.u32 \
        exchange:atom.exch.relaxed.gpu.b32 cas:atom.cas.relaxed.gpu.b32 add64:atom.add.relaxed.gpu.u64 \
        exchange_float:atom.exch.relaxed.gpu.b32; do
        op=${pair%%:*}
        insn=$(printf '%s' "${pair#*:}" | sed 's/[.]/[.]/g')
        has "ptx.cg_op_${op}_device" "^$insn " "one native instruction at device scope"
    done
    has "ptx.cg_op_load64_acquire_device" "^ld[.]acquire[.]gpu[.]b64 " "a 64-bit device acquire load"

    # Sub-groups: explicit member masks from the ids, bar.warp.sync for hand-offs, never activemask.
    has "ptx.cg_subgroup_barrier" "^bar[.]warp[.]sync " "subgroup_barrier is __syncwarp (bar.warp.sync)"
    in_order "ptx.cg_subgroup_barrier" "the member mask is computed from the block size, then used" \
        "%ntid[.]x" "^bar[.]warp[.]sync "
    for k in cg_subgroup_barrier cg_subgroup_after_branch; do
        lacks "ptx.$k" "activemask" "no *_sync takes the lanes that happen to be converged"
    done
    has "ptx.cg_subgroup_after_branch" "^shfl[.]sync[.]idx" "broadcast after a leader-only branch is shfl.sync"
    has "ptx.cg_subgroup_after_branch" "^vote[.]sync[.]ballot" "ballot is vote.sync.ballot"

    # The system level's moves (runtime/system_level.hpp, compiled alone): see check_hip.
    # shellcheck disable=SC2086
    if "$nvcc" -x cu -ptx -arch=sm_90 -std=c++20 --extended-lambda --expt-relaxed-constexpr \
        -DCANOPY_BACKEND_CUDA=1 $runtime_includes -Xcompiler=-Wall,-Wextra,-Werror -Werror all-warnings \
        "$root/tests/codegen/system_level_kernels.cpp" -o "$work/system_level.ptx" >"$work/log" 2>&1; then
        split_ptx "$work/system_level.ptx"
        sys_rmw='^(atom|red)[.](global[.])?add[.]relaxed[.]sys[.]'
        in_order "ptx.cg_system_dry" "dry: fence.acq_rel.gpu (the acquire), then the system credit's removal" \
            '^fence[.]acq_rel[.]gpu;' "$sys_rmw"
        in_order "ptx.cg_system_donate" "donate: the tasks' system credit, the device count's release RMW, then dry's fence and removal" \
            "$sys_rmw" '^atom[.](global[.])?add[.]release[.]gpu[.]' '^fence[.]acq_rel[.]gpu;' "$sys_rmw"
        in_order "ptx.cg_system_take" "take: the device count (gpu), then the device's and the tasks' system credits" \
            '^(atom|red)[.](global[.])?add[.]relaxed[.]gpu[.]' "$sys_rmw" "$sys_rmw"
    else
        cat "$work/log"
        fail "nvcc could not compile tests/codegen/system_level_kernels.cpp"
    fi

    # The task runtime's PTX (every policy the GPU runs): no activemask feeds any *_sync.
    # shellcheck disable=SC2086
    if ! "$nvcc" -x cu -ptx -arch=sm_90 -std=c++20 --extended-lambda --expt-relaxed-constexpr \
        -DCANOPY_BACKEND_CUDA=1 $runtime_includes -Xcompiler=-Wall,-Wextra,-Werror -Werror all-warnings \
        "$root/tests/codegen/compile_runtime.cpp" -o "$work/runtime.ptx" >"$work/log" 2>&1; then
        cat "$work/log"
        fail "nvcc could not compile tests/codegen/compile_runtime.cpp"
        return
    fi
    grep -v '^[ \t]*//' "$work/runtime.ptx" | sed 's/^[ \t]*//' >"$(fn ptx.runtime)"
    lacks "ptx.runtime" "activemask" "the runtime's collectives name the warp's lanes, never the converged ones"
    has "ptx.runtime" "^bar[.]warp[.]sync " "the scheduler's lane hand-offs are bar.warp.sync"
    has "ptx.runtime" "^shfl[.]sync[.]" "the scheduler's broadcasts are shfl.sync"
    has "ptx.runtime" "^vote[.]sync[.]" "the scheduler's any() is vote.sync"
    has "ptx.runtime" "%globaltimer" "a debug build bounds the runtime's waits by the global timer (spin_until_bounded)"
}

case $backend in
hip) check_hip ;;
hip-gfx940) check_hip_gfx940 ;;
cuda) check_cuda ;;
esac

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
