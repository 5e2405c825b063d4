# Builds the fuzz seeds that are outputs of nnaccel itself (fuzz/CMakeLists.txt): a compiled
# systolic program and a sweep shard. Run as `cmake -DNNACCEL=... -DOUT=... -P GenerateSeeds.cmake`.
file(MAKE_DIRECTORY ${OUT}/program ${OUT}/sweep)
execute_process(COMMAND ${NNACCEL} compile lenet5 --preset small -o ${OUT}/program/lenet5.nnx
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nnaccel compile failed (${rc})")
endif()
execute_process(COMMAND ${NNACCEL} sweep lenet5 --arch systolic --preset small --timing-only
                        --param array.rows=4,8 --csv ${OUT}/sweep/lenet5.csv
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nnaccel sweep failed (${rc})")
endif()
