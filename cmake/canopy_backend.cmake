# Backend selection: defines canopy_backend (INTERFACE) carrying CANOPY_BACKEND_<X> and the backend's
# libraries, and canopy_kernel_sources(<files>) which compiles kernel TUs in the backend's language.
if(NOT CANOPY_BACKEND MATCHES "^(cpu|hip|cuda)$")
  message(FATAL_ERROR "CANOPY_BACKEND must be cpu, hip or cuda (got '${CANOPY_BACKEND}')")
endif()
add_library(canopy_backend INTERFACE)
string(TOUPPER "${CANOPY_BACKEND}" _canopy_backend_upper)
target_compile_definitions(canopy_backend INTERFACE CANOPY_BACKEND_${_canopy_backend_upper}=1)

if(CANOPY_BACKEND STREQUAL "cpu")
  # The emulator compiles everything with the host compiler: nothing to mark.
  function(canopy_kernel_sources)
  endfunction()
  function(canopy_host_sources)
  endfunction()
else()
  include(canopy_gpu)
endif()
