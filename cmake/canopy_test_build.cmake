# canopy_test_build (INTERFACE): how the emulator's test binaries compile. They check results and never
# time anything, so in the optimized presets they compile at -O1: about half the compile time of -O2 for
# the kernels' template instantiations that make up most of CI's build (tests/runtime/test_ring_core.cpp
# with g++ 12: 51 s at -O2 -g1, 33 s at -O1 -g1). The libraries they link (the emulator's engine and
# scoped-cache model, the litmus runner) keep the preset's -O2, so emulated runs stay fast. The GPU
# backends' tests are untouched.
#
# canopy_checked_build (INTERFACE): the code an AddressSanitizer build exists to check rather than to run
# fast (the test binaries and the canopy command's sources). Under ASan + UBSan clang compiles the
# kernels' template instantiations about 3.7x faster at -O0 than at -O1 (cli/stress.cpp: 22 s against
# 83 s), and that build was CI's longest step; the libraries keep the preset's -O1, so the emulator
# under the tests stays as fast as before. -O0 also keeps every check: ASan and UBSan instrument the
# same accesses at any level, and nothing optimized away can hide a report.
add_library(canopy_test_build INTERFACE)
add_library(canopy_checked_build INTERFACE)
if(CANOPY_BACKEND STREQUAL "cpu" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # After the preset's CMAKE_CXX_FLAGS_<CONFIG> on the command line: the last -O wins.
  if("address" IN_LIST CANOPY_SANITIZE)
    target_compile_options(canopy_checked_build INTERFACE -O0)
    target_link_libraries(canopy_test_build INTERFACE canopy_checked_build)
  else()
    target_compile_options(canopy_test_build INTERFACE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
  endif()
endif()
