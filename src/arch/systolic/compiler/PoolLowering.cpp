/// \file
/// Lowering of MaxPool / AveragePool / global pooling onto the pooling engine (seed 000 §1.5:
/// one execution channel per column; here one lane per partition, poolLanes at a time). Each
/// channel block of peRows partitions is processed in bands of output rows whose input rows
/// fit the state buffer, double-buffered like the convolutions. A linear Resize runs the same
/// way as an interpolating POOL: the column taps stay in the pool table, each band's row taps
/// are loaded into one of two table slots beside them (double-buffered like the data).
#include "CompilerContext.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cstring>

namespace nnaccel::arch::systolic {

namespace {

/// One step of a pool: a band of output rows of one channel block of one image, and the input
/// rows it reads.
struct PoolStep {
  int64_t n, c0, cCount, oy0, rows, inRow0, inRows;
};

/// The lowering of one pool: the band height and state-buffer layout, the count table, the
/// steps, and the instructions each step's load, compute and drain emit.
class PoolLowering {
public:
  PoolLowering(CompilerContext& ctx, const PoolDesc& d)
      : ctx_(ctx), cfg_(ctx.config), d_(d), eb_(ctx.elemBytes), em_(ctx.emitter) {}

  /// Emits the pool; false (nothing emitted) when it does not fit the pool table or SBUF.
  bool run() {
    if (static_cast<int64_t>(d_.countTable.size()) > kPoolTableEntries)
      return false;
    if (interpolates() && d_.outW + 2 > kPoolTableEntries)
      return false;
    if (!planBand())
      return false;
    planLayout();
    inDram_ = ctx_.dramRange(d_.inTensor);
    outDram_ = ctx_.dramRange(d_.outTensor);
    inBase_ = ctx_.program.tensors[static_cast<size_t>(d_.inTensor)].addr;
    outBase_ = ctx_.program.tensors[static_cast<size_t>(d_.outTensor)].addr;
    loadCountTable();
    loadColumnTaps();
    makeSteps();
    emitPipelined(
        static_cast<int64_t>(steps_.size()), [&](int64_t k) { load(k); },
        [&](int64_t k) { compute(k); }, [&](int64_t k) { drain(k); });
    return true;
  }

private:
  int64_t inRows(int64_t oy0, int64_t band, int64_t& first) const;
  int64_t maxInRows(int64_t band) const;
  int64_t bandBytes(int64_t band) const;
  bool planBand();
  void planLayout();
  void loadCountTable();
  void loadColumnTaps();
  int64_t rowSlot(int64_t k) const { return d_.outW + (k % 2) * band_; }
  bool interpolates() const { return d_.kind == Pool::Kind::Interpolate; }
  bool fitsTable(int64_t band) const {
    return !interpolates() || d_.outW + 2 * band <= kPoolTableEntries;
  }
  int64_t tableDma(const std::vector<std::array<int32_t, 3>>& records, int64_t firstRecord,
                   int64_t dramAddr);
  void makeSteps();
  static Range sbufRange(int64_t addr, int64_t bytes) {
    return Range{Space::Sbuf, addr, addr + bytes};
  }
  void load(int64_t k);
  void compute(int64_t k);
  void drain(int64_t k);

  CompilerContext& ctx_;
  const SystolicConfig& cfg_;
  const PoolDesc& d_;
  const int64_t eb_;
  Emitter& em_;
  int64_t band_ = 0; ///< output rows per step
  int64_t inBufBytes_ = 0, outBufBytes_ = 0;
  int64_t inAddr_[2] = {0, 0}, outAddr_[2] = {0, 0};
  Range inDram_, outDram_;
  int64_t inBase_ = 0, outBase_ = 0;
  int64_t rowTapsAddr_ = -1; ///< DRAM segment of every output row's tap record
  std::vector<PoolStep> steps_;
};

/// Input rows a band of \p band output rows starting at \p oy0 reads; \p first gets the first.
int64_t PoolLowering::inRows(int64_t oy0, int64_t band, int64_t& first) const {
  if (interpolates()) {
    int64_t lo = d_.inH, hi = -1;
    for (int64_t r = oy0; r < oy0 + band; ++r) {
      const std::array<int32_t, 3>& t = d_.rowTaps[static_cast<size_t>(r)];
      lo = std::min<int64_t>({lo, t[0], t[1]});
      hi = std::max<int64_t>({hi, t[0], t[1]});
    }
    first = lo;
    return hi - lo + 1;
  }
  const int64_t lo = std::max<int64_t>(0, oy0 * d_.strideH - d_.padTop);
  const int64_t hi =
      std::min(d_.inH - 1, (oy0 + band - 1) * d_.strideH - d_.padTop + (d_.kernelH - 1) * d_.dilH);
  first = lo;
  return std::max<int64_t>(0, hi - lo + 1);
}

/// The most input rows any band of \p band output rows reads.
int64_t PoolLowering::maxInRows(int64_t band) const {
  int64_t maxRows = 0, first = 0;
  for (int64_t oy0 = 0; oy0 < d_.outH; oy0 += band)
    maxRows = std::max(maxRows, inRows(oy0, std::min(band, d_.outH - oy0), first));
  return maxRows;
}

/// SBUF bytes per partition bands of \p band output rows need, double-buffered.
int64_t PoolLowering::bandBytes(int64_t band) const {
  return 2 * (maxInRows(band) * d_.inW + band * d_.outW) * eb_;
}

/// Halves the band from all output rows until it fits SBUF; false when one row does not.
bool PoolLowering::planBand() {
  band_ = d_.outH;
  while (band_ > 1 && (bandBytes(band_) > ctx_.sbufBytes() || !fitsTable(band_)))
    band_ = (band_ + 1) / 2;
  return bandBytes(band_) <= ctx_.sbufBytes() && fitsTable(band_);
}

/// Two input buffers, then two output buffers, from SBUF address 0.
void PoolLowering::planLayout() {
  inBufBytes_ = maxInRows(band_) * d_.inW * eb_;
  outBufBytes_ = band_ * d_.outW * eb_;
  inAddr_[0] = 0;
  inAddr_[1] = inBufBytes_;
  outAddr_[0] = 2 * inBufBytes_;
  outAddr_[1] = 2 * inBufBytes_ + outBufBytes_;
}

/// \p records as pool-table records in a DRAM segment (at \p dramAddr, or a new segment when
/// it is negative), DMA'd into the table from record \p firstRecord. Table ranges are tracked
/// per record. Returns the segment's address.
int64_t PoolLowering::tableDma(const std::vector<std::array<int32_t, 3>>& records,
                               int64_t firstRecord, int64_t dramAddr) {
  const auto count = static_cast<int64_t>(records.size());
  if (dramAddr < 0)
    dramAddr = ctx_.addSegment(packPoolRecords(records));
  DmaLoad t;
  t.space = OnChip::PoolTable;
  t.elemBytes = 1;
  t.partitionCount = 1;
  t.innerCount = count * kPoolRecordBytes;
  t.sbufAddr = firstRecord * kPoolRecordBytes;
  t.dram.addr = dramAddr;
  t.dram.innerStep = 1;
  em_.emit(t, {Range{Space::Dram, dramAddr, dramAddr + t.innerCount}},
           {Range{Space::PoolTable, firstRecord, firstRecord + count}});
  return dramAddr;
}

/// Average pools: the window-count table into DRAM and a DMA of it into the pool table.
void PoolLowering::loadCountTable() {
  if (!d_.countTable.empty())
    tableDma(d_.countTable, 0, -1);
}

/// Interpolation: the column taps into records [0, outW) once; the row taps into DRAM, from
/// where each band loads its own (load()).
void PoolLowering::loadColumnTaps() {
  if (!interpolates())
    return;
  tableDma(d_.columnTaps, 0, -1);
  rowTapsAddr_ = ctx_.addSegment(packPoolRecords(d_.rowTaps));
}

/// The steps, in (image, channel block, band) order.
void PoolLowering::makeSteps() {
  for (int64_t n = 0; n < d_.batch; ++n)
    for (int64_t c0 = 0; c0 < d_.channels; c0 += cfg_.peRows)
      for (int64_t oy0 = 0; oy0 < d_.outH; oy0 += band_) {
        PoolStep s{
            n, c0, std::min(cfg_.peRows, d_.channels - c0), oy0, std::min(band_, d_.outH - oy0),
            0, 0};
        s.inRows = inRows(s.oy0, s.rows, s.inRow0);
        steps_.push_back(s);
      }
}

/// Step \p k's input rows from DRAM into its input buffer (none for an all-padding band).
void PoolLowering::load(int64_t k) {
  const PoolStep& s = steps_[static_cast<size_t>(k)];
  if (interpolates()) {
    const auto first = d_.rowTaps.begin() + s.oy0;
    tableDma({first, first + s.rows}, rowSlot(k), rowTapsAddr_ + s.oy0 * kPoolRecordBytes);
  }
  if (s.inRows == 0)
    return;
  const int64_t plane = d_.inH * d_.inW;
  DmaLoad op;
  op.elemBytes = eb_;
  op.partitionCount = s.cCount;
  op.outerCount = s.inRows;
  op.innerCount = d_.inW;
  op.dram.addr = inBase_ + ((s.n * d_.channels + s.c0) * plane + s.inRow0 * d_.inW) * eb_;
  op.dram.partitionStride = plane * eb_;
  op.dram.outerStride = d_.inW * eb_;
  op.dram.innerStep = eb_;
  op.sbufAddr = inAddr_[k % 2];
  op.sbufOuterStride = d_.inW * eb_;
  em_.emit(op, {inDram_}, {sbufRange(op.sbufAddr, inBufBytes_)});
}

/// Step \p k's POOL from its input buffer into its output buffer.
void PoolLowering::compute(int64_t k) {
  const PoolStep& s = steps_[static_cast<size_t>(k)];
  Pool p;
  p.kind = d_.kind;
  p.elemBytes = eb_;
  p.partitions = s.cCount;
  p.src = inAddr_[k % 2];
  p.srcRowStride = d_.inW * eb_;
  p.srcRow0 = s.inRow0;
  p.srcRows = s.inRows;
  p.inH = d_.inH;
  p.inW = d_.inW;
  p.dst = outAddr_[k % 2];
  p.dstRowStride = d_.outW * eb_;
  p.outRow0 = s.oy0;
  p.outRows = s.rows;
  p.outW = d_.outW;
  p.kernelH = d_.kernelH;
  p.kernelW = d_.kernelW;
  p.strideH = d_.strideH;
  p.strideW = d_.strideW;
  p.padTop = d_.padTop;
  p.padLeft = d_.padLeft;
  p.padBottom = d_.padBottom;
  p.padRight = d_.padRight;
  p.dilH = d_.dilH;
  p.dilW = d_.dilW;
  p.countIncludePad = d_.countIncludePad;
  if (p.kind == Pool::Kind::Average) {
    p.zeroIn = d_.zeroIn;
    p.zeroOut = d_.zeroOut;
  }
  std::vector<Range> reads{sbufRange(p.src, inBufBytes_)};
  if (!d_.countTable.empty())
    reads.push_back(Range{Space::PoolTable, 0, static_cast<int64_t>(d_.countTable.size())});
  if (interpolates()) {
    p.tableRow0 = rowSlot(k);
    reads.push_back(Range{Space::PoolTable, 0, d_.outW});
    reads.push_back(Range{Space::PoolTable, p.tableRow0, p.tableRow0 + s.rows});
  }
  em_.emit(p, reads, {sbufRange(p.dst, outBufBytes_)});
}

/// Step \p k's output rows from its output buffer to DRAM.
void PoolLowering::drain(int64_t k) {
  const PoolStep& s = steps_[static_cast<size_t>(k)];
  const int64_t outPlane = d_.outH * d_.outW;
  DmaStore op;
  op.elemBytes = eb_;
  op.partitionCount = s.cCount;
  op.outerCount = 1;
  op.innerCount = s.rows * d_.outW;
  op.dram.addr = outBase_ + ((s.n * d_.channels + s.c0) * outPlane + s.oy0 * d_.outW) * eb_;
  op.dram.partitionStride = outPlane * eb_;
  op.dram.innerStep = eb_;
  op.sbufAddr = outAddr_[k % 2];
  op.sbufOuterStride = s.rows * d_.outW * eb_;
  em_.emit(op, {sbufRange(op.sbufAddr, outBufBytes_)}, {outDram_});
}

} // namespace

bool lowerPool(CompilerContext& ctx, const PoolDesc& d) {
  return PoolLowering(ctx, d).run();
}

std::vector<uint8_t> packPoolRecords(const std::vector<std::array<int32_t, 3>>& records) {
  std::vector<uint8_t> bytes(records.size() * kPoolRecordBytes, 0);
  for (size_t i = 0; i < records.size(); ++i)
    std::memcpy(bytes.data() + i * kPoolRecordBytes, records[i].data(), 3 * sizeof(int32_t));
  return bytes;
}

} // namespace nnaccel::arch::systolic
