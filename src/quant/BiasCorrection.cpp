// Empirical bias correction: the fp32 reference and the int8 executor run node by node in
// lockstep over the calibration sets, and each integer layer's bias is shifted by its
// channels' mean error before the layers below read its output (see BiasCorrection.h).
#include "BiasCorrection.h"

#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnaccel::quant::detail {

namespace {

/// Per output channel: the sum of (dequantized int8 - fp32) and the number of elements.
struct ChannelError {
  std::vector<double> sum;
  std::vector<int64_t> count;
};

/// The output-channel axis of an Accumulate node's output: 1 for Conv, ConvTranspose and Gemm,
/// the last axis for MatMul.
size_t channelAxis(const ir::Graph& g, ir::NodeId id) {
  const ir::Node& n = g.node(id);
  return n.op == ir::OpKind::MatMul ? g.value(n.outputs[0]).shape.size() - 1 : 1;
}

/// Adds the error of \p q against \p y to \p e, for the elements whose fp32 value lies inside
/// the int8 code range of the output.
void addError(const Tensor& y, const QuantTensor& q, int32_t zero, size_t axis, ChannelError& e) {
  const Dims& shape = y.shape();
  const int64_t channels = shape[axis];
  int64_t inner = 1;
  for (size_t a = axis + 1; a < shape.size(); ++a)
    inner *= shape[a];
  const double s = q.scale;
  const double lo = (zero == 0 ? -kWeightMax - zero : kInt8Min - zero) * s;
  const double hi = (kInt8Max - zero) * s;
  const float* fy = y.data<float>();
  const int8_t* qy = q.data.data<int8_t>();
  for (int64_t i = 0; i < y.numElements(); ++i) {
    const auto c = static_cast<size_t>((i / inner) % channels);
    if (!(fy[i] > lo && fy[i] < hi))
      continue;
    e.sum[c] += (qy[i] - zero) * s - fy[i];
    ++e.count[c];
  }
}

/// The fp32 reference and the int8 executor over every calibration set, node by node. Values
/// are dropped after their last reader, so memory holds one layer's working set per set.
class LockstepRun {
public:
  LockstepRun(QuantizedModel& model, const std::vector<std::vector<Tensor>>& sets)
      : m_(model), g_(model.graph), fp32_(sets.size()), int8_(sets.size()),
        lastUse_(g_.numValues(), -1) {
    for (size_t i = 0; i < g_.numNodes(); ++i)
      for (ir::ValueId v : g_.node(static_cast<ir::NodeId>(i)).inputs)
        if (v != ir::kNoValue)
          lastUse_[static_cast<size_t>(v)] = static_cast<ir::NodeId>(i);
    for (size_t s = 0; s < sets.size(); ++s) {
      fp32_[s].resize(g_.numValues());
      int8_[s].resize(g_.numValues());
      for (size_t i = 0; i < g_.inputs.size(); ++i) {
        const ir::ValueId v = g_.inputs[i];
        fp32_[s][static_cast<size_t>(v)] = sets[s][i];
        int8_[s][static_cast<size_t>(v)] = g_.value(v).dtype == DType::F32 && m_.scale(v) > 0
                                               ? m_.quantizeInput(sets[s][i], v)
                                               : QuantTensor{sets[s][i], 0.0f};
      }
    }
  }

  int64_t run() {
    int64_t corrected = 0;
    for (size_t i = 0; i < g_.numNodes(); ++i) {
      const auto id = static_cast<ir::NodeId>(i);
      if (m_.node(id).kind == QuantOpKind::Folded)
        continue;
      for (size_t s = 0; s < fp32_.size(); ++s)
        evalFp32(s, id);
      evalInt8(id);
      if (isCorrectable(id)) {
        const int64_t changed = correct(id);
        if (changed > 0)
          evalInt8(id);
        corrected += changed;
      }
      release(id);
    }
    return corrected;
  }

private:
  void evalFp32(size_t s, ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    std::vector<const Tensor*> ins;
    for (ir::ValueId v : n.inputs)
      ins.push_back(v == ir::kNoValue  ? nullptr
                    : g_.isConstant(v) ? g_.value(v).constant.get()
                                       : &fp32_[s][static_cast<size_t>(v)]);
    std::vector<Tensor> outs = reference::evalNode(g_, id, ins);
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k)
      if (n.outputs[k] != ir::kNoValue)
        fp32_[s][static_cast<size_t>(n.outputs[k])] = std::move(outs[k]);
  }

  void evalInt8(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    for (size_t s = 0; s < int8_.size(); ++s) {
      std::vector<const QuantTensor*> args;
      for (ir::ValueId v : n.inputs)
        args.push_back(v == ir::kNoValue || g_.isConstant(v) ? nullptr
                                                             : &int8_[s][static_cast<size_t>(v)]);
      std::vector<QuantTensor> outs = evalQuantizedNode(m_, id, args);
      for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k)
        if (n.outputs[k] != ir::kNoValue)
          int8_[s][static_cast<size_t>(n.outputs[k])] = std::move(outs[k]);
    }
  }

  bool isCorrectable(ir::NodeId id) const {
    const QuantNode& q = m_.node(id);
    const ir::ValueId out = g_.node(id).outputs[0];
    return q.kind == QuantOpKind::Accumulate && !q.bias.empty() && m_.scale(out) > 0 &&
           g_.value(out).dtype == DType::F32;
  }

  /// Shifts node \p id's bias by its channels' mean error; returns the channels changed.
  int64_t correct(ir::NodeId id) {
    QuantNode& q = m_.nodes.at(static_cast<size_t>(id));
    const ir::Node& n = g_.node(id);
    const auto out = static_cast<size_t>(n.outputs[0]);
    const size_t axis = channelAxis(g_, id);
    ChannelError e{std::vector<double>(q.bias.size(), 0.0), std::vector<int64_t>(q.bias.size(), 0)};
    for (size_t s = 0; s < fp32_.size(); ++s)
      addError(fp32_[s][out], int8_[s][out], m_.zeroPoint(n.outputs[0]), axis, e);
    // Headroom as the quantizer keeps it: |bias| + K * 2 * 128 * 128 within int32.
    const int64_t limit =
        std::numeric_limits<int32_t>::max() - q.reductionLength * int64_t{2 * 128 * 128};
    const double sIn = m_.scale(n.inputs[0]);
    int64_t changed = 0;
    for (size_t c = 0; c < q.bias.size(); ++c) {
      if (e.count[c] == 0)
        continue;
      const double unit = sIn * static_cast<double>(q.weightScales[c]);
      const auto shift =
          static_cast<int64_t>(std::nearbyint(e.sum[c] / static_cast<double>(e.count[c]) / unit));
      if (shift == 0)
        continue;
      q.bias[c] = static_cast<int32_t>(std::clamp(q.bias[c] - shift, -limit, limit));
      ++changed;
    }
    return changed;
  }

  /// Drops the values whose last reader is node \p id, and node \p id's unread outputs.
  void release(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    std::vector<ir::ValueId> done;
    for (ir::ValueId v : n.inputs)
      if (v != ir::kNoValue && lastUse_[static_cast<size_t>(v)] == id)
        done.push_back(v);
    for (ir::ValueId v : n.outputs)
      if (v != ir::kNoValue && lastUse_[static_cast<size_t>(v)] < 0)
        done.push_back(v);
    for (ir::ValueId v : done)
      for (size_t s = 0; s < fp32_.size(); ++s) {
        fp32_[s][static_cast<size_t>(v)] = Tensor{};
        int8_[s][static_cast<size_t>(v)] = QuantTensor{};
      }
  }

  QuantizedModel& m_;
  const ir::Graph& g_;
  std::vector<std::vector<Tensor>> fp32_;
  std::vector<std::vector<QuantTensor>> int8_;
  std::vector<ir::NodeId> lastUse_;
};

} // namespace

int64_t correctBiases(QuantizedModel& model, const std::vector<std::vector<Tensor>>& inputSets) {
  return LockstepRun(model, inputSets).run();
}

} // namespace nnaccel::quant::detail
