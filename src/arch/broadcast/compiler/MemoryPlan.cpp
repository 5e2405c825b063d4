/// \file
/// The broadcast engine's memory plan (MemoryPlan.h): the walk over the program that traces
/// each value's lifetime, keeps layer outputs in the global buffer (common::BufferAllocator)
/// when they fit, stages each Conv layer's weights and memory-310 input, and notes every spill
/// with its reason.
#include "nnaccel/arch/broadcast/MemoryPlan.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <string>

namespace nnaccel::arch::broadcast {

std::string_view operandSourceName(OperandSource s) {
  switch (s) {
  case OperandSource::Buffer:
    return "global buffer";
  case OperandSource::Staged:
    return "staged";
  case OperandSource::Dram:
    return "memory 310";
  }
  return "?";
}

namespace {

/// An int8 value's bytes (host-produced values of other types live in memory 310 anyway).
int64_t valueBytes(const ir::Graph& g, ir::ValueId v) {
  return numElements(g.value(v).shape);
}

/// What the plan knows of one value (of its root, when Views rename it).
struct ValueLife {
  int64_t lastUse = -1;   ///< the last program layer reading it (or a View of it)
  std::string dramReason; ///< non-empty: it lives in memory 310 whatever the capacity
  bool inBuffer = false;  ///< placed in the global buffer
};

class Planner {
public:
  Planner(Program& p, const ir::Graph& g)
      : p_(p), g_(g), alloc_(p.config.globalBufferCapacityBytes), root_(g.numValues()),
        life_(g.numValues()) {
    std::iota(root_.begin(), root_.end(), ir::ValueId{0});
  }

  void run() {
    traceLifetimes();
    for (size_t i = 0; i < p_.layers.size(); ++i)
      planLayer(static_cast<int64_t>(i));
    p_.bufferPeakBytes = alloc_.peakLiveBytes();
  }

private:
  ValueLife& lifeOf(ir::ValueId v) {
    return life_[static_cast<size_t>(root_[static_cast<size_t>(v)])];
  }

  /// Roots (a View's output is its input's root), last uses and the values fixed in memory 310:
  /// what a host layer reads or writes (the host exchanges data through memory 310) and the
  /// model outputs.
  void traceLifetimes() {
    for (size_t i = 0; i < p_.layers.size(); ++i) {
      const Layer& l = p_.layers[i];
      const bool host = l.kind == LayerKind::Host;
      for (ir::ValueId v : l.inputs) {
        ValueLife& life = lifeOf(v);
        life.lastUse = static_cast<int64_t>(i);
        if (host && life.dramReason.empty())
          life.dramReason = fmt::format("read by the host layer {}", l.name);
      }
      if (l.kind == LayerKind::View) {
        root_[static_cast<size_t>(l.outputs[0])] = root_[static_cast<size_t>(l.inputs[0])];
        continue;
      }
      if (host)
        for (ir::ValueId v : l.outputs)
          lifeOf(v).dramReason = "produced on the host";
    }
    for (ir::ValueId v : g_.outputs)
      if (lifeOf(v).dramReason.empty())
        lifeOf(v).dramReason = "model output";
  }

  void planLayer(int64_t i) {
    Layer& l = p_.layers[static_cast<size_t>(i)];
    if (l.kind == LayerKind::View)
      return; // no data moves
    LayerMemory& m = l.memory;
    for (ir::ValueId v : l.inputs)
      m.inputs.push_back(lifeOf(v).inBuffer ? OperandSource::Buffer : OperandSource::Dram);
    std::vector<std::string> notes;
    if (l.kind == LayerKind::Conv) {
      m.weights = stage(l.weightBytes(), i, m);
      if (m.weights == OperandSource::Dram)
        notes.push_back(fmt::format("weights ({} B) read from memory 310 by every tile: they do "
                                    "not fit beside the live values",
                                    l.weightBytes()));
      if (m.inputs[0] == OperandSource::Dram) {
        m.inputs[0] = stage(valueBytes(g_, l.inputs[0]), i, m);
        notes.push_back(m.inputs[0] == OperandSource::Staged
                            ? "input staged from memory 310 into the global buffer"
                            : "input read from memory 310 by every tile (it does not fit)");
      }
    }
    placeOutputs(i, l);
    if (!m.outputInBuffer && !m.spill.empty())
      notes.push_back("output to memory 310: " + m.spill);
    if (l.kind != LayerKind::Host) // a host layer's note is its reason
      for (const std::string& n : notes)
        m.note.append(m.note.empty() ? "" : "; ").append(n);
  }

  /// A one-layer buffer, from the top, for the \p bytes of an operand the schedule reads
  /// (possibly many times): Staged when it fits, else Dram.
  OperandSource stage(int64_t bytes, int64_t layer, LayerMemory& m) {
    if (!alloc_.place(BufferRequest{bytes, layer, layer}, BufferAllocator::End::Top))
      return OperandSource::Dram;
    m.stagedBytes += bytes;
    return OperandSource::Staged;
  }

  void placeOutputs(int64_t i, Layer& l) {
    LayerMemory& m = l.memory;
    m.outputInBuffer = !l.outputs.empty();
    for (ir::ValueId v : l.outputs) {
      ValueLife& life = lifeOf(v);
      std::string why = life.dramReason;
      if (why.empty()) {
        const BufferRequest r{valueBytes(g_, v), i, std::max(i, life.lastUse)};
        if (const auto offset = alloc_.place(r)) {
          life.inBuffer = true;
          m.outputOffsetBytes = *offset;
          continue;
        }
        why = fmt::format("{} B live until layer {} do not fit the {} B global buffer (at most "
                          "{} B free over that span)",
                          r.bytes, p_.layers[static_cast<size_t>(r.lastLayer)].name,
                          alloc_.capacityBytes(), alloc_.largestFreeBytes(i, r.lastLayer));
      }
      m.outputInBuffer = false;
      m.spill = why;
    }
  }

  Program& p_;
  const ir::Graph& g_;
  BufferAllocator alloc_;
  std::vector<ir::ValueId> root_;
  std::vector<ValueLife> life_;
};

} // namespace

void planMemory(Program& program, const ir::Graph& g) {
  Planner(program, g).run();
}

} // namespace nnaccel::arch::broadcast
