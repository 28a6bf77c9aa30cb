# Replay tests (included from tests/CMakeLists.txt): every fuzz target built WITHOUT libFuzzer,
# with a small driver that runs each seed and each kept crash reproducer through it, so every
# build (gcc, no clang needed) catches a regression of a fixed finding. ctest label: fuzz-replay.
include(${CMAKE_CURRENT_LIST_DIR}/targets.cmake)

add_library(fuzz_replay_driver OBJECT ${CMAKE_CURRENT_LIST_DIR}/property_failed.cpp ${CMAKE_CURRENT_LIST_DIR}/replay_main.cpp)
foreach(target ${GPUCTL_FUZZ_TARGETS})
  add_executable(fuzz_replay_${target} ${CMAKE_CURRENT_LIST_DIR}/${target}.cpp)
  target_link_libraries(fuzz_replay_${target} PRIVATE gpuctl_core fuzz_replay_driver)
  add_test(NAME fuzz_replay.${target}
           COMMAND fuzz_replay_${target} ${CMAKE_CURRENT_LIST_DIR}/corpus/${target}
                   ${CMAKE_CURRENT_LIST_DIR}/regressions/${target})
  set_tests_properties(fuzz_replay.${target} PROPERTIES LABELS "unit;fuzz-replay" TIMEOUT 300)
endforeach()
