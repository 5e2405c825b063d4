# Helpers that give every nnaccel module the same warnings, include paths and sanitizer flags.
#   nnaccel_add_module(NAME SOURCES ... DEPS ...)  -> static library nnaccel_<NAME>
#   nnaccel_warnings(TARGET)                       -> -Wall -Wextra -Wpedantic (+ -Werror)

function(nnaccel_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wimplicit-fallthrough
                                           # designated initializers omit defaulted fields on purpose
                                           -Wno-missing-field-initializers)
  if(NNACCEL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(CMAKE_UNITY_BUILD)
    # A unity build compiles several sources as one: a class of a source's own that uses an
    # anonymous-namespace type is then "not in the main file", which GCC reports as if it were
    # in a header. It is not one, so the warning says nothing in this mode.
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  if(NNACCEL_SANITIZE)
    # GCC 12's -Wmaybe-uninitialized reports false positives inside libstdc++ (std::regex,
    # std::function) once ASan instrumentation changes inlining; GCC documents the warning as
    # unreliable under sanitizers. Release builds keep it as an error.
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
endfunction()

if(NNACCEL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

function(nnaccel_add_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(nnaccel_${name} STATIC ${M_SOURCES})
  target_include_directories(nnaccel_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                    $<INSTALL_INTERFACE:include>)
  # Installed and exported as nnaccel::<name> (cmake/NnaccelInstall.cmake).
  set_target_properties(nnaccel_${name} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY NNACCEL_LIBRARY_TARGETS nnaccel_${name})
  target_link_libraries(nnaccel_${name} PUBLIC ${M_DEPS} PRIVATE ${M_PRIVATE_DEPS})
  nnaccel_warnings(nnaccel_${name})
endfunction()

# Test tiers (docs/Testing.md). Every test carries ctest labels; the tier decides which:
#   quick  fast tests of every module, the edit-compile-test loop: `ctest -L quick`
#   unit   every GoogleTest test of the libraries (quick, the rest, and slow)
#   slow   zoo-scale runs (minutes); every slow test has a TIMEOUT (a hang guard, not a budget)
#   asan   what the ASan+UBSan pass of `scripts/bootstrap test` runs: the quick tier plus the
#          tests registered with SANITIZE (input parsers, malformed corpora)
# Targets: `quick_tests` and `asan_tests` build exactly the executables of their label, so the
# edit loop and the sanitizer build skip the CLI and the slow binaries.
set(NNACCEL_SLOW_TEST_TIMEOUT 3600 CACHE STRING
    "ctest TIMEOUT (seconds) of each slow test: a hang guard, several times the loaded-machine time")
set(NNACCEL_TEST_TIMEOUT 600 CACHE STRING
    "ctest TIMEOUT (seconds) of each quick or unit test: a hang guard")
# The test programs' own code (test bodies, gtest macros) is built at -O1 in optimised builds:
# -O3 on it costs about 40 % more compile time and buys nothing; the libraries under test keep
# the build type's flags. Empty keeps the build type's level for the tests too.
set(NNACCEL_TEST_OPT_FLAGS "-O1" CACHE STRING
    "Optimisation flags for the test programs' own sources in Release/RelWithDebInfo builds")

# nnaccel_tier_labels(OUT TIER tier [SANITIZE] [LABELS extra...]) -> the label list of a tier.
function(nnaccel_tier_labels out)
  cmake_parse_arguments(L "SANITIZE" "TIER" "LABELS" ${ARGN})
  set(labels unit)
  if(L_TIER STREQUAL "quick")
    list(APPEND labels quick asan)
  elseif(L_TIER STREQUAL "slow")
    list(APPEND labels slow)
  elseif(NOT L_TIER STREQUAL "unit")
    message(FATAL_ERROR "nnaccel test tier must be quick, unit or slow, not '${L_TIER}'")
  endif()
  if(L_SANITIZE)
    if(L_TIER STREQUAL "slow")
      message(FATAL_ERROR "a slow test cannot be in the sanitizer pass (SANITIZE)")
    endif()
    list(APPEND labels asan)
  endif()
  list(APPEND labels ${L_LABELS})
  list(REMOVE_DUPLICATES labels)
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()

# Under the sanitizers the test programs' own sources are built at -O0: ASan+UBSan
# instrumentation of gtest-heavy test bodies at -O1 costs about 3x the compile time of -O0
# (measured: OpParamsTest.cpp 28 s against 10 s), while the code under test, the libraries,
# keeps the build's -O1 (ASan's recommended level) and so runs at the usual speed. The test
# bodies stay instrumented.
set(NNACCEL_SANITIZE_TEST_OPT_FLAGS "-O0" CACHE STRING
    "Optimisation flags for the test programs' own sources in sanitizer builds")

# nnaccel_test_opt(TARGET) -> NNACCEL_TEST_OPT_FLAGS for a test program (after the build type's
# -O3), or NNACCEL_SANITIZE_TEST_OPT_FLAGS in a sanitizer build.
function(nnaccel_test_opt target)
  if(NNACCEL_SANITIZE)
    if(NNACCEL_SANITIZE_TEST_OPT_FLAGS)
      target_compile_options(${target} PRIVATE ${NNACCEL_SANITIZE_TEST_OPT_FLAGS})
    endif()
  elseif(NNACCEL_TEST_OPT_FLAGS)
    target_compile_options(${target} PRIVATE
      "$<$<CONFIG:Release,RelWithDebInfo>:${NNACCEL_TEST_OPT_FLAGS}>")
  endif()
endfunction()

# nnaccel_test_pch(TARGET) -> the test program reuses one precompiled header (GoogleTest and the
# standard library headers the tests use; no project header, so editing a header does not
# rebuild it). Parsing gtest.h and the standard headers is 1-2 s of every test source's compile.
option(NNACCEL_TEST_PCH "Precompile gtest.h and the standard headers once for all test programs" ON)
function(nnaccel_test_pch target)
  if(NOT NNACCEL_TEST_PCH)
    return()
  endif()
  if(NOT TARGET nnaccel_test_pch)
    # The owner of the PCH: compiled with exactly the flags of the test programs (definitions,
    # warnings, optimisation), as GCC accepts a PCH only under the same options.
    set(_stub "${PROJECT_BINARY_DIR}/nnaccel_test_pch.cpp")
    file(WRITE "${_stub}" "// Owner of the test programs' precompiled header (cmake/NnaccelModule.cmake).\n")
    add_library(nnaccel_test_pch OBJECT "${_stub}")
    target_link_libraries(nnaccel_test_pch PRIVATE GTest::gtest)
    nnaccel_warnings(nnaccel_test_pch)
    nnaccel_test_opt(nnaccel_test_pch)
    if(CMAKE_POSITION_INDEPENDENT_CODE)
      # The test programs are executables (-fPIE); GCC takes a PCH only when built alike, so
      # the owner, a library, is not -fPIC here (NNACCEL_PYTHON makes the libraries PIC).
      set_target_properties(nnaccel_test_pch PROPERTIES POSITION_INDEPENDENT_CODE OFF)
      target_compile_options(nnaccel_test_pch PRIVATE -fPIE)
    endif()
    target_precompile_headers(nnaccel_test_pch PRIVATE
      <gtest/gtest.h> <algorithm> <array> <cmath> <cstdint> <cstring> <filesystem> <fstream>
      <functional> <map> <memory> <optional> <set> <sstream> <string> <string_view> <span>
      <unordered_map> <utility> <variant> <vector>)
  endif()
  target_precompile_headers(${target} REUSE_FROM nnaccel_test_pch)
endfunction()

# nnaccel_test_paths() -> the library nnaccel_test_paths, one generated source defining
# nnaccel::test::sourceDir() (tests/support/SourcePaths.h). The source path lives in that one
# file, not on every test's compile line, so a clone at another path still hits ccache for
# every other object (CCACHE_BASEDIR rewrites include paths, not string definitions).
function(nnaccel_test_paths)
  if(TARGET nnaccel_test_paths)
    return()
  endif()
  set(_src "${PROJECT_BINARY_DIR}/generated/TestSourcePaths.cpp")
  file(CONFIGURE OUTPUT "${_src}" @ONLY CONTENT
"// Generated by cmake/NnaccelModule.cmake: where this build's source tree is.
#include \"SourcePaths.h\"

std::filesystem::path nnaccel::test::sourceDir() { return \"@PROJECT_SOURCE_DIR@\"; }
")
  add_library(nnaccel_test_paths STATIC "${_src}")
  target_include_directories(nnaccel_test_paths PRIVATE "${PROJECT_SOURCE_DIR}/tests/support")
endfunction()

# nnaccel_tier_target(TARGET LABELS...) -> adds TARGET to quick_tests / asan_tests per its labels.
function(nnaccel_tier_target target)
  foreach(tier quick asan)
    if(${tier} IN_LIST ARGN)
      if(NOT TARGET ${tier}_tests)
        add_custom_target(${tier}_tests)
      endif()
      add_dependencies(${tier}_tests ${target})
    endif()
  endforeach()
endfunction()

# nnaccel_add_test(NAME SOURCES ... DEPS ... [TIER quick|unit|slow] [SANITIZE] [LABELS ...])
#   -> gtest executable whose tests are registered with ctest (one ctest test per gtest test).
#   TIER defaults to quick; `LABELS slow` (older spelling) means TIER slow. SANITIZE adds a
#   test of the unit tier to the sanitizer pass.
function(nnaccel_add_test name)
  cmake_parse_arguments(T "SANITIZE" "TIER" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT T_TIER)
    set(T_TIER quick)
  endif()
  if("slow" IN_LIST T_LABELS)
    set(T_TIER slow)
  endif()
  set(_sanitize)
  if(T_SANITIZE)
    set(_sanitize SANITIZE)
  endif()
  nnaccel_tier_labels(_labels TIER ${T_TIER} ${_sanitize} LABELS ${T_LABELS})
  # Slow tests also get a high COST: without timing history (a clean clone) ctest -j starts
  # them first, so the long ones do not run alone at the end of the run.
  if(T_TIER STREQUAL "slow")
    set(_timeout ${NNACCEL_SLOW_TEST_TIMEOUT})
    set(_props "TIMEOUT ${_timeout} COST 1000")
  else()
    set(_timeout ${NNACCEL_TEST_TIMEOUT})
    set(_props "TIMEOUT ${_timeout}")
  endif()

  add_executable(${name} ${T_SOURCES})
  nnaccel_test_paths()
  target_link_libraries(${name} PRIVATE ${T_DEPS} nnaccel_test_paths GTest::gtest GTest::gtest_main)
  nnaccel_warnings(${name})
  nnaccel_test_opt(${name})
  nnaccel_test_pch(${name})
  nnaccel_tier_target(${name} ${_labels})
  if(NNACCEL_SANITIZE)
    # Under the sanitizers a program runs once, as one ctest test with all its gtest tests:
    # ASan's start-up and exit leak check cost 0.1-0.15 s a process, which over one process per
    # gtest test (about 2,100) was more than half of the sanitizer pass's time.
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS "${_labels}" TIMEOUT ${_timeout})
    return()
  endif()
  # Labels and TIMEOUT are set by a ctest script that runs after discovery and reads the
  # discovered names from ${name}_TESTS: gtest_discover_tests flattens PROPERTIES ("LABELS
  # unit;slow" would become a property named "slow"). An executable that was not built shows
  # up as ${name}_NOT_BUILT; it gets the labels too, so `ctest -L asan` fails on a missing
  # binary instead of skipping it.
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS unit)
  set(_labels_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${_labels_script}"
       "if(${name}_TESTS)\n"
       "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${_labels}\" ${_props})\n"
       "else()\n"
       "  set_tests_properties(${name}_NOT_BUILT PROPERTIES LABELS \"${_labels}\")\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_labels_script}")
endfunction()

# nnaccel_register_engine(TARGET): TARGET holds an engine's registration (NNACCEL_REGISTER_ENGINE,
# include/nnaccel/engines/Engine.h). Its objects register the engine at static-initialization
# time and nothing references them, so they must be linked whole: nnaccel_engines_all (made by
# nnaccel_add_engine_bundle after every engine folder) links each registered TARGET with
# WHOLE_ARCHIVE. Link nnaccel_engines_all, never TARGET itself.
function(nnaccel_register_engine target)
  set_property(GLOBAL APPEND PROPERTY NNACCEL_ENGINE_TARGETS ${target})
endfunction()

function(nnaccel_add_engine_bundle)
  get_property(_engines GLOBAL PROPERTY NNACCEL_ENGINE_TARGETS)
  add_library(nnaccel_engines_all INTERFACE)
  foreach(_engine IN LISTS _engines)
    # An installed tree names the engine by its exported name (an export keeps the target name
    # inside $<LINK_LIBRARY:...> as written; cmake/NnaccelInstall.cmake).
    get_target_property(_exported ${_engine} EXPORT_NAME)
    target_link_libraries(nnaccel_engines_all INTERFACE
      "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${_engine}>>"
      "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,nnaccel::${_exported}>>")
  endforeach()
  target_link_libraries(nnaccel_engines_all INTERFACE nnaccel_engines)
  set_target_properties(nnaccel_engines_all PROPERTIES EXPORT_NAME engines_all)
endfunction()
