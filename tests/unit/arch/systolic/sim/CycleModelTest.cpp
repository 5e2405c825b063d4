/// \file
/// Cycle-model tests of the systolic simulator: hand-computed timings (DMA latency and
/// bandwidth, shadow versus no-shadow weight loads, back-to-back MATMULs, semaphore stalls,
/// activation/pool/reset durations, barriers), per-layer attribution, traffic, and the exact
/// mode against the fast model on random PE-array programs (outputs and every layer's cycles).
#include "SimTestBuilder.h"
#include "nnaccel/arch/systolic/Simulator.h"

#include <gtest/gtest.h>
#include <map>
#include <random>

namespace nnaccel::arch::systolic {
namespace {

using testing::ProgramBuilder;

struct SimRun {
  std::vector<report::LayerStats> layers;
  int64_t total = 0;
};

SimRun timingOf(const Program& p, bool exact = false, bool functional = false) {
  Simulator sim(p, {});
  SimOptions o;
  o.functional = functional;
  o.exact = exact;
  sim.run(o);
  return {sim.layerStats(), sim.totalCycles()};
}

std::vector<int64_t> cycles(const SimRun& r) {
  std::vector<int64_t> c;
  int64_t sum = 0;
  for (const report::LayerStats& l : r.layers) {
    c.push_back(l.cycles);
    sum += l.cycles;
  }
  EXPECT_EQ(sum, r.total) << "per-layer cycles must sum to the total";
  return c;
}

int64_t breakdown(const report::LayerStats& s, const std::string& key) {
  for (const auto& [k, v] : s.breakdown) {
    if (k == key) {
      return v;
    }
  }
  return 0;
}

Matmul matmul(int64_t vectors, int64_t cols, int64_t rows = 4) {
  Matmul m;
  m.rows = rows;
  m.cols = cols;
  m.srcInnerCount = m.dstInnerCount = vectors;
  return m;
}

LoadWeights weights(int64_t rows = 4, int64_t cols = 4) {
  LoadWeights w;
  w.rows = rows;
  w.cols = cols;
  return w;
}

TEST(SystolicCycleModel, DmaLatencyAndBandwidth) {
  ProgramBuilder b;
  const int64_t src = b.segment(std::vector<uint8_t>(64));
  b.layer("first");
  b.loadRows(src, 4, 16, 0); // 64 bytes: 4 cycles at 16 B/cycle
  b.layer("second");
  b.loadRows(src, 4, 16, 64);
  b.layer("odd");
  b.loadRows(src, 1, 17, 128); // 17 bytes: 2 cycles
  for (bool exact : {false, true}) {
    const SimRun r = timingOf(b.finish(), exact);
    // first: 0 + 100 + 4; second starts at 4 (pipelined behind the first's latency), done 108;
    // odd starts at 8, done 110.
    EXPECT_EQ(cycles(r), (std::vector<int64_t>{104, 4, 2}));
    EXPECT_EQ(r.total, 110);
    EXPECT_EQ(breakdown(r.layers[0], "dma.busy"), 4);
    EXPECT_EQ(r.layers[0].dram.readBytes, 64);
    EXPECT_EQ(r.layers[0].sbuf.writeBytes, 64);
    EXPECT_EQ(r.layers[2].instructions, 1);
  }
}

int64_t countOf(const report::LayerStats& s, const std::string& key) {
  for (const auto& [k, v] : s.counts)
    if (k == key)
      return v;
  return -1;
}

// The row-buffer model (docs/Technology.md "DRAM"): a DMA's DRAM side opens the rows its address
// pattern sweeps; the transfer takes the bus time or the banks' row cycles, whichever is longer,
// and each activation is charged. HBM2, one channel at 1 GHz: 32 B/cycle, tRC 48 cycles over
// 16 banks = 3 cycles per activation.
TEST(SystolicCycleModel, RowBufferModelCountsTheRowsADmaOpens) {
  SystolicConfig c = testing::smallConfig();
  c.clockMhz = 1000;
  c.dram = {"hbm2", 1, true};
  c.dramBytesPerCycle.reset();
  c.energy.dramReadPjPerByte.reset();
  c.energy.dramWritePjPerByte.reset();
  c.energy.dramActivatePj.reset();
  ProgramBuilder b(DType::I8, c);
  const int64_t src = b.segment(std::vector<uint8_t>(4 * 4096));
  b.layer("contiguous");
  b.loadRows(src, 4, 16, 0); // 64 contiguous bytes: one row, the bus's 2 cycles < 3
  b.layer("strided");
  DmaLoad far;
  far.partitionCount = 4;
  far.innerCount = 16;
  far.sbufAddr = 64;
  far.dram = {src, 4096, 0, 1}; // four 16-byte pieces 4 KiB apart: four rows
  b.add(far);
  const SimRun r = timingOf(b.finish());
  EXPECT_EQ(breakdown(r.layers[0], "dram.busy"), 3);
  EXPECT_EQ(breakdown(r.layers[1], "dram.busy"), 12);
  EXPECT_EQ(countOf(r.layers[0], "dram_row_activations"), 1);
  EXPECT_EQ(countOf(r.layers[1], "dram_row_activations"), 4);
  EXPECT_EQ(countOf(r.layers[1], "dram_row_hits"), 0);
  const tech::DramStandard& hbm2 = tech::dramStandard("hbm2");
  const double readPj = 8 * hbm2.readTotalPjPerBit();
  EXPECT_NEAR(r.layers[0].energy.dram, 64 * readPj + hbm2.activatePj, 1e-6);
  EXPECT_NEAR(r.layers[1].energy.dram, 64 * readPj + 4 * hbm2.activatePj, 1e-6);
}

// A store into the SBUF resident region and the load back are on-chip moves: the on-chip DMA's
// rate and latency, SBUF traffic on both sides, no DRAM bytes; the data comes back intact.
TEST(SystolicCycleModel, ResidentRegionMovesStayOnChip) {
  SystolicConfig c = testing::smallConfig();
  c.sbufResidentBytesPerPartition = 256; // 4 x 256 = 1 KiB region, 768-byte working area
  c.sbufDmaBytesPerCycle = 32;
  c.sbufDmaLatencyCycles = 5;
  ProgramBuilder b(DType::I8, c);
  std::vector<uint8_t> bytes(64);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(3 * i + 1);
  const int64_t src = b.segment(bytes);
  auto after = [](int64_t count) {
    Sync s;
    s.waits[0] = SemWait{0, count};
    s.signal = 0;
    return s;
  };
  b.layer("load");
  b.loadRows(src, 4, 16, 0, after(0)); // DRAM: 4 cycles at 16 B/cycle + 100
  b.layer("park");
  DmaStore st;
  st.partitionCount = 4;
  st.innerCount = 16;
  st.dram = {kResidentBase + 100, 16, 0, 1};
  b.add(st, after(1));
  b.layer("fetch");
  b.loadRows(kResidentBase + 100, 4, 16, 64, after(2));
  const int32_t out = b.tensor("out", DType::I8, {4, 16}, DramTensor::Role::Output);
  b.layer("out");
  DmaStore home;
  home.partitionCount = 4;
  home.innerCount = 16;
  home.sbufAddr = 64;
  home.dram = {b.tensorAt(out).addr, 16, 0, 1};
  b.add(home, after(3));
  for (bool exact : {false, true}) {
    Simulator sim(b.finish(), {});
    SimOptions o;
    o.functional = true;
    o.exact = exact;
    sim.run(o);
    const Tensor back = sim.readTensor(out);
    const auto* raw = reinterpret_cast<const uint8_t*>(back.rawData());
    EXPECT_EQ(std::vector<uint8_t>(raw, raw + back.sizeBytes()), bytes);
    const auto& layers = sim.layerStats();
    EXPECT_EQ(layers[0].dram.readBytes, 64);
    for (size_t l : {1, 2}) {
      EXPECT_EQ(layers[l].dram.readBytes + layers[l].dram.writeBytes, 0) << l;
      EXPECT_EQ(layers[l].sbuf.readBytes, 64) << l;
      EXPECT_EQ(layers[l].sbuf.writeBytes, 64) << l;
      EXPECT_EQ(breakdown(layers[l], "dma.busy"), 2) << l; // 64 B at 32 B/cycle
    }
    // load done at 104; the store starts there and is done at 104 + 5 + 2, the fetch 5 + 2
    // later; the DRAM store home takes 100 + 4.
    EXPECT_EQ(sim.totalCycles(), 104 + 7 + 7 + 104);
  }
}

/// LW, MATMUL(10 vectors), LW, MATMUL(10 vectors) on a 4 x 4 array with 4-cycle loads.
Program twoWeightSets(bool shadow) {
  SystolicConfig c = testing::smallConfig();
  c.shadowWeights = shadow;
  ProgramBuilder b(DType::I8, c);
  for (const char* name : {"w1", "m1", "w2", "m2"}) {
    b.layer(name);
    if (name[0] == 'w') {
      b.add(weights());
    } else {
      b.add(matmul(10, 4));
    }
  }
  return b.finish();
}

TEST(SystolicCycleModel, ShadowWeightsOverlapTheLoadWithTheStream) {
  for (bool exact : {false, true}) {
    // LW1 0..4; MM1 t0 = 4, done 4 + 10 + 4 + 4 - 1 = 21, its swap leaves the array in cycle
    // 4 + 4 + 4 - 2 = 10; LW2 11..15; MM2 t0 = max(14, 15) = 15, done 32.
    const SimRun r = timingOf(twoWeightSets(true), exact);
    EXPECT_EQ(cycles(r), (std::vector<int64_t>{4, 17, 0, 11}));
    EXPECT_EQ(breakdown(r.layers[3], "pe.wait_weights"), 1);
    EXPECT_EQ(breakdown(r.layers[3], "pe.stream"), 10);
    EXPECT_EQ(r.layers[3].busyCycles, 10);
    EXPECT_EQ(r.layers[3].stallCycles, 1);
  }
}

TEST(SystolicCycleModel, WithoutShadowTheLoadWaitsForTheDrain) {
  for (bool exact : {false, true}) {
    // LW2 waits for MM1's done (21): 21..25; MM2 25..42.
    const SimRun r = timingOf(twoWeightSets(false), exact);
    EXPECT_EQ(cycles(r), (std::vector<int64_t>{4, 17, 4, 17}));
    EXPECT_EQ(r.total, 42);
    EXPECT_EQ(breakdown(r.layers[3], "pe.wait_weights"), 11);
  }
}

TEST(SystolicCycleModel, BackToBackMatmulsPipeline) {
  ProgramBuilder b;
  b.layer("w");
  b.add(weights());
  b.layer("a");
  b.add(matmul(8, 2)); // t0 4, done 4 + 8 + 4 + 2 - 1 = 17
  b.layer("b");
  b.add(matmul(8, 4)); // t0 12, done 12 + 8 + 4 + 4 - 1 = 27
  for (bool exact : {false, true}) {
    const SimRun r = timingOf(b.finish(), exact);
    EXPECT_EQ(cycles(r), (std::vector<int64_t>{4, 13, 10}));
    EXPECT_EQ(breakdown(r.layers[2], "pe.wait_weights") + breakdown(r.layers[2], "pe.wait_sync"),
              0);
  }
}

TEST(SystolicCycleModel, SemaphoreStallsTheArray) {
  ProgramBuilder b;
  const int64_t src = b.segment(std::vector<uint8_t>(64));
  b.layer("conv");
  Sync signal;
  signal.signal = 0;
  b.loadRows(src, 4, 16, 0, signal); // done 104
  b.add(weights());                  // 0..4
  Sync wait;
  wait.waits[0] = {0, 1};
  b.add(matmul(6, 3), wait); // t0 104, done 104 + 6 + 4 + 3 - 1 = 116
  PsumReset reset;
  reset.entries = 10; // ceil(10 / 4) = 3 cycles, after the stream: 110..113
  reset.cols = 4;
  b.add(reset);
  for (bool exact : {false, true}) {
    const SimRun r = timingOf(b.finish(), exact);
    EXPECT_EQ(r.total, 116);
    EXPECT_EQ(breakdown(r.layers[0], "pe.wait_sync"), 104);
    EXPECT_EQ(breakdown(r.layers[0], "pe.reset"), 3);
    EXPECT_EQ(r.layers[0].busyCycles, 6);
    EXPECT_EQ(r.layers[0].stallCycles, 110);
    EXPECT_EQ(r.layers[0].issuedMacs, 6 * 4 * 3);
    EXPECT_EQ(r.layers[0].streamedElements, 6);
  }
}

TEST(SystolicCycleModel, ActivatePoolBarrierAndAttribution) {
  ProgramBuilder b;
  b.add(Barrier{}); // before the first layer: attributed to it
  b.layer("act", LayerUnit::PeArray);
  Activate a;
  a.rows = 2;
  a.rowLen = 3;
  a.cols = 4;
  b.add(a); // 0..6, done 8
  b.layer("pool", LayerUnit::Pool);
  Pool p;
  p.partitions = 3; // 2 lane groups
  p.outRows = 2;
  p.outW = 2;
  p.kernelH = p.kernelW = 2;
  p.inH = p.inW = 4;
  p.srcRows = 4;
  p.srcRowStride = 4;
  p.strideH = p.strideW = 2;
  p.dst = 64;
  p.dstRowStride = 2;
  b.add(p);         // 2 * 2 * 2 * 4 = 32 cycles, done 35
  b.add(Barrier{}); // at 35
  b.add(a);         // after the barrier: 35..41, done 43
  const SimRun r = timingOf(b.finish());
  EXPECT_EQ(cycles(r), (std::vector<int64_t>{8, 35}));
  EXPECT_EQ(r.layers[0].instructions, 2);
  EXPECT_EQ(breakdown(r.layers[0], "act.busy"), 6);
  EXPECT_EQ(breakdown(r.layers[1], "pool.busy"), 32);
  EXPECT_EQ(r.layers[1].busyCycles, 32 + 6);
  // Pool traffic: 4 windows of 4 in-plane elements per partition.
  EXPECT_EQ(r.layers[1].sbuf.readBytes, 3 * 16);
  EXPECT_EQ(r.layers[0].psum.readBytes, 2 * 3 * 4 * 4);
  EXPECT_EQ(r.layers[0].sbuf.writeBytes, 2 * 3 * 4);
}

TEST(SystolicCycleModel, TrafficAndEnergyOfAMatmulLayer) {
  ProgramBuilder b;
  b.layer("conv");
  b.add(weights(3, 4));
  Matmul m = matmul(10, 4, 3);
  m.accumulate = true;
  b.add(m);
  const Program p = b.finish();
  const SimRun r = timingOf(p);
  const report::LayerStats& s = r.layers[0];
  EXPECT_EQ(s.sbuf.readBytes, 12 + 30);
  EXPECT_EQ(s.psum.writeBytes, 10 * 4 * 4);
  EXPECT_EQ(s.psum.readBytes, 10 * 4 * 4);
  const EnergyPrices e = energyPrices(p.config); // the technology's prices ("auto")
  const double expected = 120 * e.macInt8Pj + 42 * e.sbufReadPjPerByte + 40 * e.psumReadPjPerEntry +
                          40 * e.psumWritePjPerEntry + 12 * e.weightLoadPjPerByte;
  EXPECT_NEAR(s.energyPj, expected, 1e-9);
}

/// Random PE-array programs: weight loads, MATMULs (random 2-D patterns, overwrite or
/// accumulate), PSUM resets, DMA loads the array waits for, intermediate drains; random array
/// shapes, load times, shadow on/off, zero mode and dtype. The exact grid must reproduce the
/// fast model's outputs bit for bit and every layer's cycles.
TEST(SystolicCycleModel, ExactModeMatchesFastModelOnRandomPrograms) {
  std::mt19937 rng(2024);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    SystolicConfig c = testing::smallConfig();
    c.peRows = pick(1, 5);
    c.peCols = pick(1, 5);
    c.weightLoadCycles = pick(0, 7);
    c.shadowWeights = pick(0, 1) == 1;
    c.psumResetEntriesPerCycle = pick(1, 3);
    c.psumEntriesPerColumn = 32;
    c.psumZeroMode = pick(0, 1) == 1 ? PsumZeroMode::WrittenFlags : PsumZeroMode::Reset;
    c.dramLatencyCycles = pick(0, 30);
    const DType dtype = pick(0, 1) == 1 ? DType::F32 : DType::I8;
    ProgramBuilder b(dtype, c);
    const int64_t eb = b.elemBytes();
    // 96 elements per partition: inputs at [0, 64), weights at [64, 96).
    std::vector<uint8_t> bytes(static_cast<size_t>(c.peRows * 96 * eb));
    if (dtype == DType::F32) {
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      for (size_t i = 0; i < bytes.size(); i += 4) {
        const float v = u(rng);
        std::memcpy(bytes.data() + i, &v, 4);
      }
    } else {
      for (uint8_t& v : bytes) {
        v = static_cast<uint8_t>(pick(-2, 2));
      }
    }
    const int64_t data = b.segment(bytes);
    std::vector<std::array<int32_t, 4>> identity(static_cast<size_t>(c.peCols),
                                                 {0, int32_t{1} << 30, -1, 0});
    if (dtype == DType::F32) {
      for (auto& r : identity) {
        r = {0, 0, 0, 0}; // bias 0.0f
      }
    }
    b.layer("setup");
    b.loadActTable(identity);
    Sync loaded;
    loaded.signal = 0;
    b.loadRows(data, c.peRows, 96, 0, loaded);
    int64_t dmaSignals = 1, matmulSignals = 0;
    const int64_t ops = pick(4, 14);
    for (int64_t op = 0; op < ops; ++op) {
      if (op == ops / 3 || op == 2 * ops / 3) {
        b.layer("layer" + std::to_string(op));
      }
      Sync sync;
      if (pick(0, 3) == 0) {
        sync.waits[0] = {0, pick(1, dmaSignals)};
      }
      const int64_t kind = pick(0, 9);
      if (kind <= 2) {
        LoadWeights w;
        w.rows = pick(1, c.peRows);
        w.cols = pick(1, c.peCols);
        w.colStride = pick(1, 3) * eb;
        w.addr = (64 + pick(0, 16)) * eb;
        b.add(w, sync);
      } else if (kind <= 6) {
        Matmul m;
        m.rows = pick(1, c.peRows);
        m.cols = pick(1, c.peCols);
        m.srcInnerCount = m.dstInnerCount = pick(1, 5);
        m.srcOuterCount = m.dstOuterCount = pick(1, 3);
        m.srcInnerStep = pick(-1, 3) * eb;
        m.srcOuterStride = pick(0, 10) * eb;
        m.src = (20 + pick(0, 10)) * eb;
        m.dstInnerStep = pick(0, 2);
        m.dstOuterStride = pick(0, 8);
        m.dst = pick(0, 6);
        m.accumulate = pick(0, 2) != 0;
        sync.signal = 1;
        ++matmulSignals;
        b.add(m, sync);
      } else if (kind == 7) {
        PsumReset r;
        r.addr = pick(0, 20);
        r.entries = pick(1, 12);
        r.cols = pick(1, c.peCols);
        b.add(r, sync);
      } else if (kind == 8) {
        sync.signal = 0;
        b.loadRows(data, c.peRows, 8, 0, sync); // rewrites the first inputs with the same data
        ++dmaSignals;
      } else if (matmulSignals > 0) {
        Activate a;
        a.rowLen = 4;
        a.cols = std::min(c.peCols, c.peRows);
        a.elemBytes = eb;
        a.dst = 200 * eb;
        Sync w;
        w.waits[0] = {1, matmulSignals};
        b.add(a, w);
      }
    }
    b.layer("drain");
    const int32_t out = b.tensor("out", dtype, {c.peCols, 32});
    // Drain every column through at most peRows partitions at a time.
    for (int64_t col = 0; col < c.peCols; col += c.peRows) {
      const int64_t n = std::min(c.peRows, c.peCols - col);
      Activate a;
      a.rowLen = 32;
      a.colStart = col;
      a.cols = n;
      a.elemBytes = eb;
      a.dst = 100 * eb;
      Sync w;
      w.waits[0] = {1, matmulSignals};
      b.add(a, w);
      DmaStore s;
      s.elemBytes = eb;
      s.partitionCount = n;
      s.innerCount = 32;
      s.dram = {b.tensorAt(out).addr + col * 32 * eb, 32 * eb, 0, eb};
      s.sbufAddr = 100 * eb;
      b.add(s);
    }
    const Program p = b.finish();
    Simulator fast(p, {}), exact(p, {});
    fast.run();
    SimOptions o;
    o.exact = true;
    exact.run(o);
    ASSERT_EQ(fast.readTensor(out), exact.readTensor(out)) << "trial " << trial;
    ASSERT_EQ(fast.totalCycles(), exact.totalCycles()) << "trial " << trial;
    ASSERT_EQ(fast.layerStats().size(), exact.layerStats().size());
    for (size_t l = 0; l < fast.layerStats().size(); ++l) {
      const report::LayerStats& f = fast.layerStats()[l];
      const report::LayerStats& x = exact.layerStats()[l];
      EXPECT_EQ(f.cycles, x.cycles) << "trial " << trial << " layer " << l;
      EXPECT_EQ(f.breakdown, x.breakdown) << "trial " << trial << " layer " << l;
    }
    // The timing-only run gives the same cycles.
    EXPECT_EQ(timingOf(p).total, fast.totalCycles());
    EXPECT_EQ(timingOf(p, true).total, fast.totalCycles());
    ++compared;
  }
  EXPECT_EQ(compared, 60);
}

} // namespace
} // namespace nnaccel::arch::systolic
