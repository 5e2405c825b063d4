/// \file
/// Magnitude pruning (see Prune.h): the per-layer density spec (code or JSON), the choice of the
/// weights to keep, and the report.
#include "nnaccel/passes/Prune.h"

#include "GraphQueries.h"
#include "nnaccel/support/ReadFile.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace nnaccel::passes {

namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// Layers listed in an unknown-layer error before it is cut short.
constexpr size_t kListedLayers = 10;

/// The shortest decimal that reads back as \p x ("0.5", "1.5", "nan").
std::string shortest(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  NNACCEL_ASSERT(ec == std::errc()) << "to_chars of a double";
  return std::string(buf, end);
}

bool validDensity(double d) {
  return d > 0.0 && d <= 1.0; // false for NaN
}

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& reason) {
  throw Error(ErrorKind::Usage, ErrorContext{.file = file, .key = key}, reason);
}

void checkDensity(double d, const std::string& file, const std::string& key) {
  if (!validDensity(d)) {
    fail(file, key, "density must be in (0, 1], got " + shortest(d));
  }
}

/// Magnitude used to rank weights: |w|, NaN as the largest.
float magnitude(float w) {
  return std::isnan(w) ? std::numeric_limits<float>::infinity() : std::fabs(w);
}

/// "c1, c3, c5" (the first kListedLayers prunable layers, then "... (N in all)").
std::string listLayers(const Graph& g) {
  std::string out;
  size_t count = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    if (!isPrunableLayer(g, id)) {
      continue;
    }
    if (count < kListedLayers) {
      out += (count > 0 ? ", " : "");
      out += layerName(g, id);
    }
    ++count;
  }
  if (count == 0) {
    return "the model has none";
  }
  if (count > kListedLayers) {
    out += ", ... (";
    out += std::to_string(count);
    out += " in all)";
  }
  return "prunable layers: " + out;
}

/// Throws when \p name (a perLayer key) is not the name of a prunable layer of \p g.
void checkLayerName(const Graph& g, const std::string& name, const std::string& file) {
  std::optional<NodeId> other;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    if (layerName(g, id) == name) {
      if (isPrunableLayer(g, id)) {
        return;
      }
      other = id;
    }
  }
  if (other) {
    std::string reason = "names a node of type ";
    reason.append(ir::opName(g.node(*other).op))
        .append(", not a prunable layer (Conv, ConvTranspose, Gemm or MatMul with a constant f32 "
                "weight; ")
        .append(listLayers(g))
        .append(")");
    fail(file, name, reason);
  }
  fail(file, name, "no layer of that name in the model (" + listLayers(g) + ")");
}

/// Zeroes all but the \p keep largest-magnitude non-zeros of \p w (indices \p nonZeros).
void keepLargest(Tensor& w, std::vector<int64_t>& nonZeros, size_t keep) {
  const float* values = w.data<float>();
  const auto larger = [&](int64_t a, int64_t b) {
    const float ma = magnitude(values[a]);
    const float mb = magnitude(values[b]);
    return ma != mb ? ma > mb : a < b;
  };
  const auto cut = nonZeros.begin() + static_cast<std::ptrdiff_t>(keep);
  std::nth_element(nonZeros.begin(), cut, nonZeros.end(), larger);
  float* out = w.data<float>();
  for (auto it = cut; it != nonZeros.end(); ++it) {
    out[*it] = 0.0f;
  }
}

/// Makes \p w the weight (input 1) of layer \p id: in place when the layer is the constant's
/// only user, else as a new constant so that other users keep the original.
void installWeight(Graph& g, NodeId id, Tensor w) {
  const ValueId old = g.node(id).inputs[1];
  if (detail::hasSingleUse(g, old)) {
    g.value(old).constant = std::make_shared<const Tensor>(std::move(w));
    return;
  }
  const ValueId fresh = g.addConstant(g.uniqueName(g.value(old).name + "_pruned"), std::move(w));
  g.node(id).inputs[1] = fresh;
}

double ratio(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

} // namespace

// --- spec ------------------------------------------------------------------------------------

PruneSpec parsePruneSpecJson(const std::string& jsonText, const std::string& file) {
  using nlohmann::json;
  std::set<std::string> seen;
  std::string duplicate;
  const json::parser_callback_t trackKeys = [&](int depth, json::parse_event_t event,
                                                json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 && parsed.is_string()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!seen.insert(key).second && duplicate.empty()) {
        duplicate = key;
      }
    }
    return true;
  };
  json doc;
  try {
    doc = json::parse(jsonText, trackKeys);
  } catch (const json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, ..." without the bracket tag.
    std::string what = e.what();
    const size_t tagEnd = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && tagEnd != std::string::npos) {
      what = what.substr(tagEnd + 2);
    }
    fail(file, "", "invalid JSON: " + what);
  }
  if (!doc.is_object()) {
    fail(file, "",
         std::string("expected a JSON object {\"layer name\": density, ...}, got ") +
             doc.type_name());
  }
  if (!duplicate.empty()) {
    fail(file, duplicate, "written twice");
  }
  PruneSpec spec;
  spec.source = file;
  for (const auto& [key, value] : doc.items()) {
    if (!value.is_number()) {
      fail(file, key,
           std::string("expected a density (a number in (0, 1]), got ") + value.type_name());
    }
    const double d = value.get<double>();
    checkDensity(d, file, key);
    if (key == "default") {
      spec.density = d;
    } else {
      spec.perLayer[key] = d;
    }
  }
  return spec;
}

PruneSpec readPruneSpecFile(const std::string& path) {
  return parsePruneSpecJson(readFileCapped(path, kMaxTextFileBytes, "JSON file"), path);
}

// --- report ----------------------------------------------------------------------------------

int64_t PruneReport::totalWeights() const {
  int64_t n = 0;
  for (const LayerPruneResult& l : layers) {
    n += l.weights;
  }
  return n;
}

int64_t PruneReport::totalNonZerosBefore() const {
  int64_t n = 0;
  for (const LayerPruneResult& l : layers) {
    n += l.nonZerosBefore;
  }
  return n;
}

int64_t PruneReport::totalKept() const {
  int64_t n = 0;
  for (const LayerPruneResult& l : layers) {
    n += l.kept;
  }
  return n;
}

double PruneReport::densityAfter() const {
  return ratio(totalKept(), totalWeights());
}

double PruneReport::densityBefore() const {
  return ratio(totalNonZerosBefore(), totalWeights());
}

// --- pass ------------------------------------------------------------------------------------

bool isPrunableLayer(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (n.op != OpKind::Conv && n.op != OpKind::ConvTranspose && n.op != OpKind::Gemm &&
      n.op != OpKind::MatMul) {
    return false;
  }
  return n.inputs.size() > 1 && g.isConstant(n.inputs[1]) &&
         g.value(n.inputs[1]).constant->dtype() == DType::F32;
}

std::string layerName(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (!n.name.empty() || n.outputs.empty() || n.outputs[0] == ir::kNoValue) {
    return n.name;
  }
  return g.value(n.outputs[0]).name;
}

void checkPruneSpec(const Graph& g, const PruneSpec& spec) {
  if (spec.density) {
    checkDensity(*spec.density, spec.source, spec.source.empty() ? "density" : "default");
  }
  for (const auto& [name, d] : spec.perLayer) {
    checkDensity(d, spec.source, name);
    checkLayerName(g, name, spec.source);
  }
}

PruneReport magnitudePrune(Graph& g, const PruneSpec& spec) {
  checkPruneSpec(g, spec); // everything before the first change

  PruneReport report;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    if (!isPrunableLayer(g, id)) {
      continue;
    }
    LayerPruneResult r;
    r.name = layerName(g, id);
    r.op = g.node(id).op;
    const Tensor& w = *g.value(g.node(id).inputs[1]).constant;
    r.weights = w.numElements();
    std::vector<int64_t> nonZeros;
    const std::span<const float> values = w.values<float>();
    for (int64_t i = 0; i < r.weights; ++i) {
      if (values[static_cast<size_t>(i)] != 0.0f) { // NaN counts as non-zero
        nonZeros.push_back(i);
      }
    }
    r.nonZerosBefore = static_cast<int64_t>(nonZeros.size());
    r.kept = r.nonZerosBefore;
    const auto layerDensity = spec.perLayer.find(r.name);
    r.targetDensity =
        layerDensity != spec.perLayer.end() ? std::optional(layerDensity->second) : spec.density;
    if (r.targetDensity) {
      const int64_t target = std::llround(*r.targetDensity * static_cast<double>(r.weights));
      r.kept = std::min(target, r.nonZerosBefore);
      if (r.kept < r.nonZerosBefore) {
        Tensor pruned = w;
        keepLargest(pruned, nonZeros, static_cast<size_t>(r.kept));
        installWeight(g, id, std::move(pruned));
      }
    }
    r.densityBefore = ratio(r.nonZerosBefore, r.weights);
    r.densityAfter = ratio(r.kept, r.weights);
    report.layers.push_back(std::move(r));
  }
  return report;
}

} // namespace nnaccel::passes
