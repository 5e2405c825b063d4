/// \file
/// The broadcast engine's compiler (Compiler.h): walks the quantized graph in order, maps every
/// convolution-like node onto 1xN kernel vectors (the kernel decomposing module: N, dummy
/// columns or transpose, weight operands with bitmaps; the tensor decomposing module's geometry
/// and tiling), views onto aliases and the rest onto the host, then plans the memory hierarchy
/// (MemoryPlan.h). docs/arch/BroadcastCompiler.md describes each choice.
#include "nnaccel/arch/broadcast/Compiler.h"

#include "nnaccel/arch/broadcast/MemoryPlan.h"
#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/arch/common/Pooling.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace nnaccel::arch::broadcast {

std::string_view layerKindName(LayerKind k) {
  switch (k) {
  case LayerKind::Conv:
  case LayerKind::Pool:
  case LayerKind::Elementwise:
    return "array";
  case LayerKind::Host:
    return "host";
  case LayerKind::View:
    return "view";
  }
  return "?";
}

int64_t ConvLayer::weightBytes() const {
  int64_t bytes = 0;
  for (const WeightOperand& w : weights)
    bytes +=
        static_cast<int64_t>(w.values.size()) + ceilDiv(static_cast<int64_t>(w.bitmap.size()), 8);
  return bytes;
}

int64_t Layer::weightBytes() const {
  if (kind != LayerKind::Conv)
    return 0;
  if (phases.empty())
    return conv.weightBytes();
  int64_t bytes = 0;
  for (const ConvLayer& p : phases)
    bytes += p.weightBytes();
  return bytes;
}

namespace {

/// Bytes of one weight segment slice in memory 310 and in a weight RF: N x channels int8
/// values plus their sparsity-bitmap bits.
int64_t segmentBytes(int64_t taps, int64_t channels, int64_t filters) {
  return filters * (taps * channels + ceilDiv(taps * channels, 8));
}

/// Operands per pass and their stride in stream positions for a dilated / strided x axis.
struct XClasses {
  int64_t classes = 1, stride = 1;
};
XClasses xClassesOf(const ConvAxes& a) {
  const int64_t g = std::gcd(a.strideX, a.dilationX);
  return XClasses{a.dilationX / g, a.strideX / g};
}

/// Output points of class \p cls (ox = cls + i * classes).
int64_t classOperands(int64_t outW, int64_t classes, int64_t cls) {
  return cls < outW ? ceilDiv(outW - cls, classes) : 0;
}

/// The tiling of one decomposition: the largest channel chunk the input RF takes, then the
/// filter block and operand block that minimize the memory bytes the layer reads, within the
/// weight and output register files and the column buffer. One image's; batchImagesOf adds how
/// many images of a batch share each weight slice.
Tiling chooseTiling(const ConvLayer& c, const Decomposition& d, bool broadcast,
                    const BroadcastConfig& config) {
  Tiling t;
  t.decomposition = d;
  t.broadcast = broadcast;
  const XClasses xc = xClassesOf(c.axes);
  t.xClasses = xc.classes;
  t.classStride = xc.stride;
  const int64_t n = d.vectorWidth;
  const int64_t buffers = config.inputRfPolicy == RfPolicy::DoubleBuffer ? 2 : 1;
  const int64_t sumsPerPe = config.outputRfBytes / 4;
  const int64_t channels = c.depthwise ? c.inChannels : c.channelsPerGroup();
  int64_t chunk = std::min(channels, config.inputRfBytes / (n * buffers));
  // A depthwise chunk is also the operand's outputs (one partial sum per channel): a smaller
  // chunk lets more operands share each read; one lane's width keeps every read a full lane.
  if (c.depthwise)
    chunk = std::min({chunk, sumsPerPe, std::max<int64_t>(1, config.laneBytes)});
  chunk = std::min(chunk, config.weightRfBytes / segmentBytes(n, 1, 1));
  NNACCEL_ASSERT(chunk >= 1) << "validated config cannot hold one activation";
  chunk = ceilDiv(channels, ceilDiv(channels, chunk)); // equal chunks: 64 -> 32 + 32, not 42 + 22
  t.channelChunk = chunk;
  const int64_t filters = c.depthwise ? 1 : c.filtersPerGroup();
  const int64_t maxFilters =
      c.depthwise ? 1
                  : std::min({filters, config.weightRfBytes / segmentBytes(n, chunk, 1), sumsPerPe,
                              config.columnBufferBytes / 4});
  const int64_t widest = classOperands(c.axes.outW, t.xClasses, 0);
  const int64_t sumsPerOperand = c.depthwise ? chunk : 1;
  double bestBytes = -1;
  for (int64_t kb = 1; kb <= std::max<int64_t>(1, maxFilters); ++kb) {
    const int64_t perPe = sumsPerPe / (kb * sumsPerOperand);
    const int64_t outBytesPerOperand = kb * sumsPerOperand * 4;
    const int64_t kx =
        std::min({widest, perPe * config.groupSize,
                  std::max<int64_t>(1, config.columnBufferBytes / outBytesPerOperand)});
    if (kx < 1)
      break;
    // Activation bytes per output row ~ positions per pass x chunks x filter blocks; weight
    // bytes ~ operand blocks x filters x segment slices.
    const double blocksX = static_cast<double>(ceilDiv(widest, kx));
    const double positions =
        broadcast ? static_cast<double>((kx - 1) * t.classStride + n) : static_cast<double>(kx * n);
    const double act = positions * blocksX * static_cast<double>(ceilDiv(filters, kb)) *
                       static_cast<double>(channels);
    const double wts = blocksX * static_cast<double>(filters) * static_cast<double>(n) *
                       static_cast<double>(channels) * 9.0 / 8.0;
    if (bestBytes < 0 || act + wts < bestBytes) {
      bestBytes = act + wts;
      t.filterBlock = kb;
      t.operandBlock = kx;
    }
  }
  return t;
}

/// Partial sums one operand of \p t keeps: its filters, or a depthwise chunk's channels.
int64_t sumsPerOperandOf(const ConvLayer& c, const Tiling& t) {
  return c.depthwise ? t.channelChunk : t.filterBlock;
}

/// The images of a batch of \p batch whose rows one loaded weight slice of \p t serves
/// (docs/arch/BroadcastCompiler.md §5 "Batches"): as many as the busiest PE's output RF holds
/// the sums of (ceil(operandBlock / P) operands each) and the column buffer holds an item's sums
/// of, the bounds the operand block obeys for one image. The blocks stay one image's.
int64_t batchImagesOf(const ConvLayer& c, const Tiling& t, int64_t batch,
                      const BroadcastConfig& config) {
  const int64_t sums = sumsPerOperandOf(c, t);
  const int64_t sumsPerPePerImage = ceilDiv(t.operandBlock, config.groupSize) * sums;
  const int64_t byOutputRf = config.outputRfBytes / 4 / sumsPerPePerImage;
  const int64_t byColumnBuffer = config.columnBufferBytes / (4 * t.operandBlock * sums);
  return std::clamp<int64_t>(std::min(byOutputRf, byColumnBuffer), 1, std::max<int64_t>(1, batch));
}

} // namespace

Estimate estimate(const ConvLayer& c, const Tiling& t, const BroadcastConfig& config) {
  const Decomposition& d = t.decomposition;
  const int64_t n = d.vectorWidth;
  const int64_t channels = c.depthwise ? c.inChannels : c.channelsPerGroup();
  const int64_t chunks = c.depthwise ? 1 : ceilDiv(channels, t.channelChunk);
  const int64_t channelBlocks = c.depthwise ? ceilDiv(channels, t.channelChunk) : 1;
  const int64_t filterBlocks =
      c.depthwise ? 1 : ceilDiv(c.filtersPerGroup(), t.filterBlock) * c.convGroups;
  const int64_t operandBlocks =
      ceilDiv(ceilDiv(c.axes.outW, t.xClasses), t.operandBlock) * t.xClasses;
  const int64_t items = c.axes.outH * operandBlocks * filterBlocks * channelBlocks;
  const int64_t passes = d.segments() * chunks;
  const double density =
      config.skipZeroWeights && c.denseWeights > 0
          ? static_cast<double>(c.nonZeroWeights) / static_cast<double>(c.denseWeights)
          : 1.0;
  const int64_t kx = t.operandBlock;
  // Dummy columns are bitmap-cleared: they take no MAC slot.
  const double real = static_cast<double>(d.width) / static_cast<double>(d.expandedWidth);
  // The lanes reduce into one output per cycle: a filter's N x chunk products, or a depthwise
  // channel's N products.
  const double lanesPerPe = static_cast<double>(config.macLanesPerPe);
  const double perOutput =
      static_cast<double>(c.depthwise ? n : n * t.channelChunk) * density * real / lanesPerPe;
  const double macCycles = static_cast<double>(ceilDiv(kx, config.groupSize)) *
                           static_cast<double>(c.depthwise ? t.channelChunk : t.filterBlock) *
                           std::max(1.0, std::ceil(perOutput));
  const int64_t lanes = config.lanesPerGroup();
  const int64_t readsPerPass = t.broadcast ? (kx - 1) * t.classStride + n : kx * n;
  const double readCycles =
      static_cast<double>(readsPerPass * ceilDiv(t.channelChunk, config.laneBytes)) /
      static_cast<double>(std::min(lanes, config.readsPerCycle));
  // A weight slice serves t.batchImages images: per image, its share.
  const int64_t sliceBytes = segmentBytes(n, t.channelChunk, c.depthwise ? 1 : t.filterBlock);
  const double images = static_cast<double>(std::max<int64_t>(1, t.batchImages));
  const double weightCycles =
      static_cast<double>(sliceBytes) / static_cast<double>(lanes * config.laneBytes) / images;
  const double pass = std::max(macCycles, readCycles + weightCycles);
  Estimate e;
  e.cycles = static_cast<int64_t>(
      std::ceil(static_cast<double>(items * passes) * pass / static_cast<double>(config.groups())));
  e.memoryReadBytes =
      items * passes *
      (readsPerPass * t.channelChunk + ceilDiv(sliceBytes, std::max<int64_t>(1, t.batchImages)));
  return e;
}

int64_t estimateCycles(const ConvLayer& c, const Tiling& t, const BroadcastConfig& config) {
  return estimate(c, t, config).cycles;
}

namespace {

class Driver {
public:
  Driver(const quant::QuantizedModel& qm, const BroadcastConfig& config)
      : qm_(qm), g_(qm.graph), config_(config) {
    program_.config = config;
    program_.model = g_.name;
    for (const auto& [name, n] : config.layerVectorWidths)
      overrides_.emplace(name, n);
  }

  Program run(const std::function<void(size_t, size_t)>& progress) {
    common::forEachLoweredNodeReporting(qm_, consumed_, progress,
                                        [&](ir::NodeId id) { lowerNode(id); });
    for (const auto& [name, n] : overrides_)
      if (!seen_.count(name))
        throw Error(ErrorKind::Config, ErrorContext{.key = "decomposition.layers." + name},
                    fmt::format("no layer named '{}' in model '{}'", name, g_.name));
    for (const Layer& l : program_.layers)
      program_.weightBytes += l.weightBytes();
    planMemory(program_, g_);
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
    const ir::Node& n = g_.node(id);
    seen_.insert(n.name);
    if (common::lowerSharedNode(qm_, id, program_.layers))
      return;
    const quant::QuantOpKind kind = qm_.node(id).kind;
    if (kind == quant::QuantOpKind::MaxPool || kind == quant::QuantOpKind::AveragePool)
      return lowerPool(id);
    if (kind != quant::QuantOpKind::Accumulate)
      return lowerElementwise(id);
    if (n.op == ir::OpKind::ConvTranspose)
      return lowerConvTranspose(id);
    if (n.op == ir::OpKind::Conv)
      return lowerConv(id);
    lowerGemm(id);
  }

  /// Element-wise and data-movement nodes on the PE array (¶0058: the PEs also run the
  /// network's element-wise work), reading and writing the global buffer or memory 310. A
  /// MatMul of two computed tensors (attention) runs there too, one multiply-accumulate per
  /// lane operation with both operands read from where they live: the 1xN weight operands
  /// (Decompose.h) are built by the compiler, so a computed B cannot take the broadcast path.
  void lowerElementwise(ir::NodeId id) {
    common::appendElementwiseLayer(qm_, id, program_.layers, "broadcast");
  }

  /// Pooling on the PE array (¶0058), 2-D and batch 1 like the convolutions.
  void lowerPool(ir::NodeId id) {
    const ir::PoolParams p = ir::poolParams(g_, id);
    const ir::Node& n = g_.node(id);
    if (const std::string why =
            common::poolObstacle(g_, id, p, "kernel vectors run along 2-D rows");
        !why.empty())
      return lowerHost(id, why);
    Layer& l = beginLayer(id, LayerKind::Pool);
    l.outputs = {n.outputs[0]};
    l.pool.params = p;
    l.pool.countMultipliers = qm_.node(id).countMultipliers;
    l.pool.zero = qm_.zeroPointsOf(id);
  }

  void lowerConv(ir::NodeId id) {
    const ir::ConvParams cp = ir::convParams(g_, id);
    if (cp.spatialRank > 2)
      return lowerHost(id, fmt::format("{}-D convolution (kernel vectors run along 1-D and "
                                       "2-D rows)",
                                       cp.spatialRank));
    const bool twoD = cp.spatialRank == 2;
    const int64_t kh = twoD ? cp.kernel[0] : 1, kw = cp.kernel[twoD ? 1 : 0];
    ConvAxes a;
    const size_t x = twoD ? 1 : 0;
    a.inW = cp.inSpatial[x];
    a.outW = cp.outSpatial[x];
    a.strideX = cp.strides[x];
    a.dilationX = cp.dilations[x];
    a.padLeft = cp.padsBegin[x];
    if (twoD) {
      a.inH = cp.inSpatial[0];
      a.outH = cp.outSpatial[0];
      a.strideY = cp.strides[0];
      a.dilationY = cp.dilations[0];
      a.padTop = cp.padsBegin[0];
    }
    const bool depthwise = cp.isDepthwise() && cp.outChannels == cp.inChannels;
    const int64_t cg = cp.inChannels / cp.group;
    const int8_t* w = qm_.node(id).weights.data<int8_t>();
    // ONNX Conv weights [M, C/g, kh, kw] as weight(m, channel in group, ky, kx); depthwise: one
    // operand whose channel c is filter c's only channel.
    auto weight = [=](int64_t m, int64_t c, int64_t ky, int64_t kx) {
      return w[((m * cg + c) * kh + ky) * kw + kx];
    };
    lowerConvLike(id, a, kh, kw, cp.inChannels, cp.outChannels, depthwise ? 1 : cp.group, depthwise,
                  false, weight);
  }

  void lowerGemm(ir::NodeId id) {
    const common::FullyConnected fc = common::fullyConnected(qm_, id);
    // A fully-connected layer is a 1x1 convolution whose rows of A are the output points of a
    // 1 x rows plane and whose columns are the input channels: the conventional decomposition.
    ConvAxes a;
    a.inW = fc.rows;
    a.outW = fc.rows;
    auto weight = [fc](int64_t m, int64_t c, int64_t, int64_t) { return fc.weight(m, c); };
    lowerConvLike(id, a, 1, 1, fc.reduction, fc.columns, 1, false, true, weight);
    program_.layers.back().conv.inputTransposed = fc.transposedInput;
  }

  /// N for a layer: its override, the config's (clipped to the kernel), or the estimate's best.
  std::vector<int64_t> candidateWidths(const std::string& name, int64_t kh, int64_t kw) const {
    if (auto it = overrides_.find(name); it != overrides_.end())
      return {it->second};
    if (kh * kw == 1)
      return {1};
    const int64_t longest = std::max(kh, kw);
    if (config_.vectorWidth > 0)
      return {std::min(config_.vectorWidth, longest)};
    std::vector<int64_t> widths{1};
    for (int64_t n = 2; n <= std::min(longest, config_.groupSize); ++n)
      widths.push_back(n);
    return widths;
  }

  template <typename WeightFn>
  void lowerConvLike(ir::NodeId id, const ConvAxes& original, int64_t kh, int64_t kw,
                     int64_t inChannels, int64_t outChannels, int64_t convGroups, bool depthwise,
                     bool matrix, WeightFn weight) {
    const bool overridden = overrides_.count(g_.node(id).name) > 0;
    ConvLayer c = buildConv(id, original, kh, kw, inChannels, outChannels, convGroups, depthwise,
                            matrix, weight);
    c.usefulMacs =
        matrix ? original.outW * inChannels * outChannels : ir::convParams(g_, id).macs();
    Layer& l = beginLayer(id, LayerKind::Conv);
    l.note = describe(c, kh, kw, overridden);
    l.conv = std::move(c);
    finishConvLayer(id, l);
  }

  /// The output clamp a fused Relu/Clip adds (marked consumed), and the layer's output.
  void finishConvLayer(ir::NodeId id, Layer& l) {
    if (const auto f = common::fusedClamp(qm_, id)) {
      for (ConvLayer* c : convsOf(l)) {
        c->clampMin = f->clampMin;
        c->clampMax = f->clampMax;
      }
      consumed_.insert(f->node);
      l.op.append("+").append(f->opName);
      l.outputs = {f->output};
    } else {
      l.outputs = {g_.node(id).outputs[0]};
    }
    noteBatch(l);
  }

  /// Images of node \p id's batch (a Gemm's rows are its operands: one "image").
  int64_t batchOf(ir::NodeId id, bool matrix) const {
    return matrix ? 1 : g_.value(g_.node(id).inputs.at(0)).shape.at(0);
  }

  /// A batch's layer note: how many images share each weight slice (batchImagesOf), or why
  /// each image loads its own.
  void noteBatch(Layer& l) const {
    const int64_t batch = batchOf(l.node, l.conv.matrixLayout);
    if (batch <= 1)
      return;
    const Tiling& t = l.conv.tiling;
    const std::string perImage =
        fmt::format("{} operands x {} {}", t.operandBlock, sumsPerOperandOf(l.conv, t),
                    l.conv.depthwise ? "channels" : "filters");
    if (t.batchImages >= batch)
      l.note.append(fmt::format("; batch {}: each weight slice serves every image", batch));
    else if (t.batchImages > 1)
      l.note.append(fmt::format("; batch {}: each weight slice serves {} images (the output RFs "
                                "hold {} images' sums of {})",
                                batch, t.batchImages, t.batchImages, perImage));
    else
      l.note.append(fmt::format(
          "; batch {}: weights loaded for every image (one image's sums of "
          "{} leave no room for a second image's in the output RFs or the column buffer)",
          batch, perImage));
  }

  static std::vector<ConvLayer*> convsOf(Layer& l) {
    std::vector<ConvLayer*> all{&l.conv};
    for (ConvLayer& p : l.phases)
      all.push_back(&p);
    return all;
  }

  /// One axis of a ConvTranspose and the stride phases of its outputs.
  struct TransposeAxis {
    int64_t in = 1, out = 1, stride = 1, pad = 0, kernel = 1, dilation = 1;
  };
  /// Outputs o = s*j + r of a phase take the taps k with d*k = r + p (mod s): k = k0 + s'*t for
  /// s' = s/gcd(s, d), each reading input j + c0 - d'*t (c0 = (r + p - d*k0)/s, d' = d/gcd(s, d)).
  /// Taken in reverse order they are a correlation of `taps` taps at dilation d'.
  struct TransposePhase {
    int64_t k0 = 0, tapStep = 1, dilation = 1, taps = 0, pad = 0, out = 0;
  };
  static TransposePhase transposePhase(const TransposeAxis& a, int64_t r) {
    const int64_t g = std::gcd(a.stride, a.dilation);
    TransposePhase ph;
    ph.tapStep = a.stride / g;
    ph.dilation = a.dilation / g;
    ph.out = ceilDiv(a.out - r, a.stride);
    ph.k0 = -1;
    for (int64_t k = 0; k < ph.tapStep && k < a.kernel; ++k)
      if ((r + a.pad - a.dilation * k) % a.stride == 0) {
        ph.k0 = k;
        break;
      }
    if (ph.k0 < 0) // no tap reaches these outputs: they are the bias alone
      return ph;
    ph.taps = ceilDiv(a.kernel - ph.k0, ph.tapStep);
    const int64_t c0 = (r + a.pad - a.dilation * ph.k0) / a.stride;
    ph.pad = (ph.taps - 1) * ph.dilation - c0;
    return ph;
  }

  /// A ConvTranspose as one stride-1 convolution per output stride phase (docs/arch/
  /// Broadcast.md, transposePhase), dilated or not. A phase that no tap reaches (a kernel
  /// smaller than the stride, or a dilation sharing a factor with it) is one zero-weight tap:
  /// its outputs are the requantized bias, written by the same post-processing.
  void lowerConvTranspose(ir::NodeId id) {
    const ir::ConvParams cp = ir::convParams(g_, id);
    if (cp.spatialRank > 2)
      return lowerHost(id, fmt::format("{}-D transposed convolution (kernel vectors run along "
                                       "1-D and 2-D rows)",
                                       cp.spatialRank));
    const bool twoD = cp.spatialRank == 2;
    auto axis = [&](size_t a) {
      return TransposeAxis{cp.inSpatial[a], cp.outSpatial[a], cp.strides[a],
                           cp.padsBegin[a], cp.kernel[a],     cp.dilations[a]};
    };
    const TransposeAxis ay = twoD ? axis(0) : TransposeAxis{}, ax = axis(twoD ? 1 : 0);
    const int8_t* w = qm_.node(id).weights.data<int8_t>(); // [C, M/group, kh, kw]
    const int64_t kh = ay.kernel, kw = ax.kernel, m = cp.outChannels;
    // Grouped: output channel mo reads input channel c of its group, weight [C][mo % (M/g)];
    // one input and one output channel per group is the depthwise operand of a Conv.
    const int64_t groups = cp.group, cg = cp.inChannels / groups, mg = m / groups;
    const bool depthwise = groups > 1 && cg == 1 && mg == 1;
    Layer& l = beginLayer(id, LayerKind::Conv);
    int64_t tapsY = 0, tapsX = 0, firstTapsY = 0, firstTapsX = 0;
    for (int64_t ry = 0; ry < ay.stride; ++ry)
      for (int64_t rx = 0; rx < ax.stride; ++rx) {
        const TransposePhase py = transposePhase(ay, ry), px = transposePhase(ax, rx);
        if (py.out <= 0 || px.out <= 0)
          continue;
        const bool biasOnly = py.taps == 0 || px.taps == 0;
        ConvAxes a;
        a.inH = ay.in;
        a.inW = ax.in;
        a.outH = py.out;
        a.outW = px.out;
        a.dilationY = py.dilation;
        a.dilationX = px.dilation;
        a.padTop = biasOnly ? 0 : py.pad;
        a.padLeft = biasOnly ? 0 : px.pad;
        const int64_t th = biasOnly ? 1 : py.taps, tw = biasOnly ? 1 : px.taps;
        tapsY = std::max(tapsY, th);
        tapsX = std::max(tapsX, tw);
        if (l.phases.empty()) {
          firstTapsY = th;
          firstTapsX = tw;
        }
        auto weight = [=](int64_t mo, int64_t c, int64_t uy, int64_t ux) -> int8_t {
          if (biasOnly)
            return 0;
          const int64_t ky = py.k0 + py.tapStep * (py.taps - 1 - uy);
          const int64_t kx = px.k0 + px.tapStep * (px.taps - 1 - ux);
          const int64_t in = (mo / mg) * cg + c;
          return w[((in * mg + mo % mg) * kh + ky) * kw + kx];
        };
        ConvLayer c = buildConv(id, a, th, tw, cp.inChannels, m, depthwise ? 1 : groups, depthwise,
                                false, weight);
        c.placement = OutputPlacement{ay.stride, ax.stride, ry, rx, ay.out, ax.out};
        c.biasOnly = biasOnly;
        l.phases.push_back(std::move(c));
      }
    l.conv = l.phases.front();
    const bool dilated = ay.dilation > 1 || ax.dilation > 1;
    l.note = fmt::format(
        "{}x{} transposed{}, stride {}x{}: {} stride-phase convolutions of up to "
        "{}x{} taps; phase 0 {}",
        kh, kw, dilated ? fmt::format(" dilation {}x{}", ay.dilation, ax.dilation) : std::string(),
        ay.stride, ax.stride, l.phases.size(), tapsY, tapsX,
        describe(l.conv, firstTapsY, firstTapsX, false));
    finishConvLayer(id, l);
  }

  /// The ConvLayer of one convolution: N chosen by the cycle estimate (or the config), the
  /// tilings of the method and its baselines, weight operands and post-processing.
  template <typename WeightFn>
  ConvLayer buildConv(ir::NodeId id, const ConvAxes& original, int64_t kh, int64_t kw,
                      int64_t inChannels, int64_t outChannels, int64_t convGroups, bool depthwise,
                      bool matrix, WeightFn weight) {
    const ir::Node& node = g_.node(id);
    const int64_t batch = batchOf(id, matrix);
    // Choose N: every candidate's decomposition and one image's tiling, timed by the estimate.
    ConvLayer probe;
    probe.inChannels = inChannels;
    probe.outChannels = outChannels;
    probe.convGroups = convGroups;
    probe.depthwise = depthwise;
    const int64_t cg = inChannels / convGroups;
    probe.denseWeights = depthwise ? inChannels * kh * kw : outChannels * cg * kh * kw;
    for (int64_t m = 0; m < (depthwise ? 1 : outChannels); ++m)
      for (int64_t c = 0; c < (depthwise ? inChannels : cg); ++c)
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx)
            probe.nonZeroWeights += weight(depthwise ? c : m, depthwise ? 0 : c, ky, kx) != 0;

    const bool overridden = overrides_.count(node.name) > 0;
    Decomposition best;
    Estimate bestEstimate{-1, 0};
    for (int64_t n : candidateWidths(node.name, kh, kw)) {
      const Decomposition d = decomposeKernel(kh, kw, n, config_.nonDivisible);
      if (d.vectorWidth == 0) {
        NNACCEL_ASSERT(overridden) << "candidate N beyond the kernel";
        throw Error(ErrorKind::Config,
                    ErrorContext{.node = node.name, .key = "decomposition.layers." + node.name},
                    fmt::format("N = {} fits neither the width ({}) nor the height ({}) of "
                                "the {}x{} kernel",
                                n, kw, kh, kh, kw));
      }
      probe.axes = d.transposed ? transposedAxes(original) : original;
      // Fewest cycles; on a tie (a MAC-bound layer) the fewest bytes the data read module reads.
      const Estimate e = estimate(probe, chooseTiling(probe, d, true, config_), config_);
      if (bestEstimate.cycles < 0 ||
          std::tie(e.cycles, e.memoryReadBytes) <
              std::tie(bestEstimate.cycles, bestEstimate.memoryReadBytes)) {
        bestEstimate = e;
        best = d;
      }
    }

    ConvLayer c = probe;
    c.axes = best.transposed ? transposedAxes(original) : original;
    c.matrixLayout = matrix;
    c.tiling = chooseTiling(c, best, true, config_);
    c.tiling.batchImages = batchImagesOf(c, c.tiling, batch, config_);
    c.baselineNoBroadcast = c.tiling; // same N, same tiling: only the sharing differs
    c.baselineNoBroadcast.broadcast = false;
    const Decomposition conventional =
        decomposeKernel(best.rows, best.width, 1, NonDivisible::Expand);
    c.baselineConventional = chooseTiling(c, conventional, false, config_);
    c.baselineConventional.batchImages = batchImagesOf(c, c.baselineConventional, batch, config_);
    // Weight operands (the kernel decomposing module's output).
    const int64_t operands = depthwise ? 1 : outChannels;
    const int64_t channels = depthwise ? inChannels : cg;
    for (int64_t m = 0; m < operands; ++m) {
      KernelFn fn = [&, m](int64_t ch, int64_t ky, int64_t kx) {
        return weight(depthwise ? ch : m, depthwise ? 0 : ch, ky, kx);
      };
      c.weights.push_back(makeWeightOperand(best, channels, fn));
    }
    c.dummyWeights = operands * best.dummyColumns() * best.rows * channels;
    const quant::QuantNode& qn = qm_.node(id);
    for (int64_t m = 0; m < outChannels; ++m)
      c.post.push_back(ChannelPost{qn.bias.empty() ? 0 : qn.bias[static_cast<size_t>(m)],
                                   qn.multipliers[static_cast<size_t>(m)]});
    const quant::ZeroPoints z = qm_.zeroPointsOf(id);
    c.inputZero = z.in[0];
    c.outputZero = z.out;
    return c;
  }

  static ConvAxes transposedAxes(const ConvAxes& a) {
    ConvAxes t;
    t.inH = a.inW;
    t.inW = a.inH;
    t.outH = a.outW;
    t.outW = a.outH;
    t.strideY = a.strideX;
    t.strideX = a.strideY;
    t.dilationY = a.dilationX;
    t.dilationX = a.dilationY;
    t.padTop = a.padLeft;
    t.padLeft = a.padTop;
    return t;
  }

  std::string describe(const ConvLayer& c, int64_t kh, int64_t kw, bool overridden) const {
    const Decomposition& d = c.tiling.decomposition;
    std::string s = d.conventional() ? fmt::format("{}x{}: conventional 1x1 decomposition", kh, kw)
                                     : fmt::format("{}x{}: 1x{} vectors", kh, kw, d.vectorWidth);
    if (d.transposed)
      s.append(", transposed");
    if (d.dummyColumns() > 0)
      s.append(
          fmt::format(", {} dummy column{}", d.dummyColumns(), d.dummyColumns() > 1 ? "s" : ""));
    if (c.depthwise)
      s.append(", depthwise");
    else if (c.convGroups > 1)
      s.append(fmt::format(", {} groups", c.convGroups));
    if (c.matrixLayout)
      s.append(", fully connected");
    s.append(overridden ? " (N from the config's layer entry)"
                        : (config_.vectorWidth > 0 ? "" : " (N chosen by the cycle estimate)"));
    return s;
  }

  const quant::QuantizedModel& qm_;
  const ir::Graph& g_;
  const BroadcastConfig& config_;
  Program program_;
  std::set<ir::NodeId> consumed_;
  std::map<std::string, int64_t> overrides_;
  std::set<std::string> seen_;
};

} // namespace

Program compile(const quant::QuantizedModel& qm, const BroadcastConfig& config,
                const std::function<void(size_t, size_t)>& progress) {
  validate(config);
  return Driver(qm, config).run(progress);
}

} // namespace nnaccel::arch::broadcast
