/// \file
/// The model summary as JSON (ModelSummary.h): what `nnaccel info --json` prints and what the
/// Python package's nnaccel.info() returns, so both give the same fields.
#include "nnaccel/driver/ModelSummary.h"
#include "nnaccel/ir/OpKind.h"

#include <nlohmann/json.hpp>

namespace nnaccel::driver {
namespace {

nlohmann::ordered_json valueJson(const ir::Graph& g, ir::ValueId id) {
  const ir::Value& v = g.value(id);
  return {{"name", v.name}, {"dtype", std::string(dtypeName(v.dtype))}, {"shape", v.shape}};
}

nlohmann::ordered_json layerJson(const LayerSummary& l) {
  nlohmann::ordered_json j = {{"index", l.node},
                              {"name", l.name},
                              {"op", std::string(ir::opName(l.op))},
                              {"input_shapes", l.inputShapes},
                              {"output_shapes", l.outputShapes},
                              {"macs", l.macs},
                              {"params", l.params},
                              {"fused_activation", nullptr},
                              {"fused_into_producer", l.fusedIntoProducer}};
  if (l.fusedActivation)
    j["fused_activation"] = std::string(ir::opName(*l.fusedActivation));
  if (l.window) {
    const WindowSummary& w = *l.window;
    j["window"] = {{"kernel", w.kernel},        {"strides", w.strides},
                   {"pads_begin", w.padsBegin}, {"pads_end", w.padsEnd},
                   {"dilations", w.dilations},  {"output_padding", w.outputPadding},
                   {"global", w.global}};
    if (w.hasGroup)
      j["window"]["group"] = w.group;
  }
  return j;
}

} // namespace

std::string summaryJson(const ir::Graph& g, const ModelSummary& s) {
  nlohmann::ordered_json j = {{"schema", "nnaccel.model_summary"},
                              {"schema_version", 1},
                              {"name", g.name},
                              {"opset", g.opsetVersion},
                              {"symbolic_dims", g.dimBindings},
                              {"inputs", nlohmann::ordered_json::array()},
                              {"outputs", nlohmann::ordered_json::array()},
                              {"layers", nlohmann::ordered_json::array()},
                              {"total_macs", s.totalMacs},
                              {"total_params", s.totalParams}};
  for (const ir::ValueId v : g.inputs)
    j["inputs"].push_back(valueJson(g, v));
  for (const ir::ValueId v : g.outputs)
    j["outputs"].push_back(valueJson(g, v));
  for (const LayerSummary& l : s.layers)
    j["layers"].push_back(layerJson(l));
  return j.dump(2) + "\n";
}

} // namespace nnaccel::driver
