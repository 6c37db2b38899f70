// canopy/vocabulary/backend.hpp — which backend a translation unit targets, as a value.
//
// CMake defines exactly one of CANOPY_BACKEND_CPU, CANOPY_BACKEND_HIP, CANOPY_BACKEND_CUDA
// (cmake/canopy_backend.cmake). This header checks that and names it; it is vocabulary that both the
// emulator and platform/ speak, so it names no compiler and no vendor. platform/config.hpp adds the
// cross-check against the compiler's own predefines and the kernel qualifiers.
#pragma once

#if (defined(CANOPY_BACKEND_CPU) + defined(CANOPY_BACKEND_HIP) + defined(CANOPY_BACKEND_CUDA)) != 1
#    error                                                                                                   \
        "define exactly one of CANOPY_BACKEND_CPU, CANOPY_BACKEND_HIP, CANOPY_BACKEND_CUDA (CMake's CANOPY_BACKEND does this)"
#endif

namespace canopy {

enum class backend { cpu, hip, cuda };

#if defined(CANOPY_BACKEND_CPU)
inline constexpr backend this_backend = backend::cpu;
#elif defined(CANOPY_BACKEND_HIP)
inline constexpr backend this_backend = backend::hip;
#else
inline constexpr backend this_backend = backend::cuda;
#endif

} // namespace canopy
