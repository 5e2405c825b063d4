/// \file
/// The MPI path of a sweep (include/nnaccel/explore/Mpi.h), compiled only with NNACCEL_MPI.
///
/// Protocol on MPI_COMM_WORLD, all messages to or from rank 0:
///  - kTagHello, worker rank -> 0, one int: how many threads will ask for points. Sent before
///    any request, so rank 0 knows how many stop replies end the sweep.
///  - kTagRequest, worker thread -> 0, chars: the CSV row of the point it just finished (empty
///    on its first request). A rank sends its next request only after the previous reply, so a
///    reply always reaches the thread that asked (the threads of a rank take turns on a mutex).
///  - kTagWork, 0 -> worker, one unsigned long long: the next point's index.
///  - kTagStop, 0 -> worker: no points left; the thread ends.
/// Rank 0's main thread only serves requests (polling with MPI_Iprobe and a millisecond's
/// sleep, so it does not spin on a core); its own worker threads take points from the same
/// queue without MPI.
#include "nnaccel/explore/Mpi.h"
#include "nnaccel/explore/SweepCsv.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <mpi.h>
#include <mutex>
#include <optional>
#include <thread>

namespace nnaccel::explore::mpi {

namespace {

constexpr int kTagHello = 1;
constexpr int kTagRequest = 2;
constexpr int kTagWork = 3;
constexpr int kTagStop = 4;

/// A broken protocol cannot be reported as a row: say why and end the whole job, since the
/// other ranks would otherwise wait forever.
[[noreturn]] void abortJob(const std::string& why) {
  std::fprintf(stderr, "error: internal: MPI sweep: %s\n", why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void workerRank(const Session& session, int threads,
                const std::function<PointResult(size_t)>& evaluate) {
  if (!session.serialized())
    threads = 1;
  MPI_Send(&threads, 1, MPI_INT, 0, kTagHello, MPI_COMM_WORLD);
  std::mutex mpiMutex; // one thread of this rank talks to rank 0 at a time
  const auto loop = [&] {
    std::string row;
    while (true) {
      unsigned long long index = 0;
      {
        const std::lock_guard<std::mutex> lock(mpiMutex);
        MPI_Send(row.data(), static_cast<int>(row.size()), MPI_CHAR, 0, kTagRequest,
                 MPI_COMM_WORLD);
        MPI_Status status;
        MPI_Recv(&index, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        if (status.MPI_TAG == kTagStop)
          return;
      }
      row = csvRow(evaluate(static_cast<size_t>(index)));
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back(loop);
  loop();
  for (std::thread& t : pool)
    t.join();
}

std::vector<PointResult> coordinatorRank(const Session& session, const std::vector<size_t>& points,
                                         int threads,
                                         const std::function<PointResult(size_t)>& evaluate,
                                         size_t paramCount, const PointDone& done) {
  std::mutex mutex; // guards next, results, finished and the done callback
  size_t next = 0, finished = 0;
  std::vector<std::optional<PointResult>> results(points.size());
  const auto take = [&]() -> std::optional<size_t> {
    const std::lock_guard<std::mutex> lock(mutex);
    if (next == points.size())
      return std::nullopt;
    return next++;
  };
  const auto record = [&](PointResult r) {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = std::lower_bound(points.begin(), points.end(), r.index);
    if (it == points.end() || *it != r.index || results[static_cast<size_t>(it - points.begin())])
      abortJob(fmt::format("unexpected result for point {}", r.index));
    std::optional<PointResult>& slot = results[static_cast<size_t>(it - points.begin())];
    slot = std::move(r);
    ++finished;
    if (done)
      done(*slot, finished, points.size());
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      while (const std::optional<size_t> i = take())
        record(evaluate(points[*i]));
    });

  int hellos = 0, remoteThreads = 0, stopped = 0;
  while (hellos < session.size() - 1 || stopped < remoteThreads) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (flag == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    const int source = status.MPI_SOURCE;
    if (status.MPI_TAG == kTagHello) {
      int n = 0;
      MPI_Recv(&n, 1, MPI_INT, source, kTagHello, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      remoteThreads += n;
      ++hellos;
      continue;
    }
    if (status.MPI_TAG != kTagRequest)
      abortJob(fmt::format("unexpected message tag {} from rank {}", status.MPI_TAG, source));
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    std::string row(static_cast<size_t>(length), '\0');
    MPI_Recv(row.data(), length, MPI_CHAR, source, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!row.empty()) {
      try {
        record(parseCsvRow(row, paramCount, fmt::format("row from rank {}", source)));
      } catch (const Error& e) {
        abortJob(e.what());
      }
    }
    if (const std::optional<size_t> i = take()) {
      const unsigned long long index = points[*i];
      MPI_Send(&index, 1, MPI_UNSIGNED_LONG_LONG, source, kTagWork, MPI_COMM_WORLD);
    } else {
      const unsigned long long none = 0;
      MPI_Send(&none, 1, MPI_UNSIGNED_LONG_LONG, source, kTagStop, MPI_COMM_WORLD);
      ++stopped;
    }
  }
  for (std::thread& t : pool)
    t.join();
  std::vector<PointResult> out;
  for (std::optional<PointResult>& r : results) {
    NNACCEL_ASSERT(r.has_value()) << "MPI sweep ended with a point missing";
    out.push_back(std::move(*r));
  }
  return out;
}

} // namespace

Session::Session() {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  serialized_ = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() {
  MPI_Finalize();
}

std::vector<PointResult> runPoints(const Session& session, const std::vector<size_t>& points,
                                   int threadsPerRank,
                                   const std::function<PointResult(size_t)>& evaluate,
                                   size_t paramCount, const PointDone& done) {
  const int threads = std::max(threadsPerRank, 1);
  if (session.size() == 1)
    return explore::runPoints(points, threads, evaluate, done);
  if (session.rank() != 0) {
    workerRank(session, threads, evaluate);
    return {};
  }
  return coordinatorRank(session, points, threads, evaluate, paramCount, done);
}

} // namespace nnaccel::explore::mpi
