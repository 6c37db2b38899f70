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
find_program(CANOPY_CCACHE_PROGRAM ccache DOC "ccache, the compiler cache (Debian's ccache; tools/deps.sh)")
if(NOT CANOPY_CCACHE_PROGRAM)
  message(STATUS "canopy: ccache not found: compiling without the cache (tools/deps.sh installs Debian's ccache)")
  return()
endif()

# The cache directory: CCACHE_DIR when the user set one, else cmake/ccache.conf's.
if(DEFINED ENV{CCACHE_DIR} AND NOT "$ENV{CCACHE_DIR}" STREQUAL "")
  set(_canopy_ccache_dir "$ENV{CCACHE_DIR}")
else()
  file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/ccache.conf _canopy_ccache_dir REGEX "^cache_dir *=")
  string(REGEX REPLACE "^cache_dir *= *" "" _canopy_ccache_dir "${_canopy_ccache_dir}")
endif()
execute_process(COMMAND sh -c "mkdir -p \"$1\" 2>/dev/null && test -w \"$1\"" sh "${_canopy_ccache_dir}"
                RESULT_VARIABLE _canopy_ccache_writable)
if(NOT _canopy_ccache_writable EQUAL 0)
  message(STATUS "canopy: ccache's directory ${_canopy_ccache_dir} cannot be written: compiling without the "
                 "cache (sudo install -d -m 1777 ${_canopy_ccache_dir}, or set CCACHE_DIR to a directory of yours)")
  return()
endif()

set(_canopy_ccache /usr/bin/env CCACHE_CONFIGPATH=${CMAKE_CURRENT_LIST_DIR}/ccache.conf
    CCACHE_BASEDIR=${PROJECT_SOURCE_DIR})
set(_canopy_ccache_cxx ${_canopy_ccache})
if(CMAKE_CXX_COMPILER MATCHES "hipcc$")
  # hipcc is a Perl script in front of clang and the ROCm device libraries: its mtime says nothing of
  # them. Its --version names HIP's version and clang's (0.3 s a compile: paid on hits too).
  list(APPEND _canopy_ccache_cxx "CCACHE_COMPILERCHECK=%compiler% --version")
endif()
if(NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_canopy_ccache_cxx} ${CANOPY_CCACHE_PROGRAM})
endif()
if(NOT CMAKE_CUDA_COMPILER_LAUNCHER)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${_canopy_ccache} ${CANOPY_CCACHE_PROGRAM})
endif()
# For the scripts that build outside this project (tests/install, tests/codegen): the same ccache,
# configuration and directory.
set(CANOPY_CCACHE_LAUNCHER ${_canopy_ccache} ${CANOPY_CCACHE_PROGRAM})
message(STATUS "canopy: compiling through ${CANOPY_CCACHE_PROGRAM} (cache: ${_canopy_ccache_dir}; docs/build-cache.md)")
