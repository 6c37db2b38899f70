# canopy_fuzz: CANOPY_FUZZ=ON builds the libFuzzer targets canopy_fuzz_* in tests/fuzz (docs/fuzzing.md).
# libFuzzer ships with clang (Debian's clang 14: libclang_rt.fuzzer), so only clang can build them. The
# fuzzers always run under ASan + UBSan: CANOPY_SANITIZE adds them to the whole build; when it is empty,
# CANOPY_FUZZ_EXTRA_SANITIZE adds them to the fuzz targets alone.
set(CANOPY_FUZZ_EXTRA_SANITIZE "")
if(CANOPY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "CANOPY_FUZZ needs clang (libFuzzer); configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(NOT CANOPY_BACKEND STREQUAL "cpu" OR NOT CANOPY_BUILD_TESTS)
    message(FATAL_ERROR "CANOPY_FUZZ needs CANOPY_BACKEND=cpu and CANOPY_BUILD_TESTS=ON (tests/fuzz)")
  endif()
  if("thread" IN_LIST CANOPY_SANITIZE)
    message(FATAL_ERROR "CANOPY_FUZZ runs under ASan + UBSan; it cannot be combined with CANOPY_SANITIZE=thread")
  endif()
  if(NOT CANOPY_SANITIZE)
    set(CANOPY_FUZZ_EXTRA_SANITIZE -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  endif()
endif()
