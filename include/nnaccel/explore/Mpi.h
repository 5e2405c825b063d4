/// \file
/// Sweeps across the ranks of an MPI job (`mpirun -np P nnaccel sweep ...`), built with the
/// CMake option NNACCEL_MPI (src/explore/SweepMpi.cpp; the macro NNACCEL_HAVE_MPI is defined
/// for users of nnaccel_explore then). Without it, launchedRanks() still tells the CLI that it
/// was started by mpirun, so it can refuse instead of running the sweep P times.
///
/// Scheme: dynamic load balancing. Rank 0 owns the list of point indices; every worker thread
/// of every rank (rank 0's included) asks for the next index when it is free, and the finished
/// point's row travels back to rank 0 as CSV text (SweepCsv.h) with the next request. Rank 0
/// returns all rows in index order; the other ranks return none. Rows are identical to a
/// single-process run's because a point depends only on its index.
#pragma once

#include "nnaccel/explore/Sweep.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace nnaccel::explore::mpi {

/// The number of ranks of the MPI job this process was started in, from the launcher's
/// environment (OMPI_COMM_WORLD_SIZE from Open MPI's mpirun, PMI_SIZE from MPICH's and Slurm's
/// PMI); 1 when there is none. Reads the environment only; safe without MPI support.
int launchedRanks();

#ifdef NNACCEL_HAVE_MPI
/// MPI_Init_thread on construction, MPI_Finalize on destruction. One per process.
class Session {
public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// True when several threads of one rank may call MPI one at a time.
  bool serialized() const { return serialized_; }

private:
  int rank_ = 0, size_ = 1;
  bool serialized_ = false;
};

/// Runs \p points across the ranks of \p session with \p threadsPerRank worker threads on each
/// rank (1 on a rank whose MPI cannot take calls from several threads). Every rank must call
/// it with the same \p points. Rank 0 returns the results in the order of \p points and calls
/// \p done for each (local or remote) as it arrives; other ranks return an empty vector.
std::vector<PointResult> runPoints(const Session& session, const std::vector<size_t>& points,
                                   int threadsPerRank,
                                   const std::function<PointResult(size_t)>& evaluate,
                                   size_t paramCount, const PointDone& done = {});
#endif

} // namespace nnaccel::explore::mpi
