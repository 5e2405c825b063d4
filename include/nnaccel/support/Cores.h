/// \file
/// How many threads a simulation should step on by default. The sparse engine can step the two
/// halves of its PE grid on two threads, handing off every simulated cycle; that pays only when
/// a second core is actually free. On a loaded machine the per-cycle hand-off yields the core
/// away and the run is slower than on one thread (ResNet-18 timing-only at load 4 on 2 cores:
/// 71.7 s on two threads, 30.6 s on one). Results never depend on the thread count.
#pragma once

namespace nnaccel {

/// 2 when the machine has two hardware threads or more and the 1-minute load average leaves
/// more than one of them idle (load < cores - 1), else 1.
int defaultSimulationThreads();

} // namespace nnaccel
