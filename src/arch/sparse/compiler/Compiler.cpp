/// \file
/// The sparse engine's compiler (Compiler.h): walks the quantized graph in order, maps every
/// convolution-like node onto the Cartesian-product dataflow (planes, displacements, tiling,
/// Kc, compressed weight streams), pooling onto the post-processing units, views onto aliases,
/// and the rest onto the host. docs/arch/SparseCompiler.md describes each mapping.
#include "nnaccel/arch/sparse/Compiler.h"

#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/arch/common/Pooling.h"
#include "nnaccel/arch/sparse/Geometry.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <set>
#include <utility>

namespace nnaccel::arch::sparse {

namespace sp = formats;

sp::CodeTable weightCodeTable(const SparseConfig& c) {
  switch (c.weightCodes) {
  case WeightCodeTable::Fig4C:
    return sp::CodeTable::fig4cWeights();
  case WeightCodeTable::Fig5D:
    return sp::CodeTable::fig5d();
  case WeightCodeTable::Fig5E:
    return sp::CodeTable::fig5e();
  case WeightCodeTable::ZeroRunLength:
    break;
  }
  return sp::CodeTable::zeroRunLength(static_cast<int>(c.indexBits));
}

sp::CodeTable activationCodeTable(const SparseConfig& c) {
  switch (c.activationCodes) {
  case ActivationCodeTable::Fig4C:
    return sp::CodeTable::fig4cActivations();
  case ActivationCodeTable::Fig5A:
    return sp::CodeTable::fig5a();
  case ActivationCodeTable::Fig5B:
    return sp::CodeTable::fig5b();
  case ActivationCodeTable::Fig5C:
    return sp::CodeTable::fig5c();
  case ActivationCodeTable::ZeroRunLength:
    break;
  }
  return sp::CodeTable::zeroRunLength(static_cast<int>(c.indexBits));
}

namespace {

int64_t roundUpPow2(int64_t v) {
  int64_t p = 1;
  while (p < v)
    p <<= 1;
  return p;
}

} // namespace

sp::Frame weightFrame(const SparseConfig& c, int64_t extentX, int64_t extentY) {
  // Fig. 5D has only run and channel codes: r is rounded to a power of two so that r and s form
  // one running rs field (Fig. 4F); the channel change is a K code (no wrap into k).
  if (c.weightCodes == WeightCodeTable::Fig5D)
    return sp::Frame{roundUpPow2(extentX), extentY, true, false};
  return sp::Frame{extentX, extentY, true, true};
}

sp::Frame activationFrame(const SparseConfig& c, int64_t tileW, int64_t tileH) {
  // Tables with row (Y) codes move between rows with them; the others wrap x into y (Fig. 4G).
  const bool rowCodes = c.activationCodes == ActivationCodeTable::Fig5B ||
                        c.activationCodes == ActivationCodeTable::Fig5C;
  return sp::Frame{tileW, tileH, !rowCodes, false};
}

std::string_view layerKindName(LayerKind k) {
  switch (k) {
  case LayerKind::Conv:
    return "array";
  case LayerKind::Pool:
  case LayerKind::Elementwise:
    return "ppu";
  case LayerKind::Host:
    return "host";
  case LayerKind::View:
    return "view";
  }
  return "?";
}

namespace {

/// One axis of a convolution in the displacement form (Program.h).
///
/// A dilated axis (dilation D, stride st, g = gcd(st, D)) is split into R = D / g output phases
/// (docs/arch/SparseCompiler.md §2.3): output o = r + q * R reads input
/// o * st - pB + k * D = (r * st - pB + j * D) + (q + k / s) * R * st for tap k = j + s * (k / s),
/// s = st / g. So output phase r is an undilated convolution with taps k / s over a plane whose
/// pixel t is input (r * st - pB + j * D) + t * R * st; the accumulator plane lays the R phases
/// side by side with gap() cells between them (their halos), the input plane of tap class j
/// holds phase r's pixels t in [0, outputs(r) + gap()) at the same offset. R = 1 (no dilation,
/// or D dividing st) keeps the plain stride phases.
struct AxisConv {
  int64_t in = 1, out = 1, kernel = 1, stride = 1, dilation = 1, padBegin = 0;
  bool transposed = false;

  int64_t outPhases() const { return transposed ? 1 : dilation / std::gcd(stride, dilation); }
  bool phased() const { return outPhases() > 1; }
  /// Input planes per channel: the stride phases, or on a phased axis the tap classes.
  int64_t phases() const {
    if (transposed)
      return 1;
    return phased() ? stride / std::gcd(stride, dilation) : stride;
  }
  /// Cells between output phases: the reach of an output phase's undilated kernel.
  int64_t gap() const { return phased() ? ceilDiv(kernel, phases()) - 1 : 0; }
  /// Outputs o = r + q * outPhases() of output phase \p r.
  int64_t outputs(int64_t r) const { return r < out ? ceilDiv(out - r, outPhases()) : 0; }
  /// Calls f(r, first accumulator cell) for every non-empty output phase.
  template <typename F> void forEachOutputPhase(F f) const {
    int64_t at = 0;
    for (int64_t r = 0; r < outPhases() && outputs(r) > 0; ++r) {
      f(r, at);
      at += outputs(r) + gap();
    }
  }
  /// The accumulator plane's extent: the output, or the output phases with gaps between them.
  int64_t accSize() const { return out + (std::min(out, outPhases()) - 1) * gap(); }
  int64_t planeSize() const {
    if (transposed)
      return in;
    return phased() ? accSize() + gap() : (in + stride - 1) / stride;
  }
  int64_t scale() const { return transposed ? stride : 1; }
  /// The phase plane tap \p k reads.
  int64_t phaseOf(int64_t k) const {
    if (transposed)
      return 0;
    if (phased())
      return k % phases();
    const int64_t m = (k * dilation - padBegin) % stride;
    return m < 0 ? m + stride : m;
  }
  /// Output = plane coordinate * scale() + displacement(k).
  int64_t displacement(int64_t k) const {
    if (transposed)
      return k * dilation - padBegin;
    if (phased())
      return -(k / phases());
    return (phaseOf(k) + padBegin - k * dilation) / stride;
  }
  /// Accumulator-plane coordinate -> output coordinate (-1: a gap).
  std::vector<int32_t> outputMap() const {
    std::vector<int32_t> m(static_cast<size_t>(accSize()), -1);
    forEachOutputPhase([&](int64_t r, int64_t first) {
      for (int64_t q = 0; q < outputs(r); ++q)
        m[static_cast<size_t>(first + q)] = static_cast<int32_t>(r + q * outPhases());
    });
    return m;
  }
  /// Plane position [phase * planeSize() + u] -> input coordinate (-1: none).
  std::vector<int32_t> inputMap() const {
    const int64_t size = planeSize();
    std::vector<int32_t> m(static_cast<size_t>(phases() * size), -1);
    auto set = [&](int64_t at, int64_t i) {
      if (i >= 0 && i < in)
        m[static_cast<size_t>(at)] = static_cast<int32_t>(i);
    };
    for (int64_t j = 0; j < phases(); ++j) {
      if (!phased()) {
        for (int64_t u = 0; u < size; ++u)
          set(j * size + u, j + u * phases());
        continue;
      }
      forEachOutputPhase([&](int64_t r, int64_t first) {
        for (int64_t t = 0; t < outputs(r) + gap(); ++t)
          set(j * size + first + t,
              r * stride - padBegin + j * dilation + t * outPhases() * stride);
      });
    }
    return m;
  }
};

class Driver {
public:
  Driver(const quant::QuantizedModel& qm, const SparseConfig& config)
      : qm_(qm), g_(qm.graph), config_(config), weightTable_(weightCodeTable(config)) {
    program_.config = config;
    program_.model = g_.name;
  }

  Program run(const std::function<void(size_t, size_t)>& progress) {
    common::forEachLoweredNodeReporting(qm_, consumed_, progress,
                                        [&](ir::NodeId id) { lowerNode(id); });
    for (const Layer& l : program_.layers)
      for (const WeightGroup& wg : l.conv.groups)
        program_.weightBytes += (wg.streamBits + 7) / 8;
    return std::move(program_);
  }

private:
  Layer& beginLayer(ir::NodeId id, LayerKind kind) {
    return common::appendLayer(program_.layers, g_, id, kind);
  }

  void lowerHost(ir::NodeId id, std::string reason) {
    common::appendHostLayer(program_.layers, g_, id, std::move(reason));
  }

  void lowerNode(ir::NodeId id) {
    if (common::lowerSharedNode(qm_, id, program_.layers))
      return;
    const ir::OpKind op = g_.node(id).op;
    switch (qm_.node(id).kind) {
    case quant::QuantOpKind::Accumulate:
      if (op == ir::OpKind::Conv || op == ir::OpKind::ConvTranspose)
        return lowerConv(id);
      return lowerGemm(id);
    case quant::QuantOpKind::MaxPool:
    case quant::QuantOpKind::AveragePool:
      return lowerPool(id);
    default:
      return lowerElementwise(id);
    }
  }

  /// Element-wise and data-movement nodes on the post-processing units (seed 001: each PE's
  /// PPU applies non-linear functions and moves its own output tile); each PE takes the
  /// output tile of its position in the planar tiling. A MatMul of two computed tensors
  /// (attention) runs there too, one multiply-accumulate per PPU operation: the multiplier
  /// array reads weights only as the compressed Kc x R x S blocks the compiler encodes (seed
  /// 001, digest "Block granularity"), and no unit re-encodes a computed B into them at run time.
  void lowerElementwise(ir::NodeId id) {
    if (Layer* l = common::appendElementwiseLayer(qm_, id, program_.layers, "sparse"))
      l->ppuTiling = planeTiling(l->elementwise.outShape);
  }

  /// The pooling / post-processing tiling of an output of \p shape: its last two axes over
  /// the PE grid (a vector or a scalar on as many PEs as it has elements along them).
  Tiling planeTiling(const Dims& shape) const {
    const int64_t w = shape.empty() ? 1 : shape.back();
    const int64_t h = shape.size() < 2 ? 1 : shape[shape.size() - 2];
    return Tiling{Split{w, std::max<int64_t>(1, std::min(config_.peCols, w))},
                  Split{h, std::max<int64_t>(1, std::min(config_.peRows, h))}};
  }

  /// The fused Relu/Clip (a quant Clamp) applied by post-processing; marks it consumed.
  ir::ValueId fuseActivation(ir::NodeId id, Layer& l) {
    const std::optional<common::FusedClamp> f = common::fusedClamp(qm_, id);
    if (!f)
      return g_.node(id).outputs[0];
    l.conv.clampMin = f->clampMin;
    l.conv.clampMax = f->clampMax;
    consumed_.insert(f->node);
    l.op.append("+").append(f->opName);
    return f->output;
  }

  /// The max or average pooling that alone reads \p out (Conv layer \p l's output), fused into
  /// \p l's post-processing when the config asks for it (post_processing.fuse_pooling; seed 001
  /// ¶0082) and the output is the tensor's own plane (not a dilated layer's output phases nor a
  /// fully-connected row); marks it consumed. Returns the value the layer stores.
  ir::ValueId fusePool(ir::ValueId out, Layer& l) {
    ConvLayer& c = l.conv;
    const std::vector<ir::NodeId> users = g_.users(out);
    if (!config_.fusePooling || c.matrixLayout || c.phaseDecomposed() || users.size() != 1 ||
        g_.isOutput(out))
      return out;
    const ir::NodeId pid = users[0];
    const quant::QuantOpKind kind = qm_.node(pid).kind;
    if (kind != quant::QuantOpKind::MaxPool && kind != quant::QuantOpKind::AveragePool)
      return out;
    ir::PoolParams p = ir::poolParams(g_, pid);
    if (!common::poolObstacle(g_, pid, p, "").empty() || c.outTiling.x.size != p.inSpatial[1] ||
        c.outTiling.y.size != p.inSpatial[0])
      return out;
    p.batch = 1; // the array runs one image at a time
    FusedPool f;
    f.node = g_.node(pid).name;
    f.convOutput = out;
    f.pool.params = p;
    f.pool.countMultipliers = qm_.node(pid).countMultipliers;
    f.pool.zero = qm_.zeroPointsOf(pid);
    // The pooled output over the array's own grid: PE (px, py) owns pooled tile (px, py).
    f.pool.tiling = Tiling{Split{p.outSpatial[1], std::min(c.outTiling.x.parts, p.outSpatial[1])},
                           Split{p.outSpatial[0], std::min(c.outTiling.y.parts, p.outSpatial[0])}};
    const PoolTileWork work = poolTileWork(p, c.outTiling, f.pool.tiling);
    const bool reduction = f.pool.tiling.pes() == 1 && c.outTiling.pes() > 1;
    const Tiling& workGrid = reduction ? c.outTiling : f.pool.tiling;
    f.peOpsPerChannel.assign(static_cast<size_t>(c.inTiling.pes()), 0);
    for (int64_t py = 0; py < workGrid.y.parts; ++py)
      for (int64_t px = 0; px < workGrid.x.parts; ++px) {
        const auto w = static_cast<size_t>(py * workGrid.x.parts + px);
        f.peOpsPerChannel[static_cast<size_t>(py * c.inTiling.x.parts + px)] =
            work.windowOps[w] + work.haloValues[w];
      }
    f.windowOpsPerChannel = work.totalWindowOps();
    f.haloValuesPerChannel = work.totalHaloValues();
    c.fusedPool = std::move(f);
    consumed_.insert(pid);
    l.op.append("+").append(ir::opName(g_.node(pid).op));
    return g_.node(pid).outputs[0];
  }

  void lowerConv(ir::NodeId id) {
    const ir::ConvParams cp = ir::convParams(g_, id);
    if (cp.spatialRank > 2)
      return lowerHost(id, fmt::format("{}-D convolution (the PE grid tiles 1-D and 2-D planes)",
                                       cp.spatialRank));
    auto axis = [&](size_t i) {
      return AxisConv{cp.inSpatial[i], cp.outSpatial[i], cp.kernel[i], cp.strides[i],
                      cp.dilations[i], cp.padsBegin[i],  cp.transposed};
    };
    const AxisConv ay = cp.spatialRank == 2 ? axis(0) : AxisConv{};
    const AxisConv ax = cp.spatialRank == 2 ? axis(1) : axis(0);
    const int64_t cg = cp.inChannels / cp.group, mg = cp.outChannels / cp.group;
    const int8_t* w = qm_.node(id).weights.data<int8_t>();
    const bool tr = cp.transposed;
    const int64_t kh = ay.kernel, kw = ax.kernel;
    auto weight = [=](int64_t m, int64_t c, int64_t ky, int64_t kx) {
      const int64_t lead = tr ? (c * mg + m % mg) : (m * cg + c % cg);
      return w[(lead * kh + ky) * kw + kx];
    };
    lowerConvLike(id, ax, ay, cp.inChannels, cp.outChannels, cp.group, weight, false);
  }

  void lowerGemm(ir::NodeId id) {
    const common::FullyConnected fc = common::fullyConnected(qm_, id);
    // A fully-connected layer is a 1x1 convolution: A's rows are the pixels of a 1 x rows
    // plane, its columns the input channels (digest §8: FC maps poorly; it is honest here).
    auto weight = [fc](int64_t m, int64_t c, int64_t, int64_t) { return fc.weight(m, c); };
    AxisConv ax{fc.rows, fc.rows, 1, 1, 1, 0, false};
    lowerConvLike(id, ax, AxisConv{}, fc.reduction, fc.columns, 1, weight, true);
    program_.layers.back().conv.inputTransposed = fc.transposedInput;
  }

  /// Whether a layer runs as output-channel slices (pe_array.broadcast: activations; `auto`
  /// slices fully-connected layers only).
  bool wantsSlices(bool matrix) const {
    if (config_.peCount() < 2)
      return false;
    switch (config_.broadcast) {
    case Broadcast::Weights:
      return false;
    case Broadcast::Activations:
      return true;
    case Broadcast::Auto:
      break;
    }
    return matrix;
  }

  /// A layer's planar tiling, its PE frames and the output channels per group they allow.
  struct PlaneMapping {
    AxisTiles tx, ty;
    std::vector<PeFrame> frames;
    int64_t maxCells = 0; ///< the largest frame's accumulator cells
    int64_t kc = 0;       ///< < 1: the frame does not fit the accumulators
    bool inputHalos = false;
  };

  /// The plane tiled over the grid (with output or input halos, pe_array.halos), or
  /// (\p sliced) one frame every PE holds, with Kc at most the channels per PE.
  PlaneMapping mapPlane(const AxisMap& mx, const AxisMap& my, bool sliced,
                        int64_t outChannels) const {
    const bool inputHalos = !sliced && config_.halos == Halos::Input;
    const auto tiles = [&](const AxisMap& a, int64_t maxParts) {
      return inputHalos ? tileAxisInputHalos(a, std::min({maxParts, a.inSize, a.outSize}))
                        : chooseAxisTiles(a, sliced ? 1 : maxParts);
    };
    PlaneMapping m{tiles(mx, config_.peCols), tiles(my, config_.peRows), {}, 0, 0, inputHalos};
    m.frames = makeFrames(m.tx, m.ty);
    for (const PeFrame& f : m.frames)
      m.maxCells = std::max(m.maxCells,
                            config_.addressStride(f.width()) * config_.addressStride(f.height()));
    m.kc = std::min(outChannels, config_.accumulatorEntries() / m.maxCells);
    if (sliced && m.kc >= 1)
      m.kc = std::min(m.kc, ceilDiv(outChannels, config_.peCount()));
    return m;
  }

  /// The smallest and largest displacement of \p a's taps (structural: zero weights included,
  /// so frames follow the geometry, not the data).
  static std::pair<int64_t, int64_t> displacementRange(const AxisConv& a) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t k = 0; k < a.kernel; ++k) {
      lo = std::min(lo, a.displacement(k));
      hi = std::max(hi, a.displacement(k));
    }
    return {lo, hi};
  }

  /// The plane, accumulator-plane and output geometry of \p c with its coordinate maps.
  static void setPlanes(ConvLayer& c, const AxisConv& ax, const AxisConv& ay) {
    c.inH = ay.in;
    c.inW = ax.in;
    c.phasesX = ax.phases();
    c.phasesY = ay.phases();
    c.planeW = ax.planeSize();
    c.planeH = ay.planeSize();
    c.coordScaleX = ax.scale();
    c.coordScaleY = ay.scale();
    c.outW = ax.out;
    c.outH = ay.out;
    c.outPhasesX = ax.outPhases();
    c.outPhasesY = ay.outPhases();
    c.accW = ax.accSize();
    c.accH = ay.accSize();
    c.inputXOf = ax.inputMap();
    c.inputYOf = ay.inputMap();
    c.outputXOf = ax.outputMap();
    c.outputYOf = ay.outputMap();
  }

  /// The layer note of a mapped convolution: its planes and output phases.
  static std::string mappingNote(const ConvLayer& c) {
    if (c.matrixLayout)
      return "fully connected: a 1x1 convolution on a 1 x rows plane";
    std::string note;
    if (c.phasesX * c.phasesY > 1)
      note = fmt::format("{} {}x{}: {} phase planes per channel",
                         c.phaseDecomposed() ? "tap classes" : "stride", c.phasesY, c.phasesX,
                         c.phasesX * c.phasesY);
    if (c.phaseDecomposed())
      note += fmt::format("{}dilation: {}x{} output phases in a {}x{} accumulator plane",
                          note.empty() ? "" : "; ", c.outPhasesY, c.outPhasesX, c.accH, c.accW);
    return note;
  }

  template <typename WeightFn>
  void lowerConvLike(ir::NodeId id, const AxisConv& ax, const AxisConv& ay, int64_t inChannels,
                     int64_t outChannels, int64_t convGroups, WeightFn weight, bool matrix) {
    const auto [dxMin, dxMax] = displacementRange(ax);
    const auto [dyMin, dyMax] = displacementRange(ay);
    const AxisMap mx{ax.planeSize(), ax.accSize(), ax.scale(), dxMin, dxMax};
    const AxisMap my{ay.planeSize(), ay.accSize(), ay.scale(), dyMin, dyMax};
    // What the sequencer broadcasts (pe_array.broadcast, seed 001 ¶0048): weights to PEs that
    // tile the plane, or activations to PEs that each hold the whole plane and a slice of the
    // output channels (assignSlices), when the whole plane's frame fits the accumulators.
    bool sliced = wantsSlices(matrix);
    PlaneMapping map = mapPlane(mx, my, sliced, outChannels);
    const bool fellBack = sliced && map.kc < 1;
    if (fellBack) {
      sliced = false;
      map = mapPlane(mx, my, false, outChannels);
    }
    if (map.kc < 1)
      return lowerHost(id, fmt::format("a PE's accumulator frame of {} cells (tile + halos) "
                                       "exceeds the {} accumulator entries",
                                       map.maxCells, config_.accumulatorEntries()));
    const AxisTiles& tx = map.tx;
    const AxisTiles& ty = map.ty;
    std::vector<PeFrame> frames = std::move(map.frames);
    const int64_t kc = map.kc;

    Layer& l = beginLayer(id, LayerKind::Conv);
    ConvLayer& c = l.conv;
    setPlanes(c, ax, ay);
    c.inChannels = inChannels;
    c.outChannels = outChannels;
    c.dxMin = dxMin;
    c.dyMin = dyMin;
    c.extentX = dxMax - dxMin + 1;
    c.extentY = dyMax - dyMin + 1;
    c.inTiling = Tiling{tx.in, ty.in};
    c.outTiling = Tiling{tx.out, ty.out};
    c.frames = std::move(frames);
    c.kc = kc;
    c.inputHalos = map.inputHalos;
    c.convGroups = convGroups;
    c.matrixLayout = matrix;
    const quant::QuantNode& qn = qm_.node(id);
    for (int64_t m = 0; m < outChannels; ++m)
      c.post.push_back(ChannelPost{qn.bias.empty() ? 0 : qn.bias[static_cast<size_t>(m)],
                                   qn.multipliers[static_cast<size_t>(m)]});
    const quant::ZeroPoints z = qm_.zeroPointsOf(id);
    c.inputZero = z.in[0];
    c.outputZero = z.out;
    if (c.inputZero != 0 && config_.valueBits < 9)
      throw Error(ErrorKind::Config, ErrorContext{.key = "numerics.value_bits"},
                  fmt::format("node '{}' reads '{}' at zero point {}: its compressed values are "
                              "the differences q - z in [-255, 255], which need 9 value bits, "
                              "not {}",
                              g_.node(id).name, g_.value(g_.node(id).inputs[0]).name, c.inputZero,
                              config_.valueBits));
    const ir::ValueId out = fuseActivation(id, l);
    l.outputs = {sliced ? out : fusePool(out, l)};
    l.note = mappingNote(c);
    if (c.fusedPool)
      l.note += fmt::format("{}{} fused into post-processing", l.note.empty() ? "" : "; ",
                            c.fusedPool->node);
    if (fellBack)
      l.note +=
          fmt::format("{}weights broadcast: the whole plane's frame of {} cells exceeds "
                      "the {} accumulator entries (pe_array.broadcast: activations)",
                      l.note.empty() ? "" : "; ", mapPlane(mx, my, true, outChannels).maxCells,
                      config_.accumulatorEntries());

    // Dense taps per plane (the dense baseline) and the compressed weight streams.
    c.denseTapsPerPlane.assign(static_cast<size_t>(c.phasesX * c.phasesY), 0);
    for (int64_t ky = 0; ky < ay.kernel; ++ky)
      for (int64_t kx = 0; kx < ax.kernel; ++kx)
        ++c.denseTapsPerPlane[static_cast<size_t>(ay.phaseOf(ky) * c.phasesX + ax.phaseOf(kx))];
    const int64_t cg = inChannels / convGroups;
    c.denseWeights = outChannels * cg * ax.kernel * ay.kernel;
    // The weight FIFO must hold one input plane's vectors of a group (Table 4 rewinds to the
    // channel start for every activation vector): shrink Kc until every plane fits.
    const int64_t fifoEntries = config_.weightFifoEntries * config_.weightsPerVector;
    // Counting non-zeros (plus a bound on the pads) is cheap; encoding is not: pick Kc from
    // the counts, then encode (and shrink further in the rare case the bound was not enough).
    int64_t k = kc;
    for (int64_t bound = entryBound(c, k, ax, ay, weight); bound > fifoEntries && k > 1;
         bound = entryBound(c, k, ax, ay, weight))
      k = std::max<int64_t>(1, std::min(k - 1, k * fifoEntries / bound));
    for (;;) {
      const int64_t worst = encodeGroups(c, k, ax, ay, weight);
      if (worst <= fifoEntries) {
        c.kc = k;
        if (sliced)
          assignSlices(l);
        break;
      }
      if (k == 1) {
        program_.layers.pop_back();
        return lowerHost(id,
                         fmt::format("one output channel's weights on one input plane ({} "
                                     "entries) exceed the weight FIFO ({} vectors of {})",
                                     worst, config_.weightFifoEntries, config_.weightsPerVector));
      }
      k = std::max<int64_t>(1, std::min(k - 1, k * fifoEntries / worst));
    }
  }

  /// Output-channel slices, the activation broadcast of seed 001 ¶0048 (by default for
  /// fully-connected layers, SCNN paper section 4.3): the groups dealt to min(PEs, groups) PEs in
  /// contiguous, balanced runs. A weight of a fully-connected layer meets
  /// one activation per row, so broadcasting it to every PE's tile of the rows would leave all
  /// but the PEs holding rows idle (with batch 1, all but one): instead every PE holds the whole
  /// input and receives only its own groups' weights. At one row a PE's F x I array then forms
  /// F useful products per cycle, the paper's "4 multiplies per cycle".
  void assignSlices(Layer& l) const {
    ConvLayer& c = l.conv;
    const auto groups = static_cast<int64_t>(c.groups.size());
    const int64_t slices = std::min(config_.peCount(), groups);
    if (slices < 2)
      return;
    for (int64_t s = 0; s <= slices; ++s)
      c.sliceFirstGroup.push_back(s * groups / slices);
    const std::string planeNote = c.matrixLayout || l.note.empty() ? "" : "; " + l.note;
    l.note = c.matrixLayout
                 ? fmt::format("fully connected: {} output channels in {} slices of {} groups "
                               "of <= {}, one per PE, each PE holding all {} input row(s)",
                               c.outChannels, slices, ceilDiv(groups, slices), c.kc, c.inW)
                 : fmt::format("activations broadcast: {} output channels in {} slices of {} "
                               "groups of <= {}, one per PE, each PE holding the whole plane",
                               c.outChannels, slices, ceilDiv(groups, slices), c.kc) +
                       planeNote;
  }

  /// An upper bound on the entries of the fullest (group, plane) with groups of \p kc: its
  /// non-zeros plus one pad per longest codable run of positions in its span.
  template <typename WeightFn>
  int64_t entryBound(const ConvLayer& c, int64_t kc, const AxisConv& ax, const AxisConv& ay,
                     WeightFn weight) const {
    const int64_t cg = c.inChannels / c.convGroups, mg = c.outChannels / c.convGroups;
    int64_t maxRun = 0;
    for (size_t i = 0; i < weightTable_.size(); ++i)
      if (weightTable_[i].kind == sp::CodeKind::Run)
        maxRun = std::max<int64_t>(maxRun, weightTable_[i].n);
    const int64_t pads = ceilDiv(kc * c.extentX * c.extentY, maxRun + 1);
    std::vector<int64_t> count(static_cast<size_t>(c.planes()));
    int64_t worst = 0;
    for (int64_t first = 0; first < c.outChannels; first += kc) {
      std::fill(count.begin(), count.end(), 0);
      for (int64_t m = first; m < std::min(c.outChannels, first + kc); ++m) {
        const int64_t grp = m / mg;
        for (int64_t ci = 0; ci < cg; ++ci) {
          const int64_t ch = grp * cg + ci;
          for (int64_t ky = 0; ky < ay.kernel; ++ky)
            for (int64_t kx = 0; kx < ax.kernel; ++kx)
              if (weight(m, ch, ky, kx) != 0)
                ++count[static_cast<size_t>((ch * c.phasesY + ay.phaseOf(ky)) * c.phasesX +
                                            ax.phaseOf(kx))];
        }
      }
      for (int64_t n : count)
        worst = std::max(worst, n > 0 ? n + pads : 0);
    }
    return worst;
  }

  /// Encodes the weights in groups of \p kc output channels into \p c.groups; returns the
  /// largest number of entries (pads included) of one (group, plane).
  template <typename WeightFn>
  int64_t encodeGroups(ConvLayer& c, int64_t kc, const AxisConv& ax, const AxisConv& ay,
                       WeightFn weight) {
    c.groups.clear();
    c.nonZeroWeights = 0;
    int64_t worst = 0;
    const int64_t outChannels = c.outChannels, dxMin = c.dxMin, dyMin = c.dyMin;
    const int64_t cg = c.inChannels / c.convGroups, mg = c.outChannels / c.convGroups;
    const sp::Frame frame = weightFrame(config_, c.extentX, c.extentY);
    const int valueBits = static_cast<int>(config_.valueBits);
    for (int64_t first = 0; first < outChannels; first += kc) {
      WeightGroup wg;
      wg.firstChannel = first;
      wg.channels = std::min(kc, outChannels - first);
      // Collect (plane, position, value) for the group, then encode plane by plane.
      struct Item {
        int64_t plane;
        sp::Position pos;
        int32_t value;
      };
      std::vector<Item> items;
      for (int64_t kr = 0; kr < wg.channels; ++kr) {
        const int64_t m = first + kr;
        const int64_t grp = m / mg;
        for (int64_t ci = 0; ci < cg; ++ci) {
          const int64_t ch = grp * cg + ci;
          for (int64_t ky = 0; ky < ay.kernel; ++ky) {
            for (int64_t kx = 0; kx < ax.kernel; ++kx) {
              const int8_t v = weight(m, ch, ky, kx);
              if (v == 0)
                continue;
              const int64_t plane = (ch * c.phasesY + ay.phaseOf(ky)) * c.phasesX + ax.phaseOf(kx);
              items.push_back(Item{
                  plane, sp::Position{ax.displacement(kx) - dxMin, ay.displacement(ky) - dyMin, kr},
                  v});
            }
          }
        }
      }
      c.nonZeroWeights += static_cast<int64_t>(items.size());
      std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        return a.plane != b.plane ? a.plane < b.plane : sp::rasterLess(a.pos, b.pos);
      });
      std::vector<sp::Position> pos;
      std::vector<int32_t> val;
      int64_t bits = 16 * (wg.channels + 2); // tile header: K, k1..kK, C
      for (size_t i = 0; i < items.size();) {
        size_t j = i;
        pos.clear();
        val.clear();
        for (; j < items.size() && items[j].plane == items[i].plane; ++j) {
          pos.push_back(items[j].pos);
          val.push_back(items[j].value);
        }
        WeightGroup::Plane p;
        p.plane = items[i].plane;
        p.entries = sp::encodePositions(pos, val, weightTable_, frame);
        bits += 32 + static_cast<int64_t>(p.entries.size()) * (weightTable_.bits() + valueBits);
        worst = std::max(worst, static_cast<int64_t>(p.entries.size()));
        wg.planes.push_back(std::move(p));
        i = j;
      }
      wg.streamBits = bits;
      c.groups.push_back(std::move(wg));
    }
    return worst;
  }

  void lowerPool(ir::NodeId id) {
    const ir::PoolParams p = ir::poolParams(g_, id);
    const ir::Node& n = g_.node(id);
    if (const std::string why = common::poolObstacle(g_, id, p, "the PE grid tiles 2-D planes");
        !why.empty())
      return lowerHost(id, why);
    Layer& l = beginLayer(id, LayerKind::Pool);
    l.outputs = {n.outputs[0]};
    l.pool.params = p;
    l.pool.countMultipliers = qm_.node(id).countMultipliers;
    l.pool.zero = qm_.zeroPointsOf(id);
    l.pool.tiling = planeTiling(g_.value(n.outputs[0]).shape);
  }

  const quant::QuantizedModel& qm_;
  const ir::Graph& g_;
  const SparseConfig& config_;
  sp::CodeTable weightTable_;
  Program program_;
  std::set<ir::NodeId> consumed_;
};

} // namespace

Program compile(const quant::QuantizedModel& qm, const SparseConfig& config,
                const std::function<void(size_t, size_t)>& progress) {
  validate(config);
  return Driver(qm, config).run(progress);
}

} // namespace nnaccel::arch::sparse
