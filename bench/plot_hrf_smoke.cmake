# cmake -DPYTHON=... -DSCRIPT=... -DJSON=... -DPNG=... -P bench/plot_hrf_smoke.cmake (the bench.plot_hrf_smoke
# test): runs bench/plot_hrf_experiment.py on JSON and checks that it wrote PNG, a file that starts with the
# PNG signature and is large enough to hold a plot (a blank image of that size compresses to a few KB).
foreach(var PYTHON SCRIPT JSON PNG)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "plot_hrf_smoke.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE "${PNG}")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${JSON}" "${PNG}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  if(NOT out MATCHES "matplotlib") # e.g. no interpreter at all: the script could not print its own hint
    string(APPEND out "It needs a Python 3 with matplotlib: apt-get install python3-matplotlib (tools/deps.sh).")
  endif()
  message(FATAL_ERROR "'${PYTHON} ${SCRIPT} ${JSON} ${PNG}' failed (${rc}):\n${out}")
endif()
if(NOT EXISTS "${PNG}")
  message(FATAL_ERROR "${SCRIPT} exited 0 but did not write ${PNG}:\n${out}")
endif()
file(READ "${PNG}" signature LIMIT 8 HEX)
if(NOT signature STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "${PNG} does not start with the PNG signature 89504e470d0a1a0a (it starts with '${signature}')")
endif()
file(SIZE "${PNG}" size)
if(size LESS 20000)
  message(FATAL_ERROR "${PNG} is only ${size} bytes: too small to hold the plot (20,000 at least)")
endif()
message(STATUS "ok: ${PNG} is a PNG of ${size} bytes")
