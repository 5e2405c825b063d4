# The MPI path of `nnaccel sweep` (ctest sweep_mpi, built with NNACCEL_MPI): the same sweep run
# by one process and by `mpirun -np 2` (one and two worker threads per rank, and as two shards
# merged) must give byte-identical CSV files. The grid has failed points (array.rows=0) so the
# error rows travel between the ranks too.
#   cmake -DNNACCEL=path/to/nnaccel -DMPIEXEC=mpirun -DWORK_DIR=dir -P SweepMpiTest.cmake
foreach(var NNACCEL MPIEXEC WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "SweepMpiTest.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(sweep sweep lenet5 --arch systolic --preset small --param array.rows=0,8,16
          --param array.cols=8,16,32 --objective edp)
set(mpirun "${MPIEXEC}" -np 2 --oversubscribe)

function(run_step name)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (exit ${rc}):\n${ARGN}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  message(STATUS "${name}: ok")
endfunction()

function(expect_same_file a b)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK_DIR}/${a}" "${WORK_DIR}/${b}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(READ "${WORK_DIR}/${a}" ta)
    file(READ "${WORK_DIR}/${b}" tb)
    message(FATAL_ERROR "${b} differs from ${a}:\n--- ${a}\n${ta}\n--- ${b}\n${tb}")
  endif()
endfunction()

run_step("single process" "${NNACCEL}" ${sweep} -j 1 --csv single.csv)
run_step("mpirun -np 2, one thread per rank" ${mpirun} "${NNACCEL}" ${sweep} -j 1 --csv mpi.csv)
expect_same_file(single.csv mpi.csv)
run_step("mpirun -np 2, two threads per rank" ${mpirun} "${NNACCEL}" ${sweep} -j 2
         --csv mpi2.csv)
expect_same_file(single.csv mpi2.csv)
# Shards under MPI: each shard balanced across the ranks, then merged.
run_step("mpirun shard 1/2" ${mpirun} "${NNACCEL}" ${sweep} -j 1 --shard 1/2 --csv s1.csv)
run_step("mpirun shard 2/2" ${mpirun} "${NNACCEL}" ${sweep} -j 1 --shard 2/2 --csv s2.csv)
run_step("merge" "${NNACCEL}" sweep merge s2.csv s1.csv --csv merged.csv)
expect_same_file(single.csv merged.csv)
