// Per-value int8 sensitivity by fake quantization and downstream fp32 re-execution (see
// Sensitivity.h).
#include "nnaccel/quant/Sensitivity.h"

#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

namespace nnaccel::quant {

namespace {

/// (clamp(round(x / s) + z, lo, 127) - z) * s element-wise (lo = -127 for a symmetric value,
/// -128 with a zero point), and the share of elements clamped.
Tensor fakeQuantize(const Tensor& x, float s, int32_t z, double& clippedFraction) {
  Tensor y(DType::F32, x.shape());
  int64_t clipped = 0;
  const float* in = x.data<float>();
  float* out = y.data<float>();
  const auto lo = static_cast<float>((z == 0 ? -kWeightMax : kInt8Min) - z);
  const auto hi = static_cast<float>(kInt8Max - z);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    const float q = std::nearbyint(in[i] / s);
    clipped += q < lo || q > hi ? 1 : 0;
    out[i] = std::clamp(q, lo, hi) * s;
  }
  clippedFraction = x.numElements() > 0
                        ? static_cast<double>(clipped) / static_cast<double>(x.numElements())
                        : 0.0;
  return y;
}

/// max over channels of max|x| / the median channel's max|x| (channels on axis 1 for rank >= 3).
double channelSpread(const Tensor& x) {
  const Dims& s = x.shape();
  if (s.size() < 3 || s[1] < 2)
    return 1.0;
  const int64_t c = s[1], inner = x.numElements() / (s[0] * c);
  std::vector<double> peak(static_cast<size_t>(c), 0.0);
  const float* d = x.data<float>();
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < inner; ++i)
        peak[static_cast<size_t>(k)] =
            std::max(peak[static_cast<size_t>(k)],
                     static_cast<double>(std::fabs(d[(n * c + k) * inner + i])));
  std::vector<double> sorted = peak;
  std::nth_element(sorted.begin(), sorted.begin() + c / 2, sorted.end());
  const double median = sorted[static_cast<size_t>(c / 2)];
  const double top = *std::max_element(peak.begin(), peak.end());
  return median > 0.0 ? top / median : top > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
}

/// The values the int8 model holds at a scale: f32 graph inputs and outputs of int8 nodes.
std::vector<ir::ValueId> measuredValues(const QuantizedModel& m) {
  const ir::Graph& g = m.graph;
  std::vector<ir::ValueId> out;
  for (size_t v = 0; v < g.numValues(); ++v) {
    const auto id = static_cast<ir::ValueId>(v);
    const ir::Value& value = g.value(id);
    if (g.isConstant(id) || value.dtype != DType::F32 || m.scale(id) <= 0)
      continue;
    if (value.producer >= 0) {
      const QuantOpKind k = m.node(value.producer).kind;
      if (k == QuantOpKind::FloatIsland || k == QuantOpKind::Folded)
        continue;
    }
    out.push_back(id);
  }
  return out;
}

/// Node \p id evaluated in fp32, its computed inputs read through \p at (constants from the
/// graph).
template <typename At> std::vector<Tensor> evalOn(const ir::Graph& g, ir::NodeId id, const At& at) {
  std::vector<const Tensor*> ins;
  for (ir::ValueId v : g.node(id).inputs)
    ins.push_back(v == ir::kNoValue ? nullptr
                  : g.isConstant(v) ? g.value(v).constant.get()
                                    : &at(v));
  return reference::evalNode(g, id, ins);
}

/// The operands of comparison node \p id as the int8 model compares them, both sides rounded:
/// when some operand is rounded (\p isRounded) and another is not, the other is fake-quantized
/// here too (an empty tensor where nothing changes). Rounding one side of M-LSD's peak mask
/// `x == maxpool(x)` alone would make it false everywhere.
template <typename At, typename IsRounded>
std::vector<Tensor> comparisonOperands(const QuantizedModel& m, ir::NodeId id, const At& at,
                                       const IsRounded& isRounded) {
  const std::vector<ir::ValueId>& ins = m.graph.node(id).inputs;
  const auto computed = [&](ir::ValueId v) {
    return v != ir::kNoValue && !m.graph.isConstant(v) && m.scale(v) > 0 &&
           at(v).dtype() == DType::F32;
  };
  const bool anyRounded = std::any_of(ins.begin(), ins.end(),
                                      [&](ir::ValueId v) { return computed(v) && isRounded(v); });
  std::vector<Tensor> rounded(ins.size());
  for (size_t k = 0; k < ins.size() && anyRounded; ++k) {
    double clipped = 0;
    if (computed(ins[k]) && !isRounded(ins[k]))
      rounded[k] = fakeQuantize(at(ins[k]), m.scale(ins[k]), m.zeroPoint(ins[k]), clipped);
  }
  return rounded;
}

/// Node \p id evaluated in fp32 on \p at's values, a comparison's operands rounded alike
/// (comparisonOperands).
template <typename At, typename IsRounded>
std::vector<Tensor> evalRounded(const QuantizedModel& m, ir::NodeId id, const At& at,
                                const IsRounded& isRounded) {
  const ir::Node& n = m.graph.node(id);
  if (!ir::isComparison(n.op))
    return evalOn(m.graph, id, at);
  const std::vector<Tensor> rounded = comparisonOperands(m, id, at, isRounded);
  return evalOn(m.graph, id, [&](ir::ValueId v) -> const Tensor& {
    const auto k =
        static_cast<size_t>(std::find(n.inputs.begin(), n.inputs.end(), v) - n.inputs.begin());
    return rounded[k].sizeBytes() > 0 ? rounded[k] : at(v);
  });
}

/// The values downstream of \p changed once it holds \p value, re-executed in fp32 in graph
/// order over the clean run's \p clean; the entries of values not downstream stay empty, so a
/// measurement touches only the cone below the value (no copy of the whole run).
std::vector<Tensor> propagate(const QuantizedModel& m, const std::vector<Tensor>& clean,
                              ir::ValueId changed, Tensor value) {
  const ir::Graph& g = m.graph;
  std::vector<Tensor> changedValues(g.numValues());
  std::vector<bool> dirty(g.numValues(), false);
  changedValues[static_cast<size_t>(changed)] = std::move(value);
  dirty[static_cast<size_t>(changed)] = true;
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    const bool affected = std::any_of(n.inputs.begin(), n.inputs.end(), [&](ir::ValueId v) {
      return v != ir::kNoValue && dirty[static_cast<size_t>(v)];
    });
    if (!affected)
      continue;
    const auto at = [&](ir::ValueId v) -> const Tensor& {
      const auto j = static_cast<size_t>(v);
      return dirty[j] ? changedValues[j] : clean[j];
    };
    std::vector<Tensor> outs =
        evalRounded(m, id, at, [&](ir::ValueId v) { return dirty[static_cast<size_t>(v)]; });
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k)
      if (n.outputs[k] != ir::kNoValue) {
        changedValues[static_cast<size_t>(n.outputs[k])] = std::move(outs[k]);
        dirty[static_cast<size_t>(n.outputs[k])] = true;
      }
  }
  return changedValues;
}

/// The graph output of \p got that agrees worst (lowest cosine) with \p clean, and its name;
/// bool and constant outputs are skipped.
std::pair<Agreement, std::string> worstOutput(const ir::Graph& g, const std::vector<Tensor>& clean,
                                              const std::vector<Tensor>& got) {
  std::pair<Agreement, std::string> worst;
  bool first = true;
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    if (clean[o].dtype() != DType::F32 || got[o].dtype() != DType::F32 || got[o].sizeBytes() == 0)
      continue; // a bool output, or a constant one (nothing upstream changes it)
    const Agreement a = measureAgreement(clean[o], got[o]);
    if (first || a.cosineSimilarity < worst.first.cosineSimilarity) {
      worst = {a, g.value(g.outputs[o]).name};
      first = false;
    }
  }
  return worst;
}

} // namespace

std::vector<Tensor> runFakeQuantized(const QuantizedModel& model, const std::vector<Tensor>& inputs,
                                     const std::vector<ir::ValueId>& keptInFp32) {
  const ir::Graph& g = model.graph;
  std::vector<bool> measured(g.numValues(), false);
  for (ir::ValueId v : measuredValues(model))
    measured[static_cast<size_t>(v)] = true;
  for (ir::ValueId v : keptInFp32)
    measured[static_cast<size_t>(v)] = false;
  std::vector<Tensor> values(g.numValues());
  double clipped = 0;
  const auto settle = [&](ir::ValueId v, Tensor t) {
    const auto i = static_cast<size_t>(v);
    values[i] =
        measured[i] ? fakeQuantize(t, model.scale(v), model.zeroPoint(v), clipped) : std::move(t);
  };
  for (size_t i = 0; i < g.inputs.size(); ++i)
    settle(g.inputs[i], inputs.at(i));
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const ir::Node& n = g.node(static_cast<ir::NodeId>(i));
    std::vector<Tensor> outs = evalRounded(
        model, static_cast<ir::NodeId>(i),
        [&](ir::ValueId v) -> const Tensor& { return values[static_cast<size_t>(v)]; },
        [&](ir::ValueId v) { return measured[static_cast<size_t>(v)]; });
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k)
      if (n.outputs[k] != ir::kNoValue)
        settle(n.outputs[k], std::move(outs[k]));
  }
  std::vector<Tensor> out;
  for (ir::ValueId v : g.outputs)
    out.push_back(g.isConstant(v) ? *g.value(v).constant : values[static_cast<size_t>(v)]);
  return out;
}

std::vector<ValueSensitivity> measureSensitivity(const QuantizedModel& model,
                                                 const std::vector<Tensor>& inputs) {
  const ir::Graph& g = model.graph;
  reference::Executor executor(g);
  const std::vector<Tensor> clean = executor.run(inputs);
  const std::vector<Tensor> cleanValues = executor.values();
  std::vector<ValueSensitivity> out;
  for (ir::ValueId v : measuredValues(model)) {
    ValueSensitivity s;
    s.value = v;
    s.name = g.value(v).name;
    const ir::NodeId producer = g.value(v).producer;
    s.op = producer >= 0 ? std::string(ir::opName(g.node(producer).op)) : "input";
    s.scale = model.scale(v);
    s.channelSpread = channelSpread(cleanValues[static_cast<size_t>(v)]);
    const std::vector<Tensor> changed =
        propagate(model, cleanValues, v,
                  fakeQuantize(cleanValues[static_cast<size_t>(v)], s.scale, model.zeroPoint(v),
                               s.clippedFraction));
    std::vector<Tensor> outputs;
    for (ir::ValueId y : g.outputs) {
      const auto i = static_cast<size_t>(y);
      outputs.push_back(changed[i].sizeBytes() > 0 ? changed[i] : cleanValues[i]);
    }
    std::tie(s.worstOutput, s.worstOutputName) = worstOutput(g, clean, outputs);
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ValueSensitivity& a, const ValueSensitivity& b) {
                     return a.worstOutput.cosineSimilarity < b.worstOutput.cosineSimilarity;
                   });
  return out;
}

std::vector<FallbackStep> measureFallback(const QuantizedModel& model,
                                          const std::vector<Tensor>& inputs,
                                          const std::vector<ValueSensitivity>& ranking,
                                          double targetCosine) {
  reference::Executor executor(model.graph);
  const std::vector<Tensor> clean = executor.run(inputs);
  std::vector<FallbackStep> steps;
  std::vector<ir::ValueId> kept;
  for (size_t k = 0;; k = k == 0 ? 1 : 2 * k) {
    k = std::min(k, ranking.size());
    while (kept.size() < k)
      kept.push_back(ranking[kept.size()].value);
    FallbackStep step;
    step.keptInFp32 = k;
    std::tie(step.worstOutput, step.worstOutputName) =
        worstOutput(model.graph, clean, runFakeQuantized(model, inputs, kept));
    steps.push_back(step);
    if (step.worstOutput.cosineSimilarity >= targetCosine || k == ranking.size())
      return steps;
  }
}

} // namespace nnaccel::quant
