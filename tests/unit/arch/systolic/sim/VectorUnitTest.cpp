/// \file
/// The systolic vector unit (VECTOR, src/arch/systolic/sim/VectorUnit.cpp) through the
/// simulator: every function against the quant module's int8 kernels (per-partition lookup
/// tables, per-row broadcast B, Where's condition C, the final clamp), the add/sub overflow error,
/// and its cycles, traffic and energy in the per-layer accounts.
#include "SimTestBuilder.h"
#include "nnaccel/arch/systolic/Simulator.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/support/Error.h"

#include <cstring>
#include <gtest/gtest.h>
#include <random>

namespace nnaccel::arch::systolic {
// Named, not anonymous: the unity build compiles this file with its siblings, whose anonymous
// helpers (testConfig, opsOf, ...) would otherwise be ambiguous.
namespace vector_unit_test {

using testing::ProgramBuilder;

constexpr int64_t kParts = 3, kRows = 2, kRowLen = 5;
constexpr int64_t kA = 0, kB = 0x100, kDst = 0x200, kC = 0x300;

std::vector<int8_t> randomS8(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v)
    x = static_cast<int8_t>(d(rng));
  return v;
}

Tensor s8Tensor(const std::vector<int8_t>& values, Dims shape) {
  Tensor t(DType::I8, std::move(shape));
  std::memcpy(t.rawData(), values.data(), t.sizeBytes()); // a prefix of values
  return t;
}

/// A, B (kParts x kRows x kRowLen, or one value per row when \p perRowB) and per-partition
/// lookup tables in SBUF, one VECTOR into kDst, stored to an s8 [kParts, kRows, kRowLen] tensor.
struct VectorCase {
  std::vector<int8_t> a, b, tables;
  std::vector<int8_t> c; ///< Select's condition, like A (loaded when not empty)
  Vector op;
  bool perRowB = false;

  Tensor run() const {
    ProgramBuilder pb;
    const int64_t bLen = perRowB ? kRows : kRows * kRowLen;
    pb.layer("vector", LayerUnit::Vector);
    pb.loadRows(pb.segmentOf(a), kParts, kRows * kRowLen, kA);
    pb.loadRows(pb.segmentOf(b), kParts, bLen, kB);
    if (!c.empty())
      pb.loadRows(pb.segmentOf(c), kParts, kRows * kRowLen, kC);
    DmaLoad t;
    t.space = OnChip::LookupTable;
    t.partitionCount = kParts;
    t.innerCount = kLookupTableBytes;
    t.dram = {pb.segmentOf(tables), kLookupTableBytes, 0, 1};
    pb.add(t);
    Vector v = op;
    v.partitions = kParts;
    v.rows = kRows;
    v.rowLen = kRowLen;
    v.a = kA;
    v.aRowStride = kRowLen;
    v.b = kB;
    v.bRowStride = perRowB ? 1 : kRowLen;
    v.bStep = perRowB ? 0 : 1;
    v.dst = kDst;
    v.dstRowStride = kRowLen;
    v.c = kC;
    v.cRowStride = kRowLen;
    pb.add(v);
    const int32_t out = pb.tensor("out", DType::I8, {kParts, kRows, kRowLen});
    DmaStore s;
    s.partitionCount = kParts;
    s.innerCount = kRows * kRowLen;
    s.dram = {pb.tensorAt(out).addr, kRows * kRowLen, 0, 1};
    s.sbufAddr = kDst;
    pb.add(s);
    Simulator sim(pb.finish(), {});
    sim.run();
    return sim.readTensor(out);
  }

  Tensor tensorA() const { return s8Tensor(a, {kParts, kRows, kRowLen}); }
  Tensor tensorB() const { return s8Tensor(b, {kParts, kRows, perRowB ? 1 : kRowLen}); }
};

VectorCase randomCase(uint32_t seed, VectorFunc f) {
  std::mt19937 rng(seed);
  VectorCase c;
  c.a = randomS8(rng, kParts * kRows * kRowLen);
  c.b = randomS8(rng, kParts * kRows * kRowLen);
  c.tables = randomS8(rng, kParts * kLookupTableBytes);
  c.op.func = f;
  return c;
}

void setOutput(Vector& v, quant::QuantMultiplier m) {
  v.outMultiplier = m.multiplier;
  v.outShift = m.shift;
}

std::vector<int8_t> valuesOf(const Tensor& t) {
  const auto* p = t.data<int8_t>();
  return std::vector<int8_t>(p, p + t.numElements());
}

TEST(SystolicVectorUnit, ClampMatchesClampTensor) {
  VectorCase c = randomCase(1, VectorFunc::Clamp);
  c.op.clampLo = -20;
  c.op.clampHi = 90;
  EXPECT_EQ(valuesOf(c.run()), valuesOf(quant::clampTensor(c.tensorA(), -20, 90)));
}

TEST(SystolicVectorUnit, LookupReadsEachPartitionsOwnTable) {
  VectorCase c = randomCase(2, VectorFunc::Lookup);
  // Table t per partition: quant::lookup along axis 0 of [kParts, kRows, kRowLen].
  EXPECT_EQ(valuesOf(c.run()), valuesOf(quant::lookup(c.tensorA(), c.tables, 0)));
}

quant::AddSubMultipliers addSubMultipliers() {
  quant::AddSubMultipliers m;
  m.leftShift = 20;
  m.a = quant::quantizeMultiplier(0.43);
  m.b = quant::quantizeMultiplier(0.31);
  m.output = quant::quantizeMultiplier(1.7 / (1 << 20));
  return m;
}

void setAddSub(Vector& v, const quant::AddSubMultipliers& m) {
  v.leftShift = m.leftShift;
  v.aMultiplier = m.a.multiplier;
  v.aShift = m.a.shift;
  v.bMultiplier = m.b.multiplier;
  v.bShift = m.b.shift;
  setOutput(v, m.output);
}

TEST(SystolicVectorUnit, AddAndSubMatchTheAddSubKernel) {
  for (const bool subtract : {false, true}) {
    for (const bool perRow : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "subtract " << subtract << " perRow " << perRow);
      VectorCase c = randomCase(3, subtract ? VectorFunc::Sub : VectorFunc::Add);
      c.perRowB = perRow;
      const quant::AddSubMultipliers m = addSubMultipliers();
      setAddSub(c.op, m);
      const Tensor want =
          quant::addSub(subtract, m, c.tensorA(), c.tensorB(), Dims{kParts, kRows, kRowLen});
      EXPECT_EQ(valuesOf(c.run()), valuesOf(want));
    }
  }
}

TEST(SystolicVectorUnit, MulBroadcastsOneValuePerRowLikeTheMulKernel) {
  VectorCase c = randomCase(4, VectorFunc::Mul);
  c.perRowB = true;
  const quant::QuantMultiplier m = quant::quantizeMultiplier(0.0123);
  setOutput(c.op, m);
  const Tensor want = quant::mul(m, c.tensorA(), c.tensorB(), Dims{kParts, kRows, kRowLen});
  EXPECT_EQ(valuesOf(c.run()), valuesOf(want));
}

TEST(SystolicVectorUnit, RequantizeThenClampLikeAFusedRelu) {
  VectorCase c = randomCase(5, VectorFunc::Requantize);
  const quant::QuantMultiplier m = quant::quantizeMultiplier(0.61);
  setOutput(c.op, m);
  c.op.clampLo = 0;
  const Tensor want = quant::clampTensor(quant::requantizeTensor(c.tensorA(), m), 0, 127);
  EXPECT_EQ(valuesOf(c.run()), valuesOf(want));
}

TEST(SystolicVectorUnit, SelectAndSelectNotMatchTheSelectKernel) {
  for (const VectorFunc f : {VectorFunc::Select, VectorFunc::SelectNot}) {
    for (const bool perRow : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "select_not " << (f == VectorFunc::SelectNot) << " perRow " << perRow);
      VectorCase c = randomCase(8, f);
      c.perRowB = perRow;
      std::mt19937 rng(9);
      c.c = randomS8(rng, kParts * kRows * kRowLen);
      for (size_t i = 0; i < c.c.size(); i += 3)
        c.c[i] = 0; // a comparison's 0/1; any non-zero value selects
      const quant::QuantMultiplier ma = quant::quantizeMultiplier(0.83);
      const quant::QuantMultiplier mb = quant::quantizeMultiplier(1.9);
      c.op.aMultiplier = ma.multiplier;
      c.op.aShift = ma.shift;
      c.op.bMultiplier = mb.multiplier;
      c.op.bShift = mb.shift;
      // Select: B where C, else A. SelectNot: A where C, else B.
      const Tensor cond = s8Tensor(c.c, {kParts, kRows, kRowLen});
      const Dims out{kParts, kRows, kRowLen};
      const Tensor want = f == VectorFunc::Select
                              ? quant::select(cond, mb, ma, c.tensorB(), c.tensorA(), out)
                              : quant::select(cond, ma, mb, c.tensorA(), c.tensorB(), out);
      EXPECT_EQ(valuesOf(c.run()), valuesOf(want));
    }
  }
}

TEST(SystolicVectorUnit, AddIntermediateOutsideInt32IsAnError) {
  VectorCase c = randomCase(6, VectorFunc::Add);
  quant::AddSubMultipliers m = addSubMultipliers();
  m.leftShift = 24;
  m.a = m.b = quant::quantizeMultiplier(1000.0); // |a'| up to 2^31 * 1000
  setAddSub(c.op, m);
  try {
    c.run();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(VECTOR): an add/sub intermediate of partition 0 leaves "
                                         "int32"),
              std::string::npos)
        << e.what();
  }
}

TEST(SystolicVectorUnit, CyclesTrafficAndEnergyFollowTheLanes) {
  // smallConfig: 2 pool lanes, latency 3. 3 partitions -> 2 passes of 2 x 5 elements.
  ProgramBuilder pb;
  pb.layer("vector", LayerUnit::Vector);
  Vector v;
  v.func = VectorFunc::Add;
  v.partitions = kParts;
  v.rows = kRows;
  v.rowLen = kRowLen;
  v.b = kB;
  v.bRowStride = 1;
  v.bStep = 0;
  v.dst = kDst;
  v.aRowStride = v.dstRowStride = kRowLen;
  pb.add(v);
  Program p = pb.finish();
  p.config.energy = EnergyTable{};
  p.config.energy.poolOpPj = 2.0;
  Simulator sim(p, {});
  sim.run({.functional = false});
  const report::LayerStats& s = sim.layerStats().at(0);
  EXPECT_EQ(s.busyCycles, 2 * kRows * kRowLen);
  EXPECT_EQ(sim.totalCycles(), 2 * kRows * kRowLen + 3);
  const int64_t elements = kParts * kRows * kRowLen;
  EXPECT_EQ(s.sbuf.readBytes, elements + kParts * kRows); // A per element, B per row
  EXPECT_EQ(s.sbuf.writeBytes, elements);
  EXPECT_DOUBLE_EQ(s.energy.postProcess, 2.0 * static_cast<double>(elements));
}

} // namespace vector_unit_test
} // namespace nnaccel::arch::systolic
