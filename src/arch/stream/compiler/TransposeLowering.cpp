/// \file
/// ConvTranspose on the stream ASIC (Mapper.h) as its stride phases, with no zero inserted into
/// the input. Output s*m + r of a stride-s transposed convolution reads only inputs m + d for a
/// few offsets d, through the kernel taps k = (r + padBegin) mod s + s*j: every phase is an
/// ordinary "same"-size convolution of the input stream. The compiler gives all phases one
/// window (the union of their offsets; a phase's missing taps are zero weights), computes them
/// as one convolution on the kernel tiles whose output channels are the phases, and the
/// producing aux tile's output mux emits each position's phases as s_y x s_x output positions
/// (AuxFunction::DepthToSpace, on Expand's schedule). The patent has no transposed convolution;
/// this lowering is nnaccel's choice, documented in docs/arch/Stream.md ("Transposed
/// convolutions").
#include "Mapper.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::stream::detail {

namespace {

/// One spatial axis of a transposed convolution split into its stride phases.
struct PhaseAxis {
  int64_t stride = 1, kernel = 1, padBegin = 0;
  /// The union of the phases' input offsets, widened to hold 0 (the anchor).
  int64_t minOffset = 0, maxOffset = 0;

  int64_t window() const { return maxOffset - minOffset + 1; }
  int64_t anchor() const { return -minOffset; }
  /// The kernel index phase \p r applies at window cell \p cell, or -1 (a zero weight).
  int64_t tap(int64_t r, int64_t cell) const {
    const int64_t first = (r + padBegin) % stride, base = (r + padBegin) / stride;
    const int64_t j = base - (cell + minOffset);
    const int64_t k = first + stride * j;
    return j >= 0 && k < kernel ? k : -1;
  }
};

/// Output s*m + r reads input m + base - j through kernel tap first + s*j (from
/// o = i*s + k - padBegin), for every j with a tap inside the kernel.
PhaseAxis phaseAxis(int64_t stride, int64_t kernel, int64_t padBegin) {
  PhaseAxis a{stride, kernel, padBegin, 0, 0};
  for (int64_t r = 0; r < stride; ++r) {
    const int64_t first = (r + padBegin) % stride, base = (r + padBegin) / stride;
    for (int64_t j = 0; first + stride * j < kernel; ++j) {
      a.minOffset = std::min(a.minOffset, base - j);
      a.maxOffset = std::max(a.maxOffset, base - j);
    }
  }
  return a;
}

/// Where the phase convolution's output channel \p c sits: set c / (lanes T); within a set the
/// phases come in blocks of that set's share of the output channels (DCR order, what
/// DepthToSpace reads), so each set leaves as whole output channels.
struct PhaseChannel {
  int64_t phase = 0, channel = 0;
};
PhaseChannel phaseChannel(int64_t c, int64_t setChannels, int64_t phases, int64_t outChannels) {
  const int64_t perSet = setChannels / phases, set = c / setChannels, lane = c % setChannels;
  const int64_t here = std::min(perSet, outChannels - set * perSet);
  return {lane / here, set * perSet + lane % here};
}

} // namespace

void Mapper::lowerConvTranspose(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const ir::ConvParams cp = ir::convParams(g_, id);
  const ErrorContext where{.node = n.name, .op = "ConvTranspose"};
  if (cp.spatialRank != 2 || cp.batch != 1)
    throw Error(ErrorKind::Unsupported, where,
                fmt::format("{}-D transposed convolution with batch {}; the ASIC streams 2-D "
                            "frames",
                            cp.spatialRank, cp.batch));
  if (cp.dilations[0] != 1 || cp.dilations[1] != 1)
    throw Error(ErrorKind::Unsupported, where,
                fmt::format("dilation {}x{}; the stride phases are composed for dense kernels "
                            "only",
                            cp.dilations[0], cp.dilations[1]));
  for (int64_t a = 0; a < 2; ++a)
    if (cp.outSpatial[a] != cp.strides[a] * cp.inSpatial[a])
      throw Error(ErrorKind::Unsupported, where,
                  fmt::format("output {} is not stride {} x input {} on axis {}: the stride "
                              "phases leave one output per input position each",
                              cp.outSpatial[a], cp.strides[a], cp.inSpatial[a], a + 2));
  const Placed& in = at(n.inputs[0], n.outputs[0]);
  const int64_t P = in.format.cyclesPerPosition, sy = cp.strides[0], sx = cp.strides[1];
  const int64_t phases = sy * sx;
  if (P % phases != 0)
    throw Error(ErrorKind::Unsupported, where,
                fmt::format("stride {}x{} needs a multiple of {} cycles per input position (its "
                            "phases leave as {} output positions); the stream has {}. A faster "
                            "stream needs N-up output sets, which the ASIC's 1-up buses do not "
                            "carry",
                            sy, sx, phases, phases, P));
  const FrameShape f = in.format.frame;
  const int64_t T = formatFor(FrameShape{f.rows, f.cols, phases * cp.outChannels}, P).tm;
  const int64_t setChannels = c_.lanes * T;
  if (setChannels % phases != 0)
    throw Error(ErrorKind::Unsupported, where,
                fmt::format("stride {}x{}: a set of {} channels does not split into {} phases", sy,
                            sx, setChannels, phases));

  const PhaseAxis ay = phaseAxis(sy, cp.kernel[0], cp.padsBegin[0]);
  const PhaseAxis ax = phaseAxis(sx, cp.kernel[1], cp.padsBegin[1]);
  const quant::QuantNode& q = qm_.node(id);
  ConvSpec s;
  s.id = id;
  s.name = n.name;
  s.inChannels = cp.inChannels;
  s.outChannels = phases * cp.outChannels;
  s.kh = ay.window();
  s.kw = ax.window();
  s.anchorRow = s.padTop = ay.anchor();
  s.anchorCol = s.padLeft = ax.anchor();
  s.outH = f.rows;
  s.outW = f.cols;
  const int8_t* w = q.weights.data<int8_t>();
  const int64_t M = cp.outChannels, mg = M / cp.group, cg = cp.inChannels / cp.group;
  const int64_t kh = cp.kernel[0], kw = cp.kernel[1];
  s.weight = [=](int64_t c, int64_t cin, int64_t cy, int64_t cx) -> int8_t {
    const PhaseChannel pc = phaseChannel(c, setChannels, phases, M);
    const int64_t ky = ay.tap(pc.phase / sx, cy), kx = ax.tap(pc.phase % sx, cx);
    if (ky < 0 || kx < 0 || cin / cg != pc.channel / mg)
      return 0; // no tap of this phase, or another group's weights
    return w[((cin * mg + pc.channel % mg) * kh + ky) * kw + kx];
  };
  for (int64_t c = 0; c < s.outChannels; ++c) {
    const auto m = static_cast<size_t>(phaseChannel(c, setChannels, phases, M).channel);
    s.bias.push_back(q.bias[m]);
    s.multipliers.push_back(q.multipliers[m]);
  }
  s.clamp = common::fusedClamp(qm_, id);
  s.input = n.inputs[0];
  s.output = s.clamp ? s.clamp->output : n.outputs[0];
  if (s.clamp)
    consumed_.insert(s.clamp->node);
  mapConv(s);
  const size_t li = program_.layers.size() - 1;
  Layer& l = program_.layers[li];
  l.usefulMacs = cp.macs();
  NNACCEL_ASSERT(placed_.at(s.output).format.tm == T) << n.name << ": phase sets at T" << T;
  if (phases == 1)
    return;
  l.note = fmt::format("{} stride phases in a {}x{} window on the kernel tiles, then "
                       "depth to space",
                       phases, s.kh, s.kw);
  PatchWindow pw;
  pw.factorRows = sy;
  pw.factorCols = sx;
  pw.outRows = cp.outSpatial[0];
  pw.outCols = cp.outSpatial[1];
  Placed out = applyPatch(li, placed_.at(s.output), AuxFunction::DepthToSpace, pw, {}, true);
  program_.layers[li].out = out.format;
  program_.layers[li].outSets = out.sets;
  placed_[s.output] = std::move(out);
}

} // namespace nnaccel::arch::stream::detail
