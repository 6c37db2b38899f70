// Emulator: block-shared storage comes from the work-group's arena, keyed by the declaration's
// address (a function-local static, one per CANOPY_SHARED site and template instantiation).
#pragma once

#include <cstddef>
#include <type_traits>

#include "canopy/emulator/launch.hpp"

namespace canopy::detail {
template <class T> T& emu_block_shared(const void* key) {
    static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>,
                  "block-shared memory holds trivial types only (it is never constructed, like __shared__)");
    return *static_cast<T*>(emu::block_shared(key, sizeof(T), alignof(T)));
}
} // namespace canopy::detail

#define CANOPY_SHARED_CAT2(a, b) a##b
#define CANOPY_SHARED_CAT(a, b) CANOPY_SHARED_CAT2(a, b)
#define CANOPY_SHARED(type, name)                                                                            \
    static constexpr char CANOPY_SHARED_CAT(canopy_shared_key_, name) = 0;                                   \
    auto& name = ::canopy::detail::emu_block_shared<type>(&CANOPY_SHARED_CAT(canopy_shared_key_, name))

namespace canopy {
template <class T> T* dynamic_shared() { return static_cast<T*>(emu::dynamic_shared()); }
} // namespace canopy
