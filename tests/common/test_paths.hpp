// Test helper: the directories the tests read inputs from, by absolute path.
//
// They are compiled into one small source (test_paths.cpp) rather than passed as compile definitions
// to every test source: a definition holding the checkout's path is part of every compile's key in the
// compiler cache (docs/build-cache.md), so a clone at another path would recompile the whole suite.
// This way it recompiles one file.
#pragma once

namespace canopy::test {

/// herd's litmus corpus (opencl/ and rsp/), beside the checkout in ../shared/litmus/herd; the tests
/// that need it skip, saying so, where it is absent.
const char* herd_dir();

/// tests/litmus/cases: canopy's own litmus tests.
const char* litmus_cases_dir();

} // namespace canopy::test
