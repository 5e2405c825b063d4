/// \file
/// A compiled systolic program: the instruction stream plus everything the machine needs to
/// run it (the DRAM image of constants, where every tensor lives) and the layer table the
/// report and the verifier read. `nnaccel compile` writes it (.nnx), `nnaccel disasm` prints
/// it, the simulator executes it and nothing else.
///
/// File format (docs/arch/SystolicIsa.md): magic "NNXSYS01", the format version and the payload
/// length, then a payload of little-endian varint-encoded sections, then a CRC-32 of the
/// payload. decodeProgram rejects a wrong magic, a version it does not know, a truncated file, a
/// bad checksum, an unknown opcode or an out-of-range field with a one-line nnaccel::Error (Io)
/// naming the file and the offset, then runs validateProgram.
#pragma once
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/arch/systolic/Isa.h"
#include "nnaccel/quant/Requantize.h"
#include "nnaccel/tensor/DType.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::arch::systolic {

/// One tensor in DRAM, NCHW-contiguous (row-major over `shape`).
struct DramTensor {
  std::string name;   ///< the graph value's name
  int32_t value = -1; ///< graph ValueId (-1 for compiler-made buffers)
  DType dtype = DType::I8;
  Dims shape;
  int64_t addr = 0;      ///< byte address in DRAM, or in the resident region (isResidentAddr)
  float scale = 0;       ///< int8 scale (0 for f32/raw tensors)
  int32_t zeroPoint = 0; ///< int8 zero point: real = scale * (q - zeroPoint)
  enum class Role : uint8_t {
    Input,
    Output,
    Activation,
    Weight,
    Param,
    Scratch
  } role = Role::Activation;
  int64_t bytes() const;
};

/// A constant byte range the loader writes into DRAM before the program starts.
struct DramSegment {
  int64_t addr = 0;
  std::vector<uint8_t> bytes;
};

/// Where a layer runs.
enum class LayerUnit : uint8_t {
  PeArray, ///< Conv / ConvTranspose / Gemm / MatMul on the systolic array
  Pool,    ///< pooling engine
  Host,    ///< host fallback (HostOp), reported per layer
  View,    ///< a reshape of a contiguous DRAM tensor: no instruction, no cost
  Vector,  ///< element-wise layer on the pooling engine's vector unit (or a pure DMA pattern)
};
const char* layerUnitName(LayerUnit u);

/// One reported layer: a graph node (plus its fused activation) and its instruction range.
struct Layer {
  std::string name;  ///< node name
  std::string op;    ///< "Conv", "ConvTranspose", ... ("+Relu" when fused)
  std::string shape; ///< e.g. "1x64x56x56 -> 1x64x56x56 k3x3 s1 d1 g1"
  int32_t node = -1; ///< graph NodeId
  LayerUnit unit = LayerUnit::PeArray;
  /// Per node input i: index into Program::tensors of the DRAM tensor holding it, or -1 for a
  /// graph constant / omitted input (a HostOp reads those from the model).
  std::vector<int32_t> inputTensors;
  /// Per node output j (of the last node of the layer, i.e. the fused activation's output when
  /// fused): index into Program::tensors, or -1 when unused. verify compares these.
  std::vector<int32_t> outputTensors;
  std::vector<int32_t> outputValues;    ///< graph ValueIds of outputTensors (-1 where unused)
  int64_t firstInstr = 0, endInstr = 0; ///< [first, end) in Program::instructions
  int64_t usefulMacs = 0;               ///< MACs of the operator itself (no zeros, no padding)
  std::string note;                     ///< host fallback reason, baseline description, ...
};

/// Largest DRAM a program may declare (16 GiB): the simulator allocates it, so a hostile or
/// mistaken file must not ask for more than a workstation has.
inline constexpr int64_t kMaxDramBytes = int64_t{1} << 34;

/// DMA addresses from kResidentBase on name the SBUF resident region instead of DRAM: offset e
/// (address - kResidentBase) is byte sbufWorkingBytesPerPartition() + e % R of partition e / R,
/// R = sbufResidentBytesPerPartition. A DMA touches DRAM or the region, never both; one that
/// touches the region moves data on chip (docs/arch/SystolicCompiler.md, "Activations on chip").
inline constexpr int64_t kResidentBase = int64_t{1} << 40;
/// Starts the part of a layer note that names an output DRAM holds because the resident region
/// could not (after any other note, separated by "; ").
inline constexpr std::string_view kSpillNote = "spilled to DRAM: ";
/// Bytes of the resident region (every partition's share).
inline int64_t residentRegionBytes(const SystolicConfig& c) {
  return c.sbufResidentBytesPerPartition * c.peRows;
}
/// True when \p addr lies in the resident region's address window.
inline bool isResidentAddr(int64_t addr) {
  return addr >= kResidentBase;
}

struct Program {
  /// 3: the rounding header field; 4: VECTOR's C; 5: zero points (tensors, MATMUL, LOAD_WEIGHTS,
  /// ACTIVATE, POOL, VECTOR, the DMA fill value); 6: the config's technology and `auto` energies;
  /// 7: the config's DRAM part (standard, channels, row buffer), `auto` DRAM figures
  static constexpr uint32_t kVersion = 7;
  SystolicConfig config;   ///< the config it was compiled for (the simulator runs on it)
  DType dtype = DType::I8; ///< I8 or F32
  /// How every requantization of an s8 program (ACTIVATE, POOL average, VECTOR) and the
  /// quantization of its inputs round a half-way value: the quantized model's rule
  /// (quant::QuantizedModel::rounding; to even for an imported QDQ model).
  quant::Rounding rounding = quant::Rounding::HalfAway;
  std::string model;     ///< model name, for reports
  bool baseline = false; ///< compiled with the patents' baselines (zero insertion, ...)
  int64_t dramBytes = 0;
  std::vector<DramTensor> tensors;
  std::vector<DramSegment> segments;
  std::vector<Layer> layers;
  std::vector<Instruction> instructions;
};

/// What a valid program touches of its machine (validateProgram): the simulator allocates that,
/// not the configured maximum (issue 20: an accepted 1 GiB per partition was 128 GiB of SBUF).
struct ProgramExtents {
  int64_t sbufBytesPerPartition = 0; ///< one past the highest SBUF working-area byte used
  int64_t residentBytes = 0; ///< one past the highest resident-region offset any DMA or tensor uses
};

/// Structural check of every instruction against the config (counts equal, addresses inside
/// SBUF/PSUM/DRAM, rows <= peRows, ...). Throws nnaccel::Error (Model) naming the instruction
/// index and field. decodeProgram runs it; the compiler asserts it; the simulator sizes its
/// SBUF by the extents it returns.
ProgramExtents validateProgram(const Program& p, const std::string& file = "<program>");

std::vector<uint8_t> encodeProgram(const Program& p);
/// Inverse of encodeProgram; \p file names the source in errors.
Program decodeProgram(const std::vector<uint8_t>& bytes, const std::string& file);
void writeProgramFile(const Program& p, const std::string& path);
Program readProgramFile(const std::string& path);

/// One line of text per instruction: "PE   MATMUL rows=16 cols=16 src=0x40 ... | wait s3>=2"
/// (disassemble prefixes the instruction index).
std::string formatInstruction(const Instruction& inst);
/// Full listing: header (config summary, tensors, segments) then instructions grouped by layer.
std::string disassemble(const Program& p);

} // namespace nnaccel::arch::systolic
