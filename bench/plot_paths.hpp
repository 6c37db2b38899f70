// The graph experiment's plot command: the Python that has matplotlib and the plot script, by absolute
// path. Compiled into plot_paths.cpp alone (bench/CMakeLists.txt), not as definitions of the experiment's
// source: a definition holding the checkout's path is part of that compile's key in the compiler cache
// (docs/build-cache.md), and graph_experiment.cpp is a 47-second compile.
#pragma once

namespace canopy::bench {

const char* plot_python();
const char* plot_graph_script();

} // namespace canopy::bench
