// tests/fuzz/replay_main.cpp — main() of the canopy_fuzz_replay_* executables: runs files and every
// file of directories (sorted, not recursive, dot files skipped) through the target's
// LLVMFuzzerTestOneInput, so that every build — g++ included, without libFuzzer — replays the seed
// corpus and the regressions. A failed oracle, or an allocation libFuzzer would call out-of-memory,
// aborts the process; the last "replay: FILE" line on stderr names the input that did it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// libFuzzer runs with -malloc_limit_mb=2048 (tools/fuzz.sh): one allocation above 2 GiB is a finding. The
// replay keeps that rule without libFuzzer (and without touching the memory: a loader asking for 32 GiB
// must fail here, not take the machine's memory), so that a huge-allocation regression fails in every
// build. Under ASan or TSan the sanitizer's own allocator enforces it (max_allocation_size_mb: an
// allocation-size-too-big report); elsewhere a replaced operator new/delete pair over malloc/free does.
#if defined(CANOPY_ASAN)
extern "C" const char* __asan_default_options() { return "max_allocation_size_mb=2048"; }
#elif defined(CANOPY_TSAN)
extern "C" const char* __tsan_default_options() { return "max_allocation_size_mb=2048"; }
#else
constexpr std::size_t replay_malloc_limit = std::size_t{2048} << 20;

// g++ -O2 inlines std::allocator's calls to this operator new and then warns that the replaced delete
// frees "a pointer from a mismatched allocation function" (-Wmismatched-new-delete): it is not -- this
// new returns malloc's memory and this delete gives it back to free.
#    if defined(__GNUC__) && !defined(__clang__)
#        pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#    endif

void* operator new(std::size_t n) {
    if (n > replay_malloc_limit) {
        std::fprintf(stderr, "canopy fuzz check failed: an allocation of %zu bytes (over the 2 GiB limit)\n",
                     n);
        std::abort();
    }
    if (void* p = std::malloc(n == 0 ? 1 : n)) {
        return p;
    }
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

int run_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", p.string().c_str());
        return 1;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.string().c_str(), bytes.size());
    std::fflush(stderr);
    // A copy of exactly the file's size, so that ASan catches a read past the end as libFuzzer would.
    std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(data.empty() ? nullptr : data.data(), data.size());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE|DIR...  (runs every input through the fuzz target)\n", argv[0]);
        return 2;
    }
    std::size_t inputs = 0;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path arg = argv[i];
        std::error_code ec;
        if (std::filesystem::is_directory(arg, ec)) {
            std::vector<std::filesystem::path> files;
            for (const auto& entry : std::filesystem::directory_iterator(arg)) {
                // Dot files (.gitkeep, which keeps an empty regressions directory in git) are not inputs.
                if (entry.is_regular_file() && entry.path().filename().string().rfind('.', 0) != 0) {
                    files.push_back(entry.path());
                }
            }
            std::sort(files.begin(), files.end());
            for (const auto& f : files) {
                if (run_file(f) != 0) {
                    return 1;
                }
                ++inputs;
            }
        } else if (std::filesystem::is_regular_file(arg, ec)) {
            if (run_file(arg) != 0) {
                return 1;
            }
            ++inputs;
        } else {
            std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", argv[i]);
            return 1;
        }
    }
    // The empty input too, as libFuzzer always tries it first.
    LLVMFuzzerTestOneInput(nullptr, 0);
    std::printf("replay: %zu inputs (and the empty one) passed\n", inputs);
    return 0;
}
