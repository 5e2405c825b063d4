/// \file
/// The systolic machine model (Simulator.h): the functional model of every instruction on
/// DRAM / SBUF / PSUM / tables in program order, driven together with the cycle model
/// (CycleModel.h, or ExactArray.h for the PE array in exact mode) and the per-layer accounts.
///
/// Compiled with -ffp-contract=off: f32 column sums are defined as p_out = p_in + x * w row by
/// row (Isa.h), and the exact mode must reproduce their bits.
///
/// Every instruction's memory accesses are bounds-checked once, before its loops, against the
/// extremes of its access pattern (computed in 128-bit arithmetic); the loops themselves are
/// unchecked. A failing check throws nnaccel::Error (Model) naming the instruction.
#include "nnaccel/arch/systolic/Simulator.h"

#include "CycleModel.h"
#include "ExactArray.h"
#include "VectorUnit.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/quant/Requantize.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Interrupt.h"
#include "nnaccel/support/MemoryBudget.h"
#include "nnaccel/support/ZeroedBytes.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace nnaccel::arch::systolic {

namespace {

using detail::PeTiming;
using detail::Timing;

__extension__ using Wide = __int128;

/// Element types of one program dtype: SBUF element, weight register of the fast kernel,
/// partial sum / PSUM entry.
template <class T> struct Arith;
template <> struct Arith<int8_t> {
  using Weight = int16_t;
  using Acc = int32_t;
};
template <> struct Arith<float> {
  using Weight = float;
  using Acc = float;
};

template <class T> T loadElem(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> void storeElem(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

int32_t wrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
template <class Acc> Acc addAcc(Acc a, Acc b) {
  if constexpr (std::is_same_v<Acc, float>) {
    return a + b;
  } else {
    return wrapAdd(a, b);
  }
}

/// One level of an access pattern: `count` positions `stride` apart.
struct Level {
  int64_t stride;
  int64_t count;
};

/// [lo, hi) of the bytes (or entries) a pattern touches: base + sum of index * stride, each
/// position \p unit wide. Computed exactly (128-bit) so no field value can overflow it.
struct Extent {
  Wide lo = 0, hi = 0;
};
Extent extentOf(int64_t base, std::initializer_list<Level> levels, int64_t unit) {
  Extent e{base, base};
  for (const Level& l : levels) {
    const Wide span = static_cast<Wide>(l.stride) * (l.count - 1);
    (span < 0 ? e.lo : e.hi) += span;
  }
  e.hi += unit;
  return e;
}

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

ir::OpKind opKindOf(ActFunc f) {
  switch (f) {
  case ActFunc::Relu:
    return ir::OpKind::Relu;
  case ActFunc::Clip:
    return ir::OpKind::Clip;
  case ActFunc::LeakyRelu:
    return ir::OpKind::LeakyRelu;
  case ActFunc::Sigmoid:
    return ir::OpKind::Sigmoid;
  case ActFunc::Tanh:
    return ir::OpKind::Tanh;
  case ActFunc::Elu:
    return ir::OpKind::Elu;
  case ActFunc::HardSigmoid:
    return ir::OpKind::HardSigmoid;
  case ActFunc::HardSwish:
    return ir::OpKind::HardSwish;
  case ActFunc::Selu:
    return ir::OpKind::Selu;
  case ActFunc::Softplus:
    return ir::OpKind::Softplus;
  case ActFunc::Identity:
    break;
  }
  return ir::OpKind::Identity;
}

/// Column sums of the s8 fast path: out[k][m] = sum over p < rows of x[k][p] * w[p][m].
/// int16 operands so the compiler emits widening 16-bit multiplies; integer sums are exact.
void columnSums(const int16_t* x, int64_t vectors, int64_t rows, const int16_t* w, int64_t wStride,
                int64_t cols, int32_t* out) {
  for (int64_t k = 0; k < vectors; ++k) {
    int32_t* acc = out + k * cols;
    std::fill(acc, acc + cols, 0);
    const int16_t* xk = x + k * rows;
    for (int64_t p = 0; p < rows; ++p) {
      const int16_t xv = xk[p];
      if (xv == 0) {
        continue;
      }
      const int16_t* wp = w + p * wStride;
      for (int64_t m = 0; m < cols; ++m) {
        acc[m] += static_cast<int32_t>(xv) * static_cast<int32_t>(wp[m]);
      }
    }
  }
}

/// Column sums of the f32 fast path, accumulated row by row from row 0 (p_out = p_in + x * w,
/// p_in of row 0 = +0.0f) over \p weightRows rows; rows >= \p rows stream zeros. Rows past
/// both hold zero weights and zero inputs and cannot change a sum (p_in is never -0.0f).
void columnSums(const float* x, int64_t vectors, int64_t rows, const float* w, int64_t wStride,
                int64_t cols, int64_t weightRows, float* out) {
  const int64_t rowsEff = std::max(rows, weightRows);
  for (int64_t k = 0; k < vectors; ++k) {
    float* acc = out + k * cols;
    std::fill(acc, acc + cols, 0.0f);
    const float* xk = x + k * rows;
    for (int64_t p = 0; p < rowsEff; ++p) {
      const float xv = p < rows ? xk[p] : 0.0f;
      const float* wp = w + p * wStride;
      for (int64_t m = 0; m < cols; ++m) {
        acc[m] = acc[m] + xv * wp[m];
      }
    }
  }
}

} // namespace

namespace {

/// The SBUF working bytes per partition and resident-region bytes to allocate: what the program
/// uses (validateProgram's extents), not the configured maximum. Every access is checked against
/// this bound at run time too, so a program reaching past it fails, never reads outside the
/// allocation. A program that does not validate (only hand-built ones reach here: decoding and
/// compiling validate) gets the configured size, and the run-time checks report what is wrong with
/// it.
ProgramExtents extentsUsed(const Program& p) {
  try {
    ProgramExtents e = validateProgram(p);
    e.sbufBytesPerPartition = std::max<int64_t>(1, e.sbufBytesPerPartition);
    return e;
  } catch (const Error&) {
    return {.sbufBytesPerPartition = p.config.sbufWorkingBytesPerPartition(),
            .residentBytes = residentRegionBytes(p.config)};
  }
}

} // namespace

struct Simulator::Impl {
  const Program program; ///< a copy: the simulator never depends on the caller's lifetime
  HostContext host;
  const SystolicConfig& config;
  common::DramFigures dramPart; ///< the config's DRAM part at its clock
  const ProgramExtents extents; ///< what the program touches: the memories are sized to it
  const int64_t rows, cols, sbufPartitionBytes, psumEntries, elemBytes;

  /// resident: the SBUF resident region, in its flat address order (Program.h's mapping onto
  /// partitions is a bijection, so the flat form holds the same bytes).
  std::vector<uint8_t> dram, actTable, poolTable, lookupTable;
  /// Sized from the program's extents; only the pages the program writes take memory.
  ZeroedBytes resident, sbuf;
  std::vector<int32_t> psumI;
  std::vector<float> psumF;
  std::vector<uint8_t> written; ///< PSUM written flags, [entry][column]
  // Fast-path weight registers [row][column] (s8: int16 values).
  std::vector<int16_t> activeI, shadowI;
  std::vector<float> activeF, shadowF;
  int64_t activeRows = 0, shadowRows = 0;
  bool shadowPending = false;

  std::vector<report::LayerStats> stats;
  int64_t total = 0;

  // The instruction being executed, for error messages.
  size_t current = 0;

  Impl(const Program& p, HostContext h)
      : program(p), host(h), config(program.config), dramPart(p.config.dramFigures()),
        extents(extentsUsed(p)), rows(p.config.peRows), cols(p.config.peCols),
        sbufPartitionBytes(extents.sbufBytesPerPartition),
        psumEntries(p.config.psumEntriesPerColumn),
        elemBytes(static_cast<int64_t>(dtypeSizeBytes(p.dtype))) {
    if (p.dtype != DType::I8 && p.dtype != DType::F32) {
      throw Error(ErrorKind::Model, {},
                  "program dtype " + std::string(dtypeName(p.dtype)) + " is not s8 or f32");
    }
    if (p.dramBytes < 0 || p.dramBytes > kMaxDramBytes) {
      throw Error(ErrorKind::Model, {},
                  "program DRAM size " + std::to_string(p.dramBytes) + " is outside [0, 16 GiB]");
    }
    requireMemory(machineStateBytes(), "the systolic machine's memories (DRAM, SBUF, PSUM)");
    dram.assign(static_cast<size_t>(p.dramBytes), 0);
    for (size_t s = 0; s < p.segments.size(); ++s) {
      const DramSegment& seg = p.segments[s];
      const Wide end = static_cast<Wide>(seg.addr) + static_cast<Wide>(seg.bytes.size());
      if (seg.addr < 0 || end > p.dramBytes) {
        throw Error(ErrorKind::Model, {},
                    "DRAM segment " + std::to_string(s) + " at " + std::to_string(seg.addr) + " (" +
                        std::to_string(seg.bytes.size()) + " bytes) lies outside the program's " +
                        std::to_string(p.dramBytes) + " DRAM bytes");
      }
      std::copy(seg.bytes.begin(), seg.bytes.end(), dram.begin() + seg.addr);
    }
  }

  // --- errors and checks -----------------------------------------------------------------------

  [[noreturn]] void fail(const std::string& what) const {
    const Instruction& inst = program.instructions[current];
    throw Error(ErrorKind::Model, {},
                "instruction " + std::to_string(current) + " (" + mnemonic(inst.op) + "): " + what);
  }
  void checkCount(const char* field, int64_t value) const {
    if (value < 1) {
      fail(std::string(field) + " = " + std::to_string(value) + " must be >= 1");
    }
  }
  void checkInside(const char* field, Extent e, int64_t limit, const char* what) const {
    if (e.lo < 0 || e.hi > limit) {
      fail(std::string(field) + " accesses [" + std::to_string(static_cast<int64_t>(e.lo)) + ", " +
           std::to_string(static_cast<int64_t>(e.hi)) + ") outside the " + std::to_string(limit) +
           " " + what);
    }
  }
  void checkRange(const char* field, int64_t start, int64_t count, int64_t limit,
                  const char* what) const {
    if (start < 0 || count < 0 || static_cast<Wide>(start) + count > limit) {
      fail(std::string(field) + " selects [" + std::to_string(start) + ", +" +
           std::to_string(count) + ") outside the " + std::to_string(limit) + " " + what);
    }
  }
  void checkElemBytes(int64_t value) const {
    if (value != elemBytes) {
      fail("elem = " + std::to_string(value) + " differs from the program's " +
           std::to_string(elemBytes) + "-byte elements");
    }
  }

  /// An on-chip DMA region: partitions of `bytes` bytes each.
  struct Region {
    uint8_t* base;
    int64_t bytes, partitions;
    const char* what;
  };
  Region region(OnChip space) {
    switch (space) {
    case OnChip::Sbuf:
      return {sbuf.data(), sbufPartitionBytes, rows, "SBUF bytes per partition"};
    case OnChip::ActTable:
      return {actTable.data(), kActTableSlots * kActRecordBytes, cols,
              "activation-table bytes per column"};
    case OnChip::PoolTable:
      return {poolTable.data(), kPoolTableEntries * kPoolRecordBytes, 1, "pool-table bytes"};
    case OnChip::LookupTable:
      return {lookupTable.data(), kLookupTableBytes, rows, "lookup-table bytes per partition"};
    }
    fail("unknown on-chip space");
  }

  // --- DMA -----------------------------------------------------------------------------------

  /// The memory a DMA's non-SBUF address names (DRAM or the resident region), as a base
  /// pointer for addresses relative to \p addr's space, the space's size and its name.
  struct Memory {
    uint8_t* base;
    int64_t origin, bytes;
    const char* what;
  };
  Memory memoryOf(int64_t addr) {
    if (isResidentAddr(addr)) {
      return {resident.data(), kResidentBase, static_cast<int64_t>(resident.size()),
              "resident-region bytes"};
    }
    return {dram.data(), 0, static_cast<int64_t>(dram.size()), "DRAM bytes"};
  }
  const uint8_t* memoryAt(int64_t addr) const {
    return isResidentAddr(addr) ? resident.data() + (addr - kResidentBase) : dram.data() + addr;
  }
  uint8_t* memoryAt(int64_t addr) {
    return isResidentAddr(addr) ? resident.data() + (addr - kResidentBase) : dram.data() + addr;
  }

  /// DMA_LOAD (toChip) and DMA_STORE: checks both sides, then moves the data when \p move.
  template <class D> void transfer(const D& d, OnChip space, bool toChip, bool move) {
    checkCount("elem", d.elemBytes);
    checkCount("outer.n", d.outerCount);
    checkCount("inner.n", d.innerCount);
    checkCount("part.n", d.partitionCount);
    const Region r = region(space);
    checkRange("part", d.partitionStart, d.partitionCount, r.partitions,
               space == OnChip::ActTable ? "activation-table columns" : "partitions");
    checkInside("sbuf",
                extentOf(d.sbufAddr,
                         {{d.sbufOuterStride, d.outerCount}, {d.elemBytes, d.innerCount}},
                         d.elemBytes),
                r.bytes, r.what);
    const Memory mem = memoryOf(d.dram.addr);
    checkInside("dram",
                extentOf(d.dram.addr - mem.origin,
                         {{d.dram.partitionStride, d.partitionCount},
                          {d.dram.outerStride, d.outerCount},
                          {d.dram.innerStep, d.innerCount}},
                         d.elemBytes),
                mem.bytes, mem.what);
    if (!move) {
      return;
    }
    const size_t eb = static_cast<size_t>(d.elemBytes);
    for (int64_t p = 0; p < d.partitionCount; ++p) {
      uint8_t* chipPart = r.base + (d.partitionStart + p) * r.bytes;
      for (int64_t o = 0; o < d.outerCount; ++o) {
        uint8_t* chip = chipPart + d.sbufAddr + o * d.sbufOuterStride;
        uint8_t* row = mem.base + (d.dram.addr - mem.origin) + p * d.dram.partitionStride +
                       o * d.dram.outerStride;
        if (d.dram.innerStep == d.elemBytes) {
          toChip ? std::memmove(chip, row, eb * static_cast<size_t>(d.innerCount))
                 : std::memmove(row, chip, eb * static_cast<size_t>(d.innerCount));
          continue;
        }
        for (int64_t i = 0; i < d.innerCount; ++i) {
          uint8_t* c = chip + i * d.elemBytes;
          uint8_t* m = row + i * d.dram.innerStep;
          toChip ? std::memcpy(c, m, eb) : std::memcpy(m, c, eb);
        }
      }
    }
  }

  void dmaCopy(const DmaCopy& d, bool move) {
    checkCount("elem", d.elemBytes);
    checkCount("part.n", d.partitionCount);
    checkCount("outer.n", d.outerCount);
    checkCount("inner.n", d.innerCount);
    auto extent = [&](const DramPattern& p) {
      return extentOf(p.addr,
                      {{p.partitionStride, d.partitionCount},
                       {p.outerStride, d.outerCount},
                       {p.innerStep, d.innerCount}},
                      d.elemBytes);
    };
    const Memory src = memoryOf(d.src.addr), dst = memoryOf(d.dst.addr);
    if (!d.fillZero) {
      checkInside("src",
                  extent(DramPattern{d.src.addr - src.origin, d.src.partitionStride,
                                     d.src.outerStride, d.src.innerStep}),
                  src.bytes, src.what);
    }
    checkInside("dst",
                extent(DramPattern{d.dst.addr - dst.origin, d.dst.partitionStride,
                                   d.dst.outerStride, d.dst.innerStep}),
                dst.bytes, dst.what);
    if (!move) {
      return;
    }
    const size_t eb = static_cast<size_t>(d.elemBytes);
    // Every source element is read before any destination element is written.
    std::vector<uint8_t> buffer;
    if (!d.fillZero) {
      buffer.reserve(eb * static_cast<size_t>(d.partitionCount * d.outerCount * d.innerCount));
    }
    auto each = [&](const DramPattern& pat, auto&& fn) {
      const Memory mem = memoryOf(pat.addr);
      for (int64_t p = 0; p < d.partitionCount; ++p) {
        for (int64_t o = 0; o < d.outerCount; ++o) {
          uint8_t* row =
              mem.base + (pat.addr - mem.origin) + p * pat.partitionStride + o * pat.outerStride;
          for (int64_t i = 0; i < d.innerCount; ++i) {
            fn(row + i * pat.innerStep);
          }
        }
      }
    };
    if (d.fillZero) { // the fill value is one int8 code (0 for f32 and symmetric tensors)
      each(d.dst, [&](uint8_t* at) { std::memset(at, static_cast<uint8_t>(d.fillValue), eb); });
      return;
    }
    each(d.src, [&](uint8_t* at) { buffer.insert(buffer.end(), at, at + eb); });
    size_t offset = 0;
    each(d.dst, [&](uint8_t* at) {
      std::memcpy(at, buffer.data() + offset, eb);
      offset += eb;
    });
  }

  // --- PE array --------------------------------------------------------------------------------

  void checkLoadWeights(const LoadWeights& w) const {
    checkCount("rows", w.rows);
    checkCount("cols", w.cols);
    checkRange("rows", 0, w.rows, rows, "PE rows");
    checkRange("cols", 0, w.cols, cols, "PE columns");
    checkInside("addr", extentOf(w.addr, {{w.colStride, w.cols}}, elemBytes), sbufPartitionBytes,
                "SBUF bytes per partition");
  }

  /// The weight matrix a LOAD_WEIGHTS delivers, peRows x peCols, zeros outside rows x cols.
  template <class V> std::vector<V> weightMatrix(const LoadWeights& w) const {
    using T = std::conditional_t<std::is_same_v<V, float>, float, int8_t>;
    std::vector<V> out(static_cast<size_t>(rows * cols), V{});
    for (int64_t p = 0; p < w.rows; ++p) {
      const uint8_t* part = sbuf.data() + p * sbufPartitionBytes + w.addr;
      for (int64_t m = 0; m < w.cols; ++m) {
        out[static_cast<size_t>(p * cols + m)] =
            static_cast<V>(loadElem<T>(part + m * w.colStride)) - static_cast<V>(w.zero);
      }
    }
    return out;
  }

  template <class T> void loadWeights(const LoadWeights& w) {
    using Weight = typename Arith<T>::Weight;
    const bool shadow = config.shadowWeights;
    weights<T>(shadow) = weightMatrix<Weight>(w);
    (shadow ? shadowRows : activeRows) = w.rows;
    shadowPending = shadowPending || shadow;
  }

  template <class T> std::vector<typename Arith<T>::Weight>& weights(bool shadow) {
    if constexpr (std::is_same_v<T, float>) {
      return shadow ? shadowF : activeF;
    } else {
      return shadow ? shadowI : activeI;
    }
  }

  void checkMatmul(const Matmul& m) const {
    checkCount("rows", m.rows);
    checkCount("cols", m.cols);
    checkRange("rows", 0, m.rows, rows, "PE rows");
    checkRange("cols", 0, m.cols, cols, "PE columns");
    checkCount("src.n", m.srcInnerCount);
    checkCount("src.on", m.srcOuterCount);
    if (m.dstInnerCount != m.srcInnerCount || m.dstOuterCount != m.srcOuterCount) {
      fail("destination counts " + std::to_string(m.dstOuterCount) + " x " +
           std::to_string(m.dstInnerCount) + " differ from source counts " +
           std::to_string(m.srcOuterCount) + " x " + std::to_string(m.srcInnerCount));
    }
    checkInside("src",
                extentOf(m.src,
                         {{m.srcInnerStep, m.srcInnerCount}, {m.srcOuterStride, m.srcOuterCount}},
                         elemBytes),
                sbufPartitionBytes, "SBUF bytes per partition");
    checkInside("dst",
                extentOf(m.dst,
                         {{m.dstInnerStep, m.dstInnerCount}, {m.dstOuterStride, m.dstOuterCount}},
                         1),
                psumEntries, "PSUM entries per column");
  }

  /// The MATMUL's input vectors, \p stride values apart (stride >= rows; extra rows stay 0),
  /// each element less the input's zero point.
  template <class T, class V> std::vector<V> gather(const Matmul& m, int64_t stride) const {
    const int64_t n = m.srcOuterCount * m.srcInnerCount;
    std::vector<V> x(static_cast<size_t>(n * stride), V{});
    for (int64_t p = 0; p < m.rows; ++p) {
      const uint8_t* part = sbuf.data() + p * sbufPartitionBytes + m.src;
      for (int64_t o = 0; o < m.srcOuterCount; ++o) {
        const uint8_t* row = part + o * m.srcOuterStride;
        for (int64_t i = 0; i < m.srcInnerCount; ++i) {
          x[static_cast<size_t>((o * m.srcInnerCount + i) * stride + p)] =
              static_cast<V>(loadElem<T>(row + i * m.srcInnerStep)) - static_cast<V>(m.srcZero);
        }
      }
    }
    return x;
  }

  template <class Acc> std::vector<Acc>& psum() {
    if constexpr (std::is_same_v<Acc, float>) {
      return psumF;
    } else {
      return psumI;
    }
  }

  /// Adds the column sums into PSUM: overwrite or accumulate, written flags (Isa.h, Matmul).
  template <class Acc> void applySums(const Matmul& m, const std::vector<Acc>& sums) {
    std::vector<Acc>& ps = psum<Acc>();
    const bool flagsMode = config.psumZeroMode == PsumZeroMode::WrittenFlags;
    auto entryOf = [&](int64_t o, int64_t i) {
      return m.dst + o * m.dstOuterStride + i * m.dstInnerStep;
    };
    // First the entries that read as zero (overwrite, or never written in flags mode), then
    // the sums: the instruction's first write to an entry replaces it, later ones add.
    for (int64_t o = 0; o < m.srcOuterCount; ++o) {
      for (int64_t i = 0; i < m.srcInnerCount; ++i) {
        const size_t base = static_cast<size_t>(entryOf(o, i) * cols);
        for (int64_t c = 0; c < m.cols; ++c) {
          uint8_t& flag = written[base + static_cast<size_t>(c)];
          if (!m.accumulate || (flagsMode && flag == 0)) {
            ps[base + static_cast<size_t>(c)] = Acc{};
          }
          flag = 1;
        }
      }
    }
    for (int64_t o = 0; o < m.srcOuterCount; ++o) {
      for (int64_t i = 0; i < m.srcInnerCount; ++i) {
        Acc* entry = ps.data() + entryOf(o, i) * cols;
        const Acc* s = sums.data() + (o * m.srcInnerCount + i) * m.cols;
        for (int64_t c = 0; c < m.cols; ++c) {
          entry[c] = addAcc(entry[c], s[c]);
        }
      }
    }
  }

  /// The functional swap the next MATMUL performs (shadow weights).
  template <class T> void swapShadow() {
    if (shadowPending) {
      weights<T>(false) = weights<T>(true);
      activeRows = shadowRows;
      shadowPending = false;
    }
  }

  template <class T> void matmulFast(const Matmul& m) {
    using Weight = typename Arith<T>::Weight;
    using Acc = typename Arith<T>::Acc;
    swapShadow<T>();
    const int64_t n = m.srcOuterCount * m.srcInnerCount;
    const std::vector<Weight> x = gather<T, Weight>(m, m.rows);
    std::vector<Acc> sums(static_cast<size_t>(n * m.cols));
    if constexpr (std::is_same_v<T, float>) {
      columnSums(x.data(), n, m.rows, activeF.data(), cols, m.cols, activeRows, sums.data());
    } else {
      columnSums(x.data(), n, m.rows, activeI.data(), cols, m.cols, sums.data());
    }
    applySums(m, sums);
  }

  void psumReset(const PsumReset& r, bool move) {
    checkCount("entries", r.entries);
    checkCount("cols", r.cols);
    checkRange("cols", 0, r.cols, cols, "PE columns");
    checkRange("addr", r.addr, r.entries, psumEntries, "PSUM entries per column");
    if (!move) {
      return;
    }
    for (int64_t e = r.addr; e < r.addr + r.entries; ++e) {
      const size_t base = static_cast<size_t>(e * cols);
      if (program.dtype == DType::F32) {
        std::fill_n(psumF.begin() + static_cast<std::ptrdiff_t>(base), r.cols, 0.0f);
      } else {
        std::fill_n(psumI.begin() + static_cast<std::ptrdiff_t>(base), r.cols, 0);
      }
    }
  }

  // --- activation ------------------------------------------------------------------------------

  void checkActivate(const Activate& a) const {
    checkCount("rows", a.rows);
    checkCount("len", a.rowLen);
    checkCount("cols", a.cols);
    checkRange("cols", a.colStart, a.cols, cols, "PE columns");
    checkRange("part", a.dstPartition, a.cols, rows, "SBUF partitions");
    checkElemBytes(a.elemBytes);
    checkRange("slot", a.tableSlot, 1, kActTableSlots, "activation-table slots");
    checkInside("psum", extentOf(a.psum, {{a.psumRowStride, a.rows}, {1, a.rowLen}}, 1),
                psumEntries, "PSUM entries per column");
    checkInside("dst",
                extentOf(a.dst, {{a.dstRowStride, a.rows}, {a.elemBytes, a.rowLen}}, a.elemBytes),
                sbufPartitionBytes, "SBUF bytes per partition");
    if (a.clampLo > a.clampHi) {
      fail("lo = " + std::to_string(a.clampLo) + " exceeds hi = " + std::to_string(a.clampHi));
    }
    if (program.dtype == DType::I8 &&
        (a.clampLo < quant::kInt8Min || a.clampHi > quant::kInt8Max)) {
      fail("clamp range [" + std::to_string(a.clampLo) + ", " + std::to_string(a.clampHi) +
           "] leaves the int8 range");
    }
  }

  template <class T> void activate(const Activate& a) {
    using Acc = typename Arith<T>::Acc;
    const std::vector<Acc>& ps = psum<Acc>();
    const bool flagsMode = config.psumZeroMode == PsumZeroMode::WrittenFlags;
    ir::ActivationParams params;
    params.kind = opKindOf(a.func);
    params.alpha = a.alpha;
    params.beta = a.beta;
    params.gamma = a.gamma;
    for (int64_t c = 0; c < a.cols; ++c) {
      const int64_t column = a.colStart + c;
      const uint8_t* record = actTable.data() + column * kActTableSlots * kActRecordBytes +
                              a.tableSlot * kActRecordBytes;
      uint8_t* part = sbuf.data() + (a.dstPartition + c) * sbufPartitionBytes + a.dst;
      [[maybe_unused]] quant::QuantMultiplier q;
      if constexpr (!std::is_same_v<T, float>) {
        q = {loadElem<int32_t>(record + 4), loadElem<int32_t>(record + 8), program.rounding};
        if (!q.isValid()) {
          fail("activation-table column " + std::to_string(column) + " slot " +
               std::to_string(a.tableSlot) + " holds an invalid multiplier {" +
               std::to_string(q.multiplier) + ", " + std::to_string(q.shift) + "}");
        }
      }
      const Acc bias = loadElem<Acc>(record);
      for (int64_t y = 0; y < a.rows; ++y) {
        for (int64_t x = 0; x < a.rowLen; ++x) {
          const size_t at = static_cast<size_t>((a.psum + y * a.psumRowStride + x) * cols + column);
          const Acc acc = flagsMode && written[at] == 0 ? Acc{} : ps[at];
          uint8_t* dst = part + y * a.dstRowStride + x * a.elemBytes;
          if constexpr (std::is_same_v<T, float>) {
            const float v = acc + bias;
            storeElem<float>(dst, a.func == ActFunc::Identity ? v : ir::applyActivation(params, v));
          } else {
            storeElem<int8_t>(
                dst, static_cast<int8_t>(quant::requantizeTo(wrapAdd(acc, bias), q, a.zeroOut,
                                                             static_cast<int32_t>(a.clampLo),
                                                             static_cast<int32_t>(a.clampHi))));
          }
        }
      }
      if (a.releaseEntries) {
        for (int64_t y = 0; y < a.rows; ++y) {
          for (int64_t x = 0; x < a.rowLen; ++x) {
            written[static_cast<size_t>((a.psum + y * a.psumRowStride + x) * cols + column)] = 0;
          }
        }
      }
    }
  }

  // --- pooling ---------------------------------------------------------------------------------

  /// One axis of a pooling window: in-plane taps and the divisor factor per output.
  struct PoolAxis {
    std::vector<std::vector<int64_t>> taps;
    std::vector<int64_t> counts;
  };
  static PoolAxis poolAxis(int64_t out0, int64_t outN, int64_t stride, int64_t kernel,
                           int64_t dilation, int64_t in, int64_t padBegin, int64_t padEnd,
                           bool includePad) {
    PoolAxis a;
    for (int64_t o = out0; o < out0 + outN; ++o) {
      std::vector<int64_t> taps;
      for (int64_t k = 0; k < kernel; ++k) {
        const int64_t pos = o * stride - padBegin + k * dilation;
        if (pos >= 0 && pos < in) {
          taps.push_back(pos);
        }
      }
      a.taps.push_back(std::move(taps));
      a.counts.push_back(
          detail::poolAxisCount(o, stride, kernel, dilation, in, padBegin, padEnd, includePad));
    }
    return a;
  }

  void checkPool(const Pool& p) const {
    checkCount("part.n", p.partitions);
    checkRange("part", p.partitionStart, p.partitions, rows, "SBUF partitions");
    checkElemBytes(p.elemBytes);
    for (auto [name, v] : {std::pair{"in.h", p.inH},
                           {"in.w", p.inW},
                           {"src.rows", p.srcRows},
                           {"out.rows", p.outRows},
                           {"out.w", p.outW},
                           {"kernel.h", p.kernelH},
                           {"kernel.w", p.kernelW},
                           {"stride.h", p.strideH},
                           {"stride.w", p.strideW},
                           {"dil.h", p.dilH},
                           {"dil.w", p.dilW}}) {
      checkCount(name, v);
    }
    for (auto [name, v] : {std::pair{"pad.top", p.padTop},
                           {"pad.left", p.padLeft},
                           {"pad.bottom", p.padBottom},
                           {"pad.right", p.padRight},
                           {"out.row0", p.outRow0}}) {
      if (v < 0) {
        fail(std::string(name) + " = " + std::to_string(v) + " must be >= 0");
      }
    }
    checkRange("src.rows", p.srcRow0, p.srcRows, p.inH, "rows of the input plane");
    checkInside("src",
                extentOf(p.src, {{p.srcRowStride, p.srcRows}, {p.elemBytes, p.inW}}, p.elemBytes),
                sbufPartitionBytes, "SBUF bytes per partition");
    checkInside("dst",
                extentOf(p.dst, {{p.dstRowStride, p.outRows}, {p.elemBytes, p.outW}}, p.elemBytes),
                sbufPartitionBytes, "SBUF bytes per partition");
  }

  /// Fails unless every window's input rows lie inside the pool's source rows.
  void checkPoolSourceRows(const Pool& p, const PoolAxis& ay) const {
    for (const std::vector<int64_t>& taps : ay.taps) {
      for (int64_t iy : taps) {
        if (iy < p.srcRow0 || iy >= p.srcRow0 + p.srcRows) {
          fail("a window reads input row " + std::to_string(iy) + ", outside the source rows " +
               std::to_string(p.srcRow0) + ".." + std::to_string(p.srcRow0 + p.srcRows - 1));
        }
      }
    }
  }

  /// s8 average: the pool-table multiplier of every window count (first record wins), indexed
  /// by count; fails when a count the windows need has no valid record.
  std::vector<std::optional<quant::QuantMultiplier>> poolMultipliers(const PoolAxis& ay,
                                                                     const PoolAxis& ax) const {
    std::vector<std::optional<quant::QuantMultiplier>> multiplier;
    multiplier.resize(static_cast<size_t>(*std::max_element(ay.counts.begin(), ay.counts.end()) *
                                          *std::max_element(ax.counts.begin(), ax.counts.end())) +
                      1);
    for (int64_t r = kPoolTableEntries - 1; r >= 0; --r) {
      const uint8_t* rec = poolTable.data() + r * kPoolRecordBytes;
      const int32_t count = loadElem<int32_t>(rec);
      if (count > 0 && static_cast<size_t>(count) < multiplier.size()) {
        multiplier[static_cast<size_t>(count)] = quant::QuantMultiplier{
            loadElem<int32_t>(rec + 4), loadElem<int32_t>(rec + 8), program.rounding};
      }
    }
    for (int64_t cy : ay.counts) {
      for (int64_t cx : ax.counts) {
        checkPoolMultiplier(multiplier, cy * cx);
      }
    }
    return multiplier;
  }

  /// Fails unless window count \p count (when non-zero) has a valid pool-table multiplier.
  void checkPoolMultiplier(const std::vector<std::optional<quant::QuantMultiplier>>& multiplier,
                           int64_t count) const {
    if (count == 0) {
      return;
    }
    const auto& q = multiplier[static_cast<size_t>(count)];
    if (!q) {
      fail("the pool table has no record for window count " + std::to_string(count));
    }
    if (!q->isValid()) {
      fail("the pool-table record for window count " + std::to_string(count) +
           " holds an invalid multiplier {" + std::to_string(q->multiplier) + ", " +
           std::to_string(q->shift) + "}");
    }
  }

  /// One pool window over one partition's source rows: the input rows \p ty by columns \p tx
  /// (both non-empty), \p count positions for an average.
  template <class T> struct PoolWindow {
    const Pool& p;
    const uint8_t* src;
    const std::vector<int64_t>& ty;
    const std::vector<int64_t>& tx;
    int64_t count;

    T at(int64_t iy, int64_t ix) const {
      return loadElem<T>(src + (iy - p.srcRow0) * p.srcRowStride + ix * p.elemBytes);
    }
  };

  /// The largest input of window \p w.
  template <class T> static T poolMax(const PoolWindow<T>& w) {
    T best = w.at(w.ty.front(), w.tx.front());
    for (int64_t iy : w.ty) {
      for (int64_t ix : w.tx) {
        const T v = w.at(iy, ix);
        best = v > best ? v : best;
      }
    }
    return best;
  }

  /// f32 average of window \p w: the inputs summed row by row, divided by its count.
  static float poolAverageF32(const PoolWindow<float>& w) {
    float sum = 0.0f;
    for (int64_t iy : w.ty) {
      for (int64_t ix : w.tx) {
        sum += w.at(iy, ix);
      }
    }
    return w.count > 0 ? sum / static_cast<float>(w.count) : 0.0f;
  }

  /// s8 average of window \p w: the wide sum of its elements less the input's zero point,
  /// requantized by its count's pool-table multiplier onto the output's zero point.
  static int8_t
  poolAverageS8(const PoolWindow<int8_t>& w,
                const std::vector<std::optional<quant::QuantMultiplier>>& multiplier) {
    const Pool& p = w.p;
    int64_t sum = 0;
    for (int64_t iy : w.ty) {
      for (int64_t ix : w.tx) {
        sum += w.at(iy, ix) - p.zeroIn;
      }
    }
    if (w.count <= 0)
      return static_cast<int8_t>(p.zeroOut);
    return static_cast<int8_t>(quant::requantizeWide(sum, *multiplier[static_cast<size_t>(w.count)],
                                                     quant::kInt8Min - p.zeroOut,
                                                     quant::kInt8Max - p.zeroOut) +
                               p.zeroOut);
  }

  /// The value of a window without in-plane positions: max gives the lowest value (the
  /// reference's padding value), average gives 0.
  template <class T> static T poolEmptyWindow(bool average) {
    T empty{};
    if (!average) {
      empty = std::is_same_v<T, float> ? -std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::lowest();
    }
    return empty;
  }

  /// Pools one partition: every output of rows outRows x outW from its source rows.
  template <class T>
  void poolPartition(const Pool& p, int64_t part, const PoolAxis& ay, const PoolAxis& ax,
                     const std::vector<std::optional<quant::QuantMultiplier>>& multiplier) {
    const bool average = p.kind == Pool::Kind::Average;
    const uint8_t* src = sbuf.data() + part * sbufPartitionBytes + p.src;
    uint8_t* dst = sbuf.data() + part * sbufPartitionBytes + p.dst;
    for (int64_t y = 0; y < p.outRows; ++y) {
      const std::vector<int64_t>& ty = ay.taps[static_cast<size_t>(y)];
      for (int64_t x = 0; x < p.outW; ++x) {
        const std::vector<int64_t>& tx = ax.taps[static_cast<size_t>(x)];
        const int64_t count = ay.counts[static_cast<size_t>(y)] * ax.counts[static_cast<size_t>(x)];
        uint8_t* out = dst + y * p.dstRowStride + x * p.elemBytes;
        if (ty.empty() || tx.empty()) {
          const T empty = poolEmptyWindow<T>(average);
          storeElem<T>(out, average ? static_cast<T>(empty + p.zeroOut) : empty);
          continue;
        }
        const PoolWindow<T> w{p, src, ty, tx, count};
        if (!average) {
          storeElem<T>(out, poolMax<T>(w));
        } else if constexpr (std::is_same_v<T, float>) {
          storeElem<float>(out, poolAverageF32(w));
        } else {
          storeElem<int8_t>(out, poolAverageS8(w, multiplier));
        }
      }
    }
  }

  /// The interpolation axis of pool-table records [first, first + count), row indices made
  /// relative to \p indexBase; fails on an index outside [0, extent) or a weight outside
  /// [0, 2^bits].
  quant::InterpolationAxis interpolationAxis(int64_t first, int64_t count, int64_t indexBase,
                                             int64_t extent, const char* what) const {
    if (first < 0 || first + count > kPoolTableEntries) {
      fail(std::string(what) + " records " + std::to_string(first) + ".." +
           std::to_string(first + count - 1) + " lie outside the " +
           std::to_string(kPoolTableEntries) + "-record pool table");
    }
    quant::InterpolationAxis ax;
    ax.interpolates = true; // a gathering axis has index1 = index0 and w1 = 0: the same value
    for (int64_t r = first; r < first + count; ++r) {
      const uint8_t* rec = poolTable.data() + r * kPoolRecordBytes;
      const int64_t i0 = loadElem<int32_t>(rec) - indexBase;
      const int64_t i1 = loadElem<int32_t>(rec + 4) - indexBase;
      const int32_t w1 = loadElem<int32_t>(rec + 8);
      if (i0 < 0 || i0 >= extent || i1 < 0 || i1 >= extent) {
        fail(std::string(what) + " record " + std::to_string(r) + " reads outside the " +
             std::to_string(extent) + " source " + what + "s");
      }
      if (w1 < 0 || w1 > (1 << quant::kInterpolationWeightBits)) {
        fail(std::string(what) + " record " + std::to_string(r) + " has weight " +
             std::to_string(w1) + " outside [0, " +
             std::to_string(1 << quant::kInterpolationWeightBits) + "]");
      }
      ax.index0.push_back(static_cast<int32_t>(i0));
      ax.index1.push_back(static_cast<int32_t>(i1));
      ax.weight1.push_back(w1);
    }
    return ax;
  }

  /// An interpolating POOL: quant::interpolateAt over the table's row and column records.
  void interpolatePool(const Pool& p) {
    if (program.dtype != DType::I8 || p.elemBytes != 1) {
      fail("an interpolating pool runs on s8 data only");
    }
    const std::array<quant::InterpolationAxis, 2> axes{
        interpolationAxis(p.tableRow0, p.outRows, p.srcRow0, p.srcRows, "row"),
        interpolationAxis(0, p.outW, 0, p.inW, "column")};
    const Dims inStrides{p.srcRowStride, 1};
    Dims at(2, 0); // (output row, output column), reused: this loop runs once per element
    for (int64_t part = p.partitionStart; part < p.partitionStart + p.partitions; ++part) {
      uint8_t* base = sbuf.data() + part * sbufPartitionBytes;
      const auto* src = reinterpret_cast<const int8_t*>(base + p.src);
      for (at[0] = 0; at[0] < p.outRows; ++at[0])
        for (at[1] = 0; at[1] < p.outW; ++at[1])
          storeElem<int8_t>(base + p.dst + at[0] * p.dstRowStride + at[1],
                            quant::interpolateAt(src, inStrides, axes, at));
    }
  }

  template <class T> void pool(const Pool& p) {
    if (p.kind == Pool::Kind::Interpolate) {
      interpolatePool(p);
      return;
    }
    const PoolAxis ay = poolAxis(p.outRow0, p.outRows, p.strideH, p.kernelH, p.dilH, p.inH,
                                 p.padTop, p.padBottom, p.countIncludePad);
    const PoolAxis ax = poolAxis(0, p.outW, p.strideW, p.kernelW, p.dilW, p.inW, p.padLeft,
                                 p.padRight, p.countIncludePad);
    checkPoolSourceRows(p, ay);
    const bool average = p.kind == Pool::Kind::Average;
    std::vector<std::optional<quant::QuantMultiplier>> multiplier;
    if (average && !std::is_same_v<T, float>) {
      multiplier = poolMultipliers(ay, ax);
    }
    for (int64_t part = p.partitionStart; part < p.partitionStart + p.partitions; ++part) {
      poolPartition<T>(p, part, ay, ax, multiplier);
    }
  }

  // --- vector unit ---------------------------------------------------------------------------

  void checkMultiplier(const char* field, int32_t m, int32_t shift) const {
    if (!quant::QuantMultiplier{m, shift}.isValid()) {
      fail(std::string(field) + " = {" + std::to_string(m) + ", " + std::to_string(shift) +
           "} is not a requantization multiplier");
    }
  }

  void checkVector(const Vector& v) const {
    if (program.dtype != DType::I8) {
      fail("the vector unit runs s8 programs only");
    }
    checkCount("part.n", v.partitions);
    checkCount("rows", v.rows);
    checkCount("rowlen", v.rowLen);
    checkRange("part", v.partitionStart, v.partitions, rows, "SBUF partitions");
    checkInside("a", extentOf(v.a, {{v.aRowStride, v.rows}, {1, v.rowLen}}, 1), sbufPartitionBytes,
                "SBUF bytes per partition");
    checkInside("dst", extentOf(v.dst, {{v.dstRowStride, v.rows}, {1, v.rowLen}}, 1),
                sbufPartitionBytes, "SBUF bytes per partition");
    if (isBinary(v.func)) {
      if (v.bStep != 0 && v.bStep != 1) {
        fail("b.step = " + std::to_string(v.bStep) + " must be 0 or 1");
      }
      checkInside("b", extentOf(v.b, {{v.bRowStride, v.rows}, {v.bStep, v.rowLen}}, 1),
                  sbufPartitionBytes, "SBUF bytes per partition");
    }
    if (isSelect(v.func)) {
      if (v.cStep != 0 && v.cStep != 1) {
        fail("c.step = " + std::to_string(v.cStep) + " must be 0 or 1");
      }
      checkInside("c", extentOf(v.c, {{v.cRowStride, v.rows}, {v.cStep, v.rowLen}}, 1),
                  sbufPartitionBytes, "SBUF bytes per partition");
    }
    if (v.leftShift < 0 || v.leftShift > kMaxVectorLeftShift) {
      fail("lshift = " + std::to_string(v.leftShift) + " lies outside [0, " +
           std::to_string(kMaxVectorLeftShift) + "]");
    }
    checkMultiplier("a.m", v.aMultiplier, v.aShift);
    checkMultiplier("b.m", v.bMultiplier, v.bShift);
    checkMultiplier("out.m", v.outMultiplier, v.outShift);
  }

  void vector(const Vector& v) {
    static_assert(kPoolTableEntries >= quant::kLookupEntries, "the pool table holds exp(-d)");
    std::vector<int32_t> expTable;
    if (v.func == VectorFunc::Softmax) // record d's first int32 (Isa.h)
      for (int64_t d = 0; d < quant::kLookupEntries; ++d)
        expTable.push_back(loadElem<int32_t>(poolTable.data() + d * kPoolRecordBytes));
    for (int64_t part = v.partitionStart; part < v.partitionStart + v.partitions; ++part) {
      const auto* table =
          reinterpret_cast<const int8_t*>(lookupTable.data()) + part * kLookupTableBytes;
      if (!detail::vectorPartition(v, sbuf.data() + part * sbufPartitionBytes, table, expTable,
                                   program.rounding)) {
        fail("an add/sub intermediate of partition " + std::to_string(part) +
             " leaves int32 (the multipliers do not bound it)");
      }
    }
  }

  // --- host fallback ---------------------------------------------------------------------------

  const DramTensor& tensorAt(int32_t index) const {
    if (index < 0 || static_cast<size_t>(index) >= program.tensors.size()) {
      fail("tensor index " + std::to_string(index) + " is not a program tensor");
    }
    const DramTensor& t = program.tensors[static_cast<size_t>(index)];
    if (!holds(t)) {
      fail("tensor '" + t.name + "' lies outside DRAM and the resident region");
    }
    return t;
  }

  /// True when \p t lies inside DRAM or inside the resident region (once the machine is reset).
  bool holds(const DramTensor& t) const {
    const int64_t offset = isResidentAddr(t.addr) ? t.addr - kResidentBase : t.addr;
    const size_t limit = isResidentAddr(t.addr) ? resident.size() : dram.size();
    return offset >= 0 && static_cast<Wide>(offset) + t.bytes() <= static_cast<Wide>(limit);
  }

  Tensor readDram(const DramTensor& t) const {
    Tensor out(t.dtype, t.shape);
    std::memcpy(out.rawData(), memoryAt(t.addr), out.sizeBytes());
    return out;
  }

  void writeDram(const DramTensor& t, const Tensor& value) {
    if (value.dtype() != t.dtype || value.numElements() != numElements(t.shape)) {
      fail("host result " + std::string(dtypeName(value.dtype())) + " " +
           dimsToString(value.shape()) + " does not fit tensor '" + t.name + "' (" +
           std::string(dtypeName(t.dtype)) + " " + dimsToString(t.shape) + ")");
    }
    std::memcpy(memoryAt(t.addr), value.rawData(), value.sizeBytes());
  }

  void hostOp(const HostOp& h) {
    if (h.layer < 0 || static_cast<size_t>(h.layer) >= program.layers.size()) {
      fail("layer " + std::to_string(h.layer) + " is not a program layer");
    }
    const Layer& layer = program.layers[static_cast<size_t>(h.layer)];
    if (program.dtype == DType::I8) {
      if (host.int8Model == nullptr) {
        throw Error(ErrorKind::Usage, {},
                    "the program has a host fallback (node " + std::to_string(h.node) +
                        ") but the simulator was given no int8 model");
      }
      const quant::QuantizedModel& model = *host.int8Model;
      if (h.node < 0 || static_cast<size_t>(h.node) >= model.graph.numNodes()) {
        fail("node " + std::to_string(h.node) + " is not a node of the int8 model");
      }
      std::vector<quant::QuantTensor> inputs(layer.inputTensors.size());
      std::vector<const quant::QuantTensor*> ptrs(layer.inputTensors.size(), nullptr);
      for (size_t i = 0; i < layer.inputTensors.size(); ++i) {
        if (layer.inputTensors[i] >= 0) {
          const DramTensor& t = tensorAt(layer.inputTensors[i]);
          inputs[i] = t.dtype == DType::I8 ? quant::QuantTensor{readDram(t), t.scale, t.zeroPoint}
                                           : quant::QuantTensor{readDram(t), 0.0f};
          ptrs[i] = &inputs[i];
        }
      }
      const std::vector<quant::QuantTensor> outs = quant::evalQuantizedNode(model, h.node, ptrs);
      for (size_t j = 0; j < layer.outputTensors.size() && j < outs.size(); ++j) {
        if (layer.outputTensors[j] >= 0) {
          writeDram(tensorAt(layer.outputTensors[j]), outs[j].data);
        }
      }
      return;
    }
    if (host.graph == nullptr) {
      throw Error(ErrorKind::Usage, {},
                  "the program has a host fallback (node " + std::to_string(h.node) +
                      ") but the simulator was given no graph");
    }
    const ir::Graph& g = *host.graph;
    if (h.node < 0 || static_cast<size_t>(h.node) >= g.numNodes()) {
      fail("node " + std::to_string(h.node) + " is not a node of the graph");
    }
    const ir::Node& node = g.node(h.node);
    std::vector<Tensor> inputs(node.inputs.size());
    std::vector<const Tensor*> ptrs(node.inputs.size(), nullptr);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int32_t t = i < layer.inputTensors.size() ? layer.inputTensors[i] : -1;
      if (t >= 0) {
        inputs[i] = readDram(tensorAt(t));
        ptrs[i] = &inputs[i];
      } else if (node.inputs[i] != ir::kNoValue && g.isConstant(node.inputs[i])) {
        ptrs[i] = g.value(node.inputs[i]).constant.get();
      }
    }
    const std::vector<Tensor> outs = reference::evalNode(g, h.node, ptrs);
    for (size_t j = 0; j < layer.outputTensors.size() && j < outs.size(); ++j) {
      if (layer.outputTensors[j] >= 0) {
        writeDram(tensorAt(layer.outputTensors[j]), outs[j]);
      }
    }
  }

  // --- the run ---------------------------------------------------------------------------------

  /// What resetMachine and the constructor allocate: DRAM, the SBUF working area and resident
  /// region, PSUM (values and written flags) and the PE registers, as the configured sizes.
  uint64_t machineStateBytes() const {
    const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
    const uint64_t psumValueBytes = program.dtype == DType::F32 ? sizeof(float) : sizeof(int32_t);
    return u(program.dramBytes) + u(rows) * u(sbufPartitionBytes) + u(extents.residentBytes) +
           u(psumEntries) * u(cols) * (psumValueBytes + 1) + u(rows) * u(cols) * 2 * psumValueBytes;
  }

  void resetMachine() {
    sbuf.assign(static_cast<size_t>(rows * sbufPartitionBytes));
    resident.assign(static_cast<size_t>(extents.residentBytes));
    actTable.assign(static_cast<size_t>(cols * kActTableSlots * kActRecordBytes), 0);
    poolTable.assign(static_cast<size_t>(kPoolTableEntries * kPoolRecordBytes), 0);
    lookupTable.assign(static_cast<size_t>(rows * kLookupTableBytes), 0);
    written.assign(static_cast<size_t>(psumEntries * cols), 0);
    const size_t regs = static_cast<size_t>(rows * cols);
    if (program.dtype == DType::F32) {
      psumF.assign(static_cast<size_t>(psumEntries * cols), 0.0f);
      activeF.assign(regs, 0.0f);
      shadowF.assign(regs, 0.0f);
    } else {
      psumI.assign(static_cast<size_t>(psumEntries * cols), 0);
      activeI.assign(regs, 0);
      shadowI.assign(regs, 0);
    }
    activeRows = shadowRows = 0;
    shadowPending = false;
  }

  /// Fails (a usage error) when exact mode would step more PE-cycles than its limit.
  void checkExactBudget() const {
    const int64_t estimate = detail::exactStepEstimate(program);
    if (estimate > detail::kExactStepLimit) {
      throw Error(ErrorKind::Usage, {},
                  "exact mode would step about " + std::to_string(estimate) +
                      " PE-cycles, more than the limit of " +
                      std::to_string(detail::kExactStepLimit) +
                      "; use the fast model or a smaller program");
    }
  }

  /// The timing state of one run: the engines, the PE array model (fast, or exact) and the
  /// fence a host op or barrier sets.
  template <class Acc> struct Machine {
    detail::Semaphores semaphores;
    detail::FastPeArray fastPe;
    std::optional<detail::ExactArray<Acc>> exact;
    detail::PipelinedEngine dma, act, pooler;
    int64_t fenceCycle = 0, maxDoneCycle = 0;

    Machine(const SystolicConfig& config, bool exactMode) : fastPe(config) {
      if (exactMode) {
        exact.emplace(config);
      }
    }
  };

  /// What issuing one instruction gave: its timing and, for a PE-array instruction, the
  /// array's view of it.
  struct Issued {
    Timing t;
    PeTiming pe;
    bool isPe = false;
  };

  /// Reports (options.onLayerDone) every layer from \p nextLayer on whose instructions all lie
  /// before instruction \p end.
  void layersDoneUpTo(int64_t end, size_t& nextLayer, const SimOptions& options) const {
    while (nextLayer < program.layers.size() && program.layers[nextLayer].endInstr <= end) {
      if (options.onLayerDone) {
        options.onLayerDone(nextLayer);
      }
      ++nextLayer;
    }
  }

  /// Times DMA instruction \p op on the DMA engine from \p ready (DRAM or on-chip rates).
  template <class Acc> Timing dmaTiming(Machine<Acc>& m, int64_t ready, const Op& op) const {
    const std::optional<detail::DmaTraffic> t = detail::dmaTraffic(op, dramPart);
    NNACCEL_ASSERT(t.has_value()) << "not a DMA";
    return m.dma.issue(ready, detail::dmaOccupancyCycles(config, dramPart, *t),
                       detail::dmaLatencyCycles(config, dramPart, *t));
  }

  /// LOAD_WEIGHTS on the PE array (and, with \p data, into the shadow registers).
  template <class T, class Acc>
  PeTiming issueLoadWeights(Machine<Acc>& m, size_t i, const LoadWeights& w, int64_t ready,
                            bool data) {
    checkLoadWeights(w);
    PeTiming pe;
    if (m.exact) {
      std::vector<Acc> matrix =
          data ? weightMatrix<Acc>(w) : std::vector<Acc>(static_cast<size_t>(rows * cols));
      pe = m.exact->loadWeights(static_cast<int64_t>(i), std::move(matrix), ready);
    } else {
      pe = m.fastPe.loadWeights(ready);
    }
    if (data && !m.exact) {
      loadWeights<T>(w);
    }
    return pe;
  }

  /// MATMUL on the PE array (and, with \p data, its column sums into PSUM).
  template <class T, class Acc>
  PeTiming issueMatmul(Machine<Acc>& m, size_t i, const Matmul& mm, int64_t ready, bool data) {
    checkMatmul(mm);
    PeTiming pe;
    const int64_t n = mm.srcOuterCount * mm.srcInnerCount;
    if (m.exact) {
      std::vector<Acc> inputs =
          data ? gather<T, Acc>(mm, rows) : std::vector<Acc>(static_cast<size_t>(n * rows));
      std::vector<Acc> sums;
      pe = m.exact->matmul(static_cast<int64_t>(i), n, mm.cols, std::move(inputs), ready, sums);
      if (data) {
        applySums(mm, sums);
      }
    } else {
      pe = m.fastPe.matmul(n, mm.cols, ready);
      if (data) {
        matmulFast<T>(mm);
      }
    }
    return pe;
  }

  /// A host op (with \p data, run on the host) or barrier: it starts once everything issued
  /// so far is done and fences what follows.
  template <class Acc> Timing issueFence(Machine<Acc>& m, int64_t ready) const {
    Timing t;
    t.start = t.done = std::max(m.maxDoneCycle, ready);
    m.fenceCycle = t.done;
    return t;
  }

  /// Issues instruction \p i from cycle \p ready: runs it with \p data and times it.
  template <class T, class Acc>
  Issued issue(Machine<Acc>& m, size_t i, const Instruction& inst, int64_t ready, bool data) {
    Issued r;
    auto pe = [&](PeTiming timing) {
      r.isPe = true;
      r.pe = timing;
    };
    std::visit(Overloaded{
                   [&](const DmaLoad& d) {
                     transfer(d, d.space, true, data);
                     r.t = dmaTiming(m, ready, inst.op);
                   },
                   [&](const DmaStore& d) {
                     transfer(d, OnChip::Sbuf, false, data);
                     r.t = dmaTiming(m, ready, inst.op);
                   },
                   [&](const DmaCopy& d) {
                     dmaCopy(d, data);
                     r.t = dmaTiming(m, ready, inst.op);
                   },
                   [&](const LoadWeights& w) { pe(issueLoadWeights<T>(m, i, w, ready, data)); },
                   [&](const Matmul& mm) { pe(issueMatmul<T>(m, i, mm, ready, data)); },
                   [&](const PsumReset& rs) {
                     psumReset(rs, data);
                     pe(m.exact ? m.exact->psumReset(static_cast<int64_t>(i),
                                                     detail::psumResetCycles(config, rs), ready)
                                : m.fastPe.psumReset(rs.entries, ready));
                   },
                   [&](const Activate& a) { r.t = issueActivate<T>(m, a, ready, data); },
                   [&](const Pool& p) { r.t = issuePool<T>(m, p, ready, data); },
                   [&](const HostOp& h) {
                     if (data) {
                       hostOp(h);
                     } else if (h.layer < 0 ||
                                static_cast<size_t>(h.layer) >= program.layers.size()) {
                       fail("layer " + std::to_string(h.layer) + " is not a program layer");
                     }
                     r.t = issueFence(m, ready);
                   },
                   [&](const Barrier&) { r.t = issueFence(m, ready); },
                   [&](const Vector& v) { r.t = issueVector(m, v, ready, data); },
               },
               inst.op);
    if (r.isPe) {
      r.t = {r.pe.start, r.pe.done};
    }
    return r;
  }

  /// ACTIVATE on the activation engine (and, with \p data, applied to SBUF).
  template <class T, class Acc>
  Timing issueActivate(Machine<Acc>& m, const Activate& a, int64_t ready, bool data) {
    checkActivate(a);
    if (data) {
      activate<T>(a);
    }
    return m.act.issue(ready, detail::activateCycles(a), config.actLatencyCycles);
  }

  /// POOL on the pooling engine (and, with \p data, applied to SBUF).
  template <class T, class Acc>
  Timing issuePool(Machine<Acc>& m, const Pool& p, int64_t ready, bool data) {
    checkPool(p);
    if (data) {
      pool<T>(p);
    }
    return m.pooler.issue(ready, detail::poolCycles(config, p), config.poolLatencyCycles);
  }

  /// VECTOR on the pooling engine's vector unit (and, with \p data, applied to SBUF).
  template <class Acc>
  Timing issueVector(Machine<Acc>& m, const Vector& v, int64_t ready, bool data) {
    checkVector(v);
    if (data) {
      vector(v);
    }
    return m.pooler.issue(ready, detail::vectorCycles(config, v), config.poolLatencyCycles);
  }

  template <class T> void run(const SimOptions& options) {
    using Acc = typename Arith<T>::Acc;
    if (options.exact) {
      checkExactBudget();
    }
    resetMachine();
    Machine<Acc> m(config, options.exact);
    detail::LayerAccounts accounts(program);
    size_t nextLayer = 0;
    try {
      issueAll<T>(m, accounts, nextLayer, options);
    } catch (const Interrupted&) {
      stats = accounts.finish(total); // the layers done so far (the session keeps those)
      throw;
    }
    stats = accounts.finish(total);
  }

  /// Issues every instruction in order, reporting finished layers as their last one issues.
  template <class T, class Acc>
  void issueAll(Machine<Acc>& m, detail::LayerAccounts& accounts, size_t& nextLayer,
                const SimOptions& options) {
    const bool data = options.functional;
    layersDoneUpTo(0, nextLayer, options);
    for (size_t i = 0; i < program.instructions.size(); ++i) {
      current = i;
      const Instruction& inst = program.instructions[i];
      bool readyFromDma = false;
      const int64_t semaphoresReady = m.semaphores.readyTime(i, inst, &readyFromDma);
      const int64_t ready = std::max(semaphoresReady, m.fenceCycle);
      readyFromDma = readyFromDma && semaphoresReady >= m.fenceCycle;
      const Issued r = issue<T>(m, i, inst, ready, data);
      m.maxDoneCycle = std::max(m.maxDoneCycle, r.t.done);
      m.semaphores.signal(i, inst, r.t.done);
      accounts.add(i, inst, r.t, r.isPe ? &r.pe : nullptr, ready, readyFromDma);
      layersDoneUpTo(static_cast<int64_t>(i) + 1, nextLayer, options);
    }
    layersDoneUpTo(std::numeric_limits<int64_t>::max(), nextLayer, options);
  }
};

Simulator::Simulator(const Program& program, HostContext host) : impl_(new Impl(program, host)) {}

Simulator::~Simulator() {
  delete impl_;
}

void Simulator::setInput(size_t i, const Tensor& value) {
  const Program& p = impl_->program;
  size_t seen = 0;
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const DramTensor& d = p.tensors[t];
    if (d.role != DramTensor::Role::Input) {
      continue;
    }
    if (seen++ != i) {
      continue;
    }
    if (value.dtype() != DType::F32 || value.shape() != d.shape) {
      throw Error(ErrorKind::Usage, {},
                  "input " + std::to_string(i) + " ('" + d.name + "') must be f32 " +
                      dimsToString(d.shape) + ", got " + std::string(dtypeName(value.dtype())) +
                      " " + dimsToString(value.shape()));
    }
    if (d.addr < 0 || static_cast<Wide>(d.addr) + d.bytes() > p.dramBytes) {
      throw Error(ErrorKind::Model, {}, "input tensor '" + d.name + "' lies outside DRAM");
    }
    uint8_t* dst = impl_->dram.data() + d.addr;
    const std::span<const float> v = value.values<float>();
    if (d.dtype == DType::I8) {
      if (!(d.scale > 0)) {
        throw Error(ErrorKind::Model, {}, "s8 input tensor '" + d.name + "' has no scale");
      }
      for (size_t k = 0; k < v.size(); ++k) {
        dst[k] = static_cast<uint8_t>(quant::quantizeValue(
            v[k], d.scale, quant::kInt8Min, quant::kInt8Max, p.rounding, d.zeroPoint));
      }
    } else if (d.dtype == DType::F32) {
      std::memcpy(dst, v.data(), v.size() * sizeof(float));
    } else {
      throw Error(ErrorKind::Model, {},
                  "input tensor '" + d.name + "' is " + std::string(dtypeName(d.dtype)) +
                      ", not s8 or f32");
    }
    return;
  }
  throw Error(ErrorKind::Usage, {},
              "input index " + std::to_string(i) + " out of range (the program has " +
                  std::to_string(seen) + " inputs)");
}

void Simulator::run(const SimOptions& options) {
  if (impl_->program.dtype == DType::F32) {
    impl_->run<float>(options);
  } else {
    impl_->run<int8_t>(options);
  }
}

Tensor Simulator::readTensor(int32_t index) const {
  const Program& p = impl_->program;
  if (index < 0 || static_cast<size_t>(index) >= p.tensors.size()) {
    throw Error(ErrorKind::Usage, {},
                "tensor index " + std::to_string(index) + " out of range (the program has " +
                    std::to_string(p.tensors.size()) + " tensors)");
  }
  const DramTensor& t = p.tensors[static_cast<size_t>(index)];
  if (!impl_->holds(t)) {
    throw Error(ErrorKind::Model, {},
                "tensor '" + t.name + "' lies outside DRAM and the resident region");
  }
  return impl_->readDram(t);
}

const std::vector<report::LayerStats>& Simulator::layerStats() const {
  return impl_->stats;
}

int64_t Simulator::totalCycles() const {
  return impl_->total;
}

} // namespace nnaccel::arch::systolic
