# Precompiled headers for the targets whose sources include the large
# libraries' headers (SystemC, nlohmann-json, GoogleTest): each such header
# is parsed once per target instead of once per source, which halves the
# build of the bindings, the platform and their tests. The headers each
# installed header needs are still checked alone (tests/CMakeLists.txt,
# pmvp_headers_alone_*), which take none. PMVP_PCH=OFF builds without.
option(PMVP_PCH "Precompile the SystemC, nlohmann-json and GoogleTest headers" ON)

function(pmvp_precompile target)
  if(PMVP_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
