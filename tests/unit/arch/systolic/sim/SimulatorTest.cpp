/// \file
/// Functional tests of the systolic simulator on hand-built programs: MATMUL patterns against a
/// direct computation, overwrite/accumulate and the two PSUM zero modes, activation against
/// quant::requantize, pooling against the int8 kernels, DMA patterns, the f32 path, errors.
#include "nnaccel/arch/systolic/Simulator.h"

#include "SimTestBuilder.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>
#include <random>

namespace nnaccel::arch::systolic {
namespace {

using testing::ProgramBuilder;

constexpr std::array<int32_t, 4> kIdentity{0, int32_t{1} << 30, -1, 0}; // bias 0, m = 1.0

std::vector<int8_t> randomS8(std::mt19937& rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) {
    x = static_cast<int8_t>(d(rng));
  }
  return v;
}

Tensor runAndRead(const Program& p, int32_t tensor, SimOptions options = {}) {
  Simulator sim(p, {});
  sim.run(options);
  return sim.readTensor(tensor);
}

/// x[p][a] for 3 partitions and w[p][m * 2] in SBUF; a 2-D MATMUL; PSUM drained by ACTIVATE
/// (identity requantization) into an s8 [3, 16] tensor.
struct MatmulCase {
  std::vector<int8_t> x, w; // x: 3 x 40, w: 3 x 8
  Matmul mm;
  int32_t out = -1;
};

MatmulCase matmulCase(ProgramBuilder& b, std::mt19937& rng) {
  MatmulCase c;
  c.x = randomS8(rng, 3 * 40, -3, 3);
  c.w = randomS8(rng, 3 * 8, -3, 3);
  b.loadRows(b.segmentOf(c.x), 3, 40, 0);
  b.loadRows(b.segmentOf(c.w), 3, 8, 512);
  b.loadActTable({kIdentity, kIdentity, kIdentity});
  c.mm.rows = 3;
  c.mm.cols = 3;
  c.mm.src = 5;
  c.mm.srcInnerStep = 2;
  c.mm.srcInnerCount = 3;
  c.mm.srcOuterStride = 9;
  c.mm.srcOuterCount = 2;
  c.mm.dst = 1;
  c.mm.dstInnerStep = 2;
  c.mm.dstInnerCount = 3;
  c.mm.dstOuterStride = 7;
  c.mm.dstOuterCount = 2;
  c.out = b.tensor("out", DType::I8, {3, 16});
  return c;
}

void drain(ProgramBuilder& b, int32_t out, bool release = false) {
  Activate a;
  a.rows = 1;
  a.rowLen = 16;
  a.cols = 3;
  a.dst = 768;
  a.releaseEntries = release;
  b.add(a);
  DmaStore s;
  s.partitionCount = 3;
  s.innerCount = 16;
  s.dram = {b.tensorAt(out).addr, 16, 0, 1};
  s.sbufAddr = 768;
  b.add(s);
}

/// Direct column sums of the case's MATMUL: [3 columns][16 entries].
std::vector<int32_t> direct(const MatmulCase& c) {
  std::vector<int32_t> out(3 * 16, 0);
  const Matmul& m = c.mm;
  for (int64_t o = 0; o < m.srcOuterCount; ++o) {
    for (int64_t i = 0; i < m.srcInnerCount; ++i) {
      const int64_t a = m.src + o * m.srcOuterStride + i * m.srcInnerStep;
      const int64_t e = m.dst + o * m.dstOuterStride + i * m.dstInnerStep;
      for (int64_t col = 0; col < 3; ++col) {
        int32_t s = 0;
        for (int64_t p = 0; p < 3; ++p) {
          s += c.x[static_cast<size_t>(p * 40 + a)] * c.w[static_cast<size_t>(p * 8 + col * 2)];
        }
        out[static_cast<size_t>(col * 16 + e)] += s;
      }
    }
  }
  return out;
}

void expectOut(const Tensor& t, const std::vector<int32_t>& expected) {
  ASSERT_EQ(t.numElements(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.data<int8_t>()[i], std::clamp(expected[i], -128, 127)) << "element " << i;
  }
}

LoadWeights weightsAt512() {
  LoadWeights w;
  w.addr = 512;
  w.rows = 3;
  w.cols = 3;
  w.colStride = 2;
  return w;
}

TEST(SystolicSimulator, MatmulTwoDimensionalPatternsMatchDirectComputation) {
  for (bool exact : {false, true}) {
    std::mt19937 rng(7);
    ProgramBuilder b;
    MatmulCase c = matmulCase(b, rng);
    b.add(weightsAt512());
    c.mm.accumulate = false;
    b.add(c.mm);
    drain(b, c.out);
    SimOptions o;
    o.exact = exact;
    expectOut(runAndRead(b.finish(), c.out, o), direct(c));
  }
}

TEST(SystolicSimulator, OverwriteReplacesAndAccumulateAdds) {
  std::mt19937 rng(8);
  ProgramBuilder b;
  MatmulCase c = matmulCase(b, rng);
  b.add(weightsAt512());
  const int32_t second = b.tensor("second", DType::I8, {3, 16});
  c.mm.accumulate = false;
  b.add(c.mm);
  c.mm.accumulate = true;
  b.add(c.mm); // 2x
  drain(b, c.out);
  c.mm.accumulate = false;
  b.add(c.mm); // back to 1x
  drain(b, second);
  Program p = b.finish();
  Simulator sim(p, {});
  sim.run();
  std::vector<int32_t> once = direct(c), twice = once;
  for (int32_t& v : twice) {
    v *= 2;
  }
  expectOut(sim.readTensor(c.out), twice);
  expectOut(sim.readTensor(second), once);
}

/// MM (overwrite), drain with release, MM (accumulate), drain: in WrittenFlags mode the
/// released entries read as 0 (stale data not accumulated); in Reset mode they accumulate.
/// A third drain without any MATMUL reads never-written entries as 0 in flags mode.
TEST(SystolicSimulator, WrittenFlagsIgnoreStaleEntriesResetModeKeepsThem) {
  for (PsumZeroMode mode : {PsumZeroMode::Reset, PsumZeroMode::WrittenFlags}) {
    std::mt19937 rng(9);
    SystolicConfig config = testing::smallConfig();
    config.psumZeroMode = mode;
    ProgramBuilder b(DType::I8, config);
    MatmulCase c = matmulCase(b, rng);
    b.add(weightsAt512());
    const int32_t after = b.tensor("after", DType::I8, {3, 16});
    const int32_t released = b.tensor("released", DType::I8, {3, 16});
    c.mm.accumulate = false;
    b.add(c.mm);
    drain(b, c.out, /*release=*/true);
    c.mm.accumulate = true;
    b.add(c.mm);
    drain(b, after, /*release=*/true);
    drain(b, released);
    Program p = b.finish();
    Simulator sim(p, {});
    sim.run();
    const std::vector<int32_t> once = direct(c);
    std::vector<int32_t> twice = once;
    for (int32_t& v : twice) {
      v *= 2;
    }
    const bool flags = mode == PsumZeroMode::WrittenFlags;
    expectOut(sim.readTensor(c.out), once);
    expectOut(sim.readTensor(after), flags ? once : twice);
    expectOut(sim.readTensor(released), flags ? std::vector<int32_t>(48, 0) : twice);
  }
}

TEST(SystolicSimulator, PsumResetZeroesTheTile) {
  std::mt19937 rng(10);
  ProgramBuilder b;
  MatmulCase c = matmulCase(b, rng);
  b.add(weightsAt512());
  c.mm.accumulate = true;
  b.add(c.mm);
  PsumReset r;
  r.addr = 0;
  r.entries = 16;
  r.cols = 4;
  b.add(r);
  b.add(c.mm);
  drain(b, c.out);
  expectOut(runAndRead(b.finish(), c.out), direct(c));
}

TEST(SystolicSimulator, ActivateRequantizesLikeQuant) {
  std::mt19937 rng(11);
  ProgramBuilder b;
  MatmulCase c = matmulCase(b, rng);
  // Full-range operands on a second set of rows so the accumulators are large.
  c.x = randomS8(rng, 3 * 40, -128, 127);
  c.w = randomS8(rng, 3 * 8, -127, 127);
  b.program().segments.clear();
  b.program().instructions.clear();
  b.loadRows(b.segmentOf(c.x), 3, 40, 0);
  b.loadRows(b.segmentOf(c.w), 3, 8, 512);
  std::vector<std::array<int32_t, 4>> records;
  std::vector<quant::QuantMultiplier> qs;
  std::uniform_int_distribution<int32_t> bias(-5000, 5000);
  std::uniform_real_distribution<double> scale(1e-4, 0.05);
  for (int col = 0; col < 3; ++col) {
    const quant::QuantMultiplier q = quant::quantizeMultiplier(scale(rng));
    qs.push_back(q);
    records.push_back({bias(rng), q.multiplier, q.shift, 0});
  }
  b.loadActTable(records);
  b.add(weightsAt512());
  c.mm.accumulate = false;
  b.add(c.mm);
  Activate a;
  a.rows = 1;
  a.rowLen = 16;
  a.cols = 3;
  a.dst = 768;
  a.func = ActFunc::Clip;
  a.clampLo = -20;
  a.clampHi = 90;
  b.add(a);
  DmaStore s;
  s.partitionCount = 3;
  s.innerCount = 16;
  s.dram = {b.tensorAt(c.out).addr, 16, 0, 1};
  s.sbufAddr = 768;
  b.add(s);
  const Tensor out = runAndRead(b.finish(), c.out);
  const std::vector<int32_t> sums = direct(c);
  for (size_t i = 0; i < sums.size(); ++i) {
    const size_t col = i / 16;
    EXPECT_EQ(out.data<int8_t>()[i], quant::requantize(sums[i] + records[col][0], qs[col], -20, 90))
        << "element " << i;
  }
}

/// Random pooling geometries (ceil mode, count_include_pad, dilation) against the int8
/// reference kernels: average with the pool table, max.
TEST(SystolicSimulator, PoolMatchesInt8Kernels) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int64_t> in(1, 7), k(1, 3), s(1, 3), d(1, 2), coin(0, 1);
  int checked = 0;
  for (int trial = 0; trial < 200 && checked < 60; ++trial) {
    ir::PoolParams p;
    p.spatialRank = 2;
    p.batch = 1;
    p.channels = 3;
    p.inSpatial = {in(rng), in(rng)};
    p.kernel = {k(rng), k(rng)};
    p.strides = {s(rng), s(rng)};
    p.dilations = {d(rng), d(rng)};
    p.ceilMode = coin(rng) == 1;
    p.countIncludePad = coin(rng) == 1;
    p.padsBegin = p.padsEnd = p.outSpatial = {0, 0};
    bool ok = true;
    for (size_t a = 0; a < 2; ++a) {
      const int64_t dk = (p.kernel[a] - 1) * p.dilations[a] + 1;
      p.padsBegin[a] = std::uniform_int_distribution<int64_t>(0, dk - 1)(rng);
      p.padsEnd[a] = std::uniform_int_distribution<int64_t>(0, dk - 1)(rng);
      const int64_t span = p.inSpatial[a] + p.padsBegin[a] + p.padsEnd[a] - dk;
      if (span < 0) {
        ok = false;
        break;
      }
      int64_t out =
          (p.ceilMode ? (span + p.strides[a] - 1) / p.strides[a] : span / p.strides[a]) + 1;
      if (p.ceilMode && (out - 1) * p.strides[a] >= p.inSpatial[a] + p.padsBegin[a]) {
        --out;
      }
      p.outSpatial[a] = out;
    }
    if (!ok) {
      continue;
    }
    ++checked;
    const int64_t inH = p.inSpatial[0], inW = p.inSpatial[1];
    const int64_t outH = p.outSpatial[0], outW = p.outSpatial[1];
    const std::vector<int8_t> x = randomS8(rng, static_cast<size_t>(3 * inH * inW), -128, 127);
    const Tensor xt = Tensor::fromVector<int8_t>({1, 3, inH, inW}, x);
    for (Pool::Kind kind : {Pool::Kind::Average, Pool::Kind::Max}) {
      p.kind =
          kind == Pool::Kind::Average ? ir::PoolParams::Kind::Average : ir::PoolParams::Kind::Max;
      std::vector<quant::CountMultiplier> mults;
      ProgramBuilder b;
      b.loadRows(b.segmentOf(x), 3, inH * inW, 0);
      if (kind == Pool::Kind::Average) {
        std::vector<int32_t> table;
        for (int64_t count : quant::averagePoolCounts(p)) {
          const quant::QuantMultiplier q =
              quant::quantizeMultiplier(0.9 / static_cast<double>(count), 128 * count);
          mults.push_back({count, q});
          table.insert(table.end(), {static_cast<int32_t>(count), q.multiplier, q.shift, 0});
        }
        DmaLoad t;
        t.space = OnChip::PoolTable;
        t.elemBytes = 4;
        t.innerCount = static_cast<int64_t>(table.size());
        t.dram = {b.segmentOf(table), 0, 0, 4};
        b.add(t);
      }
      // Output rows in two instructions to exercise outRow0.
      const int64_t split = outH / 2;
      for (auto [row0, count] : {std::pair{int64_t{0}, split}, {split, outH - split}}) {
        if (count == 0) {
          continue;
        }
        Pool pool;
        pool.kind = kind;
        pool.partitions = 3;
        pool.srcRowStride = inW;
        pool.srcRows = inH;
        pool.inH = inH;
        pool.inW = inW;
        pool.dst = 512 + row0 * outW;
        pool.dstRowStride = outW;
        pool.outRow0 = row0;
        pool.outRows = count;
        pool.outW = outW;
        pool.kernelH = p.kernel[0];
        pool.kernelW = p.kernel[1];
        pool.strideH = p.strides[0];
        pool.strideW = p.strides[1];
        pool.dilH = p.dilations[0];
        pool.dilW = p.dilations[1];
        pool.padTop = p.padsBegin[0];
        pool.padLeft = p.padsBegin[1];
        pool.padBottom = p.padsEnd[0];
        pool.padRight = p.padsEnd[1];
        pool.countIncludePad = p.countIncludePad;
        b.add(pool);
      }
      const int32_t out = b.tensor("out", DType::I8, {1, 3, outH, outW});
      DmaStore st;
      st.partitionCount = 3;
      st.innerCount = outH * outW;
      st.dram = {b.tensorAt(out).addr, outH * outW, 0, 1};
      st.sbufAddr = 512;
      b.add(st);
      const Tensor got = runAndRead(b.finish(), out);
      const Tensor want =
          kind == Pool::Kind::Average ? quant::averagePool(p, xt, mults) : reference::pool(p, xt);
      ASSERT_EQ(got.shape(), want.shape()) << "trial " << trial;
      for (int64_t e = 0; e < got.numElements(); ++e) {
        ASSERT_EQ(got.data<int8_t>()[e], want.data<int8_t>()[e])
            << "trial " << trial << " kind " << static_cast<int>(kind) << " element " << e << " in "
            << dimsToString(p.inSpatial) << " k " << dimsToString(p.kernel) << " s "
            << dimsToString(p.strides) << " d " << dimsToString(p.dilations) << " pads "
            << dimsToString(p.padsBegin) << "/" << dimsToString(p.padsEnd) << " ceil " << p.ceilMode
            << " incl " << p.countIncludePad;
      }
    }
  }
  EXPECT_GE(checked, 40);
}

TEST(SystolicSimulator, AveragePoolWithoutTableRecordIsAnError) {
  ProgramBuilder b;
  Pool pool;
  pool.kind = Pool::Kind::Average;
  pool.kernelH = pool.kernelW = 2;
  pool.inH = pool.inW = pool.srcRows = 2;
  pool.srcRowStride = 2;
  pool.dst = 64;
  b.add(pool);
  Simulator sim(b.finish(), {});
  try {
    sim.run();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_NE(std::string(e.what()).find("instruction 0 (POOL)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("window count 4"), std::string::npos) << e.what();
  }
}

TEST(SystolicSimulator, InterpolatingPoolChecksItsTableRecords) {
  // An empty pool table: every record is {0, 0, 0}, so a table row slot past the plane's
  // source rows, or a record holding an out-of-range weight, is an error naming the record.
  auto errorOf = [](const std::vector<uint8_t>& table, int64_t srcRow0) {
    ProgramBuilder b;
    if (!table.empty()) {
      DmaLoad t;
      t.space = OnChip::PoolTable;
      t.partitionCount = 1;
      t.innerCount = static_cast<int64_t>(table.size());
      t.dram = {b.segment(table), 0, 0, 1};
      b.add(t);
    }
    Pool pool;
    pool.kind = Pool::Kind::Interpolate;
    pool.inH = 3;
    pool.inW = pool.outW = 2;
    pool.srcRow0 = srcRow0;
    pool.srcRows = 2;
    pool.srcRowStride = 2;
    pool.dst = 64;
    b.add(pool);
    Simulator sim(b.finish(), {});
    try {
      sim.run();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Model);
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_EQ(errorOf({}, 0), "<no error>"); // every output copies row 0, column 0
  EXPECT_NE(errorOf({}, 1).find("row record 0 reads outside the 2 source rows"), std::string::npos);
  std::vector<uint8_t> heavy(16, 0);
  heavy[8] = 0x01; // weight1 = 1025 (0x401) > 1024
  heavy[9] = 0x04;
  EXPECT_NE(errorOf(heavy, 0).find("row record 0 has weight 1025 outside [0, 1024]"),
            std::string::npos);
}

TEST(SystolicSimulator, DmaThreeLevelPatternsNegativeStridesCopyAndFill) {
  ProgramBuilder b;
  std::vector<uint8_t> src(64);
  for (size_t i = 0; i < src.size(); ++i) {
    src[i] = static_cast<uint8_t>(i);
  }
  const int64_t base = b.segment(src);
  // Load: partitions 2 (stride 32), outer 3 rows (stride -8, from byte 16), inner 4 elements of
  // 2 bytes with step 2; SBUF rows 10 bytes apart.
  DmaLoad l;
  l.elemBytes = 2;
  l.partitionStart = 1;
  l.partitionCount = 2;
  l.outerCount = 3;
  l.innerCount = 4;
  l.dram = {base + 16, 32, -8, 2};
  l.sbufAddr = 4;
  l.sbufOuterStride = 10;
  b.add(l);
  // Store it back reversed along the inner axis into `stored` (2 x 3 x 8 bytes).
  const int32_t stored = b.tensor("stored", DType::U8, {2, 3, 8});
  DmaStore s;
  s.elemBytes = 2;
  s.partitionStart = 1;
  s.partitionCount = 2;
  s.outerCount = 3;
  s.innerCount = 4;
  s.dram = {b.tensorAt(stored).addr + 6, 24, 8, -2};
  s.sbufAddr = 4;
  s.sbufOuterStride = 10;
  b.add(s);
  // Copy every other byte of the source backwards, then zero-fill a strip.
  const int32_t copied = b.tensor("copied", DType::U8, {32});
  DmaCopy c;
  c.elemBytes = 1;
  c.outerCount = 2;
  c.innerCount = 16;
  c.src = {base + 62, 0, -32, -2};
  c.dst = {b.tensorAt(copied).addr, 0, 16, 1};
  b.add(c);
  DmaCopy f;
  f.fillZero = true;
  f.elemBytes = 1;
  f.partitionCount = 2;
  f.innerCount = 3;
  f.dst = {b.tensorAt(copied).addr + 4, 10, 0, 1};
  b.add(f);
  Program p = b.finish();
  Simulator sim(p, {});
  sim.run();
  const Tensor st = sim.readTensor(stored);
  for (int64_t q = 0; q < 2; ++q) {
    for (int64_t o = 0; o < 3; ++o) {
      for (int64_t i = 0; i < 4; ++i) {
        for (int64_t byte = 0; byte < 2; ++byte) {
          const int64_t from = 16 + q * 32 - o * 8 + i * 2 + byte;
          const int64_t to = q * 24 + o * 8 + 6 - i * 2 + byte;
          EXPECT_EQ(st.data<uint8_t>()[to], src[static_cast<size_t>(from)]);
        }
      }
    }
  }
  const Tensor cp = sim.readTensor(copied);
  for (int64_t k = 0; k < 32; ++k) {
    const int64_t o = k / 16, i = k % 16;
    const bool filled = (k >= 4 && k < 7) || (k >= 14 && k < 17);
    EXPECT_EQ(cp.data<uint8_t>()[k], filled ? 0 : src[static_cast<size_t>(62 - 32 * o - 2 * i)])
        << k;
  }
}

TEST(SystolicSimulator, WaitNoEarlierInstructionSatisfiesIsAnError) {
  ProgramBuilder b;
  Sync wait;
  wait.waits[0] = {3, 1};
  b.add(Barrier{});
  b.add(Barrier{}, wait);
  Sync signal;
  signal.signal = 3;
  b.add(Barrier{}, signal); // a later signal does not count
  Simulator sim(b.finish(), {});
  for (bool functional : {true, false}) {
    SimOptions o;
    o.functional = functional;
    try {
      sim.run(o);
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Model);
      EXPECT_NE(std::string(e.what()).find("instruction 1 (BARRIER)"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("semaphore 3"), std::string::npos) << e.what();
    }
  }
}

TEST(SystolicSimulator, OutOfBoundsAccessesAreErrors) {
  auto expectError = [](Op op, const std::string& what) {
    ProgramBuilder b;
    b.segment(std::vector<uint8_t>(32));
    b.add(std::move(op));
    Simulator sim(b.finish(), {});
    try {
      sim.run();
      FAIL() << "expected an error for " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Model);
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  Matmul m;
  m.src = 1020;
  m.srcInnerCount = m.dstInnerCount = 8;
  expectError(m, "instruction 0 (MATMUL): src accesses");
  Matmul d;
  d.dst = 60;
  d.dstInnerStep = d.srcInnerStep = 1;
  d.srcInnerCount = d.dstInnerCount = 8;
  expectError(d, "dst accesses");
  DmaLoad l;
  l.innerCount = 40;
  l.dram = {0, 0, 0, 1};
  expectError(l, "instruction 0 (DMA_LOAD): dram accesses");
  DmaLoad neg;
  neg.innerCount = 2;
  neg.dram = {0, 0, 0, -1};
  expectError(neg, "dram accesses [-1");
  LoadWeights w;
  w.rows = 5;
  expectError(w, "PE rows");
  Activate a;
  a.cols = 2;
  a.colStart = 3;
  expectError(a, "instruction 0 (ACTIVATE): cols");
  Matmul counts;
  counts.dstInnerCount = 2;
  expectError(counts, "differ from source counts");
}

TEST(SystolicSimulator, F32MatmulAndActivationMatchDirectComputation) {
  for (bool exact : {false, true}) {
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    ProgramBuilder b(DType::F32);
    std::vector<float> x(4 * 8), w(4 * 4);
    for (float& v : x) {
      v = u(rng);
    }
    for (float& v : w) {
      v = u(rng);
    }
    b.loadRows(b.segmentOf(x), 4, 8, 0);
    b.loadRows(b.segmentOf(w), 4, 4, 512);
    const std::vector<float> bias{0.25f, -0.5f, 0.0f, 1.0f};
    std::vector<float> records;
    for (float bv : bias) {
      records.insert(records.end(), {bv, 0.0f, 0.0f, 0.0f});
    }
    DmaLoad t;
    t.space = OnChip::ActTable;
    t.elemBytes = 4;
    t.partitionCount = 4;
    t.innerCount = 4;
    t.dram = {b.segmentOf(records), 16, 0, 4};
    b.add(t);
    LoadWeights lw;
    lw.addr = 512;
    lw.rows = 4;
    lw.cols = 4;
    lw.colStride = 4;
    b.add(lw);
    Matmul m;
    m.rows = 3; // the fourth row streams zeros
    m.cols = 4;
    m.srcInnerStep = 4;
    m.srcInnerCount = m.dstInnerCount = 8;
    m.accumulate = false;
    b.add(m);
    m.accumulate = true;
    b.add(m);
    Activate a;
    a.rowLen = 8;
    a.cols = 4;
    a.elemBytes = 4;
    a.dst = 768;
    a.func = ActFunc::LeakyRelu;
    a.alpha = 0.125f;
    b.add(a);
    const int32_t out = b.tensor("out", DType::F32, {4, 8});
    DmaStore s;
    s.elemBytes = 4;
    s.partitionCount = 4;
    s.innerCount = 8;
    s.dram = {b.tensorAt(out).addr, 32, 0, 4};
    s.sbufAddr = 768;
    b.add(s);
    SimOptions o;
    o.exact = exact;
    const Tensor got = runAndRead(b.finish(), out, o);
    for (int64_t col = 0; col < 4; ++col) {
      for (int64_t e = 0; e < 8; ++e) {
        float sum = 0.0f;
        for (int64_t p = 0; p < 4; ++p) {
          const float xv = p < 3 ? x[static_cast<size_t>(p * 8 + e)] : 0.0f;
          sum = sum + xv * w[static_cast<size_t>(p * 4 + col)];
        }
        const float entry = (0.0f + sum) + sum;
        const float v = entry + bias[static_cast<size_t>(col)];
        const float want = v < 0.0f ? 0.125f * v : v;
        EXPECT_EQ(got.data<float>()[col * 8 + e], want) << col << " " << e;
      }
    }
  }
}

TEST(SystolicSimulator, SetInputQuantizesAndChecksShape) {
  ProgramBuilder b;
  const int32_t in = b.tensor("x", DType::I8, {1, 4}, DramTensor::Role::Input, 0.5f);
  Simulator sim(b.finish(), {});
  sim.setInput(0, Tensor::fromVector<float>({1, 4}, {1.0f, -0.74f, 100.0f, 0.25f}));
  const Tensor t = sim.readTensor(in);
  EXPECT_EQ(std::vector<int8_t>(t.data<int8_t>(), t.data<int8_t>() + 4),
            (std::vector<int8_t>{2, -1, 127, 1}));
  EXPECT_THROW(sim.setInput(0, Tensor(DType::F32, {4})), Error);
  EXPECT_THROW(sim.setInput(1, Tensor(DType::F32, {1, 4})), Error);
  EXPECT_THROW(sim.readTensor(5), Error);
}

TEST(SystolicSimulator, ExactModeRefusesHugePrograms) {
  ProgramBuilder b;
  Matmul m;
  m.srcInnerCount = m.dstInnerCount = 1'000'000;
  m.srcOuterCount = m.dstOuterCount = 1'000;
  b.add(m);
  Simulator sim(b.finish(), {});
  SimOptions o;
  o.exact = true;
  try {
    sim.run(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("2000000000"), std::string::npos) << e.what();
  }
}

TEST(SystolicSimulator, OnLayerDoneIsCalledInOrder) {
  ProgramBuilder b;
  b.layer("a");
  b.add(Barrier{});
  b.layer("view", LayerUnit::View);
  b.layer("c");
  b.add(Barrier{});
  Simulator sim(b.finish(), {});
  std::vector<size_t> seen;
  SimOptions o;
  o.onLayerDone = [&](size_t l) { seen.push_back(l); };
  sim.run(o);
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2}));
  ASSERT_EQ(sim.layerStats().size(), 3u);
  EXPECT_EQ(sim.layerStats()[1].unit, "view");
}

} // namespace
} // namespace nnaccel::arch::systolic
