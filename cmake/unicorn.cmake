# Unicorn, the AArch64 ISS's engine, as the target pmvp::unicorn: 2.1 or
# later (2.0 cannot run an operating system: docs/FIRMWARE.md, "Unicorn").
#
# PMVP_UNICORN_ROOT names an unpacked libunicorn-dev (its usr/ folder), as
# scripts/setup.sh leaves Debian 13's in pmvp's cache on Debian 12; pmvp then
# links its static library, so what is built runs without it. Left empty,
# the cache's is taken if it is there, else the system's through pkg-config.
if(NOT DEFINED PMVP_CACHE)
  if(DEFINED ENV{PMVP_CACHE})
    set(PMVP_CACHE "$ENV{PMVP_CACHE}")
  elseif(DEFINED ENV{XDG_CACHE_HOME})
    set(PMVP_CACHE "$ENV{XDG_CACHE_HOME}/pmvp")
  else()
    set(PMVP_CACHE "$ENV{HOME}/.cache/pmvp")
  endif()
endif()
set(_pmvp_unicorn_cached "${PMVP_CACHE}/unicorn/usr")
if(NOT PMVP_UNICORN_ROOT AND EXISTS "${_pmvp_unicorn_cached}/include/unicorn/unicorn.h")
  set(_pmvp_unicorn_default "${_pmvp_unicorn_cached}")
endif()
set(PMVP_UNICORN_ROOT "${_pmvp_unicorn_default}" CACHE PATH
  "an unpacked libunicorn-dev 2.1 or later (its usr/ folder); empty: the system's")

set(_pmvp_unicorn_advice "run scripts/setup.sh, which unpacks Debian 13's libunicorn-dev 2.1.1 into \
${PMVP_CACHE}/unicorn without installing it, then configure again (or install libunicorn-dev 2.1 or later, \
or give -DPMVP_UNICORN_ROOT=<its usr/ folder>)")

add_library(pmvp_unicorn INTERFACE)
add_library(pmvp::unicorn ALIAS pmvp_unicorn)
if(PMVP_UNICORN_ROOT)
  find_path(PMVP_UNICORN_INCLUDE unicorn/unicorn.h PATHS "${PMVP_UNICORN_ROOT}/include" NO_DEFAULT_PATH)
  find_library(PMVP_UNICORN_LIBRARY NAMES libunicorn.a
    PATHS "${PMVP_UNICORN_ROOT}/lib" PATH_SUFFIXES x86_64-linux-gnu aarch64-linux-gnu NO_DEFAULT_PATH)
  if(NOT PMVP_UNICORN_INCLUDE OR NOT PMVP_UNICORN_LIBRARY)
    message(FATAL_ERROR "PMVP_UNICORN_ROOT=${PMVP_UNICORN_ROOT} has no include/unicorn/unicorn.h and "
      "lib/<arch>/libunicorn.a: ${_pmvp_unicorn_advice}")
  endif()
  file(STRINGS "${PMVP_UNICORN_INCLUDE}/unicorn/unicorn.h" _v REGEX "^#define UC_API_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3" PMVP_UNICORN_VERSION "${_v}")
  find_package(Threads REQUIRED)
  target_include_directories(pmvp_unicorn SYSTEM INTERFACE "${PMVP_UNICORN_INCLUDE}")
  target_link_libraries(pmvp_unicorn INTERFACE "${PMVP_UNICORN_LIBRARY}" Threads::Threads m)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(UNICORN IMPORTED_TARGET unicorn)
  if(NOT UNICORN_FOUND)
    message(FATAL_ERROR "Unicorn not found: ${_pmvp_unicorn_advice}")
  endif()
  set(PMVP_UNICORN_VERSION "${UNICORN_VERSION}")
  target_link_libraries(pmvp_unicorn INTERFACE PkgConfig::UNICORN)
endif()
if(PMVP_UNICORN_VERSION VERSION_LESS 2.1)
  message(FATAL_ERROR "Unicorn ${PMVP_UNICORN_VERSION} found; pmvp needs 2.1 or later (Debian 12's libunicorn-dev "
    "is 2.0.1): ${_pmvp_unicorn_advice}")
endif()
message(STATUS "Unicorn ${PMVP_UNICORN_VERSION}: ${PMVP_UNICORN_ROOT}${UNICORN_LINK_LIBRARIES}")
