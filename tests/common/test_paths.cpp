// The paths behind test_paths.hpp; CANOPY_HERD_DIR and CANOPY_LITMUS_CASES are this file's compile
// definitions alone (tests/CMakeLists.txt).
#include "test_paths.hpp"

namespace canopy::test {

const char* herd_dir() { return CANOPY_HERD_DIR; }

const char* litmus_cases_dir() { return CANOPY_LITMUS_CASES; }

} // namespace canopy::test
