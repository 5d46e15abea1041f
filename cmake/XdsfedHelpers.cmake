# Helper functions that give every module, test, benchmark and fuzzer the same
# shape. See ARCHITECTURE.md: one lib/ folder = one static library.

include(CMakeParseArguments)

# xdsfed_library(NAME SRCS a.cc b.cc DEPS xdsfed::base absl::status)
# Makes the static library target xdsfed::NAME (file libxdsfed_NAME.a) and
# registers it for install and for the umbrella target xdsfed::xdsfed.
function(xdsfed_library name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS" ${ARGN})
  set(target xdsfed_${name})
  add_library(${target} STATIC ${A_SRCS})
  add_library(xdsfed::${name} ALIAS ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${XDSFED_GEN_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/xdsfed>)
  target_link_libraries(${target} PUBLIC ${A_DEPS})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${target} EXPORT xdsfedTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY XDSFED_MODULES ${target})
endfunction()

# xdsfed_test(NAME SRCS a_test.cc DEPS xdsfed::name)
# A GoogleTest binary in build/tests/; each TEST is its own ctest entry.
function(xdsfed_test name)
  if(NOT XDSFED_BUILD_TESTS)
    return()
  endif()
  # SERIAL: timing-sensitive tests (failover races measured in ms) run alone
  # under ctest -j instead of next to a 10,000-connection test.
  cmake_parse_arguments(A "SERIAL" "" "SRCS;DEPS;ARGS" ${ARGN})
  add_executable(${name} ${A_SRCS})
  target_link_libraries(${name} PRIVATE ${A_DEPS} GTest::gmock GTest::gtest_main)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  set(serial FALSE)
  if(A_SERIAL)
    set(serial TRUE)
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    EXTRA_ARGS ${A_ARGS}
    PROPERTIES ENVIRONMENT "XDSFED_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
               RUN_SERIAL ${serial})
endfunction()

# xdsfed_bench(NAME SRCS a_bench.cc DEPS xdsfed::name)
# A Google Benchmark binary at build/bench/NAME.
function(xdsfed_bench name)
  if(NOT XDSFED_BUILD_BENCH)
    return()
  endif()
  cmake_parse_arguments(A "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${A_SRCS})
  target_link_libraries(${name} PRIVATE ${A_DEPS} benchmark::benchmark)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
endfunction()

# xdsfed_fuzzer(NAME SRCS a_fuzzer.cc DEPS xdsfed::name)
# Always (with tests on): NAME_replay, which runs every file of
# fuzz/corpus/NAME/ through LLVMFuzzerTestOneInput under ctest.
# With XDSFED_BUILD_FUZZ (clang only): the libFuzzer binary build/fuzz/NAME.
function(xdsfed_fuzzer name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS" ${ARGN})
  set(corpus ${PROJECT_SOURCE_DIR}/fuzz/corpus/${name})
  if(XDSFED_BUILD_TESTS)
    add_executable(${name}_replay ${A_SRCS} ${PROJECT_SOURCE_DIR}/fuzz/replay_main.cc)
    target_link_libraries(${name}_replay PRIVATE ${A_DEPS})
    set_target_properties(${name}_replay PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
    add_test(NAME fuzz_replay.${name} COMMAND ${name}_replay ${corpus})
  endif()
  if(XDSFED_BUILD_FUZZ)
    add_executable(${name} ${A_SRCS})
    target_link_libraries(${name} PRIVATE ${A_DEPS})
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${name} PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  endif()
endfunction()
