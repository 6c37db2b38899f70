# canopy_test_build (INTERFACE): how the emulator's test binaries compile. They check results and never
# time anything, so in the optimized presets they compile at -O1: about half the compile time of -O2 for
# the kernels' template instantiations that make up most of CI's build (tests/runtime/test_ring_core.cpp
# with g++ 12: 51 s at -O2 -g1, 33 s at -O1 -g1). The libraries they link (the emulator's engine and
# scoped-cache model, the litmus runner) keep the preset's -O2, so emulated runs stay fast. The
# sanitizer presets compile everything at -O1 already; the GPU backends' tests are untouched.
add_library(canopy_test_build INTERFACE)
if(CANOPY_BACKEND STREQUAL "cpu" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # After the preset's CMAKE_CXX_FLAGS_<CONFIG> on the command line: the last -O wins.
  target_compile_options(canopy_test_build INTERFACE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
endif()
