# Extracts the C++ snippets of a document (```cpp blocks, or the blocks
# of fence FENCE: ```c for a C document's) into one source
# file that compiles them as written: the #include lines at the top, each
# snippet's statements as the body of a function, after a prelude that
# declares the names the document's prose gives them (the platform's router,
# the CPU model's local offset, ...). Used by tests/CMakeLists.txt
# (pmvp_doc_snippets): a snippet that no longer compiles breaks the build.
#   cmake -DDOC=<file.md> -DPRELUDE=<prelude.h> -DOUT=<snippets.cpp> [-DFENCE=c] -P doc_snippets.cmake
if(NOT FENCE)
  set(FENCE cpp)
endif()
file(STRINGS ${DOC} lines)
set(includes "")
set(bodies "")
set(in_block FALSE)
set(n 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^```${FENCE}$")
    set(in_block TRUE)
    math(EXPR n "${n} + 1")
    string(APPEND bodies "\n// ${DOC}, snippet ${n}\nvoid snippet_${n}(void)\n{\n")
  elseif(in_block AND line MATCHES "^```")
    set(in_block FALSE)
    string(APPEND bodies "}\n")
  elseif(in_block AND line MATCHES "^#include")
    string(APPEND includes "${line}\n")
  elseif(in_block)
    string(APPEND bodies "    ${line}\n")
  endif()
endforeach()
if(n EQUAL 0)
  message(FATAL_ERROR "${DOC}: no ${FENCE} snippet found")
endif()
file(READ ${PRELUDE} prelude)
file(WRITE ${OUT}.new "// Generated from ${DOC} by cmake/doc_snippets.cmake: do not edit.\n${includes}\n${prelude}\n${bodies}")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
