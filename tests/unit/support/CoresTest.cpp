/// \file
/// Tests of defaultSimulationThreads (Cores.h): one or two threads, two only with a second
/// hardware thread and a load average that leaves one idle.
#include "nnaccel/support/Cores.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <thread>

namespace nnaccel {
namespace {

TEST(Cores, DefaultSimulationThreadsFollowsTheCoresAndTheLoad) {
  const int threads = defaultSimulationThreads();
  const unsigned cores = std::thread::hardware_concurrency();
  double load[1] = {0.0};
  const bool known = getloadavg(load, 1) == 1;
  EXPECT_TRUE(threads == 1 || threads == 2);
  if (cores < 2) {
    EXPECT_EQ(threads, 1);
  }
  // A load average far from the threshold cannot have crossed it between the two reads.
  if (cores >= 2 && known && load[0] > static_cast<double>(cores)) {
    EXPECT_EQ(threads, 1);
  }
  if (cores >= 2 && known && load[0] < static_cast<double>(cores) - 1.5) {
    EXPECT_EQ(threads, 2);
  }
}

} // namespace
} // namespace nnaccel
