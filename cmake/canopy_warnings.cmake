# canopy_warnings: one INTERFACE target with the project's warning flags, linked by every target.
add_library(canopy_warnings INTERFACE)
add_library(canopy::warnings ALIAS canopy_warnings)
if(CANOPY_BACKEND STREQUAL "cuda")
  # nvcc: host flags through -Xcompiler; device front-end warnings promoted (CCCL's habit).
  target_compile_options(canopy_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wpedantic>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(CANOPY_WERROR)
    target_compile_options(canopy_warnings INTERFACE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
else()
  target_compile_options(canopy_warnings INTERFACE -Wall -Wextra -Wshadow -Wpedantic -Wnon-virtual-dtor)
  if(CANOPY_WERROR)
    target_compile_options(canopy_warnings INTERFACE -Werror)
  endif()
endif()
