/// \file
/// `nnaccel prune MODEL (--density D | --weight-densities FILE.json) -o OUT.onnx`: magnitude-
/// prunes the weights of every Conv / ConvTranspose / Gemm / MatMul layer (passes::magnitudePrune)
/// to one density or to per-layer densities (the file `simulate --weight-densities` and `sweep
/// density --weight-densities` read, passes::readPruneSpecFile; `--densities` is its older
/// name), writes the pruned model as ONNX and prints the achieved density per layer and in total.
///
/// Why a command: the zoo's weights are dense; the sparse engine's results depend on weight
/// density, so users (and the sparse engine's tests) need pruned models that every other command
/// can load. The model is loaded as everywhere else (driver::loadModel, default passes), so the
/// written file is the graph the engines see, with pruned weights.
#include "Command.h"
#include "ModelOptions.h"
#include "TextTable.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/passes/Prune.h"

#include <charconv>
#include <fmt/core.h>
#include <memory>

namespace nnaccel::cli {

namespace {

/// \p text as a density: a whole decimal number in (0, 1].
std::optional<double> parseDensity(const std::string& text) {
  double value = 0.0;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  if (ec != std::errc() || end != last || !(value > 0.0 && value <= 1.0)) {
    return std::nullopt;
  }
  return value;
}

CLI::Validator densityValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!parseDensity(text)) {
          return fmt::format("expected a number in (0, 1], got '{}'", text);
        }
        return {};
      },
      "DENSITY");
}

std::string densityText(double d) {
  return fmt::format("{:.4f}", d);
}

std::string tableText(const passes::PruneReport& report) {
  using Align = TextTable::Align;
  TextTable table({{"layer", Align::Left},
                   {"op", Align::Left},
                   {"weights", Align::Right},
                   {"non-zero", Align::Right},
                   {"density", Align::Right},
                   {"target", Align::Right},
                   {"kept", Align::Right},
                   {"achieved", Align::Right}});
  for (const passes::LayerPruneResult& l : report.layers) {
    table.addRow({l.name, std::string(ir::opName(l.op)), groupThousands(l.weights),
                  groupThousands(l.nonZerosBefore), densityText(l.densityBefore),
                  l.targetDensity ? densityText(*l.targetDensity) : "-", groupThousands(l.kept),
                  densityText(l.densityAfter)});
  }
  table.addRule();
  table.addRow({"total", "", groupThousands(report.totalWeights()),
                groupThousands(report.totalNonZerosBefore()), densityText(report.densityBefore()),
                "", groupThousands(report.totalKept()), densityText(report.densityAfter())});
  return table.render();
}

class PruneCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    density_ = app.add_option("--density", densityText_,
                              "keep this fraction of the weights of every Conv, ConvTranspose, "
                              "Gemm and MatMul layer (the largest magnitudes), in (0, 1]")
                   ->check(densityValidator());
    densities_ = app.add_option("--weight-densities,--densities", densitiesFile_,
                                "a JSON file of per-layer weight densities, as simulate and sweep "
                                "density take it: {\"layer name\": density, ...} with an optional "
                                "\"default\" for unlisted layers (without one they stay "
                                "unchanged); --densities is its older name");
    app.add_option("-o,--output", output_, "the pruned model to write (.onnx)")->required();
  }

  void run() override {
    if ((density_->count() > 0) == (densities_->count() > 0)) {
      throw usageError(*app_, "give exactly one of --density and --weight-densities");
    }
    passes::PruneSpec spec;
    if (density_->count() > 0) {
      const std::optional<double> d = parseDensity(densityText_);
      NNACCEL_ASSERT(d.has_value()) << "--density '" << densityText_ << "' passed the validator";
      spec.density = d;
    } else {
      spec = passes::readPruneSpecFile(densitiesFile_);
    }
    driver::checkWritable(output_);
    ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    const passes::PruneReport report = passes::magnitudePrune(g, spec);
    frontend::exportOnnxFile(g, output_);
    fmt::print("pruned '{}': {} layers, {} weights, density {} -> {}\n\n", g.name,
               report.layers.size(), groupThousands(report.totalWeights()),
               densityText(report.densityBefore()), densityText(report.densityAfter()));
    fmt::print("{}\nwrote {}\n", tableText(report), output_);
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  CLI::Option* density_ = nullptr;
  CLI::Option* densities_ = nullptr;
  std::string densityText_;
  std::string densitiesFile_;
  std::string output_;
};

} // namespace

std::unique_ptr<Command> makePruneCommand() {
  return std::make_unique<PruneCommand>();
}

} // namespace nnaccel::cli
