// tests/codegen/compile_all_kernels.cpp — instantiates the whole platform/ API, compile-only.
//
// Built as the object library canopy_compile_all_kernels (tests/codegen/CMakeLists.txt) in the hip and
// cuda builds: it makes every backend header compile, warnings as errors, for every device target of
// the build (gfx90a wave64 and gfx1030 wave32; sm_90). Every function, collective, atomic operation,
// memory order, scope, launch path and device-wide primitive is used at least once; atomic orders come
// from a kernel argument so that every case of every order switch is compiled. Nothing here runs.
#include <cstdint>
#include <vector>

#include "canopy/platform/platform.hpp"

namespace {

using canopy::scope;

/// An 8-byte trivially copyable value that is neither integral nor floating.
struct alignas(8) pair32 {
    std::int32_t a;
    std::int32_t b;
};

/// A 4-byte one whose own alignment (2) is below what atomic_ref requires; objects are over-aligned.
struct half_pair {
    std::int16_t a;
    std::int16_t b;
};

/// A 3-byte value: sub-group collectives move values of any size up to 8 bytes.
struct rgb {
    unsigned char r, g, b;
};

struct pair_sum {
    CANOPY_DEVICE pair32 operator()(pair32 x, pair32 y) const { return {x.a + y.a, x.b + y.b}; }
};

// ---- atomics: every operation at one scope, with a run-time order --------------------------------

template <scope S, class T> CANOPY_DEVICE T exercise_load_store(T* p, T v, std::memory_order o) {
    canopy::atomic_ref<T, S> r{*p};
    T acc = r.load(o);
    r.store(v, o);
    acc = r.exchange(acc, o);
    T expected = acc;
    r.compare_exchange_strong(expected, v, o, o);
    r.compare_exchange_strong(expected, v, o);
    r.compare_exchange_weak(expected, v, o, o);
    r.compare_exchange_weak(expected, v);
    r.store(r.load()); // default (seq_cst) orders
    return expected;
}

template <scope S, class T> CANOPY_DEVICE T exercise_integer(T* p, T v, std::memory_order o) {
    canopy::atomic_ref<T, S> r{*p};
    T acc = exercise_load_store<S>(p, v, o);
    acc += r.fetch_add(v, o);
    acc += r.fetch_sub(v, o);
    acc += r.fetch_and(v, o);
    acc += r.fetch_or(v, o);
    acc += r.fetch_xor(v, o);
    acc += r.fetch_min(v, o);
    acc += r.fetch_max(v, o);
    acc += r.fetch_add(v);
    return acc;
}

template <scope S> CANOPY_DEVICE void exercise_scope(void* const* words, std::memory_order o) {
    auto* i32 = static_cast<std::int32_t*>(words[0]);
    auto* u32 = static_cast<std::uint32_t*>(words[1]);
    auto* i64 = static_cast<std::int64_t*>(words[2]);
    auto* u64 = static_cast<std::uint64_t*>(words[3]);
    auto* ll = static_cast<long long*>(words[4]);
    auto* ull = static_cast<unsigned long long*>(words[5]);
    auto* f32 = static_cast<float*>(words[6]);
    auto* f64 = static_cast<double*>(words[7]);
    auto* ptr = static_cast<int**>(words[8]);
    auto* p32 = static_cast<pair32*>(words[9]);
    auto* h16 = static_cast<half_pair*>(words[10]);

    const unsigned t = canopy::thread_id();
    canopy::st(&i32[1 + t], exercise_integer<S>(i32, std::int32_t{-3}, o));
    canopy::st(&u32[1 + t], exercise_integer<S>(u32, 7U, o));
    canopy::st(&i64[1 + t], exercise_integer<S>(i64, std::int64_t{-5}, o));
    canopy::st(&u64[1 + t], exercise_integer<S>(u64, std::uint64_t{9}, o));
    canopy::st(&ll[1 + t], exercise_integer<S>(ll, -11LL, o));
    canopy::st(&ull[1 + t], exercise_integer<S>(ull, 13ULL, o));
    canopy::st(&f32[1 + t], exercise_load_store<S>(f32, 1.5F, o));
    canopy::st(&f64[1 + t], exercise_load_store<S>(f64, 2.5, o));
    canopy::st(&ptr[1 + t], exercise_load_store<S>(ptr, i32 + t, o));
    canopy::st(&p32[1 + t], exercise_load_store<S>(p32, pair32{1, 2}, o));
    canopy::st(&h16[2 + t], exercise_load_store<S>(h16, half_pair{3, 4}, o));
    canopy::fence<S>(o);
    canopy::fence<S>(std::memory_order_seq_cst);
}

// ---- sub-group collectives -------------------------------------------------------------------------

template <class T> CANOPY_DEVICE T exercise_moves(T v) {
    const unsigned lane = canopy::lane_id();
    const unsigned n = canopy::subgroup_size();
    T x = canopy::broadcast(v, 0U);
    x = canopy::shuffle(x, (lane + 1) % n);
    return x;
}

/// A kernel functor (the other kernel form besides CANOPY_LAMBDA).
struct functor_kernel {
    unsigned* out;
    CANOPY_DEVICE void operator()() const {
        CANOPY_SHARED(unsigned, counter);
        if (canopy::thread_id() == 0) {
            counter = 0;
        }
        canopy::block_barrier();
        canopy::atomic_ref<unsigned, scope::workgroup>{counter}.fetch_add(1, std::memory_order_relaxed);
        canopy::block_barrier();
        if (canopy::thread_id() == 0) {
            canopy::st(&out[canopy::block_id()], counter);
        }
    }
};

template <class K, class V> void sort_pairs(std::size_t n) {
    canopy::device_buffer<K> keys(n);
    canopy::device_buffer<V> values(n);
    canopy::prim::radix_sort_by_key(keys.data(), values.data(), n);
}

template <class T> T scan_reduce_select(std::size_t n) {
    canopy::device_buffer<T> in(n);
    canopy::device_buffer<T> out(n);
    canopy::device_buffer<unsigned char> flags(n);
    canopy::prim::exclusive_sum(in.data(), out.data(), n);
    canopy::prim::exclusive_sum(out.data(), out.data(), n); // in place
    const std::size_t kept = canopy::prim::select_flagged(in.data(), flags.data(), out.data(), n);
    return canopy::prim::reduce_sum(out.data(), kept);
}

} // namespace

/// Never called: its instantiations are the test.
void canopy_compile_all_kernels(std::memory_order order) {
    const canopy::device_info info = canopy::query_device();
    const unsigned block = info.max_block_size;
    const unsigned per_cu = canopy::resident_blocks_per_cu(info, block, 0);

    canopy::device_buffer<std::uint64_t> words(64 * 11);
    std::vector<void*> host_words(11);
    for (std::size_t i = 0; i < host_words.size(); ++i) {
        host_words[i] = words.data() + 64 * i;
    }
    canopy::device_buffer<void*> word_ptrs(host_words);
    void* const* w = word_ptrs.data();
    unsigned* out = reinterpret_cast<unsigned*>(words.data());

    canopy::stream s;
    canopy::event start;
    canopy::event stop;
    start.record(s);

    // Atomics and fences at all four scopes.
    const auto atomics = CANOPY_LAMBDA() {
        exercise_scope<scope::subgroup>(w, order);
        exercise_scope<scope::workgroup>(w, order);
        exercise_scope<scope::device>(w, order);
        exercise_scope<scope::system>(w, order);
    };
    canopy::launch({.grid = per_cu, .block = 64, .shared_bytes = 0, .on = &s}, atomics);

    // Ids, barriers, shared memory, collectives, spin, assertions, plain accesses.
    const auto everything_else = CANOPY_LAMBDA() {
        const unsigned t = canopy::thread_id();
        const unsigned g = canopy::global_id();
        CANOPY_DEVICE_ASSERT(t < canopy::block_dim(), "thread id out of range");
        CANOPY_DEVICE_ASSERT(canopy::block_id() < canopy::grid_dim(), "block id out of range");
        CANOPY_DEVICE_ASSERT(canopy::subgroup_id() < canopy::subgroups_per_block(), "bad sub-group id");

        CANOPY_SHARED(unsigned[1024], table);
        CANOPY_SHARED(pair32, shared_pair);
        table[t] = canopy::lane_id();
        if (t == 0) {
            shared_pair = pair32{1, 2};
        }
        canopy::block_barrier();

        double* dyn = canopy::dynamic_shared<double>();
        dyn[t] = static_cast<double>(table[(t + 1) % canopy::block_dim()] + shared_pair.a);

        const canopy::lane_mask m = canopy::ballot(t % 3 == 0);
        const bool any = canopy::any(t == 5);
        const bool all = canopy::all(t < 4096);
        int acc = static_cast<int>(m & 1U) + (any ? 1 : 0) + (all ? 1 : 0);

        acc += exercise_moves(static_cast<int>(t));
        acc += static_cast<int>(exercise_moves(static_cast<unsigned>(g)));
        acc += static_cast<int>(exercise_moves(static_cast<long long>(g)));
        acc += static_cast<int>(exercise_moves(1.0F * static_cast<float>(t)));
        acc += static_cast<int>(exercise_moves(2.0 * t));
        acc += exercise_moves(static_cast<unsigned char>(t));
        acc += exercise_moves(static_cast<short>(t));
        acc += exercise_moves(rgb{1, 2, 3}).g;
        acc += exercise_moves(pair32{1, 2}).b;
        acc += static_cast<int>(*exercise_moves(out + g));

        acc += canopy::exclusive_sum(1);
        acc += static_cast<int>(canopy::exclusive_sum(2U));
        acc += static_cast<int>(canopy::exclusive_sum(std::uint64_t{3}));
        acc += static_cast<int>(canopy::exclusive_sum(0.5F));
        acc += static_cast<int>(canopy::exclusive_sum(0.25));
        acc += canopy::exclusive_scan(static_cast<int>(t), 0, [](int a, int b) { return a > b ? a : b; });
        acc += canopy::exclusive_scan(pair32{1, 1}, pair32{0, 0}, pair_sum{}).a;

        canopy::atomic_ref<unsigned, scope::device> flag{out[0]};
        canopy::spin_until([&] { return flag.load(std::memory_order_acquire) != 0; });
        canopy::spin_until([&] { return flag.load(std::memory_order_relaxed) != 1; },
                           canopy::backoff{.initial_ns = 0, .max_ns = 4096});

        canopy::st(&out[g], static_cast<unsigned>(acc) + canopy::ld(&out[g]) + canopy::subgroup_size());
    };
    canopy::launch({.grid = 4, .block = 256, .shared_bytes = 256 * sizeof(double)}, everything_else);
    canopy::launch({.grid = 1, .block = 32}, functor_kernel{out});

    stop.record(s);
    stop.synchronize();
    s.synchronize();
    const float ms = stop.elapsed_ms(start);
    canopy::device_synchronize();

    unsigned resident = canopy::max_resident_blocks<decltype(atomics)>(256);
    resident += canopy::max_resident_blocks<decltype(everything_else)>(256, 256 * sizeof(double));
    resident += canopy::max_resident_blocks<functor_kernel>(32);

    // Host memory API.
    canopy::device_buffer<int> ints(std::vector<int>{1, 2, 3});
    ints.fill_zero();
    std::vector<int> back = ints.to_vector();
    ints.upload(back);
    ints.download(back.data(), back.size());
    canopy::device_buffer<int> moved = std::move(ints);
    moved = canopy::device_buffer<int>(7);
    canopy::stream s2 = std::move(s);
    s2.synchronize();

    // Device-wide primitives over every type the runtime sorts, scans or selects.
    sort_pairs<unsigned, unsigned>(100);
    sort_pairs<int, float>(100);
    sort_pairs<std::uint64_t, std::uint32_t>(100);
    sort_pairs<float, int>(100);
    sort_pairs<unsigned, pair32>(100);
    const double sum = scan_reduce_select<int>(100) + scan_reduce_select<unsigned>(100) +
                       scan_reduce_select<std::uint64_t>(100) + scan_reduce_select<float>(100) +
                       scan_reduce_select<double>(100);
    static_cast<void>(sum + ms + resident);
}
