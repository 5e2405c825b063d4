/// \file
/// Layer-output verification shared by every engine's session: an engine's tensor against the
/// reference executor's, bit for bit (integer paths) or within a relative tolerance (fp32),
/// with the first mismatching element named by its coordinates; and LayerVerifier, which
/// checks a run's layers one by one into the report's verdict.
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nnaccel::arch::common {

/// "[0,3,1,2]": the coordinates of flat index \p flat in \p shape (row-major).
std::string coordsOf(const Dims& shape, int64_t flat);

/// Compares one layer output; returns a description of the first mismatch, if any, and adds
/// the number of compared elements to \p compared. Integer tensors and \p exactBits compare
/// bits; fp32 passes when max|got - ref| <= relativeTolerance * max(max|ref|, 1e-30) over the
/// finite pairs, and every non-finite value meets the identical one (NaN with NaN, an infinity
/// with the same infinity: the NaN/Inf policy of docs/Quantization.md §2a).
std::optional<std::string> compareTensor(const Tensor& got, const Tensor& ref, bool exactBits,
                                         double relativeTolerance, int64_t& compared);

/// The verdict's reference for an int8 run checked against quant::Int8Executor.
inline constexpr std::string_view kInt8Reference = "int8 reference executor (bit-exact)";

/// Checks a run's layer outputs as the simulator finishes each layer, into a report::Verdict:
/// the first mismatch fails the verdict with "layer 3 'conv1' (Conv), output 'x': element ..."
/// and every later check is skipped. The verdict must outlive the verifier.
class LayerVerifier {
public:
  /// Sets \p verdict to checked = \p checked, passed, reference = \p reference. Comparisons are
  /// bit for bit when \p exactBits (and always for integer tensors), else fp32 within
  /// \p relativeTolerance (compareTensor).
  LayerVerifier(const ir::Graph& g, report::Verdict& verdict, bool checked,
                std::string_view reference = kInt8Reference, bool exactBits = true,
                double relativeTolerance = 0.0);

  /// True while checks are made: the verdict is checked and nothing has failed yet.
  bool active() const { return verdict_.checked && verdict_.passed; }

  /// Compares \p got, graph value \p v as layer \p layerIndex (named \p layerName, op \p op)
  /// produced it, with \p want; a mismatch fails the verdict. Returns active() afterwards.
  bool check(size_t layerIndex, std::string_view layerName, std::string_view op, ir::ValueId v,
             const Tensor& got, const Tensor& want);

  /// check() for every output value of program layer \p l (fields name, op, outputs): the
  /// value \p got(v) against \p want(v) (the reference executor's, or one the caller computes).
  template <typename Layer, typename Got, typename Want>
  bool checkOutputs(size_t layerIndex, const Layer& l, Got&& got, Want&& want) {
    for (ir::ValueId v : l.outputs)
      if (!active() || !check(layerIndex, l.name, l.op, v, got(v), want(v)))
        return false;
    return active();
  }

private:
  const ir::Graph& g_;
  report::Verdict& verdict_;
  bool exactBits_;
  double relativeTolerance_;
};

} // namespace nnaccel::arch::common
