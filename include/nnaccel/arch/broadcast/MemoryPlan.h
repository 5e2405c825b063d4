/// \file
/// The broadcast engine's memory plan: which layer outputs stay in the global buffer (on-chip
/// SRAM) between layers, which go to memory 310 (the DRAM behind it) and why, and which operands
/// a layer stages into the buffer before it runs (docs/arch/BroadcastCompiler.md, "Memory
/// hierarchy").
/// The allocation is common::BufferAllocator's first fit over lifetimes (a value either stays on
/// chip for its whole lifetime or is written to memory 310 once and read back from there).
#pragma once

#include "nnaccel/arch/broadcast/Program.h"
#include "nnaccel/arch/common/BufferAllocator.h"
#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace nnaccel::arch::broadcast {

using common::BufferAllocator;
using common::BufferRequest;

/// Fills every layer's LayerMemory and the program's bufferPeakBytes for the global buffer of
/// program.config. Model inputs and outputs and the values a host layer reads or writes live in
/// memory 310; each other output stays in the buffer when it fits for its whole lifetime (a View
/// extends the lifetime of the value it renames). Before a Conv layer runs, its weights and a
/// memory-310 input are staged into the buffer when they fit beside the live values (weights
/// first); otherwise the schedule reads them from memory 310 directly.
void planMemory(Program& program, const ir::Graph& g);

} // namespace nnaccel::arch::broadcast
