/// \file
/// Hand-built systolic programs for the simulator and cycle-model tests: a small config and a
/// builder that places DRAM segments and tensors and appends instructions, so each test states
/// only the instructions it is about.
#pragma once
#include "nnaccel/arch/systolic/Program.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace nnaccel::arch::systolic::testing {

/// A 4 x 4 array with small memories and round timing numbers.
inline SystolicConfig smallConfig() {
  SystolicConfig c;
  c.name = "test";
  c.peRows = 4;
  c.peCols = 4;
  c.weightLoadCycles = 4;
  c.shadowWeights = true;
  c.sbufBytesPerPartition = 1024;
  c.psumEntriesPerColumn = 64;
  c.psumMaxTileRows = 8;
  c.psumMaxTileCols = 8;
  c.psumResetEntriesPerCycle = 4;
  c.actLatencyCycles = 2;
  c.poolLanes = 2;
  c.poolLatencyCycles = 3;
  c.dramBytesPerCycle = 16.0;
  c.dramLatencyCycles = 100;
  return c;
}

class ProgramBuilder {
public:
  explicit ProgramBuilder(DType dtype = DType::I8, SystolicConfig config = smallConfig()) {
    p_.config = std::move(config);
    p_.dtype = dtype;
    p_.model = "test";
  }

  /// Places \p bytes in DRAM (16-byte aligned) and returns the address.
  int64_t segment(std::vector<uint8_t> bytes) {
    const int64_t addr = allocate(static_cast<int64_t>(bytes.size()));
    p_.segments.push_back({addr, std::move(bytes)});
    return addr;
  }
  template <class T> int64_t segmentOf(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return segment(std::move(bytes));
  }
  /// A DRAM tensor (zero-filled space); returns its index.
  int32_t tensor(const std::string& name, DType dtype, Dims shape,
                 DramTensor::Role role = DramTensor::Role::Activation, float scale = 0) {
    DramTensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.role = role;
    t.scale = scale;
    t.addr = allocate(t.bytes());
    p_.tensors.push_back(t);
    return static_cast<int32_t>(p_.tensors.size() - 1);
  }
  const DramTensor& tensorAt(int32_t i) const { return p_.tensors[static_cast<size_t>(i)]; }

  size_t add(Op op, Sync sync = {}) {
    p_.instructions.push_back({std::move(op), sync});
    return p_.instructions.size() - 1;
  }
  /// Starts a layer covering the instructions added from now on until the next layer().
  void layer(const std::string& name, LayerUnit unit = LayerUnit::PeArray) {
    closeLayer();
    Layer l;
    l.name = name;
    l.op = "Test";
    l.unit = unit;
    l.firstInstr = static_cast<int64_t>(p_.instructions.size());
    p_.layers.push_back(l);
  }

  /// DMA_LOAD of partitions [0, parts) x len elements, partition p at dram + p * len * elem.
  size_t loadRows(int64_t dramAddr, int64_t parts, int64_t len, int64_t sbufAddr, Sync sync = {}) {
    DmaLoad d;
    d.elemBytes = elemBytes();
    d.partitionCount = parts;
    d.innerCount = len;
    d.dram = {dramAddr, len * elemBytes(), 0, elemBytes()};
    d.sbufAddr = sbufAddr;
    return add(d, sync);
  }
  /// s8 activation-table records {bias, M, shift, 0} for columns [0, n) in slot 0.
  size_t loadActTable(const std::vector<std::array<int32_t, 4>>& records) {
    std::vector<int32_t> flat;
    for (const auto& r : records) {
      flat.insert(flat.end(), r.begin(), r.end());
    }
    DmaLoad d;
    d.space = OnChip::ActTable;
    d.elemBytes = 4;
    d.partitionCount = static_cast<int64_t>(records.size());
    d.innerCount = 4;
    d.dram = {segmentOf(flat), 16, 0, 4};
    return add(d);
  }

  Program finish() {
    closeLayer();
    p_.dramBytes = next_;
    return p_;
  }

  int64_t elemBytes() const { return p_.dtype == DType::F32 ? 4 : 1; }
  Program& program() { return p_; }

private:
  int64_t allocate(int64_t bytes) {
    const int64_t addr = next_;
    next_ += (bytes + 15) / 16 * 16;
    return addr;
  }
  void closeLayer() {
    if (!p_.layers.empty()) {
      p_.layers.back().endInstr = static_cast<int64_t>(p_.instructions.size());
    }
  }

  Program p_;
  int64_t next_ = 0;
};

} // namespace nnaccel::arch::systolic::testing
