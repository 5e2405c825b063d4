/// \file
/// The sparse machine model's layer loop (Simulator.h): values, the on-chip / DRAM residency of
/// every activation, Conv layers on the array model (ArrayModel.h), pooling in the
/// post-processing units, views and host fallbacks; per-layer statistics and energy.
#include "nnaccel/arch/sparse/Simulator.h"

#include "ArrayModel.h"
#include "DotProductBaseline.h"
#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/arch/common/Pooling.h"
#include "nnaccel/arch/sparse/Compiler.h"
#include "nnaccel/arch/sparse/Geometry.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"
#include "nnaccel/support/Rng.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

namespace nnaccel::arch::sparse {

SlotLosses& SlotLosses::operator+=(const SlotLosses& o) {
  useful += o.useful;
  outsidePlane += o.outsidePlane;
  fragmentation += o.fragmentation;
  conflicts += o.conflicts;
  starvation += o.starvation;
  imbalance += o.imbalance;
  haloPpu += o.haloPpu;
  dram += o.dram;
  idlePes += o.idlePes;
  return *this;
}

AccessCounts& AccessCounts::operator+=(const AccessCounts& o) {
  multiplies += o.multiplies;
  crossbarTraversals += o.crossbarTraversals;
  accumulatorRmw += o.accumulatorRmw;
  weightFifoWriteBytes += o.weightFifoWriteBytes;
  weightFifoReadBytes += o.weightFifoReadBytes;
  iaReadBytes += o.iaReadBytes;
  oaWriteBytes += o.oaWriteBytes;
  haloMessages += o.haloMessages;
  ppuOps += o.ppuOps;
  dramReadBytes += o.dramReadBytes;
  dramWriteBytes += o.dramWriteBytes;
  dramActivations += o.dramActivations;
  return *this;
}

int64_t SlotLosses::total() const {
  return useful + outsidePlane + fragmentation + conflicts + starvation + imbalance + haloPpu +
         dram + idlePes;
}

double energyPj(const AccessCounts& a, const EnergyPrices& e) {
  auto d = [](int64_t v) { return static_cast<double>(v); };
  return d(a.multiplies) * e.multiplyPj + d(a.accumulatorRmw) * e.accumulatorRmwPj +
         d(a.crossbarTraversals) * e.crossbarPj +
         d(a.weightFifoWriteBytes) * e.weightFifoWritePjPerByte +
         d(a.weightFifoReadBytes) * e.weightFifoReadPjPerByte +
         d(a.iaReadBytes) * e.iaRamReadPjPerByte + d(a.oaWriteBytes) * e.oaRamWritePjPerByte +
         d(a.haloMessages) * e.haloPj + d(a.ppuOps) * e.ppuOpPj +
         d(a.dramReadBytes) * e.dramReadPjPerByte + d(a.dramWriteBytes) * e.dramWritePjPerByte +
         a.dramActivations * e.dramActivatePj;
}

/// energyPj's terms grouped by component (docs/report-schema.md): the accumulator banks are
/// on-chip storage, like the FIFOs and RAMs; the crossbar and halo links are interconnect.
report::EnergyParts energyParts(const AccessCounts& a, const EnergyPrices& e) {
  auto d = [](int64_t v) { return static_cast<double>(v); };
  report::EnergyParts p;
  p.compute = d(a.multiplies) * e.multiplyPj;
  p.onChip = d(a.accumulatorRmw) * e.accumulatorRmwPj +
             d(a.weightFifoWriteBytes) * e.weightFifoWritePjPerByte +
             d(a.weightFifoReadBytes) * e.weightFifoReadPjPerByte +
             d(a.iaReadBytes) * e.iaRamReadPjPerByte + d(a.oaWriteBytes) * e.oaRamWritePjPerByte;
  p.interconnect = d(a.crossbarTraversals) * e.crossbarPj + d(a.haloMessages) * e.haloPj;
  p.postProcess = d(a.ppuOps) * e.ppuOpPj;
  p.dram = d(a.dramReadBytes) * e.dramReadPjPerByte + d(a.dramWriteBytes) * e.dramWritePjPerByte +
           a.dramActivations * e.dramActivatePj;
  return p;
}

namespace {

/// Where one image of a value (or the whole value) lives between layers.
struct Placement {
  bool onChip = false; ///< compacted in the PEs' output-activation RAMs, in the value's tiling
  bool inDram = false; ///< also (or only) in DRAM: re-tiling readers pay no write-back
  /// The producer's compaction (Table 10) of an array layer's output: the next layer's input
  /// buffers when it reads the value in place.
  std::shared_ptr<const LayerInput> compacted;
  int64_t compressedBytes = 0;
};

/// Where a value lives between layers. An array layer that ran a batch image by image leaves one
/// placement per image: each image stays on chip while the batch's running per-PE total fits
/// the activation RAMs (docs/arch/SparseCompiler.md §1). Other producers leave one placement
/// for the whole value; graph inputs and host and view outputs none (they are in DRAM).
struct Residency {
  std::vector<Placement> images;
  Tiling tiling;
  /// On chip in a layout no reader's tiling matches: a dilated layer's phase order (output
  /// phases side by side), or output-channel slices (each PE holds some channels).
  bool foreignLayout = false;
  std::vector<int64_t> peBytes; ///< per PE: the on-chip bytes of the images admitted so far

  /// Image \p image's placement (the whole value's when there is one), or null (DRAM only).
  Placement* placement(int64_t image) {
    if (images.empty())
      return nullptr;
    return images.size() == 1 ? &images[0] : &images.at(static_cast<size_t>(image));
  }
};

/// loadInput's image argument for a reader that takes the whole value at once.
constexpr int64_t kWholeValue = -1;

} // namespace

struct Simulator::Impl {
  const Program& program;
  const quant::QuantizedModel& qm;
  const SparseConfig& config;
  common::DramFigures dram; ///< the config's DRAM part at its clock
  /// Every event's energy, priced once per run (the technology model, config/Pricing.cpp).
  const EnergyPrices prices = energyPrices(config);
  std::vector<Tensor> values;
  std::vector<Residency> residency;
  std::vector<report::LayerStats> stats;
  size_t layerIndex_ = 0; ///< the layer run() is in (progress reports)
  std::vector<LayerDetail> details;
  std::vector<std::optional<Tensor>>
      synthetic; ///< per layer: the synthetic input of a density sweep
  /// Per value: the density a density experiment stores it at (storedDensities), if any.
  std::vector<std::optional<double>> storedDensity_;
  uint64_t syntheticSeed_ = 0;
  Tensor storedWhole_; ///< storedImage's batch stand-in while a layer's images are stored

  Impl(const Program& p, const quant::QuantizedModel& q)
      : program(p), qm(q), config(p.config), dram(p.config.dramFigures()),
        values(q.graph.numValues()), residency(q.graph.numValues()) {}

  /// One sequential transfer of \p bytes: the latency, then the stream (every transfer moves
  /// a whole compressed tensor or weight stream in order).
  int64_t dramCycles(int64_t bytes) const {
    if (bytes == 0)
      return 0;
    return dram.latencyCycles + transferCycles(bytes, common::dramStreamBytesPerCycle(dram));
  }

  /// The rows \p runs sequential transfers of \p bytes each open (the row-buffer model; 0
  /// without it).
  double rowsOpened(int64_t bytes, int64_t runs = 1) const {
    if (!dram.rowBuffer || !dram.standard || bytes <= 0)
      return 0;
    return static_cast<double>(runs) * tech::rowSweepOfRun(*dram.standard, bytes).activations;
  }

  const Tensor& input(ir::ValueId v) const {
    const Tensor& t = values.at(static_cast<size_t>(v));
    NNACCEL_ASSERT(t.sizeBytes() > 0 || numElements(qm.graph.value(v).shape) == 0)
        << "value " << v << " read before it was produced";
    return t;
  }

  void run(const SimOptions& options) {
    stats.clear();
    details.clear();
    synthetic.assign(program.layers.size(), std::nullopt);
    storedDensity_ = storedDensities(options.syntheticActivationDensities);
    syntheticSeed_ = options.syntheticSeed;
    for (size_t i = 0; i < program.layers.size(); ++i) {
      layerIndex_ = i;
      const Layer& l = program.layers[i];
      report::LayerStats s;
      s.name = l.name;
      s.op = l.op;
      s.unit = std::string(layerKindName(l.kind));
      s.note = l.note;
      LayerDetail d;
      switch (l.kind) {
      case LayerKind::Conv:
        if (const auto density = options.syntheticActivationDensities.of(l.name))
          synthetic[i] = syntheticInput(l.inputs[0], *density, options.syntheticSeed + i);
        runConv(l, options, synthetic[i] ? *synthetic[i] : input(l.inputs[0]),
                synthetic[i].has_value(), s, d);
        break;
      case LayerKind::Pool:
        runPool(l, s, d);
        break;
      case LayerKind::Elementwise:
        runElementwise(l, s, d);
        break;
      case LayerKind::View:
        runView(l);
        break;
      case LayerKind::Host:
        runHost(l, s);
        break;
      }
      s.shape = shapeText(l);
      stats.push_back(std::move(s));
      details.push_back(d);
      if (options.onLayerDone)
        options.onLayerDone(i);
    }
  }

  /// Per value, the density a density experiment (SimOptions::syntheticActivationDensities)
  /// stores it at: a value every reader of which on the array - directly, or through element-wise
  /// and view layers (concatenation, LRN, reshapes; an element-wise layer that changes the
  /// density, such as a residual add, is approximated as keeping it) - reads a synthetic input is
  /// stored as the densest of
  /// those, the way the SCNN paper's sweep scales every activation (so a layer's output occupies
  /// the RAMs or DRAM as its readers' inputs do, not as the layer computed it). A pooling layer
  /// stops the rule (a max pool's output is denser than its input, by an amount the experiment
  /// does not give); so does a reader of real data. Such values keep their computed density.
  std::vector<std::optional<double>> storedDensities(const engines::LayerDensities& given) const {
    std::vector<std::vector<size_t>> readers(qm.graph.numValues());
    for (size_t i = 0; i < program.layers.size(); ++i)
      for (ir::ValueId v : program.layers[i].inputs)
        readers[static_cast<size_t>(v)].push_back(i);
    std::vector<std::optional<double>> memo(qm.graph.numValues());
    std::vector<bool> known(qm.graph.numValues(), false);
    const std::function<std::optional<double>(ir::ValueId)> readAt = [&](ir::ValueId v) {
      const auto vi = static_cast<size_t>(v);
      if (known[vi])
        return memo[vi];
      known[vi] = true; // a value's readers come after it: no cycles
      std::optional<double> most;
      for (size_t i : readers[vi]) {
        const Layer& l = program.layers[i];
        std::optional<double> d;
        if (l.kind == LayerKind::Conv)
          d = l.inputs[0] == v ? given.of(l.name) : std::nullopt;
        else if ((l.kind == LayerKind::Elementwise || l.kind == LayerKind::View) &&
                 l.outputs.size() == 1)
          d = readAt(l.outputs[0]);
        if (!d)
          return memo[vi] = std::nullopt;
        most = std::max(most.value_or(0.0), *d);
      }
      return memo[vi] = most;
    };
    std::vector<std::optional<double>> stored(qm.graph.numValues());
    if (given.empty())
      return stored;
    for (const Layer& l : program.layers)
      if (l.kind == LayerKind::Conv)
        stored[static_cast<size_t>(l.outputs[0])] = readAt(l.outputs[0]);
    return stored;
  }

  std::string shapeText(const Layer& l) const {
    std::string s;
    if (!l.inputs.empty())
      s = dimsToString(qm.graph.value(l.inputs[0]).shape);
    if (!l.outputs.empty())
      s += " -> " + dimsToString(qm.graph.value(l.outputs[0]).shape);
    return s;
  }

  /// Reads image \p image of value \p v (kWholeValue: all of it) for a layer in \p tiling: in
  /// place when the producer left it compacted on chip in this tiling, otherwise re-tiled
  /// through DRAM (the on-chip parts written there first).
  int64_t loadInput(ir::ValueId v, int64_t image, const Tiling& tiling, bool inPlacePossible,
                    int64_t compressedBytes, AccessCounts& a, bool& fromDram) {
    Residency& r = residency[static_cast<size_t>(v)];
    std::vector<Placement*> parts;
    if (image == kWholeValue) {
      for (Placement& p : r.images)
        parts.push_back(&p);
    } else if (Placement* p = r.placement(image)) {
      parts.push_back(p);
    }
    const bool onChip = !parts.empty() && std::all_of(parts.begin(), parts.end(),
                                                      [](const Placement* p) { return p->onChip; });
    if (onChip && inPlacePossible && !r.foreignLayout && r.tiling == tiling) {
      fromDram = false;
      return 0;
    }
    fromDram = true;
    int64_t cycles = 0;
    for (Placement* p : parts)
      if (p->onChip && !p->inDram) { // the producer's compacted output goes to DRAM first
        a.dramWriteBytes += p->compressedBytes;
        a.dramActivations += rowsOpened(p->compressedBytes);
        cycles += dramCycles(p->compressedBytes);
        p->inDram = true;
      }
    a.dramReadBytes += compressedBytes;
    a.dramActivations += rowsOpened(compressedBytes);
    return cycles + dramCycles(compressedBytes);
  }

  /// A tensor of value \p v's shape with exactly round(density * n) non-zero values: codes
  /// other than v's zero point (the code of real 0), which fills the rest.
  Tensor syntheticInput(ir::ValueId v, double density, uint64_t seed) const {
    Tensor t(DType::I8, qm.graph.value(v).shape);
    const int32_t zero = qm.zeroPoint(v);
    std::fill_n(t.data<int8_t>(), t.numElements(), static_cast<int8_t>(zero));
    const int64_t n = t.numElements();
    const auto keep = static_cast<int64_t>(std::llround(density * static_cast<double>(n)));
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      order[static_cast<size_t>(i)] = i;
    Rng rng(seed);
    for (int64_t i = 0; i < keep; ++i) { // a partial Fisher-Yates shuffle picks the positions
      const auto j = i + static_cast<int64_t>(rng.nextU64() % static_cast<uint64_t>(n - i));
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
      const auto magnitude = static_cast<int32_t>(1 + rng.nextU64() % 127);
      const int32_t up = zero + magnitude, down = zero - magnitude;
      const bool positive = (rng.nextU64() & 1) != 0;
      t.data<int8_t>()[order[static_cast<size_t>(i)]] = static_cast<int8_t>(
          (positive && up <= quant::kInt8Max) || down < quant::kInt8Min ? up : down);
    }
    return t;
  }

  struct OutputSize {
    int64_t bytes = 0, nonZeros = 0, elements = 0;
    std::vector<int64_t> peBytes; ///< per PE of the output tiling
    std::shared_ptr<const LayerInput> compacted;
  };

  /// Images a Conv layer processes one after another: its input's leading dimension (a
  /// fully-connected layer's batch is already its rows).
  int64_t imagesOf(const Layer& l) const {
    return l.conv.matrixLayout ? 1 : qm.graph.value(l.inputs[0]).shape.at(0);
  }

  /// A Conv layer: the PT-IS-CP dataflow takes one image (N = 1), so a batch runs image after
  /// image through the layer, each streaming the weights again (the accumulator banks hold one
  /// image's partial sums); each image's output stays on chip while the batch fits.
  void runConv(const Layer& l, const SimOptions& options, const Tensor& x, bool isSynthetic,
               report::LayerStats& s, LayerDetail& d) {
    const int64_t images = imagesOf(l);
    if (images == 1) {
      convImage(l, options, x, isSynthetic, 0, 1, d);
    } else {
      Tensor out(DType::I8, qm.graph.value(l.outputs[0]).shape);
      const int64_t inSize = x.numElements() / images, outSize = out.numElements() / images;
      Dims imageShape = x.shape();
      imageShape[0] = 1;
      for (int64_t n = 0; n < images; ++n) {
        Tensor xn(DType::I8, imageShape);
        std::copy_n(x.data<int8_t>() + n * inSize, inSize, xn.data<int8_t>());
        LayerDetail dn;
        convImage(l, options, xn, isSynthetic, n, images, dn);
        const Tensor& yn = values[static_cast<size_t>(l.outputs[0])];
        std::copy_n(yn.data<int8_t>(), outSize, out.data<int8_t>() + n * outSize);
        addImage(d, dn, n);
      }
      values[static_cast<size_t>(l.outputs[0])] = std::move(out);
    }
    setConvStats(d, s);
    // useful_macs is the operator's own count (ir::nodeMacs, as `info` counts it); the
    // products of non-zero pairs that land in the output are the effectual ones.
    s.usefulMacs = ir::nodeMacs(qm.graph, l.node);
    s.effectualMacs = d.losses.useful;
  }

  /// Adds image \p n's detail \p b to the batch's \p a (densities are averaged).
  static void addImage(LayerDetail& a, const LayerDetail& b, int64_t n) {
    if (n == 0) {
      a = b;
      return;
    }
    const auto mean = [&](double x, double y) {
      return (x * static_cast<double>(n) + y) / (n + 1.0);
    };
    a.cycles += b.cycles;
    a.denseCycles += b.denseCycles;
    a.oracleCycles += b.oracleCycles;
    a.activationDensity = mean(a.activationDensity, b.activationDensity);
    a.outputDensity = mean(a.outputDensity, b.outputDensity);
    a.products += b.products;
    a.losses += b.losses;
    a.access += b.access;
    a.denseAccess += b.denseAccess;
    a.energyPj += b.energyPj;
    a.denseEnergyPj += b.denseEnergyPj;
    a.denseOptEnergyPj += b.denseOptEnergyPj;
    if (b.denseOptAccess)
      *a.denseOptAccess += *b.denseOptAccess;
    a.accumulatorOverflows += b.accumulatorOverflows;
    a.inputFromDram = a.inputFromDram || b.inputFromDram;
    a.outputToDram = a.outputToDram || b.outputToDram;
    a.outputPeBytes = std::max(a.outputPeBytes, b.outputPeBytes);
  }

  /// Image \p image (of \p images) of Conv layer \p l on that image's input \p x.
  void convImage(const Layer& l, const SimOptions& options, const Tensor& x, bool isSynthetic,
                 int64_t image, int64_t images, LayerDetail& d) {
    const ConvLayer& c = l.conv;
    const bool inPlace = c.phasesX * c.phasesY == 1 && !c.phaseDecomposed() && !c.matrixLayout &&
                         c.planeW == c.inW &&
                         c.sliceFirstGroup.empty(); // slices: every PE reads the whole input
    const std::shared_ptr<const LayerInput> inHeld =
        convInput(l, x, isSynthetic, inPlace, image, images);
    const LayerInput& in = *inHeld;
    int64_t iaBytes = 0, maxIaBytes = 0;
    for (int64_t b : in.bitsPerPe) {
      iaBytes += ceilDiv(b, 8);
      maxIaBytes = std::max(maxIaBytes, ceilDiv(b, 8));
    }
    AccessCounts dramSide;
    bool fromDram = false;
    // An input tile larger than a PE's IA RAM streams in row bands (inputBands): only the first
    // band's read is exposed before the array starts; the rest overlaps the compute.
    const InputBands bands = inputBands(c, maxIaBytes, iaBytes);
    int64_t loadCycles = loadInput(l.inputs[0], images == 1 ? kWholeValue : image, c.inTiling,
                                   inPlace, iaBytes, dramSide, fromDram);
    int64_t loadBytes = dramSide.dramReadBytes + dramSide.dramWriteBytes;
    if (bands.count > 1 && fromDram) {
      loadCycles -= dramCycles(iaBytes) - dramCycles(bands.firstBytes);
      loadBytes -= iaBytes - bands.firstBytes;
    }
    std::function<void(double)> progress;
    if (options.onLayerProgress)
      progress = [&](double f) {
        options.onLayerProgress(layerIndex_,
                                (static_cast<double>(image) + f) / static_cast<double>(images));
      };
    ArrayResult sparse = runArray(c, config, in, false, options.threads, progress);
    d = sparse.detail;
    d.inputFromDram = fromDram;
    // Input halos on chip: the producer multicasts each replicated value to its neighbour
    // (seed 001 ¶0070), one halo message each; from DRAM they are in every holder's bytes.
    if (c.inputHalos && !fromDram)
      d.access.haloMessages += in.replicated;
    d.weightDensity = c.denseWeights > 0 ? static_cast<double>(c.nonZeroWeights) /
                                               static_cast<double>(c.denseWeights)
                                         : 1.0;
    d.activationDensity = in.denseElements > 0 ? static_cast<double>(in.nonZeros) /
                                                     static_cast<double>(in.denseElements)
                                               : 1.0;
    // Compressed weights stream from DRAM once per layer.
    int64_t weightBytes = 0;
    for (const WeightGroup& wg : c.groups) {
      weightBytes += ceilDiv(wg.streamBits, 8);
      dramSide.dramActivations += rowsOpened(ceilDiv(wg.streamBits, 8));
    }
    dramSide.dramReadBytes += weightBytes;
    // Output-channel slices whose input overflows the IA RAM stream it through once per group.
    if (const int64_t passes = bands.count > 1 ? 1 : slicePasses(c, maxIaBytes); passes > 1) {
      dramSide.dramReadBytes += iaBytes * (passes - 1);
      dramSide.dramActivations += rowsOpened(iaBytes, passes - 1);
    }
    // A band after the first re-reads the rows its window shares with the band before, and
    // every band streams the layer's weights again.
    if (bands.count > 1) {
      dramSide.dramReadBytes += bands.haloBytes + weightBytes * (bands.count - 1);
      dramSide.dramActivations +=
          rowsOpened(bands.haloBytes) + rowsOpened(weightBytes, bands.count - 1);
    }
    const OutputSize os = storeConvOutput(l, sparse.output, d, dramSide, image, images);
    boundByDram(c, loadBytes, loadCycles, dramSide, d);
    if (options.denseBaseline)
      runDenseBaseline(c, in, os, {iaBytes, weightBytes}, fromDram, d);
    const int64_t mults1 = config.peCount() * config.multipliersPerPe();
    d.oracleCycles = ceilDiv(d.losses.useful, mults1);
    d.energyPj = energyPj(d.access, prices);
  }

  /// How a Conv layer's input tile is streamed when it does not fit a PE's IA RAM: the SCNN
  /// paper's temporal tiling (section 4.4: tiles "across all channels" that fit the IARAMs,
  /// weights broadcast per tile, a small halo re-read, DRAM hidden by pipelining). The tile is cut
  /// into `count` row bands, each holding every input channel of its rows and fitting the IA RAM;
  /// the layer's output-channel groups all run over one band before the next is read, so the input
  /// is read once, plus the extentY - 1 rows each band boundary re-reads, and the weights once per
  /// band. count = 1: it fits.
  struct InputBands {
    int64_t count = 1;
    int64_t firstBytes = 0; ///< the first band (read before the array starts)
    int64_t haloBytes = 0;  ///< the rows re-read at band boundaries, over all PEs
  };
  /// How often a sliced layer's PEs read their whole input when row bands cannot split it (a
  /// fully-connected layer's one row): once when it fits the IA RAM, else once per group of the
  /// busiest PE (the input streams through the RAM in channel order, Table 4's plane order, and
  /// a group's partial sums stay in the accumulators).
  int64_t slicePasses(const ConvLayer& c, int64_t maxIaBytes) const {
    if (c.sliceFirstGroup.empty() || maxIaBytes <= config.iaRamBytes)
      return 1;
    int64_t most = 1;
    for (size_t s = 0; s + 1 < c.sliceFirstGroup.size(); ++s)
      most = std::max(most, c.sliceFirstGroup[s + 1] - c.sliceFirstGroup[s]);
    return most;
  }

  InputBands inputBands(const ConvLayer& c, int64_t maxIaBytes, int64_t iaBytes) const {
    InputBands b;
    if (maxIaBytes <= config.iaRamBytes)
      return b;
    int64_t tileRows = 1;
    for (const PeFrame& f : c.frames)
      tileRows = std::max(tileRows, f.inH);
    b.count = std::min(ceilDiv(maxIaBytes, config.iaRamBytes), tileRows);
    b.firstBytes = ceilDiv(iaBytes, b.count);
    const int64_t overlapRows = std::min(c.extentY - 1, tileRows);
    b.haloBytes = iaBytes * (b.count - 1) * overlapRows / tileRows;
    return b;
  }

  /// The compacted input \p x of image \p image (of \p images) of Conv layer \p l: the
  /// producer's compaction of that image when it is read in place (\p inPlace) and \p x is not
  /// a synthetic input, else \p x compacted.
  std::shared_ptr<const LayerInput> convInput(const Layer& l, const Tensor& x, bool isSynthetic,
                                              bool inPlace, int64_t image, int64_t images) const {
    const ConvLayer& c = l.conv;
    const Residency& src = residency[static_cast<size_t>(l.inputs[0])];
    const Placement* p = src.images.size() == static_cast<size_t>(images)
                             ? &src.images[static_cast<size_t>(image)]
                             : nullptr; // a compaction of the whole batch is not this image's
    const bool reuse = !isSynthetic && inPlace && p && p->onChip && !src.foreignLayout &&
                       p->compacted && src.tiling == c.inTiling &&
                       !c.inputHalos; // the producer compacted its tiles without the halos
    return reuse ? p->compacted
                 : std::make_shared<const LayerInput>(compactInput(c, config, x.data<int8_t>()));
  }

  /// Image \p image (of \p images) of Conv layer \p l's output: stored as a value, its
  /// compressed size and residency (on chip when every PE's share, with the batch's earlier
  /// images, fits its activation RAM, else written to DRAM, counted in \p dramSide).
  OutputSize storeConvOutput(const Layer& l, const std::vector<int8_t>& output, LayerDetail& d,
                             AccessCounts& dramSide, int64_t image, int64_t images) {
    const ConvLayer& c = l.conv;
    Dims shape = qm.graph.value(l.outputs[0]).shape;
    if (!c.matrixLayout)
      shape[0] = 1; // one image (runConv assembles a batch)
    Tensor out(DType::I8, shape);
    if (c.fusedPool) { // the post-processing units pool before they compress (FusedPool)
      const FusedPool& f = *c.fusedPool;
      Dims convShape = qm.graph.value(f.convOutput).shape;
      convShape[0] = 1;
      Tensor conv(DType::I8, convShape);
      NNACCEL_ASSERT(static_cast<int64_t>(output.size()) == conv.numElements())
          << "conv output size";
      std::copy(output.begin(), output.end(), conv.data<int8_t>());
      out = common::poolInt8(f.pool.params, conv, f.pool.countMultipliers, f.pool.zero)
                .reshaped(shape);
    } else {
      NNACCEL_ASSERT(static_cast<int64_t>(output.size()) == out.numElements())
          << "conv output size";
      std::copy(output.begin(), output.end(), out.data<int8_t>());
    }
    // A density experiment stores the output as its readers read it (storedDensities).
    const std::optional<double> storedAt = storedDensity_[static_cast<size_t>(l.outputs[0])];
    const OutputSize os =
        storedAt ? outputSize(c, storedImage(l.outputs[0], *storedAt, image, images).data<int8_t>())
                 : outputSize(c, out.data<int8_t>());
    d.outputDensity =
        os.elements > 0 ? static_cast<double>(os.nonZeros) / static_cast<double>(os.elements) : 1.0;
    d.access.oaWriteBytes = os.bytes;
    Residency& r = residency[static_cast<size_t>(l.outputs[0])];
    if (image == 0) {
      r = Residency{};
      r.images.resize(static_cast<size_t>(images));
      r.tiling = c.fusedPool ? c.fusedPool->pool.tiling : c.outTiling;
      r.foreignLayout = c.phaseDecomposed() || !c.sliceFirstGroup.empty();
      r.peBytes.assign(os.peBytes.size(), 0);
    }
    Placement& p = r.images[static_cast<size_t>(image)];
    p.onChip = admitOnChip(r, os.peBytes, image);
    p.compressedBytes = os.bytes;
    p.compacted = storedAt ? nullptr : os.compacted; // a synthetic stand-in is never read
    d.outputToDram = !p.onChip;
    d.outputPeBytes =
        os.peBytes.empty() ? 0 : *std::max_element(os.peBytes.begin(), os.peBytes.end());
    if (!p.onChip) {
      dramSide.dramWriteBytes += os.bytes;
      dramSide.dramActivations += rowsOpened(os.bytes);
    }
    values[static_cast<size_t>(l.outputs[0])] = std::move(out);
    return os;
  }

  /// Image \p image (of \p images) of value \p v at \p density: a synthetic stand-in for sizing.
  /// A batch's whole stand-in is drawn once, at image 0, and dropped after the last image.
  Tensor storedImage(ir::ValueId v, double density, int64_t image, int64_t images) {
    if (image == 0)
      storedWhole_ =
          syntheticInput(v, density, syntheticSeed_ ^ (0x5707edULL + static_cast<uint64_t>(v)));
    if (images == 1)
      return std::move(storedWhole_);
    Dims shape = storedWhole_.shape();
    shape[0] = 1;
    Tensor one(DType::I8, shape);
    const int64_t n = one.numElements();
    std::copy_n(storedWhole_.data<int8_t>() + image * n, n, one.data<int8_t>());
    if (image + 1 == images)
      storedWhole_ = Tensor();
    return one;
  }

  /// Whether image \p image of a batch, \p peBytes per PE, stays on chip beside the images
  /// admitted before it (added to \p r's totals if so). The first image needs its output RAM;
  /// later ones also sit in the input RAMs together when the next layer reads them, so they
  /// need both [choice]. Once an image spills, the rest of the batch follows it to DRAM.
  bool admitOnChip(Residency& r, const std::vector<int64_t>& peBytes, int64_t image) const {
    if (image > 0 && !r.images[static_cast<size_t>(image - 1)].onChip)
      return false;
    const int64_t capacity =
        image == 0 ? config.oaRamBytes : std::min(config.oaRamBytes, config.iaRamBytes);
    NNACCEL_ASSERT(peBytes.size() == r.peBytes.size()) << "one output tiling per layer";
    for (size_t pe = 0; pe < peBytes.size(); ++pe)
      if (r.peBytes[pe] + peBytes[pe] > capacity)
        return false;
    for (size_t pe = 0; pe < peBytes.size(); ++pe)
      r.peBytes[pe] += peBytes[pe];
    return true;
  }

  /// DRAM bound: the re-tiling load is serial (\p loadCycles for \p loadBytes); the weights
  /// (also modelled in the broadcast), activation spills and the output write overlap the
  /// compute at the DRAM rate. Sets \p d's cycles, DRAM and idle-PE losses and DRAM bytes.
  void boundByDram(const ConvLayer& c, int64_t loadBytes, int64_t loadCycles,
                   const AccessCounts& dramSide, LayerDetail& d) const {
    const int64_t retileBytes = loadBytes;
    const int64_t overlapBytes = dramSide.dramReadBytes + dramSide.dramWriteBytes - retileBytes;
    const int64_t arrayCycles = std::max(d.cycles, dramCycles(overlapBytes));
    const int64_t usedSlots = c.usedPes() * config.multipliersPerPe();
    d.losses.dram = (arrayCycles - d.cycles + loadCycles) * usedSlots;
    d.losses.idlePes =
        (config.peCount() - c.usedPes()) * config.multipliersPerPe() * (arrayCycles + loadCycles);
    d.cycles = arrayCycles + loadCycles;
    d.access.dramReadBytes = dramSide.dramReadBytes;
    d.access.dramWriteBytes = dramSide.dramWriteBytes;
    d.access.dramActivations = dramSide.dramActivations;
  }

  /// The SCNN layer's compressed input and weight streams, as its DRAM moves them.
  struct CompressedBytes {
    int64_t inputBytes = 0, weightBytes = 0;
  };

  /// DCNN and DCNN-opt (baseline.dataflow: dot_product; DotProductBaseline.h). Activations
  /// live in the DCNN's SRAM between layers: a layer reads its input from DRAM where the SCNN
  /// layer does (\p fromDram) and both spill when the layer's dense input and output together
  /// exceed baseline.sram_bytes; the output goes to DRAM where SCNN's does. DCNN moves dense
  /// 16-bit data; DCNN-opt compresses weights and activations as SCNN does where that saves
  /// bytes (paper Table 6: it skips the DRAM accesses of zeros) and gates its multipliers on a
  /// zero operand, so it multiplies only the non-zero pairs SCNN multiplies.
  void runDotProductBaseline(const ConvLayer& c, const LayerInput& in, const OutputSize& os,
                             const CompressedBytes& compressed, bool fromDram,
                             LayerDetail& d) const {
    const DotProductWork w = dotProductWork(c, config, in);
    const int64_t bytes = config.valueBits / 8;
    const int64_t inBytes = in.denseElements * bytes, outBytes = os.elements * bytes;
    const bool spill = inBytes + outBytes > config.baselineSramBytes;
    const bool inFromDram = fromDram || spill, outToDram = d.outputToDram || spill;
    const auto withDram = [&](AccessCounts a, int64_t weightBytes, int64_t inB, int64_t outB) {
      a.haloMessages = d.access.haloMessages;
      a.ppuOps = d.access.ppuOps;
      a.dramReadBytes = weightBytes + (inFromDram ? inB : 0);
      a.dramWriteBytes = outToDram ? outB : 0;
      a.dramActivations = rowsOpened(weightBytes) + (inFromDram ? rowsOpened(inB) : 0) +
                          (outToDram ? rowsOpened(outB) : 0);
      return a;
    };
    d.denseAccess = withDram(w.access, c.denseWeights * bytes, inBytes, outBytes);
    // Compression is used where it saves bytes (dense data is sent as it is).
    AccessCounts opt =
        withDram(w.access, std::min(compressed.weightBytes, c.denseWeights * bytes),
                 std::min(compressed.inputBytes, inBytes), std::min(os.bytes, outBytes));
    opt.multiplies = d.access.multiplies;
    d.denseOptAccess = opt;
    const int64_t load = inFromDram ? dramCycles(inBytes) : 0;
    d.denseCycles =
        std::max(w.computeCycles, dramCycles(c.denseWeights * bytes + (outToDram ? outBytes : 0))) +
        load;
    d.denseEnergyPj = energyPj(d.denseAccess, prices);
    d.denseOptEnergyPj = energyPj(opt, prices);
  }

  /// The dense baseline of Conv layer \p c: the same array without skipping zeros, with
  /// uncompressed weights and activations (values only) through the same DRAM.
  void runDenseBaseline(const ConvLayer& c, const LayerInput& in, const OutputSize& os,
                        const CompressedBytes& compressed, bool fromDram, LayerDetail& d) const {
    if (config.baselineDataflow == BaselineDataflow::DotProduct) {
      runDotProductBaseline(c, in, os, compressed, fromDram, d);
      return;
    }
    ArrayResult dense = runArray(c, config, in, true);
    d.denseAccess = dense.detail.denseAccess;
    const int64_t denseWeightBytes = c.denseWeights * config.valueBits / 8;
    const int64_t denseIaBytes = in.denseElements * config.valueBits / 8;
    const int64_t denseOutBytes = os.elements * config.valueBits / 8;
    d.denseAccess.dramReadBytes = denseWeightBytes + (fromDram ? denseIaBytes : 0);
    d.denseAccess.dramActivations =
        rowsOpened(denseWeightBytes) + (fromDram ? rowsOpened(denseIaBytes) : 0);
    int64_t denseMaxIa = 0;
    for (size_t pe = 0; pe < c.frames.size(); ++pe) {
      const auto first = in.pixels.begin() + static_cast<ptrdiff_t>(pe) * in.planes;
      const int64_t pixels = std::accumulate(first, first + in.planes, int64_t{0});
      denseMaxIa = std::max(denseMaxIa, pixels * config.valueBits / 8);
    }
    // A dense tile that does not fit streams in row bands as the sparse one does.
    const InputBands bands = inputBands(c, denseMaxIa, denseIaBytes);
    if (bands.count > 1) {
      d.denseAccess.dramReadBytes += bands.haloBytes + denseWeightBytes * (bands.count - 1);
      d.denseAccess.dramActivations +=
          rowsOpened(bands.haloBytes) + rowsOpened(denseWeightBytes, bands.count - 1);
    }
    d.denseAccess.oaWriteBytes = denseOutBytes;
    d.denseAccess.dramWriteBytes = d.outputToDram ? denseOutBytes : 0;
    d.denseAccess.dramActivations += d.outputToDram ? rowsOpened(denseOutBytes) : 0;
    const int64_t firstBand = bands.count > 1 ? bands.firstBytes : denseIaBytes;
    const int64_t denseLoad = fromDram ? dramCycles(firstBand) : 0;
    const int64_t denseBound = dramCycles(d.denseAccess.dramReadBytes - (fromDram ? firstBand : 0) +
                                          d.denseAccess.dramWriteBytes);
    d.denseCycles = std::max(dense.detail.cycles, denseBound) + denseLoad;
    d.denseEnergyPj = energyPj(d.denseAccess, prices);
  }

  /// The common report's figures of a Conv layer from its detail \p d.
  void setConvStats(const LayerDetail& d, report::LayerStats& s) const {
    s.issuedMacs = d.products;
    s.cycles = d.cycles;
    const int64_t slotsPerCycle = config.peCount() * config.multipliersPerPe();
    s.busyCycles = (d.losses.useful + d.losses.outsidePlane + d.losses.fragmentation) /
                   std::max<int64_t>(1, slotsPerCycle);
    s.stallCycles = s.cycles - s.busyCycles;
    const auto cyclesOf = [&](int64_t slots) {
      return slots / std::max<int64_t>(1, slotsPerCycle);
    };
    s.addBreakdown("loss.fragmentation", cyclesOf(d.losses.fragmentation));
    s.addBreakdown("loss.outside_plane", cyclesOf(d.losses.outsidePlane));
    s.addBreakdown("loss.conflicts", cyclesOf(d.losses.conflicts));
    s.addBreakdown("loss.weight_starvation", cyclesOf(d.losses.starvation));
    s.addBreakdown("loss.imbalance", cyclesOf(d.losses.imbalance));
    s.addBreakdown("loss.halo_ppu", cyclesOf(d.losses.haloPpu));
    s.addBreakdown("loss.dram", cyclesOf(d.losses.dram));
    s.addBreakdown("loss.idle_pes", cyclesOf(d.losses.idlePes));
    // Causes: the slot losses in whole array cycles (docs/report-schema.md); issued slots that
    // fall outside the plane or into a partly filled vector count as compute.
    s.causes.compute = s.busyCycles;
    s.causes.conflict = cyclesOf(d.losses.conflicts + d.losses.imbalance);
    s.causes.memory = cyclesOf(d.losses.starvation + d.losses.dram);
    s.causes.fillDrain = cyclesOf(d.losses.haloPpu);
    s.causes.idle = cyclesOf(d.losses.idlePes);
    s.sbuf.readBytes = d.access.iaReadBytes + d.access.weightFifoReadBytes;
    s.sbuf.writeBytes = d.access.oaWriteBytes + d.access.weightFifoWriteBytes;
    s.psum.readBytes = s.psum.writeBytes = d.access.accumulatorRmw * config.accumulatorBits / 8;
    s.dram.readBytes = d.access.dramReadBytes;
    s.dram.writeBytes = d.access.dramWriteBytes;
    s.energyPj = d.energyPj;
    s.energy = energyParts(d.access, prices);
    setConvMetrics(d, s);
    if (d.accumulatorOverflows > 0)
      s.note = fmt::format("{} accumulator overflow(s) wrapped at {} bits", d.accumulatorOverflows,
                           config.accumulatorBits);
  }

  /// The Conv layer's engine-specific metrics and counts (densities, speed-up, access counts).
  static void setConvMetrics(const LayerDetail& d, report::LayerStats& s) {
    s.metrics = {
        {"w_density", d.weightDensity},
        {"a_density", d.activationDensity},
        {"dense_cycles", static_cast<double>(d.denseCycles)},
        {"speedup",
         d.cycles > 0 ? static_cast<double>(d.denseCycles) / static_cast<double>(d.cycles) : 0.0}};
    const AccessCounts& ac = d.access;
    s.counts = {{"multiplies", ac.multiplies},
                {"crossbar_traversals", ac.crossbarTraversals},
                {"accumulator_rmw", ac.accumulatorRmw},
                {"weight_fifo_write_bytes", ac.weightFifoWriteBytes},
                {"weight_fifo_read_bytes", ac.weightFifoReadBytes},
                {"ia_ram_read_bytes", ac.iaReadBytes},
                {"oa_ram_write_bytes", ac.oaWriteBytes},
                {"halo_messages", ac.haloMessages},
                {"ppu_ops", ac.ppuOps},
                {"dram_read_bytes", ac.dramReadBytes},
                {"dram_write_bytes", ac.dramWriteBytes},
                {"dram_row_activations", std::llround(ac.dramActivations)},
                {"dense_cycles", d.denseCycles},
                {"oracle_cycles", d.oracleCycles},
                // Multiplier slots by where they went (the summary's breakdown, per layer; the
                // HTML report stacks the "slots." group).
                {"slots.useful", d.losses.useful},
                {"slots.fragmentation", d.losses.fragmentation},
                {"slots.outside_plane", d.losses.outsidePlane},
                {"slots.crossbar_conflicts", d.losses.conflicts},
                {"slots.weight_starvation", d.losses.starvation},
                {"slots.imbalance", d.losses.imbalance},
                {"slots.halo_ppu", d.losses.haloPpu},
                {"slots.dram", d.losses.dram},
                {"slots.idle_pes", d.losses.idlePes}};
  }

  /// The compacted size of a Conv layer's output, tile by tile, as its post-processing units
  /// write it (the next layer's input code table and frames).
  OutputSize outputSize(const ConvLayer& c, const int8_t* out) const {
    if (c.fusedPool)
      return pooledSize(c, out);
    ConvLayer view; // the output as a layer input: accumulator-plane positions, output pixels
    view.inChannels = c.outChannels;
    view.inH = c.outH;
    view.inW = c.outW;
    view.planeH = c.accH;
    view.planeW = c.accW;
    view.inputXOf = c.outputXOf;
    view.inputYOf = c.outputYOf;
    view.matrixLayout = c.matrixLayout;
    view.inputZero = c.outputZero; // the next layer compresses q - z of this output
    view.inTiling = c.outTiling;
    for (const PeFrame& f : c.frames) {
      PeFrame g;
      g.inX0 = f.outX0;
      g.inY0 = f.outY0;
      g.inW = f.outW;
      g.inH = f.outH;
      view.frames.push_back(g);
    }
    OutputSize s = compactedSize(compactInput(view, config, out));
    if (!c.sliceFirstGroup.empty())
      s.peBytes = sliceBytes(c, *s.compacted);
    return s;
  }

  /// The sizes of an output compacted per PE as a layer input (\p oa), keeping it.
  static OutputSize compactedSize(LayerInput oa) {
    OutputSize s;
    for (int64_t b : oa.bitsPerPe) {
      s.bytes += ceilDiv(b, 8);
      s.peBytes.push_back(ceilDiv(b, 8));
    }
    s.nonZeros = oa.nonZeros;
    s.elements = oa.denseElements;
    s.compacted = std::make_shared<const LayerInput>(std::move(oa));
    return s;
  }

  /// The compressed size of a fused pooling's output \p out (one image), each PE compacting
  /// its tile of the pooled plane (FusedPool::pool.tiling).
  OutputSize pooledSize(const ConvLayer& c, const int8_t* out) const {
    const FusedPool& f = *c.fusedPool;
    return planeSize(c.outChannels, f.pool.tiling, f.pool.zero.out, out);
  }

  /// The compressed size of \p planes planes in tiling \p t (values \p out, zero point
  /// \p zero), each PE compacting its tile of every plane as the post-processing unit does.
  OutputSize planeSize(int64_t planes, const Tiling& t, int32_t zero, const int8_t* out) const {
    ConvLayer view; // the planes as a layer input
    view.inChannels = planes;
    view.inH = view.planeH = t.y.size;
    view.inW = view.planeW = t.x.size;
    for (int32_t x = 0; x < view.inW; ++x)
      view.inputXOf.push_back(x);
    for (int32_t y = 0; y < view.inH; ++y)
      view.inputYOf.push_back(y);
    view.inputZero = zero;
    view.inTiling = t;
    for (int64_t py = 0; py < t.y.parts; ++py)
      for (int64_t px = 0; px < t.x.parts; ++px)
        view.frames.push_back(PeFrame{.inX0 = t.x.begin(px),
                                      .inY0 = t.y.begin(py),
                                      .inW = t.x.length(px),
                                      .inH = t.y.length(py)});
    return compactedSize(compactInput(view, config, out));
  }

  /// Per output-channel slice of fully-connected layer \p c, the compressed bytes of its
  /// channels (planes of the output \p oa) that stay in that PE's output RAM.
  std::vector<int64_t> sliceBytes(const ConvLayer& c, const LayerInput& oa) const {
    const int64_t entryBits = config.valueBits + activationCodeTable(config).bits();
    std::vector<int64_t> bytes;
    for (size_t s = 0; s + 1 < c.sliceFirstGroup.size(); ++s) {
      const WeightGroup& first = c.groups[static_cast<size_t>(c.sliceFirstGroup[s])];
      const WeightGroup& last = c.groups[static_cast<size_t>(c.sliceFirstGroup[s + 1] - 1)];
      int64_t bits = 0;
      for (int64_t m = first.firstChannel; m < last.firstChannel + last.channels; ++m) {
        const int64_t n = oa.begin[static_cast<size_t>(m) + 1] - oa.begin[static_cast<size_t>(m)];
        bits += n > 0 ? n * entryBits + 16 : 0; // as compactInput counts a plane
      }
      bytes.push_back(ceilDiv(bits, 8));
    }
    return bytes;
  }

  /// Whether every image of value \p v is on chip in a tiling of its own H x W plane (not a
  /// dilated layer's phase order nor output-channel slices): a pooling reads it in place.
  bool onChipInPlane(ir::ValueId v) const {
    const Residency& r = residency[static_cast<size_t>(v)];
    const Dims& shape = qm.graph.value(v).shape;
    return !r.images.empty() && !r.foreignLayout && shape.size() == 4 &&
           r.tiling.x.size == shape[3] && r.tiling.y.size == shape[2] &&
           std::all_of(r.images.begin(), r.images.end(),
                       [](const Placement& p) { return p.onChip; });
  }

  /// A Pool layer on the post-processing units (seed 001 ¶0082), each PE pooling its own
  /// output tile. An input on chip is read in place: the window values another PE holds come
  /// from that neighbour as halo messages (SparseCompiler.md §2.8). Otherwise each PE loads its
  /// windows' reach from DRAM (the producer's on-chip parts written there first).
  void runPool(const Layer& l, report::LayerStats& s, LayerDetail& d) {
    const ir::PoolParams& p = l.pool.params;
    const Tensor& x = input(l.inputs[0]);
    Tensor out = common::poolInt8(p, x, l.pool.countMultipliers, l.pool.zero)
                     .reshaped(qm.graph.value(l.outputs[0]).shape);
    const Tiling& t = l.pool.tiling;
    AccessCounts a;
    int64_t load = 0;
    const bool inPlace = onChipInPlane(l.inputs[0]);
    const Tiling source = inPlace
                              ? residency[static_cast<size_t>(l.inputs[0])].tiling
                              : Tiling{Split{p.inSpatial[1], std::min(t.x.parts, p.inSpatial[1])},
                                       Split{p.inSpatial[0], std::min(t.y.parts, p.inSpatial[0])}};
    PoolTileWork work = poolTileWork(p, source, t);
    if (!inPlace) { // every PE reads its windows' whole reach: nothing is exchanged
      std::fill(work.haloValues.begin(), work.haloValues.end(), 0);
      bool fromDram = false;
      const int64_t inBytes = x.numElements() * config.valueBits / 8;
      load = loadInput(l.inputs[0], kWholeValue, t, false, inBytes, a, fromDram);
      d.inputFromDram = fromDram;
    }
    const int64_t planes = p.channels * p.batch;
    a.haloMessages = work.totalHaloValues() * planes;
    a.ppuOps = work.totalWindowOps() * planes + a.haloMessages;
    a.iaReadBytes = work.totalWindowOps() * planes * config.valueBits / 8;
    const int64_t linkCycles = a.haloMessages > 0 ? config.haloLinkLatencyCycles : 0;
    finishPpuLayer(l, t, std::move(out), a, load, work.maxPeOps() * planes, s, d, linkCycles);
  }

  /// An Elementwise layer: the passes run on the post-processing units, each PE on its output
  /// tile (the layer's ops spread evenly over the tiling's PEs). An operand the producer left
  /// on chip in the same tiling is read in place; others are (re-)tiled through DRAM; constant
  /// operands and lookup tables stream from DRAM once.
  void runElementwise(const Layer& l, report::LayerStats& s, LayerDetail& d) {
    const common::ElementwiseLayer& e = l.elementwise;
    Tensor out = common::runElementwise(e, qm, values);
    const Tiling& t = l.ppuTiling;
    AccessCounts a;
    int64_t load = 0;
    const Dims& outShape = e.outShape;
    // A dot product reads whole rows of A and columns of B, never only its own output tile.
    const bool dot = !e.passes.empty() && e.passes.front().func == common::ElementwiseFunc::Dot;
    for (ir::ValueId v : std::set<ir::ValueId>(l.inputs.begin(), l.inputs.end())) {
      const Dims& shape = qm.graph.value(v).shape;
      const bool samePlane = !dot && shape.size() >= 2 && outShape.size() >= 2 &&
                             shape.back() == outShape.back() &&
                             shape[shape.size() - 2] == outShape[outShape.size() - 2];
      bool fromDram = false;
      load += loadInput(v, kWholeValue, t, samePlane, numElements(shape) * config.valueBits / 8, a,
                        fromDram);
      d.inputFromDram = d.inputFromDram || fromDram;
    }
    const int64_t constantBytes = e.constantBytes(qm.graph);
    a.dramReadBytes += constantBytes;
    load += dramCycles(constantBytes);
    a.ppuOps = e.elementOps();
    a.iaReadBytes = e.activationReadBytes(qm.graph) * config.valueBits / 8;
    finishPpuLayer(l, t, std::move(out), a, load, ceilDiv(a.ppuOps, t.pes()), s, d);
    if (qm.node(l.node).kind == quant::QuantOpKind::TensorMatMul) // the operator's own MACs
      s.usefulMacs = ir::nodeMacs(qm.graph, l.node);
  }

  /// Value \p v's output \p out of a post-processing layer in tiling \p t (over the last two
  /// axes), compacted per PE over the planes of those axes; a value of rank < 2 at its dense
  /// size on one PE.
  OutputSize ppuOutputSize(ir::ValueId v, const Tiling& t, const Tensor& out) const {
    const Dims& shape = out.shape();
    if (shape.size() < 2) {
      OutputSize s;
      s.elements = s.nonZeros = out.numElements();
      s.bytes = s.elements * config.valueBits / 8;
      s.peBytes = {s.bytes};
      return s;
    }
    const int64_t plane = shape[shape.size() - 1] * shape[shape.size() - 2];
    return planeSize(plane > 0 ? out.numElements() / plane : 0, t, qm.zeroPoint(v),
                     out.data<int8_t>());
  }

  /// The common end of a post-processing layer: \p maxPeOps on the busiest PE after \p load
  /// cycles of input traffic, plus \p linkCycles of halo-link latency. The PPUs compact the
  /// output in tiling \p t (seed 001 ¶0082 step 3); it stays on chip when every PE's share fits
  /// its OA RAM, else it streams to DRAM as it is produced.
  void finishPpuLayer(const Layer& l, const Tiling& t, Tensor out, AccessCounts& a, int64_t load,
                      int64_t maxPeOps, report::LayerStats& s, LayerDetail& d,
                      int64_t linkCycles = 0) {
    const OutputSize os = ppuOutputSize(l.outputs[0], t, out);
    a.oaWriteBytes = os.bytes;
    Residency& r = residency[static_cast<size_t>(l.outputs[0])];
    r = Residency{};
    r.peBytes.assign(os.peBytes.size(), 0);
    r.images.push_back(Placement{.compressedBytes = os.bytes});
    r.images[0].onChip = admitOnChip(r, os.peBytes, 0);
    r.tiling = t;
    d.outputToDram = r.images[0].inDram = !r.images[0].onChip;
    d.outputPeBytes =
        os.peBytes.empty() ? 0 : *std::max_element(os.peBytes.begin(), os.peBytes.end());
    int64_t computeCycles = ceilDiv(maxPeOps, config.ppuOpsPerCycle) + linkCycles;
    if (d.outputToDram) { // the compacted tiles stream out to DRAM as the PPUs produce them
      a.dramWriteBytes += os.bytes;
      a.dramActivations += rowsOpened(os.bytes);
      computeCycles = std::max(computeCycles, dramCycles(os.bytes));
    }
    d.cycles = load + computeCycles;
    d.denseCycles = d.cycles;
    d.access = a;
    d.denseAccess = a;
    d.energyPj = d.denseEnergyPj = energyPj(a, prices);
    values[static_cast<size_t>(l.outputs[0])] = std::move(out);
    s.cycles = d.cycles;
    s.busyCycles = d.cycles - load;
    s.stallCycles = load;
    s.dram.readBytes = a.dramReadBytes;
    s.dram.writeBytes = a.dramWriteBytes;
    s.sbuf.readBytes = a.iaReadBytes;
    s.sbuf.writeBytes = a.oaWriteBytes;
    s.energyPj = d.energyPj;
    s.energy = energyParts(a, prices);
    // The PPU works once its input is loaded (memory); its operations are the layer's compute.
    s.causes.compute = s.busyCycles;
    s.causes.memory = load;
  }

  void runView(const Layer& l) {
    const Tensor& x = input(l.inputs[0]);
    Tensor out(DType::I8, qm.graph.value(l.outputs[0]).shape);
    std::copy(x.data<int8_t>(), x.data<int8_t>() + x.numElements(), out.data<int8_t>());
    values[static_cast<size_t>(l.outputs[0])] = std::move(out);
    residency[static_cast<size_t>(l.outputs[0])] = Residency{};
  }

  void runHost(const Layer& l, report::LayerStats& s) {
    common::runHostNode(qm, l.node, values, s);
    for (ir::ValueId v : qm.graph.node(l.node).outputs)
      if (v != ir::kNoValue)
        residency[static_cast<size_t>(v)] = Residency{};
  }
};

Simulator::Simulator(const Program& program, const quant::QuantizedModel& qm)
    : impl_(std::make_unique<Impl>(program, qm)) {}
Simulator::~Simulator() = default;

void Simulator::setInput(size_t i, const Tensor& value) {
  const ir::ValueId v = impl_->qm.graph.inputs.at(i);
  impl_->values[static_cast<size_t>(v)] =
      value.dtype() == DType::F32 ? impl_->qm.quantizeInput(value, v).data : value;
  impl_->residency[static_cast<size_t>(v)] = Residency{};
}

void Simulator::run(const SimOptions& options) {
  impl_->run(options);
}

const Tensor& Simulator::value(ir::ValueId v) const {
  return impl_->values.at(static_cast<size_t>(v));
}
const std::vector<report::LayerStats>& Simulator::layerStats() const {
  return impl_->stats;
}
const std::vector<LayerDetail>& Simulator::layerDetails() const {
  return impl_->details;
}
const Tensor& Simulator::layerInput(size_t layer) const {
  const Layer& l = impl_->program.layers.at(layer);
  const std::optional<Tensor>& t = impl_->synthetic.at(layer);
  return t ? *t : impl_->input(l.inputs.at(0));
}

} // namespace nnaccel::arch::sparse
