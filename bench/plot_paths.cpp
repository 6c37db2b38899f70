// The paths behind plot_paths.hpp; CANOPY_PLOT_PYTHON and CANOPY_PLOT_GRAPH_SCRIPT are this file's
// compile definitions alone (bench/CMakeLists.txt).
#include "plot_paths.hpp"

#ifndef CANOPY_PLOT_PYTHON
#    define CANOPY_PLOT_PYTHON "python3"
#endif
#ifndef CANOPY_PLOT_GRAPH_SCRIPT
#    define CANOPY_PLOT_GRAPH_SCRIPT "bench/plot_graph_experiment.py"
#endif

namespace canopy::bench {

const char* plot_python() { return CANOPY_PLOT_PYTHON; }

const char* plot_graph_script() { return CANOPY_PLOT_GRAPH_SCRIPT; }

} // namespace canopy::bench
