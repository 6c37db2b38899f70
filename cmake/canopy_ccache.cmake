# canopy_ccache.cmake — compile through ccache when it is installed (docs/build-cache.md).
#
# Sets CMAKE_CXX_COMPILER_LAUNCHER and CMAKE_CUDA_COMPILER_LAUNCHER, before any target exists, to
#   /usr/bin/env CCACHE_CONFIGPATH=<checkout>/cmake/ccache.conf CCACHE_BASEDIR=<checkout> ccache
# so that every preset (g++, clang with the sanitizers and libFuzzer, hipcc, nvcc) shares one cache in
# one fixed place (cmake/ccache.conf: /var/cache/canopy-ccache) and a fresh clone at any path hits what
# another clone compiled. Without ccache, with CANOPY_CCACHE=OFF, or where the cache directory cannot be
# written, the build is the same build without the launcher. A launcher set by the user
# (-DCMAKE_CXX_COMPILER_LAUNCHER=...) is kept.
#
# Why a miss is never wrong: ccache hashes the compiler (its mtime, or hipcc's --version), every argument,
# the source and every header it includes (by content), and the compile directory where debug info
# records it. CCACHE_BASEDIR rewrites only absolute paths inside the checkout, relative to the build
# directory; a path outside it (a system header, a prefix, a define's value) stays as it is in the key.
option(CANOPY_CCACHE "Compile through ccache when it is installed (cmake/ccache.conf; docs/build-cache.md)" ON)

# -ffile-prefix-map: the checkout is "." in debug info (DW_AT_comp_dir) and in __FILE__, with or without
# ccache, so that objects do not depend on where the clone is. gdb finds the sources from the checkout's
# root (its source path is $cdir:$cwd) or by `set substitute-path . /path/to/clone`. nvcc passes host
# options only through -Xcompiler, which ccache would not rewrite: the cuda preset has no debug info, and
# its __FILE__ comes from ccache's relative source path.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-ffile-prefix-map=${PROJECT_SOURCE_DIR}=.>)
endif()

if(NOT CANOPY_CCACHE)
  message(STATUS "canopy: ccache off (CANOPY_CCACHE=OFF)")
  return()
endif()
# The launcher comes from tools/ccache_launcher.sh, which the builds outside this project (the install
# tests' and GPU backends' examples) use too: one place decides whether ccache can serve (installed,
# its directory writable) and what it is given. Empty output: compile without it.
set(_canopy_ccache_script ${PROJECT_SOURCE_DIR}/tools/ccache_launcher.sh)
execute_process(COMMAND bash ${_canopy_ccache_script} ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _canopy_ccache
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _canopy_ccache)
  message(STATUS "canopy: compiling without ccache: it is not installed (tools/deps.sh installs it) or its "
                 "directory cannot be written (cmake/ccache.conf's cache_dir, or CCACHE_DIR: sudo install -d "
                 "-m 1777 /var/cache/canopy-ccache, or set CCACHE_DIR to a directory of yours)")
  return()
endif()
set(_canopy_ccache_cxx ${_canopy_ccache})
if(CMAKE_CXX_COMPILER MATCHES "hipcc$")
  # hipcc is a Perl script in front of clang and the ROCm device libraries: its mtime says nothing of
  # them; the script's --hipcc checks its --version instead (HIP's and clang's versions; 0.3 s a compile).
  execute_process(COMMAND bash ${_canopy_ccache_script} ${PROJECT_SOURCE_DIR} --hipcc
                  OUTPUT_VARIABLE _canopy_ccache_cxx OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_canopy_ccache_cxx})
endif()
if(NOT CMAKE_CUDA_COMPILER_LAUNCHER)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${_canopy_ccache})
endif()
message(STATUS "canopy: compiling through ccache (${_canopy_ccache}; docs/build-cache.md)")
