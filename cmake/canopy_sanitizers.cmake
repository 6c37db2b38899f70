# canopy_sanitizers: CANOPY_SANITIZE=address;undefined | thread, for the emulator build.
# The emulator tells ASan and TSan about every fiber switch (emulator/src/engine.cpp), so both give
# real results on kernels that run as fibers.
add_library(canopy_sanitizers INTERFACE)
if(CANOPY_SANITIZE)
  if(NOT CANOPY_BACKEND STREQUAL "cpu")
    message(FATAL_ERROR "CANOPY_SANITIZE is for the emulator (CANOPY_BACKEND=cpu)")
  endif()
  string(REPLACE ";" "," _canopy_san "${CANOPY_SANITIZE}")
  target_compile_options(canopy_sanitizers INTERFACE -fsanitize=${_canopy_san} -fno-omit-frame-pointer -g)
  target_link_options(canopy_sanitizers INTERFACE -fsanitize=${_canopy_san})
  if("undefined" IN_LIST CANOPY_SANITIZE)
    target_compile_options(canopy_sanitizers INTERFACE -fno-sanitize-recover=undefined)
  endif()
  if("address" IN_LIST CANOPY_SANITIZE)
    target_compile_definitions(canopy_sanitizers INTERFACE CANOPY_ASAN=1)
  endif()
  if("thread" IN_LIST CANOPY_SANITIZE)
    target_compile_definitions(canopy_sanitizers INTERFACE CANOPY_TSAN=1)
    # gcc warns that TSan does not model std::atomic_thread_fence (canopy::fence on coherent memory).
    # Known limitation, documented in docs/emulator.md; not an error in our code. (clang has no such
    # warning, and rejects the unknown option under -Werror.)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(canopy_sanitizers INTERFACE -Wno-tsan)
    endif()
  endif()
endif()
