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
  target_include_directories(nnaccel_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(nnaccel_${name} PUBLIC ${M_DEPS} PRIVATE ${M_PRIVATE_DEPS})
  nnaccel_warnings(nnaccel_${name})
endfunction()

# nnaccel_add_test(NAME SOURCES ... DEPS ... [LABELS ...])  -> gtest executable registered with ctest
function(nnaccel_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE NNACCEL_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  nnaccel_warnings(${name})
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS unit)
  if(T_LABELS)
    # gtest_discover_tests flattens PROPERTIES ("LABELS unit;slow" would become a property
    # named "slow"), so extra labels are set by a ctest script that runs after discovery and
    # reads the discovered names from ${name}_TESTS.
    set(_labels_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
    file(WRITE "${_labels_script}"
         "if(${name}_TESTS)\n"
         "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"unit;${T_LABELS}\")\n"
         "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_labels_script}")
  endif()
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
    target_link_libraries(nnaccel_engines_all INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${_engine}>")
  endforeach()
  target_link_libraries(nnaccel_engines_all INTERFACE nnaccel_engines)
endfunction()
