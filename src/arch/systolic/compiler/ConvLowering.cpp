/// \file
/// Lowering of one convolution-like layer onto the weight-stationary array (seed 000 §4.2's data
/// scheduler, generalised): output-channel blocks of peCols (several groups packed
/// block-diagonally when they are small, e.g. depthwise), input-channel blocks of peRows that
/// accumulate into the same PSUM tile, output tiles sized from the PSUM capacity, and one
/// LOAD_WEIGHTS + MATMUL per weight element that touches the tile (AccessPlan.h; padding and
/// zero insertion are never streamed). Inputs stay resident in the state buffer when they fit,
/// else each tile's input window is streamed with double buffering. A batch streams several
/// images through each loaded weight element, their tiles side by side in the PSUM half, and
/// DMAs each block's weight set once per pass over as many images as the state buffer holds.
#include "CompilerContext.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fmt/format.h>

namespace nnaccel::arch::systolic {
namespace {

struct CBlock {
  int64_t begin = 0, count = 0;
  int64_t slot = 0; ///< index among the layer's distinct input-channel blocks
};
struct MBlock {
  int64_t begin = 0, count = 0;
  std::vector<CBlock> cBlocks;
  int64_t weightOffset = 0; ///< byte offset of this block's packed weights
};

/// Output-channel blocks with their input-channel blocks.
std::vector<MBlock> makeBlocks(const ConvDesc& d, int64_t peRows, int64_t peCols,
                               int64_t& distinctCBlocks) {
  const int64_t cg = d.inChannels / d.groups, mg = d.outChannels / d.groups;
  std::vector<MBlock> blocks;
  distinctCBlocks = 0;
  if (cg <= peRows && mg <= peCols) {
    const int64_t pack = std::min({d.groups, peRows / cg, peCols / mg});
    for (int64_t g0 = 0; g0 < d.groups; g0 += pack) {
      const int64_t n = std::min(pack, d.groups - g0);
      blocks.push_back(MBlock{g0 * mg, n * mg, {CBlock{g0 * cg, n * cg, distinctCBlocks++}}, 0});
    }
    return blocks;
  }
  for (int64_t grp = 0; grp < d.groups; ++grp) {
    const int64_t firstSlot = distinctCBlocks;
    int64_t slots = 0;
    for (int64_t m0 = 0; m0 < mg; m0 += peCols) {
      MBlock b{grp * mg + m0, std::min(peCols, mg - m0), {}, 0};
      int64_t k = 0;
      for (int64_t c0 = 0; c0 < cg; c0 += peRows, ++k)
        b.cBlocks.push_back(CBlock{grp * cg + c0, std::min(peRows, cg - c0), firstSlot + k});
      slots = k;
      blocks.push_back(std::move(b));
    }
    distinctCBlocks += slots;
  }
  return blocks;
}

int64_t kernelVolume(const ConvDesc& d) {
  return d.h.kernel * d.w.kernel;
}

/// Bytes per partition of one block's packed weights for one input-channel block.
int64_t blockWeightBytes(const ConvDesc& d, int64_t mCount, int64_t elemBytes) {
  return mCount * kernelVolume(d) * elemBytes;
}

/// Output columns of a block whose weights a partition keeps in DRAM. A block of several packed
/// groups (depthwise) is block-diagonal: in int8 programs DRAM holds only each partition's own
/// group (the zeros are written on chip, loadWeights), so depthwise weights cost their own
/// bytes of DRAM traffic and not peCols times as many. f32 programs keep the zeros (the vector
/// unit that writes them is s8-only).
int64_t storedColumns(const CompilerContext& ctx, const ConvDesc& d, int64_t blockCols) {
  const int64_t mg = d.outChannels / d.groups;
  return ctx.options.dtype == DType::I8 ? std::min(blockCols, mg) : blockCols;
}

/// DRAM bytes of one block's packed weights for an input-channel block of \p partitions.
int64_t storedBlockBytes(const CompilerContext& ctx, const ConvDesc& d, int64_t partitions,
                         int64_t blockCols) {
  return partitions * blockWeightBytes(d, storedColumns(ctx, d, blockCols), ctx.elemBytes);
}

std::optional<IndexRange> inputRange(const ConvDesc& d, const AxisGeometry& g, int64_t first,
                                     int64_t len) {
  return d.transposed ? transposedInputRange(g, first, len) : convInputRange(g, first, len);
}

std::optional<WeightPlan> weightPlan(const ConvDesc& d, int64_t y0, int64_t th, int64_t x0,
                                     int64_t tw, int64_t r, int64_t s) {
  return d.transposed ? transposedWeightPlan(d.h, d.w, y0, th, x0, tw, r, s)
                      : convWeightPlan(d.h, d.w, y0, th, x0, tw, r, s);
}

/// The largest input window (rows x cols) any tile of size th x tw reads.
int64_t maxWindowElems(const ConvDesc& d, int64_t th, int64_t tw) {
  int64_t rows = 0, cols = 0;
  for (int64_t y0 = 0; y0 < d.h.out; y0 += th)
    if (auto r = inputRange(d, d.h, y0, std::min(th, d.h.out - y0)))
      rows = std::max(rows, r->size());
  for (int64_t x0 = 0; x0 < d.w.out; x0 += tw)
    if (auto c = inputRange(d, d.w, x0, std::min(tw, d.w.out - x0)))
      cols = std::max(cols, c->size());
  return rows * cols;
}

struct Layout {
  int64_t th = 1, tw = 1; ///< tile shape (PSUM pitch = tw)
  /// Images per step: each loaded weight element streams all of them, their tiles one after
  /// another in the step's PSUM half (stepImages * th * tw entries).
  int64_t stepImages = 1;
  /// Images per pass over the blocks: each block's weight set is DMA'd once per pass (resident
  /// inputs: the pass's planes are on chip together; streamed: the whole batch).
  int64_t passImages = 1;
  int64_t psumHalves = 1, psumHalfEntries = 0;
  int64_t weightBufs = 1, weightBufBytes = 0;
  int64_t outChunks = 1, outBufBytes = 0; ///< per output buffer (two buffers), stepImages tiles
  bool resident = false;
  int64_t inBufBytes = 0;   ///< resident: the pass's inputs; streamed: one window set (two buffers)
  int64_t imageInBytes = 0; ///< resident: one image's input planes (every input block)
  int64_t windowSlotBytes = 0; ///< streamed: bytes per input-channel block within a window set
  // SBUF addresses
  int64_t weightAddr[2] = {0, 0}, outAddr[2] = {0, 0}, inAddr[2] = {0, 0};
};

} // namespace

int64_t packedWeightBytes(const CompilerContext& ctx, const ConvDesc& d) {
  int64_t distinct = 0;
  int64_t total = 0;
  for (const MBlock& b : makeBlocks(d, ctx.config.peRows, ctx.config.peCols, distinct))
    for (const CBlock& c : b.cBlocks)
      total += storedBlockBytes(ctx, d, c.count, b.count);
  return total;
}

std::vector<uint8_t> packWeights(const CompilerContext& ctx, const ConvDesc& d) {
  int64_t distinct = 0;
  const auto blocks = makeBlocks(d, ctx.config.peRows, ctx.config.peCols, distinct);
  const int64_t cg = d.inChannels / d.groups, mg = d.outChannels / d.groups;
  const int64_t kv = kernelVolume(d);
  std::vector<uint8_t> bytes(static_cast<size_t>(packedWeightBytes(ctx, d)), 0);
  size_t pos = 0;
  for (const MBlock& b : blocks)
    for (const CBlock& cb : b.cBlocks)
      for (int64_t p = 0; p < cb.count; ++p) {
        const int64_t c = cb.begin + p;
        const bool compact = storedColumns(ctx, d, b.count) < b.count;
        for (int64_t m = 0; m < b.count; ++m) {
          const int64_t mGlobal = b.begin + m;
          const bool sameGroup = c / cg == mGlobal / mg;
          if (compact && !sameGroup)
            continue;
          for (int64_t k = 0; k < kv; ++k, pos += static_cast<size_t>(ctx.elemBytes))
            if (sameGroup)
              d.weightAt(mGlobal, c, k / d.w.kernel, k % d.w.kernel, bytes.data() + pos);
        }
      }
  NNACCEL_ASSERT(pos == bytes.size()) << "packed weight size mismatch";
  return bytes;
}

void emitPipelined(int64_t steps, const std::function<void(int64_t)>& load,
                   const std::function<void(int64_t)>& compute,
                   const std::function<void(int64_t)>& drain,
                   const std::function<bool(int64_t)>& canPrefetch) {
  if (steps == 0)
    return;
  load(0);
  for (int64_t k = 0; k < steps; ++k) {
    const bool next = k + 1 < steps;
    const bool early = next && (!canPrefetch || canPrefetch(k + 1));
    if (early)
      load(k + 1);
    compute(k);
    drain(k);
    if (next && !early)
      load(k + 1);
  }
}
namespace {

/// One output tile of one output-channel block for images [n, n + images): the unit the
/// pipeline loads, computes and drains. Each weight element the step loads streams every image.
struct Step {
  int64_t n, images, block, y0, x0, th, tw;
  int64_t pass0; ///< first image of the step's pass (resident inputs are per pass)
  bool firstOfBlock, firstOfPass;
};

/// Input window of a step: rows/cols of the input plane held in SBUF (its pitch: cols).
struct Window {
  int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};

/// A weight element of one input-channel block and the part of the tile it touches.
struct WeightItem {
  size_t cb;
  int64_t r, s;
  WeightPlan plan;
};

/// Images that share a weight load (step) and a weight-set DMA (pass).
struct BatchShape {
  int64_t step = 1, pass = 1;
};

/// The weights a LOAD_WEIGHTS put into the array: a block (by load ordinal) and an element.
struct LoadedWeights {
  int64_t blockOrdinal = -1;
  size_t cb = 0;
  int64_t r = 0, s = 0;
  bool operator==(const LoadedWeights&) const = default;
};

/// The lowering of one convolution: its blocks and state-buffer layout, the constants in DRAM,
/// the steps, and the instructions each step's load, compute and drain emit.
class ConvLowering {
public:
  ConvLowering(CompilerContext& ctx, const ConvDesc& d)
      : ctx_(ctx), cfg_(ctx.config), d_(d), eb_(ctx.elemBytes), em_(ctx.emitter),
        zero_(zeroPointsOf(ctx, d)) {}

  void run() {
    planBlocks();
    planLayout();
    addConstants();
    makeSteps();
    inDram_ = ctx_.dramRange(d_.inTensor);
    outDram_ = ctx_.dramRange(d_.outTensor);
    inBase_ = ctx_.program.tensors[static_cast<size_t>(d_.inTensor)].addr;
    outBase_ = ctx_.program.tensors[static_cast<size_t>(d_.outTensor)].addr;
    emitPipelined(
        static_cast<int64_t>(steps_.size()), [&](int64_t k) { load(k); },
        [&](int64_t k) { compute(k); }, [&](int64_t k) { drain(k); },
        [&](int64_t k) { return canPrefetch(k); });
  }

private:
  void planBlocks();
  void planLayout();
  bool fits(int64_t weightBufs, int64_t th, int64_t tw, bool resident, int64_t& inBytes,
            BatchShape im = {}) const;
  void planBatch();
  std::string batchNote(int64_t psumImages) const;
  bool placeResident(int64_t& inBytes);
  bool placeStreamed(int64_t& inBytes);
  void assignAddresses();
  void addConstants();
  void makeSteps();

  Window windowOf(const Step& st) const;
  int64_t inSlotAddr(int64_t k, const CBlock& cb, int64_t cbIndex, int64_t image) const;
  static Range sbufRange(int64_t addr, int64_t bytes) {
    return Range{Space::Sbuf, addr, addr + bytes};
  }
  int64_t psumBase(int64_t k) const { return (k % L_.psumHalves) * L_.psumHalfEntries; }
  int64_t tileEntries() const { return L_.th * L_.tw; }
  /// PSUM tile of \p image in step \p k: the step's images lie one tile after another.
  int64_t psumTile(int64_t k, int64_t image) const {
    return psumBase(k) + (image - steps_[static_cast<size_t>(k)].n) * tileEntries();
  }
  Range psumRange(int64_t tile, int64_t tiles = 1) const {
    return Range{Space::Psum, tile, tile + tiles * tileEntries()};
  }
  int64_t weightBufOf(int64_t ordinal) const {
    return L_.weightAddr[ordinal % L_.weightBufs == 0 ? 0 : 1];
  }

  void load(int64_t k);
  void loadWeights(const Step& st, const MBlock& b);
  void loadBlockDiagonal(const MBlock& b, int64_t wbuf);
  void loadTensorWeights(const Step& st, const MBlock& b, int64_t wbuf);
  void loadActTable(const Step& st, const MBlock& b);
  void loadInput(int64_t n, int64_t k, const CBlock& cb, int64_t cbIndex, const Window& w);
  void compute(int64_t k);
  std::vector<WeightItem> weightItems(const Step& st, const MBlock& b) const;
  void loadElement(int64_t k, const MBlock& b, const WeightItem& it, int64_t wbuf);
  void emitMatmul(int64_t k, const MBlock& b, const WeightItem& it, int64_t image, const Window& w,
                  bool accumulate);
  void drain(int64_t k);
  void drainChunk(int64_t k, const Step& st, const MBlock& b, int64_t image, int64_t chunk);
  bool canPrefetch(int64_t k) const;

  CompilerContext& ctx_;
  const SystolicConfig& cfg_;
  const ConvDesc& d_;
  const int64_t eb_;
  Emitter& em_;
  /// The node's zero points: its input (MATMUL's src.zero), a computed B loaded as weights
  /// (LOAD_WEIGHTS' zero) and its output (ACTIVATE's zero); all 0 in f32 programs.
  const quant::ZeroPoints zero_;

  static quant::ZeroPoints zeroPointsOf(const CompilerContext& ctx, const ConvDesc& d) {
    if (ctx.qm == nullptr || ctx.elemBytes != 1 || d.node < 0)
      return {};
    quant::ZeroPoints z = ctx.qm->zeroPointsOf(d.node);
    if (d.weightTensor < 0)
      z.in[1] = 0; // constant weights are symmetric
    return z;
  }
  std::vector<MBlock> blocks_;
  int64_t distinct_ = 0; ///< distinct input-channel blocks
  int64_t maxCBlocks_ = 0, maxMCount_ = 0;
  int64_t weightSetBytes_ = 0;
  Layout L_;
  int64_t weightsDram_ = 0, weightsDramBytes_ = 0;
  std::vector<int64_t> actTableDram_;
  std::vector<Step> steps_;
  /// Which block's weights / act slot a step uses: blocks are loaded in step order.
  std::vector<int64_t> blockOrdinal_;
  Range inDram_, outDram_;
  int64_t inBase_ = 0, outBase_ = 0;
  int64_t blockCounter_ = -1;    ///< index of the block whose weights were last loaded
  LoadedWeights loaded_;         ///< what the array holds (the last LOAD_WEIGHTS emitted)
  std::array<bool, 2> zeroed_{}; ///< weight buffer i holds zeros off the block diagonal
};

// ---- blocks, layout, constants, steps ------------------------------------------------------

void ConvLowering::planBlocks() {
  blocks_ = makeBlocks(d_, cfg_.peRows, cfg_.peCols, distinct_);
  int64_t off = 0;
  for (MBlock& b : blocks_) {
    b.weightOffset = off;
    for (const CBlock& c : b.cBlocks)
      off += storedBlockBytes(ctx_, d_, c.count, b.count);
  }
  maxCBlocks_ = static_cast<int64_t>(
      std::max_element(blocks_.begin(), blocks_.end(), [](const MBlock& a, const MBlock& b) {
        return a.cBlocks.size() < b.cBlocks.size();
      })->cBlocks.size());
  for (const MBlock& b : blocks_)
    maxMCount_ = std::max(maxMCount_, b.count);
}

/// The PSUM tile and the SBUF carve-up: the input resident when it fits, else streamed windows
/// with the tile shrunk until two window sets fit; double-buffered weights when they fit.
void ConvLowering::planLayout() {
  L_.psumHalves = cfg_.psumEntriesPerColumn >= 2 ? 2 : 1;
  L_.psumHalfEntries = cfg_.psumEntriesPerColumn / L_.psumHalves;
  L_.tw = std::min({d_.w.out, cfg_.psumMaxTileCols, L_.psumHalfEntries});
  L_.th = std::min({d_.h.out, cfg_.psumMaxTileRows, L_.psumHalfEntries / L_.tw});
  weightSetBytes_ = maxCBlocks_ * blockWeightBytes(d_, maxMCount_, eb_);
  L_.outChunks = ceilDiv(maxMCount_, cfg_.peRows);
  L_.imageInBytes = distinct_ * d_.h.in * d_.w.in * eb_;
  int64_t inBytes = 0;
  if (!placeResident(inBytes) && !placeStreamed(inBytes) && cfg_.sbufResidentBytesPerPartition > 0)
    throw WorkingAreaTooSmall{d_.node};
  if (!placeResident(inBytes) && !placeStreamed(inBytes))
    ctx_.g.fail(d_.node,
                fmt::format("does not fit the state buffer ({} bytes per partition) even with a "
                            "1x1 output tile: the weights of one output-channel block need {} "
                            "bytes per partition",
                            ctx_.sbufBytes(), weightSetBytes_),
                ErrorKind::Config);
  planBatch();
  L_.weightBufBytes = weightSetBytes_;
  L_.outBufBytes = L_.stepImages * L_.outChunks * L_.th * L_.tw * eb_;
  if (L_.resident) {
    L_.inBufBytes = L_.passImages * L_.imageInBytes;
  } else {
    L_.windowSlotBytes = maxWindowElems(d_, L_.th, L_.tw) * eb_;
    L_.inBufBytes = L_.stepImages * maxCBlocks_ * L_.windowSlotBytes;
  }
  assignAddresses();
}

/// \p n images in the fewest groups of at most \p most, as even as possible.
int64_t evenGroup(int64_t n, int64_t most) {
  return ceilDiv(n, ceilDiv(n, most));
}

/// The batch schedule (seed 000 para [0078] loads a weight set and streams its inputs; we stream
/// the inputs of several images, docs/arch/SystolicCompiler.md "Batches"): the tile and buffers
/// of one image stay as planned; a step takes as many images as the PSUM half holds tiles and
/// the state buffer holds their windows and outputs; a pass as many as hold their resident
/// planes. Weights that differ per image (a computed B per batch index) are loaded per image.
void ConvLowering::planBatch() {
  const int64_t batch = d_.batch;
  if (batch == 1 || (d_.weightTensor >= 0 && d_.weightNStride != 0))
    return;
  const int64_t psumImages = std::min(batch, L_.psumHalfEntries / (L_.th * L_.tw));
  int64_t inBytes = 0;
  for (int64_t g = psumImages; g > 1; --g) {
    const int64_t step = evenGroup(batch, g);
    if (fits(L_.weightBufs, L_.th, L_.tw, L_.resident, inBytes, {step, step})) {
      L_.stepImages = step;
      break;
    }
  }
  L_.passImages = L_.resident ? L_.stepImages : batch;
  for (int64_t p = batch; L_.resident && p > L_.stepImages; --p) {
    const int64_t pass = evenGroup(batch, p);
    if (fits(L_.weightBufs, L_.th, L_.tw, true, inBytes, {L_.stepImages, pass})) {
      L_.passImages = pass;
      break;
    }
  }
  if (!ctx_.options.baseline) {
    std::string& note = ctx_.program.layers.back().note;
    note += (note.empty() ? "" : "; ") + batchNote(psumImages);
  }
}

/// What the layer note says about the batch: how many images each weight load and each
/// weight-set DMA serve, and what stopped more.
std::string ConvLowering::batchNote(int64_t psumImages) const {
  const int64_t tile = L_.th * L_.tw;
  std::string note;
  if (L_.stepImages > 1)
    note = fmt::format("batch: each weight load streams {} images ({} tiles of {} {} in a PSUM "
                       "half of {})",
                       L_.stepImages, L_.stepImages, tile, tile == 1 ? "entry" : "entries",
                       L_.psumHalfEntries);
  else if (kernelVolume(d_) == 1 && maxCBlocks_ == 1 && (L_.passImages > 1 || blocks_.size() == 1))
    note = "batch: one weight element per tile, kept loaded while the images stream one after "
           "another (PSUM drained per image)";
  else if (psumImages < 2)
    note = fmt::format("batch: weights loaded per image (a tile of {} entries leaves no room for "
                       "a second image in a PSUM half of {})",
                       tile, L_.psumHalfEntries);
  else
    note = "batch: weights loaded per image (the state buffer cannot hold a second image's "
           "input and output)";
  if (L_.passImages > 1)
    note += fmt::format(", weight sets DMA'd once per {} images", L_.passImages);
  return note;
}

/// True when \p weightBufs weight sets, two output buffers of \p im.step th x tw tiles and the
/// input (resident for \p im.pass images, or two window sets of \p im.step images; its bytes
/// in \p inBytes) fit the state buffer.
bool ConvLowering::fits(int64_t weightBufs, int64_t th, int64_t tw, bool resident, int64_t& inBytes,
                        BatchShape im) const {
  const int64_t out = 2 * im.step * L_.outChunks * th * tw * eb_;
  inBytes = resident ? im.pass * distinct_ * d_.h.in * d_.w.in * eb_
                     : 2 * im.step * maxCBlocks_ * maxWindowElems(d_, th, tw) * eb_;
  return weightBufs * weightSetBytes_ + out + inBytes <= ctx_.sbufBytes();
}

bool ConvLowering::placeResident(int64_t& inBytes) {
  for (int64_t wb : {int64_t{2}, int64_t{1}}) {
    if (fits(wb, L_.th, L_.tw, true, inBytes)) {
      L_.weightBufs = wb;
      L_.resident = true;
      return true;
    }
  }
  return false;
}

/// Stream windows: shrink the tile (rows first) until two window sets fit.
bool ConvLowering::placeStreamed(int64_t& inBytes) {
  for (int64_t wb : {int64_t{2}, int64_t{1}}) {
    int64_t th = L_.th, tw = L_.tw;
    while (!fits(wb, th, tw, false, inBytes) && (th > 1 || tw > 1)) {
      if (th > 1)
        th = (th + 1) / 2;
      else
        tw = (tw + 1) / 2;
    }
    if (fits(wb, th, tw, false, inBytes)) {
      L_.weightBufs = wb;
      L_.th = th;
      L_.tw = tw;
      return true;
    }
  }
  return false;
}

void ConvLowering::assignAddresses() {
  int64_t a = 0;
  for (int64_t i = 0; i < L_.weightBufs; ++i, a += L_.weightBufBytes)
    L_.weightAddr[i] = a;
  if (L_.weightBufs == 1)
    L_.weightAddr[1] = L_.weightAddr[0];
  for (int i = 0; i < 2; ++i, a += L_.outBufBytes)
    L_.outAddr[i] = a;
  L_.inAddr[0] = a;
  L_.inAddr[1] = L_.resident ? a : a + L_.inBufBytes;
}

/// Constants: packed weights and activation tables.
void ConvLowering::addConstants() {
  if (d_.weightTensor < 0) {
    weightsDram_ =
        d_.packedWeightsAddr >= 0 ? d_.packedWeightsAddr : ctx_.addSegment(packWeights(ctx_, d_));
    weightsDramBytes_ = packedWeightBytes(ctx_, d_);
  }
  for (const MBlock& b : blocks_) {
    std::vector<uint8_t> rec(static_cast<size_t>(b.count * kActRecordBytes), 0);
    for (int64_t m = 0; m < b.count; ++m)
      d_.actRecord(b.begin + m, rec.data() + m * kActRecordBytes);
    actTableDram_.push_back(ctx_.addSegment(std::move(rec)));
  }
}

/// Passes of passImages images; in each, per block and tile, steps of stepImages images. At
/// batch 1 (or one image per pass) this is image, block, tile: the order of a single image.
void ConvLowering::makeSteps() {
  for (int64_t p0 = 0; p0 < d_.batch; p0 += L_.passImages) {
    const int64_t pEnd = std::min(d_.batch, p0 + L_.passImages);
    for (size_t bi = 0; bi < blocks_.size(); ++bi) {
      bool first = true;
      for (int64_t y0 = 0; y0 < d_.h.out; y0 += L_.th)
        for (int64_t x0 = 0; x0 < d_.w.out; x0 += L_.tw)
          for (int64_t n = p0; n < pEnd; n += L_.stepImages) {
            steps_.push_back(Step{n, std::min(L_.stepImages, pEnd - n), static_cast<int64_t>(bi),
                                  y0, x0, std::min(L_.th, d_.h.out - y0),
                                  std::min(L_.tw, d_.w.out - x0), p0, first,
                                  bi == 0 && y0 == 0 && x0 == 0 && n == p0});
            first = false;
          }
    }
  }
  blockOrdinal_.resize(steps_.size());
  int64_t c = -1;
  for (size_t k = 0; k < steps_.size(); ++k) {
    if (steps_[k].firstOfBlock)
      ++c;
    blockOrdinal_[k] = c;
  }
}

// ---- load ----------------------------------------------------------------------------------

Window ConvLowering::windowOf(const Step& st) const {
  Window w;
  if (L_.resident)
    return Window{0, d_.h.in, 0, d_.w.in};
  auto rr = inputRange(d_, d_.h, st.y0, st.th);
  auto cr = inputRange(d_, d_.w, st.x0, st.tw);
  if (!rr || !cr)
    return w; // the tile reads no input (transposed tails)
  return Window{rr->first, rr->size(), cr->first, cr->size()};
}

/// SBUF address of \p image's input for block \p cb in step \p k: resident planes per image
/// of the pass, streamed windows per image of the step.
int64_t ConvLowering::inSlotAddr(int64_t k, const CBlock& cb, int64_t cbIndex,
                                 int64_t image) const {
  const Step& st = steps_[static_cast<size_t>(k)];
  if (L_.resident)
    return L_.inAddr[0] + (image - st.pass0) * L_.imageInBytes + cb.slot * d_.h.in * d_.w.in * eb_;
  return L_.inAddr[k % 2] + ((image - st.n) * maxCBlocks_ + cbIndex) * L_.windowSlotBytes;
}

void ConvLowering::load(int64_t k) {
  const Step& st = steps_[static_cast<size_t>(k)];
  const MBlock& b = blocks_[static_cast<size_t>(st.block)];
  if (st.firstOfBlock)
    loadWeights(st, b);
  if (L_.resident) {
    const int64_t passEnd = std::min(d_.batch, st.pass0 + L_.passImages);
    for (int64_t n = st.pass0; st.firstOfPass && n < passEnd; ++n) {
      int64_t seen = -1;
      for (const MBlock& mb : blocks_)
        for (const CBlock& cb : mb.cBlocks)
          if (cb.slot > seen) {
            seen = cb.slot;
            loadInput(n, k, cb, 0, Window{0, d_.h.in, 0, d_.w.in});
          }
    }
  } else {
    const Window w = windowOf(st);
    for (int64_t n = st.n; n < st.n + st.images; ++n)
      for (size_t j = 0; j < b.cBlocks.size(); ++j)
        loadInput(n, k, b.cBlocks[j], static_cast<int64_t>(j), w);
  }
}

/// A new block's weights (one DMA per input-channel block) and its activation table.
void ConvLowering::loadWeights(const Step& st, const MBlock& b) {
  ++blockCounter_;
  const int64_t wbuf = weightBufOf(blockCounter_);
  if (d_.weightTensor >= 0)
    return loadTensorWeights(st, b, wbuf);
  if (storedColumns(ctx_, d_, b.count) < b.count)
    loadBlockDiagonal(b, wbuf);
  for (size_t j = 0; j < b.cBlocks.size() && storedColumns(ctx_, d_, b.count) == b.count; ++j) {
    const CBlock& cb = b.cBlocks[j];
    const int64_t bytesPerPartition = blockWeightBytes(d_, b.count, eb_);
    int64_t off = b.weightOffset;
    for (size_t i = 0; i < j; ++i)
      off += b.cBlocks[i].count * bytesPerPartition;
    DmaLoad op;
    op.elemBytes = eb_;
    op.partitionCount = cb.count;
    op.outerCount = 1;
    op.innerCount = b.count * kernelVolume(d_);
    op.dram.addr = weightsDram_ + off;
    op.dram.partitionStride = bytesPerPartition;
    op.dram.innerStep = eb_;
    op.sbufAddr = wbuf + static_cast<int64_t>(j) * bytesPerPartition;
    op.sbufOuterStride = bytesPerPartition;
    em_.emit(op, {Range{Space::Dram, weightsDram_, weightsDram_ + weightsDramBytes_}},
             {sbufRange(op.sbufAddr, bytesPerPartition)});
  }
  loadActTable(st, b);
}

/// Weights that are a computed tensor (ConvDesc::weightTensor): per input-channel block one
/// DMA of its rows' b.count columns, which lands in the packed layout of a 1x1 kernel.
void ConvLowering::loadTensorWeights(const Step& st, const MBlock& b, int64_t wbuf) {
  NNACCEL_ASSERT(kernelVolume(d_) == 1 && d_.groups == 1) << "tensor weights are 1x1, one group";
  const Range tensor = ctx_.dramRange(d_.weightTensor);
  const int64_t base = ctx_.program.tensors[static_cast<size_t>(d_.weightTensor)].addr;
  const int64_t bytesPerPartition = blockWeightBytes(d_, b.count, eb_);
  for (size_t j = 0; j < b.cBlocks.size(); ++j) {
    const CBlock& cb = b.cBlocks[j];
    DmaLoad op;
    op.elemBytes = eb_;
    op.partitionCount = cb.count;
    op.innerCount = b.count;
    op.dram.addr = base + (st.n * d_.weightNStride + cb.begin * d_.weightCStride + b.begin) * eb_;
    op.dram.partitionStride = d_.weightCStride * eb_;
    op.dram.innerStep = eb_;
    op.sbufAddr = wbuf + static_cast<int64_t>(j) * bytesPerPartition;
    op.sbufOuterStride = bytesPerPartition;
    em_.emit(op, {tensor}, {sbufRange(op.sbufAddr, bytesPerPartition)});
  }
  loadActTable(st, b);
}

/// A block of packed groups: zeros off the diagonal, written once per weight buffer by the
/// vector unit (a Clamp to [0, 0]; every block of the layer has the same diagonal), then one
/// DMA per group of its own columns.
void ConvLowering::loadBlockDiagonal(const MBlock& b, int64_t wbuf) {
  NNACCEL_ASSERT(b.cBlocks.size() == 1) << "packed groups form one input-channel block";
  const CBlock& cb = b.cBlocks[0];
  const int64_t rowBytes = blockWeightBytes(d_, b.count, eb_);
  const size_t buf = wbuf == L_.weightAddr[0] ? 0 : 1;
  if (!zeroed_[buf]) {
    Vector zero;
    zero.func = VectorFunc::Clamp;
    zero.partitions = cfg_.peRows;
    zero.rowLen = rowBytes;
    zero.a = zero.dst = wbuf;
    zero.clampLo = zero.clampHi = 0;
    em_.emit(zero, {}, {sbufRange(wbuf, rowBytes)});
    zeroed_[buf] = true;
  }
  const int64_t cg = d_.inChannels / d_.groups, mg = d_.outChannels / d_.groups;
  const int64_t groupBytes = blockWeightBytes(d_, mg, eb_); // per partition
  for (int64_t g = 0; g * cg < cb.count; ++g) {
    DmaLoad op;
    op.elemBytes = eb_;
    op.partitionStart = g * cg;
    op.partitionCount = cg;
    op.innerCount = mg * kernelVolume(d_);
    op.dram.addr = weightsDram_ + b.weightOffset + g * cg * groupBytes;
    op.dram.partitionStride = groupBytes;
    op.dram.innerStep = eb_;
    op.sbufAddr = wbuf + g * groupBytes;
    em_.emit(op, {Range{Space::Dram, weightsDram_, weightsDram_ + weightsDramBytes_}},
             {sbufRange(op.sbufAddr, groupBytes)});
  }
}

/// The activation-table records of block \p b's output channels.
void ConvLowering::loadActTable(const Step& st, const MBlock& b) {
  DmaLoad t;
  t.space = OnChip::ActTable;
  t.elemBytes = 1;
  t.partitionCount = b.count;
  t.innerCount = kActRecordBytes;
  t.dram.addr = actTableDram_[static_cast<size_t>(st.block)];
  t.dram.partitionStride = kActRecordBytes;
  t.dram.innerStep = 1;
  t.sbufAddr = (blockCounter_ % kActTableSlots) * kActRecordBytes;
  const int64_t slot = blockCounter_ % kActTableSlots;
  em_.emit(t, {Range{Space::Dram, t.dram.addr, t.dram.addr + b.count * kActRecordBytes}},
           {Range{Space::ActTable, slot, slot + 1}});
}

void ConvLowering::loadInput(int64_t n, int64_t k, const CBlock& cb, int64_t cbIndex,
                             const Window& w) {
  if (w.rows == 0 || w.cols == 0)
    return;
  const int64_t dst = inSlotAddr(k, cb, cbIndex, n);
  DmaLoad op;
  op.space = OnChip::Sbuf;
  op.elemBytes = eb_;
  op.partitionStart = 0;
  op.partitionCount = cb.count;
  op.outerCount = w.rows;
  op.innerCount = w.cols;
  op.dram.addr = inBase_ + (n * d_.inNStride + cb.begin * d_.inCStride + w.row0 * d_.inYStride +
                            w.col0 * d_.inXStride) *
                               eb_;
  op.dram.partitionStride = d_.inCStride * eb_;
  op.dram.outerStride = d_.inYStride * eb_;
  op.dram.innerStep = d_.inXStride * eb_;
  op.sbufAddr = dst;
  op.sbufOuterStride = w.cols * eb_;
  em_.emit(op, {inDram_}, {sbufRange(dst, w.rows * w.cols * eb_)});
}

// ---- compute -------------------------------------------------------------------------------

void ConvLowering::compute(int64_t k) {
  const Step& st = steps_[static_cast<size_t>(k)];
  const MBlock& b = blocks_[static_cast<size_t>(st.block)];
  const int64_t wbuf = weightBufOf(blockOrdinal_[static_cast<size_t>(k)]);
  const int64_t pbase = psumBase(k);
  const Window w = windowOf(st);
  std::vector<WeightItem> items = weightItems(st, b);
  // The tile must start from zero: either a first MATMUL that writes every entry (overwrite), a
  // PSUM_RESET (FIG. 7A), or the written flags (FIG. 7B).
  bool overwriteFirst = false;
  if (cfg_.psumZeroMode == PsumZeroMode::Reset) {
    auto full = std::find_if(items.begin(), items.end(), [&](const WeightItem& it) {
      return it.plan.count() == st.th * st.tw;
    });
    if (full != items.end()) {
      std::rotate(items.begin(), full, full + 1);
      overwriteFirst = true;
    } else {
      em_.emit(PsumReset{pbase, st.images * tileEntries(), b.count}, {},
               {psumRange(pbase, st.images)});
    }
  }
  // Each weight element is loaded once and streams every image of the step.
  for (size_t i = 0; i < items.size(); ++i) {
    loadElement(k, b, items[i], wbuf);
    for (int64_t n = st.n; n < st.n + st.images; ++n)
      emitMatmul(k, b, items[i], n, w, !(i == 0 && overwriteFirst));
  }
}

/// Every weight element of block \p b that touches step \p st's tile, by input-channel block.
std::vector<WeightItem> ConvLowering::weightItems(const Step& st, const MBlock& b) const {
  std::vector<WeightItem> items;
  for (size_t j = 0; j < b.cBlocks.size(); ++j)
    for (int64_t r = 0; r < d_.h.kernel; ++r)
      for (int64_t s = 0; s < d_.w.kernel; ++s)
        if (auto plan = weightPlan(d_, st.y0, st.th, st.x0, st.tw, r, s))
          items.push_back(WeightItem{j, r, s, *plan});
  return items;
}

/// LOAD_WEIGHTS of weight element \p it, unless the array already holds it (the same element
/// of the same block loaded last: a one-element tile's weights stay for the next tile or image).
void ConvLowering::loadElement(int64_t k, const MBlock& b, const WeightItem& it, int64_t wbuf) {
  const LoadedWeights element{blockOrdinal_[static_cast<size_t>(k)], it.cb, it.r, it.s};
  if (element == loaded_)
    return;
  loaded_ = element;
  const int64_t bytesPerPartition = blockWeightBytes(d_, b.count, eb_);
  const CBlock& cb = b.cBlocks[it.cb];
  LoadWeights lw;
  lw.addr = wbuf + static_cast<int64_t>(it.cb) * bytesPerPartition +
            (it.r * d_.w.kernel + it.s) * eb_; // ORIGINAL (r, s)
  lw.rows = cb.count;
  lw.cols = b.count;
  lw.colStride = kernelVolume(d_) * eb_;
  lw.zero = zero_.in[1];
  em_.emit(lw,
           {sbufRange(wbuf + static_cast<int64_t>(it.cb) * bytesPerPartition, bytesPerPartition)},
           {});
}

/// MATMUL of the loaded weight element \p it over \p image's input window \p w into the
/// image's PSUM tile.
void ConvLowering::emitMatmul(int64_t k, const MBlock& b, const WeightItem& it, int64_t image,
                              const Window& w, bool accumulate) {
  const int64_t tile = psumTile(k, image);
  const int64_t pitch = w.cols;
  const CBlock& cb = b.cBlocks[it.cb];
  const int64_t inAddr = inSlotAddr(k, cb, static_cast<int64_t>(it.cb), image);
  Matmul mm;
  mm.rows = cb.count;
  mm.cols = b.count;
  mm.src =
      inAddr + ((it.plan.rows.srcFirst - w.row0) * pitch + (it.plan.cols.srcFirst - w.col0)) * eb_;
  mm.srcInnerStep = it.plan.cols.srcStep * eb_;
  mm.srcInnerCount = it.plan.cols.count;
  mm.srcOuterStride = it.plan.rows.srcStep * pitch * eb_;
  mm.srcOuterCount = it.plan.rows.count;
  mm.dst = tile + it.plan.rows.dstFirst * L_.tw + it.plan.cols.dstFirst;
  mm.dstInnerStep = it.plan.cols.dstStep;
  mm.dstInnerCount = it.plan.cols.count;
  mm.dstOuterStride = it.plan.rows.dstStep * L_.tw;
  mm.dstOuterCount = it.plan.rows.count;
  mm.accumulate = accumulate;
  mm.srcZero = zero_.in[0];
  const int64_t slotBytes = L_.resident ? d_.h.in * d_.w.in * eb_ : L_.windowSlotBytes;
  em_.emit(mm, {sbufRange(inAddr, slotBytes)}, {psumRange(tile)});
}

// ---- drain ---------------------------------------------------------------------------------

void ConvLowering::drain(int64_t k) {
  const Step& st = steps_[static_cast<size_t>(k)];
  const MBlock& b = blocks_[static_cast<size_t>(st.block)];
  for (int64_t n = st.n; n < st.n + st.images; ++n)
    for (int64_t c = 0; c < L_.outChunks && c * cfg_.peRows < b.count; ++c)
      drainChunk(k, st, b, n, c);
}

/// ACTIVATE of output chunk \p chunk (peRows output channels) of \p image's tile in step \p k
/// into the output buffer, and its store to DRAM.
void ConvLowering::drainChunk(int64_t k, const Step& st, const MBlock& b, int64_t image,
                              int64_t chunk) {
  const int64_t pbase = psumTile(k, image);
  const Range psum = psumRange(pbase);
  const int64_t chunkBytes = tileEntries() * eb_;
  const int64_t col0 = chunk * cfg_.peRows;
  const int64_t cols = std::min(cfg_.peRows, b.count - col0);
  Activate a;
  a.psum = pbase;
  a.psumRowStride = L_.tw;
  a.rows = st.th;
  a.rowLen = st.tw;
  a.colStart = col0;
  a.cols = cols;
  a.dstPartition = 0;
  a.dst = L_.outAddr[k % 2] + ((image - st.n) * L_.outChunks + chunk) * chunkBytes;
  a.dstRowStride = L_.tw * eb_;
  a.elemBytes = eb_;
  a.tableSlot = blockOrdinal_[static_cast<size_t>(k)] % kActTableSlots;
  a.func = d_.func;
  a.clampLo = d_.clampLo;
  a.clampHi = d_.clampHi;
  a.alpha = d_.alpha;
  a.beta = d_.beta;
  a.gamma = d_.gamma;
  a.releaseEntries = cfg_.psumZeroMode == PsumZeroMode::WrittenFlags;
  a.zeroOut = zero_.out;
  const Range table{Space::ActTable, a.tableSlot, a.tableSlot + 1};
  std::vector<Range> writes{sbufRange(a.dst, chunkBytes)};
  if (a.releaseEntries)
    writes.push_back(psum);
  em_.emit(a, {psum, table}, writes);
  DmaStore s;
  s.elemBytes = eb_;
  s.partitionCount = cols;
  s.outerCount = st.th;
  s.innerCount = st.tw;
  s.dram.addr = outBase_ + (image * d_.outNStride + (b.begin + col0) * d_.outCStride +
                            st.y0 * d_.outYStride + st.x0 * d_.outXStride) *
                               eb_;
  s.dram.partitionStride = d_.outCStride * eb_;
  s.dram.outerStride = d_.outYStride * eb_;
  s.dram.innerStep = d_.outXStride * eb_;
  s.sbufAddr = a.dst;
  s.sbufOuterStride = L_.tw * eb_;
  em_.emit(s, {sbufRange(a.dst, chunkBytes)}, {outDram_});
}

/// A new pass's resident inputs and a new block's weights in a single weight buffer overwrite
/// what the previous step still reads: they cannot be prefetched.
bool ConvLowering::canPrefetch(int64_t k) const {
  const Step& st = steps_[static_cast<size_t>(k)];
  return !(L_.resident && st.firstOfPass) && !(L_.weightBufs == 1 && st.firstOfBlock);
}

} // namespace

void lowerConv(CompilerContext& ctx, const ConvDesc& d) {
  ConvLowering(ctx, d).run();
}

} // namespace nnaccel::arch::systolic
