/// \file
/// validateProgram: the structural rules every systolic program obeys (docs/arch/SystolicIsa.md,
/// "Validation rules").
///
/// Why it exists: the simulator indexes its SBUF, PSUM, tables and DRAM with instruction fields
/// directly, so a program read from a file (possibly hostile) must be proven in bounds first,
/// and the compiler asserts the same rules on what it emits. Every rule is checked with
/// overflow-safe arithmetic: a field may hold any int64 value. Messages name the instruction
/// index, its mnemonic and the field as the disassembler prints it, e.g.
/// `prog.nnx: instruction 12 (MATMUL): field 'rows' = 20 exceeds the array's 16 PE rows`.
#include "IsaFields.h"
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/quant/Requantize.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <initializer_list>
#include <optional>
#include <utility>

namespace nnaccel::arch::systolic {
namespace {

using fields::Field;
using fields::Rule;
using fields::Show;

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return std::nullopt;
  }
  return r;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return std::nullopt;
  }
  return r;
}

/// A half-open range [begin, end) of bytes or entries.
struct Span {
  int64_t begin = 0;
  int64_t end = 0;
};

/// One level of an access pattern: `count` (>= 1) positions `stride` apart.
struct Level {
  int64_t stride;
  int64_t count;
};

/// The units touched by base + sum(level.stride * i_level), each access `unitSize` units wide;
/// nullopt when the range does not fit in int64 (a hostile file).
std::optional<Span> patternSpan(int64_t base, std::initializer_list<Level> levels,
                                int64_t unitSize) {
  int64_t lo = base;
  int64_t hi = base;
  for (const Level& level : levels) {
    const std::optional<int64_t> extent = checkedMul(level.stride, level.count - 1);
    if (!extent) {
      return std::nullopt;
    }
    const std::optional<int64_t> moved = checkedAdd(*extent < 0 ? lo : hi, *extent);
    if (!moved) {
      return std::nullopt;
    }
    (*extent < 0 ? lo : hi) = *moved;
  }
  const std::optional<int64_t> end = checkedAdd(hi, unitSize);
  if (!end) {
    return std::nullopt;
  }
  return Span{lo, *end};
}

std::string showNumber(Show show, int64_t v) {
  return fields::showValue(Field{"", show, Rule::Any}, v);
}

/// Finds the field called `name` in a record's table and renders its value.
struct FieldLookup {
  const char* name;
  std::optional<std::string> value;
  template <class T> void operator()(const Field& f, const T& x) {
    if constexpr (requires { fields::showValue(f, x); }) {
      if (std::strcmp(f.name, name) == 0) {
        value = fields::showValue(f, x);
      }
    }
  }
};

/// Applies each field's own Rule (counts >= 1, indices >= 0) and reports the first violation.
template <class Fail> struct RuleCheck {
  Fail fail;
  template <class T> void operator()(const Field& f, const T& x) {
    if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, int32_t>) {
      if (f.rule == Rule::Positive && x < 1) {
        fail(f.name, "must be >= 1");
      }
      if (f.rule == Rule::NonNeg && x < 0) {
        fail(f.name, "must be >= 0");
      }
    }
  }
};
/// Deduces RuleCheck<F> from its one member (clang 14, the fuzz build, has no aggregate CTAD).
template <class Fail> RuleCheck(Fail) -> RuleCheck<Fail>;

class Validator {
public:
  Validator(const Program& p, const std::string& file) : p_(p), file_(file) {}

  void run() {
    checkProgramHeader();
    checkTensorsAndSegments();
    checkLayers();
    for (size_t i = 0; i < p_.instructions.size(); ++i) {
      index_ = i;
      inst_ = &p_.instructions[i];
      checkInstruction();
    }
  }

private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw Error(ErrorKind::Model, ErrorContext{.file = file_}, reason);
  }

  // --- program-level rules ------------------------------------------------------------------

  void checkProgramHeader() {
    const SystolicConfig& c = p_.config;
    validate(c, file_); // the machine itself: array shape, memory sizes, rates
    if (p_.dtype != DType::I8 && p_.dtype != DType::F32) {
      fail(fmt::format("program dtype {} is not a systolic dtype (expected s8 or f32)",
                       fields::enumName(p_.dtype)));
    }
    if (!c.supports(p_.dtype)) {
      std::string list;
      for (DType t : c.dtypes) {
        if (!list.empty()) {
          list += ", ";
        }
        list += fields::enumName(t);
      }
      fail(fmt::format("program dtype {} is not supported by config '{}' (dtypes: {})",
                       fields::enumName(p_.dtype), c.name, list.empty() ? "none" : list));
    }
    if (p_.dramBytes < 0) {
      fail(fmt::format("dramBytes = {} must be >= 0", p_.dramBytes));
    }
    if (p_.dramBytes > kMaxDramBytes) {
      fail(fmt::format("dramBytes = {} exceeds the simulator's limit of {} (16 GiB)", p_.dramBytes,
                       kMaxDramBytes));
    }
    elemBytes_ = static_cast<int64_t>(dtypeSizeBytes(p_.dtype));
  }

  /// Fails unless [addr, addr + bytes) lies inside DRAM, or inside the resident region when
  /// \p residentOk and addr is in its window.
  void checkDramRange(const std::string& what, int64_t addr, std::optional<int64_t> bytes,
                      bool residentOk = false) const {
    const std::optional<int64_t> end = bytes ? checkedAdd(addr, *bytes) : std::nullopt;
    if (residentOk && isResidentAddr(addr)) {
      const int64_t limit = kResidentBase + residentRegionBytes(p_.config);
      if (!end || *end > limit) {
        fail(fmt::format("{}: bytes [{}, {}) lie outside the SBUF resident region [{}, {})", what,
                         showNumber(Show::Hex, addr),
                         end ? showNumber(Show::Hex, *end) : std::string("overflow"),
                         showNumber(Show::Hex, kResidentBase), showNumber(Show::Hex, limit)));
      }
      noteResident(*end);
      return;
    }
    if (!end || addr < 0 || *end > p_.dramBytes) {
      fail(fmt::format("{}: bytes [{}, {}) lie outside DRAM [0, {})", what,
                       showNumber(Show::Hex, addr),
                       end ? showNumber(Show::Hex, *end) : std::string("overflow"),
                       showNumber(Show::Hex, p_.dramBytes)));
    }
  }

  void checkTensorsAndSegments() const {
    for (size_t i = 0; i < p_.tensors.size(); ++i) {
      const DramTensor& t = p_.tensors[i];
      const std::string what = fmt::format("tensor {} '{}'", i, t.name);
      std::optional<int64_t> bytes = static_cast<int64_t>(dtypeSizeBytes(t.dtype));
      for (size_t d = 0; d < t.shape.size(); ++d) {
        if (t.shape[d] < 0) {
          fail(fmt::format("{}: dimension {} = {} is negative", what, d, t.shape[d]));
        }
        bytes = bytes ? checkedMul(*bytes, t.shape[d]) : std::nullopt;
      }
      // Only activations between layers may live on chip: the host reads and writes the
      // model's inputs and outputs in DRAM, and constants are DRAM segments.
      const bool onChipOk =
          t.role == DramTensor::Role::Activation || t.role == DramTensor::Role::Scratch;
      checkDramRange(what, t.addr, bytes, onChipOk);
    }
    for (size_t i = 0; i < p_.segments.size(); ++i) {
      const DramSegment& s = p_.segments[i];
      checkDramRange(fmt::format("segment {}", i), s.addr, static_cast<int64_t>(s.bytes.size()));
    }
  }

  void checkTensorRefs(const std::string& what, const char* list,
                       const std::vector<int32_t>& refs) const {
    for (size_t j = 0; j < refs.size(); ++j) {
      if (refs[j] < -1 || refs[j] >= static_cast<int64_t>(p_.tensors.size())) {
        fail(fmt::format("{}: {}[{}] = {} is not a tensor index (the program has {} tensors)", what,
                         list, j, refs[j], p_.tensors.size()));
      }
    }
  }

  void checkLayers() const {
    const auto numInstructions = static_cast<int64_t>(p_.instructions.size());
    int64_t previousEnd = 0;
    for (size_t i = 0; i < p_.layers.size(); ++i) {
      const Layer& l = p_.layers[i];
      const std::string what = fmt::format("layer {} '{}'", i, l.name);
      if (l.firstInstr < previousEnd) {
        fail(fmt::format("{}: firstInstr = {} lies before the end {} of the previous layer", what,
                         l.firstInstr, previousEnd));
      }
      if (l.endInstr < l.firstInstr) {
        fail(fmt::format("{}: endInstr = {} lies before firstInstr = {}", what, l.endInstr,
                         l.firstInstr));
      }
      if (l.endInstr > numInstructions) {
        fail(fmt::format("{}: endInstr = {} lies beyond the {} instructions", what, l.endInstr,
                         numInstructions));
      }
      previousEnd = l.endInstr;
      checkTensorRefs(what, "inputTensors", l.inputTensors);
      checkTensorRefs(what, "outputTensors", l.outputTensors);
      if (l.outputValues.size() != l.outputTensors.size()) {
        fail(fmt::format("{}: {} outputValues for {} outputTensors", what, l.outputValues.size(),
                         l.outputTensors.size()));
      }
    }
  }

  // --- instruction rules ----------------------------------------------------------------------

  /// `instruction 12 (MATMUL): field 'rows' = 20 <reason>`; \p name must be in the op's or the
  /// sync's field table.
  [[noreturn]] void fieldFail(const char* name, const std::string& reason) const {
    FieldLookup look{name, {}};
    fields::forEachField(inst_->sync, look);
    fields::forEachOpField(*inst_, look);
    NNACCEL_ASSERT(look.value) << "no field '" << name << "' in " << mnemonic(inst_->op);
    fail(fmt::format("instruction {} ({}): field '{}' = {} {}", index_, mnemonic(inst_->op), name,
                     *look.value, reason));
  }

  void checkInstruction() {
    auto ruleFail = [&](const char* name, const char* reason) { fieldFail(name, reason); };
    fields::forEachField(inst_->sync, RuleCheck{ruleFail});
    const Sync& s = inst_->sync;
    auto checkSemaphore = [&](const char* name, int32_t id) {
      if (id < -1 || id >= kNumSemaphores) {
        fieldFail(name, fmt::format("is not a semaphore (expected -1 for none or 0..{})",
                                    kNumSemaphores - 1));
      }
    };
    for (size_t w = 0; w < s.waits.size(); ++w) {
      checkSemaphore(fields::kWaitSemNames[w], s.waits[w].sem);
    }
    checkSemaphore("signal", s.signal);
    fields::forEachOpField(*inst_, RuleCheck{ruleFail});
    std::visit([&](const auto& op) { check(op); }, inst_->op);
  }

  /// Fails unless every unit of \p span (from the pattern based at field \p name) lies in
  /// [0, limit) of \p memory.
  void checkInside(const char* name, std::optional<Span> span, int64_t limit, Show show,
                   const char* memory) const {
    if (!span) {
      fieldFail(name, fmt::format("makes the {} address range overflow 64 bits", memory));
    }
    if (span->begin < 0 || span->end > limit) {
      fieldFail(name, fmt::format("touches {} [{}, {}) outside [0, {})", memory,
                                  showNumber(show, span->begin), showNumber(show, span->end),
                                  showNumber(show, limit)));
    }
  }

  /// Records that the resident region is used up to address \p end (exclusive).
  void noteResident(int64_t end) const {
    extents_.residentBytes = std::max(extents_.residentBytes, end - kResidentBase);
  }

  void checkSbuf(const char* name, int64_t base, std::initializer_list<Level> levels,
                 int64_t unitBytes) const {
    const std::optional<Span> span = patternSpan(base, levels, unitBytes);
    checkInside(name, span, p_.config.sbufWorkingBytesPerPartition(), Show::Hex,
                "SBUF working bytes");
    extents_.sbufBytesPerPartition = std::max(extents_.sbufBytesPerPartition, span->end);
  }

public:
  const ProgramExtents& extents() const { return extents_; }

private:
  void checkPsum(const char* name, int64_t base, std::initializer_list<Level> levels) const {
    checkInside(name, patternSpan(base, levels, 1), p_.config.psumEntriesPerColumn, Show::Dec,
                "PSUM entries");
  }

  void checkDram(const char* name, const DramPattern& d, int64_t partitions, int64_t outer,
                 int64_t inner, int64_t unitBytes) const {
    const auto span = patternSpan(
        d.addr, {{d.partitionStride, partitions}, {d.outerStride, outer}, {d.innerStep, inner}},
        unitBytes);
    if (isResidentAddr(d.addr)) {
      // The whole pattern must stay in the resident region (a DMA never straddles it and DRAM).
      checkInside(name, span, kResidentBase + residentRegionBytes(p_.config), Show::Hex,
                  "resident-region window");
      if (span && span->begin < kResidentBase) {
        fieldFail(name, fmt::format("starts in the resident region but reaches {} below it",
                                    showNumber(Show::Hex, span->begin)));
      }
      noteResident(span->end);
      return;
    }
    checkInside(name, span, p_.dramBytes, Show::Hex, "DRAM bytes");
  }

  /// Fails unless [start, start + count) fits in \p limit things called \p what.
  void checkSlots(const char* name, int64_t start, int64_t count, int64_t limit,
                  const char* what) const {
    const std::optional<int64_t> end = checkedAdd(start, count);
    if (!end || *end > limit) {
      fieldFail(name,
                fmt::format("spans [{}, {}), beyond the {} {}", start,
                            end ? std::to_string(*end) : std::string("overflow"), limit, what));
    }
  }

  void checkRows(const char* name, int64_t rows) const {
    if (rows > p_.config.peRows) {
      fieldFail(name, fmt::format("exceeds the array's {} PE rows", p_.config.peRows));
    }
  }
  void checkCols(const char* name, int64_t cols) const {
    if (cols > p_.config.peCols) {
      fieldFail(name, fmt::format("exceeds the array's {} PE columns", p_.config.peCols));
    }
  }

  void checkElemBytes(const char* name, int64_t elemBytes) const {
    if (elemBytes != elemBytes_) {
      fieldFail(name, fmt::format("does not match the program's dtype {} (elem must be {})",
                                  fields::enumName(p_.dtype), elemBytes_));
    }
  }

  /// DMA_LOAD and DMA_STORE: the on-chip side in \p space, then the DRAM side.
  template <class D> void checkTransfer(const D& d, OnChip space) const {
    const std::initializer_list<Level> onChip = {{d.sbufOuterStride, d.outerCount},
                                                 {d.elemBytes, d.innerCount}};
    switch (space) {
    case OnChip::Sbuf:
      checkSlots("part.n", d.partitionStart, d.partitionCount, p_.config.peRows, "SBUF partitions");
      checkSbuf("sbuf", d.sbufAddr, onChip, d.elemBytes);
      break;
    case OnChip::ActTable:
      checkSlots("part.n", d.partitionStart, d.partitionCount, p_.config.peCols,
                 "activation-table columns");
      checkInside("sbuf", patternSpan(d.sbufAddr, onChip, d.elemBytes),
                  kActTableSlots * kActRecordBytes, Show::Hex, "activation-table bytes");
      break;
    case OnChip::PoolTable:
      if (d.partitionStart != 0) {
        fieldFail("part", "must be 0 for the pool table");
      }
      if (d.partitionCount != 1) {
        fieldFail("part.n", "must be 1 for the pool table");
      }
      checkInside("sbuf", patternSpan(d.sbufAddr, onChip, d.elemBytes),
                  kPoolTableEntries * kPoolRecordBytes, Show::Hex, "pool-table bytes");
      break;
    case OnChip::LookupTable:
      checkSlots("part.n", d.partitionStart, d.partitionCount, p_.config.peRows,
                 "lookup-table partitions");
      checkInside("sbuf", patternSpan(d.sbufAddr, onChip, d.elemBytes), kLookupTableBytes,
                  Show::Hex, "lookup-table bytes");
      break;
    }
    checkDram("dram", d.dram, d.partitionCount, d.outerCount, d.innerCount, d.elemBytes);
  }

  void check(const DmaLoad& d) const { checkTransfer(d, d.space); }
  void check(const DmaStore& d) const { checkTransfer(d, OnChip::Sbuf); }

  void check(const DmaCopy& d) const {
    if (!d.fillZero) {
      checkDram("src", d.src, d.partitionCount, d.outerCount, d.innerCount, d.elemBytes);
    }
    checkDram("dst", d.dst, d.partitionCount, d.outerCount, d.innerCount, d.elemBytes);
    checkZero("fill", d.fillValue);
  }

  void check(const LoadWeights& w) const {
    checkRows("rows", w.rows);
    checkCols("cols", w.cols);
    checkSbuf("addr", w.addr, {{w.colStride, w.cols}}, elemBytes_);
    checkZero("zero", w.zero);
  }

  void check(const Matmul& m) const {
    checkRows("rows", m.rows);
    checkCols("cols", m.cols);
    if (m.dstInnerCount != m.srcInnerCount) {
      fieldFail("dst.n", fmt::format("differs from src.n = {} (each fetched vector writes one "
                                     "entry)",
                                     m.srcInnerCount));
    }
    if (m.dstOuterCount != m.srcOuterCount) {
      fieldFail("dst.on", fmt::format("differs from src.on = {} (each fetched vector writes one "
                                      "entry)",
                                      m.srcOuterCount));
    }
    checkSbuf("src", m.src,
              {{m.srcInnerStep, m.srcInnerCount}, {m.srcOuterStride, m.srcOuterCount}}, elemBytes_);
    checkPsum("dst", m.dst,
              {{m.dstInnerStep, m.dstInnerCount}, {m.dstOuterStride, m.dstOuterCount}});
    checkZero("src.zero", m.srcZero);
  }

  void check(const PsumReset& r) const {
    checkCols("cols", r.cols);
    checkPsum("addr", r.addr, {{1, r.entries}});
  }

  void check(const Activate& a) const {
    checkPsum("psum", a.psum, {{a.psumRowStride, a.rows}, {1, a.rowLen}});
    checkSlots("cols", a.colStart, a.cols, p_.config.peCols, "PE columns");
    checkSlots("part", a.dstPartition, a.cols, p_.config.peRows, "SBUF partitions");
    checkElemBytes("elem", a.elemBytes);
    checkSbuf("dst", a.dst, {{a.dstRowStride, a.rows}, {a.elemBytes, a.rowLen}}, a.elemBytes);
    if (a.tableSlot >= kActTableSlots) {
      fieldFail("slot", fmt::format("is not one of the {} activation-table slots", kActTableSlots));
    }
    if (p_.dtype == DType::I8) {
      if (a.func != ActFunc::Identity && a.func != ActFunc::Clip) {
        fieldFail("func", "is not available to s8 programs (identity or clip: requantize, then "
                          "clamp to [lo, hi])");
      }
      if (a.clampLo < -128) {
        fieldFail("lo", "lies below the int8 range [-128, 127]");
      }
      if (a.clampHi > 127) {
        fieldFail("hi", "lies above the int8 range [-128, 127]");
      }
    }
    if (a.clampLo > a.clampHi) {
      fieldFail("lo", fmt::format("exceeds hi = {}", a.clampHi));
    }
    checkZero("zero", a.zeroOut);
  }

  /// An interpolating POOL: s8, window fields at their defaults, its records inside the table
  /// (the rows it reads are table data, checked by the simulator).
  void checkInterpolation(const Pool& p) const {
    if (p_.dtype != DType::I8 || p.elemBytes != 1) {
      fieldFail("kind", "runs on s8 data only");
    }
    if (p.kernelH != 1 || p.kernelW != 1 || p.strideH != 1 || p.strideW != 1 || p.dilH != 1 ||
        p.dilW != 1 || p.padTop != 0 || p.padLeft != 0 || p.padBottom != 0 || p.padRight != 0 ||
        p.countIncludePad) {
      fieldFail("kind", "takes no window (kernel, stride, dilation 1; no padding)");
    }
    checkSlots("out.w", 0, p.outW, kPoolTableEntries, "pool-table records (one per column)");
    checkSlots("table.row0", p.tableRow0, p.outRows, kPoolTableEntries,
               "pool-table records (one per output row)");
  }

  void check(const Pool& p) const {
    checkSlots("part.n", p.partitionStart, p.partitions, p_.config.peRows, "SBUF partitions");
    checkElemBytes("elem", p.elemBytes);
    checkSlots("src.rows", p.srcRow0, p.srcRows, p.inH, "rows of the input plane (in.h)");
    checkSbuf("src", p.src, {{p.srcRowStride, p.srcRows}, {p.elemBytes, p.inW}}, p.elemBytes);
    checkSbuf("dst", p.dst, {{p.dstRowStride, p.outRows}, {p.elemBytes, p.outW}}, p.elemBytes);
    checkZero("zero.in", p.zeroIn);
    checkZero("zero.out", p.zeroOut);
    if (p.kind == Pool::Kind::Interpolate) {
      checkInterpolation(p);
      return;
    }
    // The source must hold every in-plane input row the output rows' windows reach: the rows
    // from the first window's top to the last window's bottom, clipped to the plane.
    const std::optional<int64_t> firstTop = checkedMul(p.outRow0, p.strideH);
    const std::optional<int64_t> lastOut = checkedAdd(p.outRow0, p.outRows - 1);
    const std::optional<int64_t> lastTop = lastOut ? checkedMul(*lastOut, p.strideH) : lastOut;
    const std::optional<int64_t> extent = checkedMul(p.kernelH - 1, p.dilH);
    const std::optional<int64_t> lastBottom =
        lastTop && extent ? checkedAdd(*lastTop, *extent) : std::nullopt;
    if (!firstTop || !lastBottom) {
      fieldFail("out.rows", "makes the input row range overflow 64 bits");
    }
    const int64_t needFirst = std::max<int64_t>(0, *firstTop - p.padTop);
    const int64_t needLast = std::min<int64_t>(p.inH - 1, *lastBottom - p.padTop);
    if (needFirst <= needLast && (needFirst < p.srcRow0 || needLast - p.srcRow0 >= p.srcRows)) {
      fieldFail("src.rows",
                fmt::format("with src.row0 = {} does not hold input rows {}..{} that output rows "
                            "{}..{} read",
                            p.srcRow0, needFirst, needLast, p.outRow0, *lastOut));
    }
  }

  void check(const Vector& v) const {
    if (p_.dtype != DType::I8) {
      fieldFail("func", "is not available to f32 programs (the vector unit is int8)");
    }
    checkSlots("part.n", v.partitionStart, v.partitions, p_.config.peRows, "SBUF partitions");
    checkSbuf("a", v.a, {{v.aRowStride, v.rows}, {1, v.rowLen}}, 1);
    checkSbuf("dst", v.dst, {{v.dstRowStride, v.rows}, {1, v.rowLen}}, 1);
    const bool binary = isBinary(v.func);
    if (binary) {
      if (v.bStep != 0 && v.bStep != 1) {
        fieldFail("b.step", "must be 1 (a block like A) or 0 (one value per row)");
      }
      checkSbuf("b", v.b, {{v.bRowStride, v.rows}, {v.bStep, v.rowLen}}, 1);
    }
    if (isSelect(v.func)) {
      if (v.cStep != 0 && v.cStep != 1) {
        fieldFail("c.step", "must be 1 (a block like A) or 0 (one value per row)");
      }
      checkSbuf("c", v.c, {{v.cRowStride, v.rows}, {v.cStep, v.rowLen}}, 1);
    }
    if (v.func == VectorFunc::Add || v.func == VectorFunc::Sub) {
      if (v.leftShift < 0 || v.leftShift > kMaxVectorLeftShift) {
        fieldFail("lshift", fmt::format("lies outside [0, {}] (an int8 operand shifted left must "
                                        "fit int32)",
                                        kMaxVectorLeftShift));
      }
      if ((v.aZero != 0 || v.bZero != 0) && v.leftShift > kMaxZeroPointLeftShift) {
        fieldFail("lshift", fmt::format("exceeds {} with a zero point (a difference q - z "
                                        "shifted left must fit int32)",
                                        kMaxZeroPointLeftShift));
      }
    }
    checkZero("a.zero", v.aZero);
    checkZero("b.zero", v.bZero);
    checkZero("out.zero", v.outZero);
    if (v.func == VectorFunc::Add || v.func == VectorFunc::Sub || v.func == VectorFunc::Min ||
        v.func == VectorFunc::Max || isComparison(v.func) || isSelect(v.func)) {
      checkMultiplier("a.m", v.aMultiplier, v.aShift);
      checkMultiplier("b.m", v.bMultiplier, v.bShift);
    }
    if (binary || v.func == VectorFunc::Requantize || v.func == VectorFunc::Softmax) {
      checkMultiplier("out.m", v.outMultiplier, v.outShift);
    }
    if (v.clampLo < -128) {
      fieldFail("lo", "lies below the int8 range [-128, 127]");
    }
    if (v.clampHi > 127) {
      fieldFail("hi", "lies above the int8 range [-128, 127]");
    }
    if (v.clampLo > v.clampHi) {
      fieldFail("lo", fmt::format("exceeds hi = {}", v.clampHi));
    }
  }

  /// A zero point: an int8 code in s8 programs, 0 in f32 programs (which hold no codes).
  void checkZero(const char* name, int32_t zero) const {
    if (p_.dtype != DType::I8 && zero != 0)
      fieldFail(name, "must be 0 in an f32 program (a zero point is an int8 code)");
    if (zero < -128 || zero > 127)
      fieldFail(name, "lies outside the int8 range [-128, 127]");
  }

  /// A requantization multiplier {M, shift} (quant/Requantize.h); \p name is its M field.
  void checkMultiplier(const char* name, int32_t multiplier, int32_t shift) const {
    if (!quant::QuantMultiplier{multiplier, shift}.isValid()) {
      fieldFail(name, fmt::format("with shift {} is not a requantization multiplier (M in [2^30, "
                                  "2^31) and shift in [-30, 31], or M = 0 with shift 31)",
                                  shift));
    }
  }

  void check(const HostOp& h) const {
    if (h.layer >= static_cast<int64_t>(p_.layers.size())) {
      fieldFail("layer",
                fmt::format("is not a layer index (the program has {} layers)", p_.layers.size()));
    }
  }

  void check(const Barrier&) const {}

  const Program& p_;
  const std::string& file_;
  int64_t elemBytes_ = 1;
  size_t index_ = 0;
  const Instruction* inst_ = nullptr;
  /// Grown by the const checks as they see each access (a record, not validation state).
  mutable ProgramExtents extents_;
};

} // namespace

ProgramExtents validateProgram(const Program& p, const std::string& file) {
  Validator v(p, file);
  v.run();
  return v.extents();
}

} // namespace nnaccel::arch::systolic
