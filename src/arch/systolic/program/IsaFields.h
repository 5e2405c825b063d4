/// \file
/// The single description of every field of a systolic program: each instruction's operands,
/// the sync word, the config, the tensor/segment/layer records and the program header.
///
/// Why a table: the file codec (ProgramCodec.cpp), the validator (ProgramValidate.cpp) and the
/// text form (Disassembler.cpp) all need "every field of op X, in a fixed order, with its name".
/// Writing that list once per consumer would be three copies that drift apart; instead each
/// record has one `forEachField(record, visitor)` that calls `visitor(Field, member)` for every
/// member, on a const or a mutable record. Adding a field to an op is one line here, and the
/// encoder, decoder, disassembler and the generic range rules pick it up.
///
/// The field names are the ones the disassembler prints (`src.n=9`) and the validator's
/// messages quote (`field 'src.n'`); docs/arch/SystolicIsa.md maps them to the struct members.
#pragma once
#include "nnaccel/arch/systolic/Program.h"

#include <array>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>

namespace nnaccel::arch::systolic::fields {

/// How an integer field is printed: decimal, or hexadecimal for SBUF/DRAM byte addresses and
/// byte strides.
enum class Show : uint8_t { Dec, Hex };
/// The range rule every value of the field must satisfy on its own (the validator checks it
/// generically; cross-field rules are written per op).
enum class Rule : uint8_t { Any, NonNeg, Positive };

struct Field {
  const char* name;
  Show show = Show::Dec;
  Rule rule = Rule::Any;
};

constexpr Field dec(const char* name) {
  return {name, Show::Dec, Rule::Any};
}
constexpr Field hex(const char* name) {
  return {name, Show::Hex, Rule::Any};
}
constexpr Field count(const char* name) {
  return {name, Show::Dec, Rule::Positive};
}
constexpr Field nonNeg(const char* name) {
  return {name, Show::Dec, Rule::NonNeg};
}

/// Names of an enum's values (index = underlying value) and of the enum itself; the codec
/// rejects values >= names.size().
template <class E> struct EnumInfo;
template <> struct EnumInfo<OnChip> {
  static constexpr const char* kType = "memory space";
  static constexpr std::array kNames{"sbuf", "act_table", "pool_table", "lookup_table"};
};
template <> struct EnumInfo<VectorFunc> {
  static constexpr const char* kType = "vector function";
  static constexpr std::array kNames{
      "clamp", "lookup", "add", "sub", "mul", "requantize", "min",    "max",       "eq",
      "gt",    "lt",     "ge",  "le",  "div", "softmax",    "select", "select_not"};
};
template <> struct EnumInfo<ActFunc> {
  static constexpr const char* kType = "activation function";
  static constexpr std::array kNames{"identity",   "relu", "clip",    "leaky_relu",
                                     "sigmoid",    "tanh", "elu",     "hard_sigmoid",
                                     "hard_swish", "selu", "softplus"};
};
template <> struct EnumInfo<Pool::Kind> {
  static constexpr const char* kType = "pool kind";
  static constexpr std::array kNames{"max", "avg", "interp"};
};
template <> struct EnumInfo<quant::Rounding> {
  static constexpr const char* kType = "rounding";
  static constexpr std::array kNames{"half_away", "half_even"};
};
template <> struct EnumInfo<DType> {
  static constexpr const char* kType = "dtype";
  static constexpr std::array kNames{"f32", "s8", "u8", "s32", "s64", "bool"}; // = dtypeName
};
template <> struct EnumInfo<DramTensor::Role> {
  static constexpr const char* kType = "tensor role";
  static constexpr std::array kNames{"input", "output", "activation", "weight", "param", "scratch"};
};
template <> struct EnumInfo<LayerUnit> {
  static constexpr const char* kType = "layer unit";
  static constexpr std::array kNames{"array", "pool", "host", "view", "vector"}; // = layerUnitName
};
template <> struct EnumInfo<PsumZeroMode> {
  static constexpr const char* kType = "psum zero mode";
  static constexpr std::array kNames{"reset", "written_flags"};
};

template <class E> constexpr size_t enumCount() {
  return EnumInfo<E>::kNames.size();
}
/// The value's name, or "?" for a value outside the enum (only a hostile, unvalidated program
/// holds one).
template <class E> const char* enumName(E e) {
  const auto i = static_cast<size_t>(e);
  return i < enumCount<E>() ? EnumInfo<E>::kNames[i] : "?";
}

/// `R` is `T` or `const T`: every table works on both.
template <class R, class T>
concept Of = std::same_as<std::remove_const_t<R>, T>;

// --- instruction operands ---------------------------------------------------------------------

template <class P, class V>
requires Of<P, DramPattern>
void patternFields(P& d, V&& v, const char* addr, const char* partitionStride,
                   const char* outerStride, const char* innerStep) {
  v(hex(addr), d.addr);
  v(hex(partitionStride), d.partitionStride);
  v(hex(outerStride), d.outerStride);
  v(dec(innerStep), d.innerStep);
}

/// The fields DMA_LOAD and DMA_STORE share (a DMA_LOAD adds its memory space in front).
template <class D, class V> void transferFields(D& d, V&& v) {
  v(count("elem"), d.elemBytes);
  v(nonNeg("part"), d.partitionStart);
  v(count("part.n"), d.partitionCount);
  v(count("outer.n"), d.outerCount);
  v(count("inner.n"), d.innerCount);
  patternFields(d.dram, v, "dram", "dram.pstride", "dram.ostride", "dram.step");
  v(hex("sbuf"), d.sbufAddr);
  v(hex("sbuf.ostride"), d.sbufOuterStride);
}

template <class O, class V>
requires Of<O, DmaLoad>
void forEachField(O& d, V&& v) {
  v(dec("space"), d.space);
  transferFields(d, v);
}

template <class O, class V>
requires Of<O, DmaStore>
void forEachField(O& d, V&& v) {
  transferFields(d, v);
}

template <class O, class V>
requires Of<O, DmaCopy>
void forEachField(O& d, V&& v) {
  v(dec("zero"), d.fillZero);
  v(count("elem"), d.elemBytes);
  v(count("part.n"), d.partitionCount);
  v(count("outer.n"), d.outerCount);
  v(count("inner.n"), d.innerCount);
  patternFields(d.src, v, "src", "src.pstride", "src.ostride", "src.step");
  patternFields(d.dst, v, "dst", "dst.pstride", "dst.ostride", "dst.step");
  v(dec("fill"), d.fillValue);
}

template <class O, class V>
requires Of<O, LoadWeights>
void forEachField(O& w, V&& v) {
  v(hex("addr"), w.addr);
  v(count("rows"), w.rows);
  v(count("cols"), w.cols);
  v(hex("col.stride"), w.colStride);
  v(dec("zero"), w.zero);
}

template <class O, class V>
requires Of<O, Matmul>
void forEachField(O& m, V&& v) {
  v(count("rows"), m.rows);
  v(count("cols"), m.cols);
  v(hex("src"), m.src);
  v(dec("src.step"), m.srcInnerStep);
  v(count("src.n"), m.srcInnerCount);
  v(hex("src.ostride"), m.srcOuterStride);
  v(count("src.on"), m.srcOuterCount);
  v(dec("dst"), m.dst);
  v(dec("dst.step"), m.dstInnerStep);
  v(count("dst.n"), m.dstInnerCount);
  v(dec("dst.ostride"), m.dstOuterStride);
  v(count("dst.on"), m.dstOuterCount);
  v(dec("acc"), m.accumulate);
  v(dec("src.zero"), m.srcZero);
}

template <class O, class V>
requires Of<O, PsumReset>
void forEachField(O& r, V&& v) {
  v(dec("addr"), r.addr);
  v(count("entries"), r.entries);
  v(count("cols"), r.cols);
}

template <class O, class V>
requires Of<O, Activate>
void forEachField(O& a, V&& v) {
  v(dec("psum"), a.psum);
  v(dec("psum.rstride"), a.psumRowStride);
  v(count("rows"), a.rows);
  v(count("rowlen"), a.rowLen);
  v(nonNeg("col"), a.colStart);
  v(count("cols"), a.cols);
  v(nonNeg("part"), a.dstPartition);
  v(hex("dst"), a.dst);
  v(hex("dst.rstride"), a.dstRowStride);
  v(count("elem"), a.elemBytes);
  v(nonNeg("slot"), a.tableSlot);
  v(dec("func"), a.func);
  v(dec("lo"), a.clampLo);
  v(dec("hi"), a.clampHi);
  v(dec("alpha"), a.alpha);
  v(dec("beta"), a.beta);
  v(dec("gamma"), a.gamma);
  v(dec("release"), a.releaseEntries);
  v(dec("zero"), a.zeroOut);
}

template <class O, class V>
requires Of<O, Pool>
void forEachField(O& p, V&& v) {
  v(dec("kind"), p.kind);
  v(count("elem"), p.elemBytes);
  v(nonNeg("part"), p.partitionStart);
  v(count("part.n"), p.partitions);
  v(hex("src"), p.src);
  v(hex("src.rstride"), p.srcRowStride);
  v(nonNeg("src.row0"), p.srcRow0);
  v(count("src.rows"), p.srcRows);
  v(count("in.h"), p.inH);
  v(count("in.w"), p.inW);
  v(hex("dst"), p.dst);
  v(hex("dst.rstride"), p.dstRowStride);
  v(nonNeg("out.row0"), p.outRow0);
  v(count("out.rows"), p.outRows);
  v(count("out.w"), p.outW);
  v(count("k.h"), p.kernelH);
  v(count("k.w"), p.kernelW);
  v(count("s.h"), p.strideH);
  v(count("s.w"), p.strideW);
  v(nonNeg("pad.t"), p.padTop);
  v(nonNeg("pad.l"), p.padLeft);
  v(nonNeg("pad.b"), p.padBottom);
  v(nonNeg("pad.r"), p.padRight);
  v(count("dil.h"), p.dilH);
  v(count("dil.w"), p.dilW);
  v(dec("incl.pad"), p.countIncludePad);
  v(nonNeg("table.row0"), p.tableRow0);
  v(dec("zero.in"), p.zeroIn);
  v(dec("zero.out"), p.zeroOut);
}

template <class O, class V>
requires Of<O, Vector>
void forEachField(O& x, V&& v) {
  v(dec("func"), x.func);
  v(nonNeg("part"), x.partitionStart);
  v(count("part.n"), x.partitions);
  v(count("rows"), x.rows);
  v(count("rowlen"), x.rowLen);
  v(hex("a"), x.a);
  v(hex("a.rstride"), x.aRowStride);
  v(hex("b"), x.b);
  v(hex("b.rstride"), x.bRowStride);
  v(dec("b.step"), x.bStep);
  v(hex("dst"), x.dst);
  v(hex("dst.rstride"), x.dstRowStride);
  v(dec("lshift"), x.leftShift);
  v(dec("a.m"), x.aMultiplier);
  v(dec("a.shift"), x.aShift);
  v(dec("b.m"), x.bMultiplier);
  v(dec("b.shift"), x.bShift);
  v(dec("out.m"), x.outMultiplier);
  v(dec("out.shift"), x.outShift);
  v(dec("lo"), x.clampLo);
  v(dec("hi"), x.clampHi);
  v(hex("c"), x.c);
  v(hex("c.rstride"), x.cRowStride);
  v(dec("c.step"), x.cStep);
  v(dec("a.zero"), x.aZero);
  v(dec("b.zero"), x.bZero);
  v(dec("out.zero"), x.outZero);
}

template <class O, class V>
requires Of<O, HostOp>
void forEachField(O& h, V&& v) {
  v(nonNeg("node"), h.node);
  v(nonNeg("layer"), h.layer);
}

template <class O, class V>
requires Of<O, Barrier>
void forEachField(O&, V&&) {}

/// The sync word every instruction carries; printed separately (`wait s3>=2 signal s5`).
inline constexpr const char* kWaitSemNames[] = {"wait0.sem", "wait1.sem", "wait2.sem", "wait3.sem"};
inline constexpr const char* kWaitCountNames[] = {"wait0.count", "wait1.count", "wait2.count",
                                                  "wait3.count"};
static_assert(std::tuple_size_v<decltype(Sync::waits)> <= std::size(kWaitSemNames));

template <class S, class V>
requires Of<S, Sync>
void forEachField(S& s, V&& v) {
  for (size_t i = 0; i < s.waits.size(); ++i) {
    v(dec(kWaitSemNames[i]), s.waits[i].sem);
    v(nonNeg(kWaitCountNames[i]), s.waits[i].count);
  }
  v(dec("signal"), s.signal);
}

/// The operand fields of whichever op \p inst holds (not its sync).
template <class I, class V>
requires Of<I, Instruction>
void forEachOpField(I& inst, V&& v) {
  std::visit([&](auto& op) { forEachField(op, v); }, inst.op);
}

// --- the other records of a program file ------------------------------------------------------

template <class E, class V>
requires Of<E, EnergyTable>
void forEachField(E& e, V&& v) {
  v(dec("energy.macInt8Pj"), e.macInt8Pj);
  v(dec("energy.macFp32Pj"), e.macFp32Pj);
  v(dec("energy.sbufReadPjPerByte"), e.sbufReadPjPerByte);
  v(dec("energy.sbufWritePjPerByte"), e.sbufWritePjPerByte);
  v(dec("energy.psumReadPjPerEntry"), e.psumReadPjPerEntry);
  v(dec("energy.psumWritePjPerEntry"), e.psumWritePjPerEntry);
  v(dec("energy.dramReadPjPerByte"), e.dramReadPjPerByte);
  v(dec("energy.dramWritePjPerByte"), e.dramWritePjPerByte);
  v(dec("energy.dramActivatePj"), e.dramActivatePj);
  v(dec("energy.actOpPj"), e.actOpPj);
  v(dec("energy.poolOpPj"), e.poolOpPj);
  v(dec("energy.weightLoadPjPerByte"), e.weightLoadPjPerByte);
}

template <class C, class V>
requires Of<C, SystolicConfig>
void forEachField(C& c, V&& v) {
  v(dec("name"), c.name);
  v(dec("peRows"), c.peRows);
  v(dec("peCols"), c.peCols);
  v(dec("weightLoadCycles"), c.weightLoadCycles);
  v(dec("shadowWeights"), c.shadowWeights);
  v(dec("sbufBytesPerPartition"), c.sbufBytesPerPartition);
  v(dec("sbufResidentBytesPerPartition"), c.sbufResidentBytesPerPartition);
  v(dec("sbufDmaBytesPerCycle"), c.sbufDmaBytesPerCycle);
  v(dec("sbufDmaLatencyCycles"), c.sbufDmaLatencyCycles);
  v(dec("psumEntriesPerColumn"), c.psumEntriesPerColumn);
  v(dec("psumMaxTileRows"), c.psumMaxTileRows);
  v(dec("psumMaxTileCols"), c.psumMaxTileCols);
  v(dec("psumZeroMode"), c.psumZeroMode);
  v(dec("psumResetEntriesPerCycle"), c.psumResetEntriesPerCycle);
  v(dec("dtypes"), c.dtypes);
  v(dec("actLatencyCycles"), c.actLatencyCycles);
  v(dec("poolLanes"), c.poolLanes);
  v(dec("poolLatencyCycles"), c.poolLatencyCycles);
  v(dec("dram.standard"), c.dram.standard);
  v(dec("dram.channels"), c.dram.channels);
  v(dec("dram.rowBuffer"), c.dram.rowBuffer);
  v(dec("dramBytesPerCycle"), c.dramBytesPerCycle);
  v(dec("dramLatencyCycles"), c.dramLatencyCycles);
  v(dec("clockMhz"), c.clockMhz);
  v(dec("technology.node"), c.technology.node);
  v(dec("technology.vddV"), c.technology.vddV);
  forEachField(c.energy, v);
}

template <class T, class V>
requires Of<T, DramTensor>
void forEachField(T& t, V&& v) {
  v(dec("name"), t.name);
  v(dec("value"), t.value);
  v(dec("dtype"), t.dtype);
  v(dec("shape"), t.shape);
  v(hex("addr"), t.addr);
  v(dec("scale"), t.scale);
  v(dec("role"), t.role);
  v(dec("zero"), t.zeroPoint);
}

template <class S, class V>
requires Of<S, DramSegment>
void forEachField(S& s, V&& v) {
  v(hex("addr"), s.addr);
  v(dec("bytes"), s.bytes);
}

template <class L, class V>
requires Of<L, Layer>
void forEachField(L& l, V&& v) {
  v(dec("name"), l.name);
  v(dec("op"), l.op);
  v(dec("shape"), l.shape);
  v(dec("node"), l.node);
  v(dec("unit"), l.unit);
  v(dec("inputTensors"), l.inputTensors);
  v(dec("outputTensors"), l.outputTensors);
  v(dec("outputValues"), l.outputValues);
  v(dec("firstInstr"), l.firstInstr);
  v(dec("endInstr"), l.endInstr);
  v(dec("usefulMacs"), l.usefulMacs);
  v(dec("note"), l.note);
}

/// The program header section: everything of Program that is not a list or the config.
template <class P, class V>
requires Of<P, Program>
void forEachHeaderField(P& p, V&& v) {
  v(dec("dtype"), p.dtype);
  v(dec("rounding"), p.rounding);
  v(dec("model"), p.model);
  v(dec("baseline"), p.baseline);
  v(dec("dramBytes"), p.dramBytes);
}

// --- text form of one value (Disassembler.cpp; the validator quotes values the same way) --------

std::string showValue(const Field& f, int64_t value);
std::string showValue(const Field& f, bool value);
std::string showValue(const Field& f, float value);
template <class E>
requires std::is_enum_v<E> std::string showValue(const Field&, E value) {
  return enumName(value);
}
inline std::string showValue(const Field& f, int32_t value) {
  return showValue(f, static_cast<int64_t>(value));
}

} // namespace nnaccel::arch::systolic::fields
