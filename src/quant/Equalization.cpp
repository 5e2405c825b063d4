// Cross-layer channel equalization (Equalization.h): find producer/consumer groups, measure the
// producer's per-channel ranges on the calibration runs, rescale both sides.
#include "Equalization.h"

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace nnaccel::quant::detail {
namespace {

using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// One equalizable group: a convolution, the value the consumers read (its output, or the
/// output of a positively homogeneous activation of it), and the consumers.
struct Group {
  NodeId producer = -1;
  ValueId between = ir::kNoValue;
  std::vector<NodeId> consumers;
};

bool isGraphOutput(const ir::Graph& g, ValueId v) {
  return std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
}

/// A constant that only node \p id reads.
bool ownConstant(const ir::Graph& g, ValueId v, NodeId id) {
  if (v == ir::kNoValue || !g.isConstant(v) || g.value(v).dtype != DType::F32)
    return false;
  const std::vector<NodeId> users = g.users(v);
  return users.size() == 1 && users.front() == id;
}

/// A 2-D convolution with its own constant weights (and bias, if any).
bool ownsItsParameters(const ir::Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (n.op != OpKind::Conv || n.inputs.size() < 2 || !ownConstant(g, n.inputs[1], id) ||
      g.value(n.inputs[1]).shape.size() != 4)
    return false;
  return n.inputs.size() < 3 || n.inputs[2] == ir::kNoValue || ownConstant(g, n.inputs[2], id);
}

/// An activation f with f(x / s) = f(x) / s for every s > 0, channel by channel.
bool commutesWithScale(const ir::Node& n) {
  return n.op == OpKind::Relu || n.op == OpKind::LeakyRelu || n.op == OpKind::PRelu;
}

/// Every reader of \p v is a convolution reading it as its data input and owning its weights.
std::vector<NodeId> convConsumers(const ir::Graph& g, ValueId v) {
  std::vector<NodeId> users = g.users(v);
  if (users.empty() || isGraphOutput(g, v))
    return {};
  for (NodeId u : users) {
    const ir::Node& n = g.node(u);
    if (!ownsItsParameters(g, u) || n.inputs[0] != v ||
        std::count(n.inputs.begin(), n.inputs.end(), v) != 1)
      return {};
  }
  return users;
}

std::vector<Group> findGroups(const ir::Graph& g) {
  std::vector<Group> groups;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    if (!ownsItsParameters(g, id))
      continue;
    const ValueId out = g.node(id).outputs[0];
    const std::vector<NodeId> users = g.users(out);
    Group group{id, out, convConsumers(g, out)};
    if (group.consumers.empty() && users.size() == 1 && !isGraphOutput(g, out)) {
      const ir::Node& act = g.node(users.front());
      const bool slopeIsConstant =
          act.op != OpKind::PRelu || (act.inputs.size() == 2 && g.isConstant(act.inputs[1]));
      if (commutesWithScale(act) && act.inputs[0] == out && slopeIsConstant) {
        group.between = act.outputs[0];
        group.consumers = convConsumers(g, group.between);
      }
    }
    if (!group.consumers.empty())
      groups.push_back(std::move(group));
  }
  return groups;
}

/// Per channel of \p between ([N, C, ...]): max|x| over every run.
void widenChannelRanges(const Tensor& t, std::vector<float>& maxAbs) {
  const Dims& s = t.shape();
  const int64_t channels = s.size() >= 2 ? s[1] : 1;
  const int64_t inner = channels > 0 ? t.numElements() / (s[0] * channels) : 0;
  maxAbs.resize(static_cast<size_t>(channels), 0.0f);
  const float* x = t.data<float>();
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      float m = maxAbs[static_cast<size_t>(c)];
      const float* p = x + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i)
        m = std::max(m, std::fabs(p[i]));
      maxAbs[static_cast<size_t>(c)] = m;
    }
}

/// A writable copy of constant \p v.
Tensor copyOf(const ir::Graph& g, ValueId v) {
  return *g.value(v).constant;
}

/// One consumer's weights seen from the value it reads: per output channel m and input channel
/// c of m's group, the largest |w| and the sum of w^2 over the kernel taps.
struct ConsumerWeights {
  int64_t outChannels = 0, perGroupIn = 0, perGroupOut = 0, taps = 0;
  std::vector<float> maxAbs, sumSquares; ///< [m * perGroupIn + j]
  int64_t channel(int64_t m, int64_t j) const { return (m / perGroupOut) * perGroupIn + j; }
};

ConsumerWeights consumerWeights(const ir::Graph& g, NodeId id) {
  const ir::ConvParams p = ir::convParams(g, id);
  const Tensor& weights = *g.value(g.node(id).inputs[1]).constant;
  ConsumerWeights cw;
  cw.outChannels = p.outChannels;
  cw.perGroupIn = p.inChannels / p.group;
  cw.perGroupOut = p.outChannels / p.group;
  cw.taps = weights.numElements() / (p.outChannels * cw.perGroupIn);
  cw.maxAbs.assign(static_cast<size_t>(p.outChannels * cw.perGroupIn), 0.0f);
  cw.sumSquares.assign(cw.maxAbs.size(), 0.0f);
  const float* data = weights.data<float>();
  for (size_t k = 0; k < cw.maxAbs.size(); ++k)
    for (int64_t t = 0; t < cw.taps; ++t) {
      const float w = data[static_cast<int64_t>(k) * cw.taps + t];
      cw.maxAbs[k] = std::max(cw.maxAbs[k], std::fabs(w));
      cw.sumSquares[k] += w * w;
    }
  return cw;
}

/// The rounding noise that per-tensor int8 activations and per-output-channel int8 weights add
/// to the consumers' outputs, in units of (step / range)^2 / 12, when the producer's channel c
/// is divided by s[c]: per consumer output channel m, the activation step (max_c a_c / s_c)
/// times the rescaled weights it meets, plus m's weight step (max |w| s_c over its row) times
/// the rescaled activations it meets (a_c / s_c standing in for each activation's magnitude).
double roundingNoise(const std::vector<ConsumerWeights>& consumers, const std::vector<float>& a,
                     const std::vector<float>& s) {
  double widest = 0;
  for (size_t c = 0; c < a.size(); ++c)
    widest = std::max(widest, static_cast<double>(a[c]) / s[c]);
  double noise = 0;
  for (const ConsumerWeights& cw : consumers)
    for (int64_t m = 0; m < cw.outChannels; ++m) {
      double weighted = 0, rowMax = 0, activations = 0;
      for (int64_t j = 0; j < cw.perGroupIn; ++j) {
        const auto c = static_cast<size_t>(cw.channel(m, j));
        const auto k = static_cast<size_t>(m * cw.perGroupIn + j);
        weighted += static_cast<double>(cw.sumSquares[k]) * s[c] * s[c];
        rowMax = std::max(rowMax, static_cast<double>(cw.maxAbs[k]) * s[c]);
        const double x = static_cast<double>(a[c]) / s[c];
        activations += static_cast<double>(cw.taps) * x * x;
      }
      noise += widest * widest * weighted + rowMax * rowMax * activations;
    }
  return noise;
}

/// Divides the producer's output channel c (weights and bias) by s[c] and multiplies every
/// consumer's weights of input channel c by s[c].
void rescale(ir::Graph& g, const Group& group, const std::vector<float>& s) {
  const ir::Node& producer = g.node(group.producer);
  Tensor w1 = copyOf(g, producer.inputs[1]);
  const auto channels = static_cast<int64_t>(s.size());
  const int64_t perChannel = w1.numElements() / channels;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < perChannel; ++i)
      w1.data<float>()[c * perChannel + i] /= s[static_cast<size_t>(c)];
  g.value(producer.inputs[1]).constant = std::make_shared<const Tensor>(std::move(w1));
  if (producer.inputs.size() >= 3 && producer.inputs[2] != ir::kNoValue) {
    Tensor b = copyOf(g, producer.inputs[2]);
    for (int64_t c = 0; c < channels; ++c)
      b.data<float>()[c] /= s[static_cast<size_t>(c)];
    g.value(producer.inputs[2]).constant = std::make_shared<const Tensor>(std::move(b));
  }
  for (NodeId id : group.consumers) {
    const ir::ConvParams p = ir::convParams(g, id);
    const ValueId wv = g.node(id).inputs[1];
    Tensor w2 = copyOf(g, wv);
    const int64_t perGroupIn = p.inChannels / p.group, perGroupOut = p.outChannels / p.group;
    const int64_t taps = w2.numElements() / (p.outChannels * perGroupIn);
    for (int64_t m = 0; m < p.outChannels; ++m)
      for (int64_t j = 0; j < perGroupIn; ++j) {
        const float f = s[static_cast<size_t>((m / perGroupOut) * perGroupIn + j)];
        float* tap = w2.data<float>() + (m * perGroupIn + j) * taps;
        for (int64_t t = 0; t < taps; ++t)
          tap[t] *= f;
      }
    g.value(wv).constant = std::make_shared<const Tensor>(std::move(w2));
  }
}

/// Scales are kept within [1/kMaxScale, kMaxScale]: a channel that never fires (a_c = 0) or
/// that no consumer weighs (w_c = 0) keeps scale 1.
constexpr float kMaxScale = 1.0e4f;
/// The exponents tried (equalizeChannels).
constexpr double kAlphas[] = {0.25, 0.5, 0.75, 1.0};

} // namespace

int equalizeChannels(ir::Graph& g, const std::vector<std::vector<Tensor>>& inputSets) {
  const std::vector<Group> groups = findGroups(g);
  if (groups.empty())
    return 0;
  std::vector<std::vector<float>> ranges(groups.size());
  {
    reference::Executor executor(g); // its cached weights are the unscaled ones: run first
    for (const std::vector<Tensor>& inputs : inputSets) {
      executor.run(inputs);
      for (size_t i = 0; i < groups.size(); ++i)
        widenChannelRanges(executor.values()[static_cast<size_t>(groups[i].between)], ranges[i]);
    }
  }
  int applied = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::vector<float>& a = ranges[i];
    std::vector<ConsumerWeights> consumers;
    for (NodeId id : groups[i].consumers)
      consumers.push_back(consumerWeights(g, id));
    std::vector<float> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    const float median = sorted[sorted.size() / 2];
    if (median <= 0.0f)
      continue;
    // Candidates: s_c = (a_c / median)^alpha, from no rescaling (alpha 0) to activations of one
    // width (alpha 1); the one with the least rounding noise wins, and none when alpha 0 does.
    const std::vector<float> none(a.size(), 1.0f);
    double best = roundingNoise(consumers, a, none);
    std::vector<float> chosen;
    for (double alpha : kAlphas) {
      std::vector<float> s(a.size(), 1.0f);
      for (size_t c = 0; c < a.size(); ++c)
        if (a[c] > 0.0f)
          s[c] = std::clamp(static_cast<float>(std::pow(a[c] / median, alpha)), 1.0f / kMaxScale,
                            kMaxScale);
      const double noise = roundingNoise(consumers, a, s);
      if (noise < best) {
        best = noise;
        chosen = std::move(s);
      }
    }
    if (chosen.empty())
      continue;
    rescale(g, groups[i], chosen);
    ++applied;
  }
  return applied;
}

} // namespace nnaccel::quant::detail
