/// \file
/// SCALE-Sim v2 compatibility speed (issue 7 item 5): nnaccel's SCALE-Sim numbers for a whole
/// ResNet-18 (the zoo model exported as a SCALE-Sim topology, 21 layers, 1.81 GMACs) on
/// SCALE-Sim's sample 32x32 array (configs/scale.cfg: 64 KiB SRAMs), for each dataflow and both
/// bandwidth modes:
///   scalesim/resnet18/<dataflow>_<calc|user>   simulateTopology only (no file I/O); "cycles"
/// SCALE-Sim itself is timed by bench/scalesim_speed.sh, which runs both on the same files;
/// docs/ScaleSim.md records the figures.
#include "BenchUtil.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/scalesim/Simulator.h"
#include "nnaccel/scalesim/TopologyGraph.h"

#include <fmt/format.h>

namespace nnaccel::bench {
namespace {

const scalesim::Topology& resnet18Topology() {
  static const scalesim::Topology topology = [] {
    scalesim::Topology t;
    t.name = "resnet18";
    t.layers = scalesim::topologyFromGraph(driver::loadModel("resnet18")).layers;
    return t;
  }();
  return topology;
}

/// SCALE-Sim's configs/scale.cfg with the dataflow and bandwidth mode of the benchmark.
scalesim::Config sampleConfig(scalesim::Dataflow dataflow, scalesim::BandwidthMode mode) {
  scalesim::Config c;
  c.runName = "bench";
  c.bandwidthMode = mode;
  c.arrayRows = c.arrayCols = 32;
  c.ifmapSramKiB = c.filterSramKiB = c.ofmapSramKiB = 64;
  c.filterAddrOffset = 10000000;
  c.ofmapAddrOffset = 20000000;
  c.dataflow = dataflow;
  c.userBandwidthWordsPerCycle = {10};
  return c;
}

void simulate(benchmark::State& state, scalesim::Dataflow dataflow, scalesim::BandwidthMode mode) {
  const scalesim::Topology& topology = resnet18Topology();
  const scalesim::Config config = sampleConfig(dataflow, mode);
  int64_t cycles = 0;
  for (auto _ : state) {
    const std::vector<scalesim::LayerReport> reports = scalesim::simulateTopology(topology, config);
    cycles = 0;
    for (const scalesim::LayerReport& r : reports) {
      cycles += r.totalCycles;
    }
    benchmark::DoNotOptimize(cycles);
  }
  state.counters["cycles"] = static_cast<double>(cycles);
}

} // namespace

void registerScaleSimBenchmarks() {
  using scalesim::BandwidthMode;
  using scalesim::Dataflow;
  for (const Dataflow df :
       {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
    for (const BandwidthMode mode : {BandwidthMode::Calc, BandwidthMode::User}) {
      const std::string name = fmt::format("scalesim/resnet18/{}_{}", scalesim::dataflowName(df),
                                           mode == BandwidthMode::Calc ? "calc" : "user");
      benchmark::RegisterBenchmark(name.c_str(), simulate, df, mode)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
}

} // namespace nnaccel::bench
