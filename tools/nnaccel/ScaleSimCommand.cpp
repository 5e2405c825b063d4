/// \file
/// `nnaccel scalesim` and `nnaccel export-topology`: SCALE-Sim v2 compatibility. `scalesim`
/// takes SCALE-Sim's own command line (-c CONFIG.cfg -t TOPOLOGY.csv -p OUTDIR [-i conv|gemm])
/// and writes its three reports with the same columns and numbers; `export-topology` writes a
/// model's convolution and fully-connected layers as a SCALE-Sim topology. See docs/ScaleSim.md.
#include "Command.h"
#include "ModelOptions.h"
#include "ReportOutput.h"
#include "TextTable.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/scalesim/Config.h"
#include "nnaccel/scalesim/Simulator.h"
#include "nnaccel/scalesim/Topology.h"
#include "nnaccel/scalesim/TopologyGraph.h"

#include <fmt/core.h>
#include <fstream>

namespace nnaccel::cli {

namespace {

class ScaleSimCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("-c", configPath_, "SCALE-Sim config file (.cfg)")->required();
    app.add_option("-t", topologyPath_, "SCALE-Sim topology file (.csv)")->required();
    app.add_option("-p", outDir_, "directory for the reports (they go to OUTDIR/run_name)")
        ->required();
    app.add_option("-i", inputType_, "topology format: conv (convolution rows) or gemm (M, N, K)")
        ->check(oneOf({"conv", "gemm"}))
        ->capture_default_str();
  }

  void run() override {
    const scalesim::Config config = scalesim::parseConfigFile(configPath_);
    const scalesim::Topology topology = scalesim::parseTopologyFile(
        topologyPath_,
        inputType_ == "gemm" ? scalesim::TopologyFormat::Gemm : scalesim::TopologyFormat::Conv);
    const std::vector<scalesim::LayerReport> reports = scalesim::simulateTopology(topology, config);
    const std::string dir = scalesim::writeReports(outDir_, config, reports);

    constexpr auto kLeft = TextTable::Align::Left;
    constexpr auto kRight = TextTable::Align::Right;
    TextTable table({{"layer", kRight},
                     {"name", kLeft},
                     {"cycles", kRight},
                     {"stalls", kRight},
                     {"util %", kRight},
                     {"DRAM reads", kRight},
                     {"DRAM writes", kRight}});
    int64_t totalCycles = 0;
    for (size_t i = 0; i < reports.size(); ++i) {
      const scalesim::LayerReport& r = reports[i];
      totalCycles += r.totalCycles;
      table.addRow({std::to_string(i), topology.layers[i].name, groupThousands(r.totalCycles),
                    groupThousands(r.stallCycles), fmt::format("{:.2f}", r.overallUtilPct),
                    groupThousands(r.ifmapDramReads + r.filterDramReads),
                    groupThousands(r.ofmapDramWrites)});
    }
    fmt::print("{}x{} array, {} dataflow, {} bandwidth\n", config.arrayRows, config.arrayCols,
               scalesim::dataflowName(config.dataflow),
               config.bandwidthMode == scalesim::BandwidthMode::User ? "USER" : "CALC");
    fmt::print("{}", table.render());
    fmt::print("total {} cycles over {} layers; reports in {}\n", groupThousands(totalCycles),
               reports.size(), dir);
  }

private:
  std::string configPath_;
  std::string topologyPath_;
  std::string outDir_;
  std::string inputType_ = "conv";
};

class ExportTopologyCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    model_.configure(app);
    app.add_option("-o,--output", output_,
                   "the SCALE-Sim topology to write (.csv; - for standard "
                   "output)")
        ->required();
  }

  void run() override {
    claimOutputs(*app_, {&output_}); // fail before loading a model that cannot be written
    const ir::Graph g = driver::loadModel(model_.model(), model_.loadOptions());
    const scalesim::ExportedTopology topo = scalesim::topologyFromGraph(g);
    if (topo.layers.empty()) {
      throw Error(ErrorKind::Unsupported, ErrorContext{.file = model_.model()},
                  "no convolution or fully-connected layer to export");
    }
    writeTextFile(output_, scalesim::formatTopology(topo.layers), /*announce=*/false);
    int64_t macs = 0;
    for (const scalesim::Layer& l : topo.layers) {
      macs += l.macs();
    }
    fmt::print(humanOut(), "wrote {} layers ({} MACs as SCALE-Sim counts them) to {}\n",
               topo.layers.size(), humanCount(macs), output_);
    for (const std::string& skipped : topo.skipped) {
      fmt::print(humanOut(), "skipped {}: no SCALE-Sim row\n", skipped);
    }
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions model_;
  std::string output_;
};

} // namespace

std::unique_ptr<Command> makeExportTopologyCommand() {
  return std::make_unique<ExportTopologyCommand>();
}

std::unique_ptr<Command> makeScaleSimCommand() {
  return std::make_unique<ScaleSimCommand>();
}

} // namespace nnaccel::cli
