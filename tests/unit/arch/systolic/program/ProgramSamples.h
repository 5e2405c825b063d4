/// \file
/// Sample systolic programs shared by the codec, validator and disassembler tests: a small
/// hand-built program that uses nearly every opcode (readable, stable: the disassembler test checks
/// its listing line by line), and a seeded generator of random *valid* programs whose fields take
/// widely varying values (negative strides, multi-byte varints, every enum value), for the
/// round-trip and corruption tests.
#pragma once
#include "nnaccel/arch/systolic/Program.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace nnaccel::arch::systolic::samples {

/// A 1x4x6x6 s8 convolution (two of its weight positions), an average pool, a view and a host
/// softmax on the "small" preset; 15 instructions, every opcode but VECTOR at least once (the
/// random programs and tests/unit/arch/systolic/sim/VectorUnitTest.cpp cover VECTOR).
inline Program smallProgram() {
  Program p;
  p.config = systolicPreset("small");
  p.config.sbufResidentBytesPerPartition = 0; // the whole SBUF is working area (16 KiB)
  p.dtype = DType::I8;
  p.model = "tiny";
  p.dramBytes = 0x600;
  auto tensor = [](std::string name, int32_t value, DType t, Dims shape, int64_t addr, float scale,
                   DramTensor::Role role) {
    DramTensor d;
    d.name = std::move(name);
    d.value = value;
    d.dtype = t;
    d.shape = std::move(shape);
    d.addr = addr;
    d.scale = scale;
    d.role = role;
    return d;
  };
  using Role = DramTensor::Role;
  p.tensors = {
      tensor("input", 0, DType::I8, {1, 4, 6, 6}, 0x0, 0.5f, Role::Input),
      tensor("conv1.w", 1, DType::I8, {8, 4, 3, 3}, 0x100, 0.25f, Role::Weight),
      tensor("conv1.out", 3, DType::I8, {1, 8, 4, 4}, 0x240, 0.125f, Role::Activation),
      tensor("pool1.out", 4, DType::I8, {1, 8, 2, 2}, 0x500, 0.125f, Role::Activation),
      tensor("conv1.act", -1, DType::I32, {8, 4}, 0x300, 0.0f, Role::Param),
      tensor("prob", 6, DType::F32, {1, 8}, 0x5A0, 0.0f, Role::Output),
  };
  p.segments = {{0x100, std::vector<uint8_t>(288, 1)},
                {0x300, std::vector<uint8_t>(128, 2)},
                {0x580, std::vector<uint8_t>(16, 3)}};
  auto layer = [](std::string name, std::string op, std::string shape, int32_t node, LayerUnit unit,
                  std::vector<int32_t> in, std::vector<int32_t> out, std::vector<int32_t> values,
                  int64_t first, int64_t end, int64_t macs) {
    Layer l;
    l.name = std::move(name);
    l.op = std::move(op);
    l.shape = std::move(shape);
    l.node = node;
    l.unit = unit;
    l.inputTensors = std::move(in);
    l.outputTensors = std::move(out);
    l.outputValues = std::move(values);
    l.firstInstr = first;
    l.endInstr = end;
    l.usefulMacs = macs;
    return l;
  };
  p.layers = {
      layer("conv1", "Conv", "1x4x6x6 -> 1x8x4x4 k3x3 s1 d1 g1", 0, LayerUnit::PeArray, {0, 1, -1},
            {2}, {3}, 0, 9, 4608),
      layer("pool1", "AveragePool", "1x8x4x4 -> 1x8x2x2 k2x2 s2", 1, LayerUnit::Pool, {2}, {3}, {4},
            9, 12, 0),
      layer("flat", "Flatten", "1x8x2x2 -> 1x32", 2, LayerUnit::View, {3}, {3}, {5}, 12, 12, 0),
      layer("softmax", "Softmax", "1x32 -> 1x32", 3, LayerUnit::Host, {3}, {5}, {6}, 12, 14, 0),
  };
  p.layers[3].note = "Softmax runs on the host";

  auto sync = [](std::initializer_list<std::pair<int32_t, int64_t>> waits, int32_t signal) {
    Sync s;
    size_t i = 0;
    for (const auto& [sem, count] : waits) {
      s.waits[i++] = SemWait{sem, count};
    }
    s.signal = signal;
    return s;
  };
  // 0-2: input, weights (W[m][c][r][s] -> partition c, (r*3+s)*8 + m) and activation records.
  p.instructions.push_back({DmaLoad{.space = OnChip::Sbuf,
                                    .elemBytes = 1,
                                    .partitionStart = 0,
                                    .partitionCount = 4,
                                    .outerCount = 6,
                                    .innerCount = 6,
                                    .dram = {0x0, 36, 6, 1},
                                    .sbufAddr = 0x0,
                                    .sbufOuterStride = 6},
                            sync({}, 0)});
  p.instructions.push_back({DmaLoad{.space = OnChip::Sbuf,
                                    .elemBytes = 1,
                                    .partitionStart = 0,
                                    .partitionCount = 4,
                                    .outerCount = 9,
                                    .innerCount = 8,
                                    .dram = {0x100, 9, 1, 36},
                                    .sbufAddr = 0x100,
                                    .sbufOuterStride = 8},
                            sync({}, 1)});
  p.instructions.push_back({DmaLoad{.space = OnChip::ActTable,
                                    .elemBytes = 1,
                                    .partitionStart = 0,
                                    .partitionCount = 8,
                                    .outerCount = 1,
                                    .innerCount = 16,
                                    .dram = {0x300, 16, 0, 1},
                                    .sbufAddr = 0,
                                    .sbufOuterStride = 0},
                            sync({}, 2)});
  // 3-8: reset the 4x4 tile, two weight positions, drain through the activation engine.
  p.instructions.push_back({PsumReset{.addr = 0, .entries = 16, .cols = 8}, {}});
  p.instructions.push_back(
      {LoadWeights{.addr = 0x100, .rows = 4, .cols = 8, .colStride = 1}, sync({{1, 1}}, -1)});
  p.instructions.push_back({Matmul{.rows = 4,
                                   .cols = 8,
                                   .src = 0x0,
                                   .srcInnerStep = 1,
                                   .srcInnerCount = 4,
                                   .srcOuterStride = 6,
                                   .srcOuterCount = 4,
                                   .dst = 0,
                                   .dstInnerStep = 1,
                                   .dstInnerCount = 4,
                                   .dstOuterStride = 4,
                                   .dstOuterCount = 4,
                                   .accumulate = true},
                            sync({{0, 1}}, -1)});
  p.instructions.push_back({LoadWeights{.addr = 0x120, .rows = 4, .cols = 8, .colStride = 1}, {}});
  p.instructions.push_back({Matmul{.rows = 4,
                                   .cols = 8,
                                   .src = 0x7,
                                   .srcInnerStep = 1,
                                   .srcInnerCount = 4,
                                   .srcOuterStride = 6,
                                   .srcOuterCount = 4,
                                   .dst = 0,
                                   .dstInnerStep = 1,
                                   .dstInnerCount = 4,
                                   .dstOuterStride = 4,
                                   .dstOuterCount = 4,
                                   .accumulate = true},
                            {}});
  p.instructions.push_back({Activate{.psum = 0,
                                     .psumRowStride = 4,
                                     .rows = 4,
                                     .rowLen = 4,
                                     .colStart = 0,
                                     .cols = 8,
                                     .dstPartition = 4,
                                     .dst = 0x200,
                                     .dstRowStride = 4,
                                     .elemBytes = 1,
                                     .tableSlot = 0,
                                     .func = ActFunc::Identity,
                                     .clampLo = -128,
                                     .clampHi = 127},
                            sync({{2, 1}}, 3)});
  // 9-11: average pool 2x2 s2 (pool-table record 4 = count 4), store.
  p.instructions.push_back({DmaLoad{.space = OnChip::PoolTable,
                                    .elemBytes = 1,
                                    .partitionStart = 0,
                                    .partitionCount = 1,
                                    .outerCount = 1,
                                    .innerCount = 16,
                                    .dram = {0x580, 0, 0, 1},
                                    .sbufAddr = 0x40,
                                    .sbufOuterStride = 0},
                            sync({}, 4)});
  p.instructions.push_back({Pool{.kind = Pool::Kind::Average,
                                 .elemBytes = 1,
                                 .partitionStart = 4,
                                 .partitions = 8,
                                 .src = 0x200,
                                 .srcRowStride = 4,
                                 .srcRow0 = 0,
                                 .srcRows = 4,
                                 .inH = 4,
                                 .inW = 4,
                                 .dst = 0x300,
                                 .dstRowStride = 2,
                                 .outRow0 = 0,
                                 .outRows = 2,
                                 .outW = 2,
                                 .kernelH = 2,
                                 .kernelW = 2,
                                 .strideH = 2,
                                 .strideW = 2},
                            sync({{3, 1}, {4, 1}}, 5)});
  p.instructions.push_back({DmaStore{.elemBytes = 1,
                                     .partitionStart = 4,
                                     .partitionCount = 8,
                                     .outerCount = 2,
                                     .innerCount = 2,
                                     .dram = {0x500, 4, 2, 1},
                                     .sbufAddr = 0x300,
                                     .sbufOuterStride = 2},
                            sync({{5, 1}}, 6)});
  // 12-13: the host softmax; 14: an epilogue copy outside any layer.
  p.instructions.push_back({Barrier{}, {}});
  p.instructions.push_back({HostOp{.node = 3, .layer = 3}, {}});
  p.instructions.push_back({DmaCopy{.fillZero = false,
                                    .elemBytes = 4,
                                    .partitionCount = 1,
                                    .outerCount = 1,
                                    .innerCount = 8,
                                    .src = {0x5A0, 0, 0, 4},
                                    .dst = {0x5C0, 0, 0, 4}},
                            {}});
  return p;
}

/// Random valid programs: every field of every op takes many values across seeds.
class RandomProgramBuilder {
public:
  explicit RandomProgramBuilder(uint64_t seed) : rng_(seed) {}

  Program build() {
    p_.config = randomConfig();
    p_.dtype = pick({DType::I8, DType::F32});
    p_.config.dtypes =
        pick<std::vector<DType>>({{p_.dtype}, {DType::I8, DType::F32}, {DType::F32, DType::I8}});
    elemBytes_ = p_.dtype == DType::I8 ? 1 : 4;
    p_.model = randomString();
    p_.baseline = flip();
    p_.rounding = flip() ? quant::Rounding::HalfEven : quant::Rounding::HalfAway;
    p_.dramBytes = int64_t{1} << in(16, 34);
    const int64_t numTensors = in(0, 6);
    for (int64_t i = 0; i < numTensors; ++i) {
      p_.tensors.push_back(randomTensor());
    }
    const int64_t numSegments = in(0, 3);
    for (int64_t i = 0; i < numSegments; ++i) {
      DramSegment s;
      s.bytes.resize(static_cast<size_t>(in(0, 40)));
      for (uint8_t& b : s.bytes) {
        b = static_cast<uint8_t>(in(0, 255));
      }
      s.addr = place(p_.dramBytes, static_cast<int64_t>(s.bytes.size()), {});
      p_.segments.push_back(std::move(s));
    }
    const int64_t numLayers = in(1, 5);
    for (int64_t i = 0; i < numLayers; ++i) {
      p_.layers.push_back(randomLayer());
    }
    const int64_t numInstructions = in(30, 80);
    for (int64_t i = 0; i < numInstructions; ++i) {
      p_.instructions.push_back({randomOp(static_cast<size_t>(i)), randomSync()});
    }
    // Ordered, possibly empty and possibly gapped layer ranges inside the instruction list.
    std::vector<int64_t> cuts;
    for (int64_t i = 0; i < 2 * numLayers; ++i) {
      cuts.push_back(in(0, numInstructions));
    }
    std::sort(cuts.begin(), cuts.end());
    for (int64_t i = 0; i < numLayers; ++i) {
      p_.layers[i].firstInstr = cuts[2 * i];
      p_.layers[i].endInstr = cuts[2 * i + 1];
    }
    return p_;
  }

private:
  int64_t in(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool flip() { return in(0, 1) == 1; }
  template <class T> T pick(std::initializer_list<T> options) {
    return *(options.begin() + in(0, static_cast<int64_t>(options.size()) - 1));
  }
  template <class E> E anyEnum(int count) { return static_cast<E>(in(0, count - 1)); }
  float anyFloat() { return static_cast<float>(in(-1000000, 1000000)) / 1024.0f; }
  double anyDouble(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  std::string randomString() {
    std::string s(static_cast<size_t>(in(0, 12)), ' ');
    for (char& c : s) {
      c = static_cast<char>(in(0x20, 0x7E));
    }
    return s;
  }

  /// A base address such that base + sum(stride * i) + [0, unit) stays inside [0, limit).
  int64_t place(int64_t limit, int64_t unit,
                std::initializer_list<std::pair<int64_t, int64_t>> levels) {
    int64_t below = 0;
    int64_t above = unit;
    for (const auto& [stride, count] : levels) {
      (stride < 0 ? below : above) += (stride < 0 ? -stride : stride) * (count - 1);
    }
    if (below > limit - above) {
      throw std::logic_error("RandomProgramBuilder: pattern does not fit its memory");
    }
    return in(below, limit - above);
  }

  SystolicConfig randomConfig() {
    SystolicConfig c = systolicPreset("small");
    c.name = "cfg" + randomString();
    c.peRows = in(8, 32);
    c.peCols = in(8, 32);
    c.weightLoadCycles = in(0, 64);
    c.shadowWeights = flip();
    c.sbufBytesPerPartition = in(4096, 1 << 20);
    c.sbufResidentBytesPerPartition = flip() ? 0 : in(0, c.sbufBytesPerPartition / 2);
    c.sbufDmaBytesPerCycle = anyDouble(0.5, 1024);
    c.sbufDmaLatencyCycles = in(0, 100);
    c.psumEntriesPerColumn = in(256, 1 << 14);
    c.psumMaxTileRows = in(1, 16);
    c.psumMaxTileCols = in(1, 16);
    c.psumZeroMode = anyEnum<PsumZeroMode>(2);
    c.psumResetEntriesPerCycle = in(1, 64);
    c.actLatencyCycles = in(0, 20);
    c.poolLanes = in(1, 64);
    c.poolLatencyCycles = in(0, 20);
    c.dramBytesPerCycle = anyDouble(0.5, 256);
    c.dramLatencyCycles = in(0, 1000);
    c.clockMhz = anyDouble(100, 3000);
    // Some events configured, some `auto` (priced by the technology model).
    for (std::optional<double>* e :
         {&c.energy.macInt8Pj, &c.energy.macFp32Pj, &c.energy.sbufReadPjPerByte,
          &c.energy.sbufWritePjPerByte, &c.energy.psumReadPjPerEntry, &c.energy.psumWritePjPerEntry,
          &c.energy.actOpPj, &c.energy.poolOpPj, &c.energy.weightLoadPjPerByte}) {
      if (in(0, 1) == 1)
        *e = anyDouble(0, 100);
      else
        e->reset();
    }
    c.energy.dramReadPjPerByte = anyDouble(0, 100);
    c.energy.dramWritePjPerByte = anyDouble(0, 100);
    // Some configs name a DRAM standard, with some of its figures `auto`.
    if (in(0, 1) == 1) {
      c.dram = {in(0, 1) == 1 ? "hbm2" : "ddr4-2400", in(1, 8), flip()};
      if (flip())
        c.dramBytesPerCycle.reset();
      if (flip())
        c.dramLatencyCycles.reset();
      c.energy.dramReadPjPerByte.reset();
      c.energy.dramActivatePj = anyDouble(0, 1000);
    }
    c.technology.node = in(0, 1) == 1 ? "7nm" : "28nm";
    if (in(0, 1) == 1)
      c.technology.vddV = anyDouble(0.6, 1.0);
    return c;
  }

  DramTensor randomTensor() {
    DramTensor t;
    t.name = randomString();
    t.value = static_cast<int32_t>(in(-1, 1 << 30));
    t.dtype = anyEnum<DType>(6);
    t.shape.resize(static_cast<size_t>(in(0, 4)));
    for (int64_t& d : t.shape) {
      d = in(0, 9);
    }
    t.scale = anyFloat();
    t.role = anyEnum<DramTensor::Role>(6);
    const bool onChip =
        (t.role == DramTensor::Role::Activation || t.role == DramTensor::Role::Scratch) &&
        residentRegionBytes(p_.config) > t.bytes() && flip();
    t.addr = onChip ? kResidentBase + place(residentRegionBytes(p_.config), t.bytes(), {})
                    : place(p_.dramBytes, t.bytes(), {});
    return t;
  }

  std::vector<int32_t> tensorRefs() {
    std::vector<int32_t> refs(static_cast<size_t>(in(0, 3)));
    for (int32_t& r : refs) {
      r = static_cast<int32_t>(in(-1, static_cast<int64_t>(p_.tensors.size()) - 1));
    }
    return refs;
  }

  Layer randomLayer() {
    Layer l;
    l.name = randomString();
    l.op = randomString();
    l.shape = randomString();
    l.node = static_cast<int32_t>(in(-1, 100000));
    l.unit = anyEnum<LayerUnit>(5);
    l.inputTensors = tensorRefs();
    l.outputTensors = tensorRefs();
    l.outputValues.resize(l.outputTensors.size());
    for (int32_t& v : l.outputValues) {
      v = static_cast<int32_t>(in(-1, 1 << 20));
    }
    l.usefulMacs = in(0, int64_t{1} << 50);
    l.note = randomString();
    return l;
  }

  Sync randomSync() {
    Sync s;
    for (SemWait& w : s.waits) {
      if (flip()) {
        w = SemWait{static_cast<int32_t>(in(0, kNumSemaphores - 1)), in(0, int64_t{1} << 40)};
      }
    }
    s.signal = flip() ? static_cast<int32_t>(in(0, kNumSemaphores - 1)) : -1;
    return s;
  }

  int64_t stride(int64_t magnitude) { return in(-magnitude, magnitude); }

  /// A pattern in DRAM or, sometimes when the config has one, in the SBUF resident region.
  DramPattern dramPattern(int64_t partitions, int64_t outer, int64_t inner, int64_t elem) {
    const int64_t region = residentRegionBytes(p_.config);
    const bool onChip = region >= 8 * 64 * elem && flip();
    const int64_t bytes = onChip ? region : p_.dramBytes;
    DramPattern d;
    // Each level spans at most an eighth of the memory, so the pattern always fits.
    d.partitionStride = stride(bytes / 8 / partitions);
    d.outerStride = stride(bytes / 8 / outer);
    d.innerStep = stride(std::min<int64_t>(64, bytes / 8 / inner));
    d.addr = place(bytes, elem,
                   {{d.partitionStride, partitions}, {d.outerStride, outer}, {d.innerStep, inner}});
    d.addr += onChip ? kResidentBase : 0;
    return d;
  }

  /// The fields DMA_LOAD (into SBUF) and DMA_STORE share.
  template <class D> void sbufTransfer(D& d) {
    d.elemBytes = pick<int64_t>({1, 2, 4, 8});
    d.partitionStart = in(0, p_.config.peRows - 1);
    d.partitionCount = in(1, p_.config.peRows - d.partitionStart);
    d.outerCount = in(1, 6);
    d.innerCount = in(1, 12);
    d.sbufOuterStride = stride(512);
    d.sbufAddr = place(p_.config.sbufWorkingBytesPerPartition(), d.elemBytes,
                       {{d.sbufOuterStride, d.outerCount}, {d.elemBytes, d.innerCount}});
    d.dram = dramPattern(d.partitionCount, d.outerCount, d.innerCount, d.elemBytes);
  }

  DmaLoad tableLoad(OnChip space) {
    DmaLoad d;
    d.space = space;
    d.elemBytes = pick<int64_t>({1, 4});
    d.outerCount = in(1, 2);
    d.innerCount = in(1, 16 / d.elemBytes);
    d.sbufOuterStride = pick<int64_t>({0, 16, -16});
    const int64_t tableBytes = space == OnChip::ActTable ? kActTableSlots * kActRecordBytes
                               : space == OnChip::LookupTable
                                   ? kLookupTableBytes
                                   : kPoolTableEntries * kPoolRecordBytes;
    d.sbufAddr = place(tableBytes, d.elemBytes,
                       {{d.sbufOuterStride, d.outerCount}, {d.elemBytes, d.innerCount}});
    if (space == OnChip::ActTable || space == OnChip::LookupTable) {
      const int64_t slots = space == OnChip::ActTable ? p_.config.peCols : p_.config.peRows;
      d.partitionStart = in(0, slots - 1);
      d.partitionCount = in(1, slots - d.partitionStart);
    }
    d.dram = dramPattern(d.partitionCount, d.outerCount, d.innerCount, d.elemBytes);
    return d;
  }

  Op randomOp(size_t index) {
    const SystolicConfig& c = p_.config;
    // Cycle through the opcodes first so every program holds each of them.
    const size_t which = index < std::variant_size_v<Op> + 3
                             ? index % (std::variant_size_v<Op> + 3)
                             : static_cast<size_t>(in(0, std::variant_size_v<Op> + 2));
    switch (which) {
    case 0: {
      DmaLoad d;
      sbufTransfer(d);
      return d;
    }
    case 1: {
      DmaStore d;
      sbufTransfer(d);
      return d;
    }
    case 2: {
      DmaCopy d;
      d.fillZero = flip();
      d.elemBytes = pick<int64_t>({1, 2, 4});
      d.partitionCount = in(1, 4);
      d.outerCount = in(1, 8);
      d.innerCount = in(1, 8);
      d.src = dramPattern(d.partitionCount, d.outerCount, d.innerCount, d.elemBytes);
      d.dst = dramPattern(d.partitionCount, d.outerCount, d.innerCount, d.elemBytes);
      d.fillValue = zeroPoint();
      return d;
    }
    case 3: {
      LoadWeights w;
      w.rows = in(1, c.peRows);
      w.cols = in(1, c.peCols);
      w.colStride = stride(64);
      w.addr = place(c.sbufWorkingBytesPerPartition(), elemBytes_, {{w.colStride, w.cols}});
      w.zero = zeroPoint();
      return w;
    }
    case 4: {
      Matmul m;
      m.rows = in(1, c.peRows);
      m.cols = in(1, c.peCols);
      m.srcInnerCount = m.dstInnerCount = in(1, 16);
      m.srcOuterCount = m.dstOuterCount = in(1, 4);
      m.srcInnerStep = stride(8);
      m.srcOuterStride = stride(256);
      m.src = place(c.sbufWorkingBytesPerPartition(), elemBytes_,
                    {{m.srcInnerStep, m.srcInnerCount}, {m.srcOuterStride, m.srcOuterCount}});
      m.dstInnerStep = stride(3);
      m.dstOuterStride = stride(40);
      m.dst = place(c.psumEntriesPerColumn, 1,
                    {{m.dstInnerStep, m.dstInnerCount}, {m.dstOuterStride, m.dstOuterCount}});
      m.accumulate = flip();
      m.srcZero = zeroPoint();
      return m;
    }
    case 5: {
      PsumReset r;
      r.entries = in(1, c.psumEntriesPerColumn);
      r.addr = in(0, c.psumEntriesPerColumn - r.entries);
      r.cols = in(1, c.peCols);
      return r;
    }
    case 6: {
      Activate a;
      a.rows = in(1, 6);
      a.rowLen = in(1, 12);
      a.psumRowStride = stride(32);
      a.psum = place(c.psumEntriesPerColumn, 1, {{a.psumRowStride, a.rows}, {1, a.rowLen}});
      a.colStart = in(0, c.peCols - 1);
      a.cols = in(1, std::min(c.peCols - a.colStart, c.peRows));
      a.dstPartition = in(0, c.peRows - a.cols);
      a.elemBytes = elemBytes_;
      a.dstRowStride = stride(256);
      a.dst = place(c.sbufWorkingBytesPerPartition(), a.elemBytes,
                    {{a.dstRowStride, a.rows}, {a.elemBytes, a.rowLen}});
      a.tableSlot = in(0, kActTableSlots - 1);
      if (p_.dtype == DType::I8) {
        a.func = pick({ActFunc::Identity, ActFunc::Clip});
        a.clampLo = in(-128, 127);
        a.clampHi = in(a.clampLo, 127);
      } else {
        a.func = anyEnum<ActFunc>(11);
        a.clampLo = in(-(int64_t{1} << 40), 0);
        a.clampHi = in(0, int64_t{1} << 40);
      }
      a.alpha = anyFloat();
      a.beta = anyFloat();
      a.gamma = anyFloat();
      a.releaseEntries = flip();
      a.zeroOut = zeroPoint();
      return a;
    }
    case 7:
      return randomPool();
    case 8:
      return HostOp{.node = static_cast<int32_t>(in(0, INT32_MAX)),
                    .layer =
                        static_cast<int32_t>(in(0, static_cast<int64_t>(p_.layers.size()) - 1))};
    case 9:
      return Barrier{};
    case 10:
      // The vector unit is int8: f32 programs get a BARRIER instead.
      return p_.dtype == DType::I8 ? Op{randomVector()} : Op{Barrier{}};
    case 11:
      return tableLoad(OnChip::ActTable);
    case 12:
      return tableLoad(OnChip::PoolTable);
    default:
      return tableLoad(OnChip::LookupTable);
    }
  }

  /// A zero point: any int8 code in s8 programs (often 0), 0 in f32 programs.
  int32_t zeroPoint() {
    return elemBytes_ == 1 && flip() ? static_cast<int32_t>(in(-128, 127)) : 0;
  }

  /// A valid requantization multiplier {M, shift}, now and then the zero multiplier.
  std::pair<int32_t, int32_t> multiplier() {
    if (in(0, 7) == 0) {
      return {0, 31};
    }
    return {static_cast<int32_t>(in(int64_t{1} << 30, (int64_t{1} << 31) - 1)),
            static_cast<int32_t>(in(-30, 31))};
  }

  Vector randomVector() {
    const SystolicConfig& c = p_.config;
    Vector v;
    v.func = anyEnum<VectorFunc>(6);
    v.partitionStart = in(0, c.peRows - 1);
    v.partitions = in(1, c.peRows - v.partitionStart);
    v.rows = in(1, 6);
    v.rowLen = in(1, 12);
    v.aRowStride = stride(256);
    v.a = place(c.sbufWorkingBytesPerPartition(), 1, {{v.aRowStride, v.rows}, {1, v.rowLen}});
    v.bStep = in(0, 1);
    v.bRowStride = stride(256);
    v.b = place(c.sbufWorkingBytesPerPartition(), 1, {{v.bRowStride, v.rows}, {v.bStep, v.rowLen}});
    v.dstRowStride = stride(256);
    v.dst = place(c.sbufWorkingBytesPerPartition(), 1, {{v.dstRowStride, v.rows}, {1, v.rowLen}});
    v.cStep = in(0, 1);
    v.cRowStride = stride(256);
    v.c = place(c.sbufWorkingBytesPerPartition(), 1, {{v.cRowStride, v.rows}, {v.cStep, v.rowLen}});
    v.aZero = zeroPoint();
    v.bZero = zeroPoint();
    v.outZero = zeroPoint();
    v.leftShift = static_cast<int32_t>(
        in(0, v.aZero != 0 || v.bZero != 0 ? kMaxZeroPointLeftShift : kMaxVectorLeftShift));
    std::tie(v.aMultiplier, v.aShift) = multiplier();
    std::tie(v.bMultiplier, v.bShift) = multiplier();
    std::tie(v.outMultiplier, v.outShift) = multiplier();
    v.clampLo = in(-128, 127);
    v.clampHi = in(v.clampLo, 127);
    return v;
  }

  Pool randomPool() {
    const SystolicConfig& c = p_.config;
    Pool p;
    p.kind = anyEnum<Pool::Kind>(2);
    p.elemBytes = elemBytes_;
    p.partitionStart = in(0, c.peRows - 1);
    p.partitions = in(1, c.peRows - p.partitionStart);
    p.inH = in(1, 9);
    p.inW = in(1, 9);
    p.kernelH = in(1, 3);
    p.kernelW = in(1, 3);
    p.strideH = in(1, 3);
    p.strideW = in(1, 3);
    p.dilH = in(1, 2);
    p.dilW = in(1, 2);
    p.padTop = in(0, 2);
    p.padLeft = in(0, 2);
    p.padBottom = in(0, 2);
    p.padRight = in(0, 2);
    p.countIncludePad = flip();
    p.outRow0 = in(0, 3);
    p.outRows = in(1, 4);
    p.outW = in(1, 8);
    const int64_t needFirst = std::max<int64_t>(0, p.outRow0 * p.strideH - p.padTop);
    const int64_t needLast = std::min<int64_t>(p.inH - 1, (p.outRow0 + p.outRows - 1) * p.strideH +
                                                              (p.kernelH - 1) * p.dilH - p.padTop);
    if (needFirst <= needLast) {
      p.srcRow0 = in(0, needFirst);
      p.srcRows = in(needLast - p.srcRow0 + 1, p.inH - p.srcRow0);
    } else {
      p.srcRow0 = in(0, p.inH - 1);
      p.srcRows = in(1, p.inH - p.srcRow0);
    }
    p.srcRowStride = stride(128);
    p.src = place(c.sbufWorkingBytesPerPartition(), p.elemBytes,
                  {{p.srcRowStride, p.srcRows}, {p.elemBytes, p.inW}});
    p.dstRowStride = stride(128);
    p.dst = place(c.sbufWorkingBytesPerPartition(), p.elemBytes,
                  {{p.dstRowStride, p.outRows}, {p.elemBytes, p.outW}});
    p.zeroIn = zeroPoint();
    p.zeroOut = zeroPoint();
    if (elemBytes_ == 1 && in(0, 3) == 0)
      return asInterpolation(p);
    return p;
  }

  /// \p p as an interpolating pool (s8): no window, its rows' taps at a random table record.
  Pool asInterpolation(Pool p) {
    p.kind = Pool::Kind::Interpolate;
    p.kernelH = p.kernelW = p.strideH = p.strideW = p.dilH = p.dilW = 1;
    p.padTop = p.padLeft = p.padBottom = p.padRight = 0;
    p.countIncludePad = false;
    p.tableRow0 = in(0, kPoolTableEntries - p.outRows);
    return p;
  }

  std::mt19937_64 rng_;
  Program p_;
  int64_t elemBytes_ = 1;
};

inline Program randomProgram(uint64_t seed) {
  return RandomProgramBuilder(seed).build();
}

} // namespace nnaccel::arch::systolic::samples
