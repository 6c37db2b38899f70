// Shared helpers of the graph tests: a scratch directory, and where Debian's METIS meshes live.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

#include <gtest/gtest.h>

namespace canopy_test_graph {

/// A run's device time accounts for every launch it counts: one pair of marks per kernel
/// (platform/kernel_timer.hpp), and the span from the first kernel's start to the last one's end holds
/// their sum (the kernels are in order on one stream; float rounding allowed). No time is asserted.
template <class R> void expect_every_launch_timed(const R& r) {
    EXPECT_EQ(r.time.kernels, r.launches);
    EXPECT_GE(r.time.kernels_ms, 0.0);
    EXPECT_GE(r.time.span_ms * (1 + 1e-5) + 1e-4, r.time.kernels_ms);
}

// libmetis-doc (tools/deps.sh) installs these; tests skip, saying so, where they are absent.
inline const std::filesystem::path metis_graphs_dir = "/usr/share/doc/libmetis-dev/examples/graphs";

/// A fresh directory under the system's temp dir, removed with the object.
class scratch_dir {
  public:
    scratch_dir() {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("canopy-graph-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::create_directories(path_);
    }
    ~scratch_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;

    /// Writes `text` byte for byte (no newline translation) to `name` and returns its path.
    std::filesystem::path write(const std::string& name, std::string_view text) const {
        const std::filesystem::path p = path_ / name;
        std::ofstream out(p, std::ios::binary);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        return p;
    }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

} // namespace canopy_test_graph
