// canopy/platform/memory.hpp — device buffers and host<->device copies.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/site.hpp"
#include "canopy/platform/stream.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/memory.hpp"
#else // one host layer for both GPU vendors (detail/gpu/vendor.hpp)
#    include "canopy/platform/detail/gpu/memory.hpp"
#endif
// The backend header provides, in canopy::detail (all throw canopy::error on failure):
//   void* device_alloc(std::size_t bytes);   void device_free(void* p) noexcept;
//   (the emulator's device_alloc also takes the allocating site, for its reports)
//   void copy_to_device(void* dst, const void* src, std::size_t bytes);   (synchronous)
//   void copy_to_host(void* dst, const void* src, std::size_t bytes);     (synchronous)
//   void fill_bytes(void* dst, int byte, std::size_t bytes);

namespace canopy {

/// A synchronous copy of n elements to the host from device memory that the caller holds only a pointer
/// to (a view's arrays, not a device_buffer of its own).
template <class T> void copy_device_to_host(T* host, const T* device, std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable types");
    if (n != 0) {
        detail::copy_to_host(host, device, n * sizeof(T));
    }
}

/// An owning array in device memory. Synchronous copies: simple and what the host API needs.
template <class T> class device_buffer {
    static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable types");

  public:
    device_buffer() = default;
    // The emulator records the allocating call site (CANOPY_SITE_PARAM_TAIL), so that its reports can
    // name the buffer an address is in; the GPU backends take no extra parameter.
    explicit device_buffer(std::size_t n CANOPY_SITE_PARAM_TAIL) : n_(n) {
        p_ = n ? static_cast<T*>(detail::device_alloc(n * sizeof(T) CANOPY_SITE_ARG_TAIL)) : nullptr;
    }
    explicit device_buffer(const std::vector<T>& host CANOPY_SITE_PARAM_TAIL)
        : device_buffer(host.size() CANOPY_SITE_ARG_TAIL) {
        upload(host);
    }
    device_buffer(device_buffer&& o) noexcept
        : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    device_buffer& operator=(device_buffer&& o) noexcept {
        if (this != &o) {
            reset();
            p_ = std::exchange(o.p_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    ~device_buffer() { reset(); }

    T* data() const { return p_; }
    std::size_t size() const { return n_; }

    void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
    void upload(const T* host, std::size_t n) {
        check_size(n);
        detail::copy_to_device(p_, host, n * sizeof(T));
    }
    void download(T* host, std::size_t n) const {
        check_size(n);
        detail::copy_to_host(host, p_, n * sizeof(T));
    }
    /// Copies n elements from the host into [at, at + n): a part of the buffer, not all of it.
    void upload_at(std::size_t at, const T* host, std::size_t n) {
        check_range(at, n);
        detail::copy_to_device(p_ + at, host, n * sizeof(T));
    }
    /// Copies [at, at + n) to the host.
    void download_at(std::size_t at, T* host, std::size_t n) const {
        check_range(at, n);
        detail::copy_to_host(host, p_ + at, n * sizeof(T));
    }
    std::vector<T> to_vector() const {
        std::vector<T> v(n_);
        download(v.data(), n_);
        return v;
    }
    void fill_zero() { detail::fill_bytes(p_, 0, n_ * sizeof(T)); }

  private:
    void check_range(std::size_t at, std::size_t n) const {
        if (at > n_ || n > n_ - at) {
            throw error("device_buffer: copy of elements [" + std::to_string(at) + ", " + std::to_string(at) +
                        " + " + std::to_string(n) + ") of a buffer of " + std::to_string(n_));
        }
    }
    void check_size(std::size_t n) const {
        if (n > n_) {
            throw error("device_buffer: copy of " + std::to_string(n) + " elements into a buffer of " +
                        std::to_string(n_));
        }
    }
    void reset() noexcept {
        if (p_) {
            detail::device_free(p_);
        }
        p_ = nullptr;
        n_ = 0;
    }
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

} // namespace canopy
