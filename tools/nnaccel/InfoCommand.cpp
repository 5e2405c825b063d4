// `nnaccel info MODEL [--raw] [--dim NAME=VALUE]... [--batch N] [--json|--csv]`: a header per
// model and a per-layer table with shapes, kernel windows, MACs and parameter counts, with
// totals; or the same as JSON (driver::summaryJson, also the Python package's) or CSV.
#include "Command.h"
#include "ModelOptions.h"
#include "TextTable.h"
#include "nnaccel/driver/ModelSummary.h"
#include "nnaccel/report/Report.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::cli {

namespace {

std::string joinDims(const Dims& dims, const char* separator) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i > 0 ? separator : "") + std::to_string(dims[i]);
  }
  return out;
}

/// "2" when every axis has the same value, else the values joined by \p separator ("2x1").
std::string collapsed(const Dims& dims, const char* separator = "x") {
  if (!dims.empty() &&
      std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d == dims[0]; })) {
    return std::to_string(dims[0]);
  }
  return joinDims(dims, separator);
}

/// The ONNX pads "begin...,end..." (collapsed when all equal), followed for a ConvTranspose
/// with a non-zero output_padding by " outpad 1,1" (collapsed likewise): "1 outpad 1".
std::string padsText(const driver::WindowSummary& w) {
  Dims pads = w.padsBegin;
  pads.insert(pads.end(), w.padsEnd.begin(), w.padsEnd.end());
  std::string text = collapsed(pads, ",");
  if (std::any_of(w.outputPadding.begin(), w.outputPadding.end(),
                  [](int64_t p) { return p != 0; })) {
    text += " outpad " + collapsed(w.outputPadding, ",");
  }
  return text;
}

std::string shapesText(const std::vector<Dims>& shapes) {
  if (shapes.empty()) {
    return "-";
  }
  if (shapes.size() > 2) {
    return fmt::format("{}, ... ({} inputs)", dimsToString(shapes[0]), shapes.size());
  }
  std::string out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    out += (i > 0 ? ", " : "") + dimsToString(shapes[i]);
  }
  return out;
}

std::string opText(const driver::LayerSummary& layer) {
  std::string op(ir::opName(layer.op));
  if (layer.fusedActivation) {
    op += "+" + std::string(ir::opName(*layer.fusedActivation));
  }
  if (layer.fusedIntoProducer) {
    op += " (fused)";
  }
  return op;
}

std::string valuesText(const ir::Graph& g, const std::vector<ir::ValueId>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    const ir::Value& v = g.value(ids[i]);
    out += fmt::format("{}{} {}", i > 0 ? ", " : "", v.name, typeText(v.dtype, v.shape));
  }
  return out.empty() ? "none" : out;
}

std::string layerTable(const driver::ModelSummary& summary) {
  constexpr auto kLeft = TextTable::Align::Left;
  constexpr auto kRight = TextTable::Align::Right;
  TextTable table({{"#", kRight},
                   {"name", kLeft},
                   {"op", kLeft},
                   {"input", kLeft},
                   {"output", kLeft},
                   {"kernel", kLeft},
                   {"stride", kLeft},
                   {"pad", kLeft},
                   {"dilation", kLeft},
                   {"groups", kRight},
                   {"MACs", kRight},
                   {"params", kRight}});
  for (const driver::LayerSummary& layer : summary.layers) {
    std::vector<std::string> row = {std::to_string(layer.node), layer.name, opText(layer),
                                    shapesText(layer.inputShapes), shapesText(layer.outputShapes)};
    if (layer.window && layer.window->global) {
      row.insert(row.end(), {"global", "", "", "", ""});
    } else if (layer.window) {
      const driver::WindowSummary& w = *layer.window;
      row.insert(row.end(), {joinDims(w.kernel, "x"), collapsed(w.strides), padsText(w),
                             collapsed(w.dilations), w.hasGroup ? std::to_string(w.group) : ""});
    } else {
      row.insert(row.end(), {"", "", "", "", ""});
    }
    row.push_back(layer.macs > 0 ? groupThousands(layer.macs) : "");
    row.push_back(layer.params > 0 ? groupThousands(layer.params) : "");
    table.addRow(std::move(row));
  }
  table.addRule();
  table.addRow({"", "total", "", "", "", "", "", "", "", "", groupThousands(summary.totalMacs),
                groupThousands(summary.totalParams)});
  return table.render();
}

/// One CSV row per layer: shapes as 1x3x224x224, several joined by ';'.
std::string layerCsv(const driver::ModelSummary& summary) {
  std::string out = "index,name,op,fused_activation,input_shapes,output_shapes,kernel,strides,"
                    "pads_begin,pads_end,dilations,group,macs,params\n";
  const auto shapes = [](const std::vector<Dims>& list) {
    std::vector<std::string> parts;
    for (const Dims& s : list)
      parts.push_back(joinDims(s, "x"));
    return fmt::format("{}", fmt::join(parts, ";"));
  };
  for (const driver::LayerSummary& l : summary.layers) {
    std::string window = ",,,,,";
    if (l.window)
      window = fmt::format("{},{},{},{},{},{}", joinDims(l.window->kernel, "x"),
                           joinDims(l.window->strides, "x"), joinDims(l.window->padsBegin, "x"),
                           joinDims(l.window->padsEnd, "x"), joinDims(l.window->dilations, "x"),
                           l.window->hasGroup ? std::to_string(l.window->group) : "");
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", l.node, report::csvField(l.name),
                       ir::opName(l.op),
                       l.fusedActivation ? std::string(ir::opName(*l.fusedActivation)) : "",
                       shapes(l.inputShapes), shapes(l.outputShapes), window, l.macs, l.params);
  }
  return out;
}

class InfoCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    modelOptions_.configure(app);
    app.add_flag("--raw", raw_,
                 "show the graph as imported (shape inference only; no constant folding, "
                 "BatchNormalization folding or activation-fusion marking)");
    auto* json = app.add_flag("--json", json_,
                              "print the summary as JSON (inputs, outputs, symbolic dims, every "
                              "layer; docs/CLI.md) instead of the table");
    app.add_flag("--csv", csv_, "print one CSV row per layer instead of the table")->excludes(json);
  }

  void run() override {
    driver::LoadOptions options = modelOptions_.loadOptions();
    options.runPasses = !raw_;
    const ir::Graph g = driver::loadModel(modelOptions_.model(), options);
    const driver::ModelSummary summary = driver::summarizeModel(g);
    if (json_ || csv_) {
      fmt::print("{}", json_ ? driver::summaryJson(g, summary) : layerCsv(summary));
      return;
    }
    fmt::print("model {} (opset {}{}): {} layers, {} params, {} MACs\n",
               g.name.empty() ? modelOptions_.model() : g.name, g.opsetVersion, raw_ ? ", raw" : "",
               summary.layers.size(), humanCount(summary.totalParams),
               humanCount(summary.totalMacs));
    if (const std::string bindings = ModelOptions::bindingsText(g); !bindings.empty()) {
      fmt::print("{}\n", bindings);
    }
    fmt::print("inputs:  {}\n", valuesText(g, g.inputs));
    fmt::print("outputs: {}\n\n", valuesText(g, g.outputs));
    fmt::print("{}", layerTable(summary));
  }

private:
  ModelOptions modelOptions_;
  bool raw_ = false, json_ = false, csv_ = false;
};

} // namespace

std::unique_ptr<Command> makeInfoCommand() {
  return std::make_unique<InfoCommand>();
}

} // namespace nnaccel::cli
