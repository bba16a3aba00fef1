# cmake -DPROGRAM=<exe> -DEXPECTED=<file> -DREGENERATE=<text> -P compare_output.cmake
# Fails unless PROGRAM's standard output equals the committed file EXPECTED.
execute_process(COMMAND ${PROGRAM} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (${rc})")
endif()
file(READ ${EXPECTED} committed)
if(NOT generated STREQUAL committed)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/generated.out "${generated}")
  message(FATAL_ERROR "${EXPECTED} differs from what ${PROGRAM} generates "
    "(written to ${CMAKE_CURRENT_BINARY_DIR}/generated.out); ${REGENERATE}")
endif()
