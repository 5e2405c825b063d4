/// \file
/// defaultSimulationThreads (Cores.h): the hardware thread count and the 1-minute load average.
#include "nnaccel/support/Cores.h"

#include <cstdlib>
#include <thread>

namespace nnaccel {

int defaultSimulationThreads() {
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores < 2)
    return 1;
  double load[1] = {0.0};
  if (getloadavg(load, 1) != 1) // unknown: assume the machine is free
    return 2;
  return load[0] < static_cast<double>(cores) - 1.0 ? 2 : 1;
}

} // namespace nnaccel
