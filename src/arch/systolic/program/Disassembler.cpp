/// \file
/// The text form of systolic programs: formatInstruction (one line per instruction) and
/// disassemble (`nnaccel disasm`: a header describing the machine and the DRAM image, then the
/// instructions grouped by layer).
///
/// Every operand is printed from the field tables in IsaFields.h, so the text shows exactly
/// what the file holds, with the same names the validator's messages use: byte addresses and
/// byte strides of SBUF/DRAM in hex, PSUM entries, steps and counts in decimal.
#include "IsaFields.h"
#include "ProgramFormat.h"
#include "nnaccel/arch/systolic/Program.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <string_view>

namespace nnaccel::arch::systolic {

namespace fields {

std::string showValue(const Field& f, int64_t value) {
  if (f.show == Show::Hex) {
    const auto magnitude =
        value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    return fmt::format("{}0x{:x}", value < 0 ? "-" : "", magnitude);
  }
  return std::to_string(value);
}

std::string showValue(const Field&, bool value) {
  return value ? "1" : "0";
}

std::string showValue(const Field&, float value) {
  return fmt::format("{}", value); // shortest text that reads back as the same float
}

} // namespace fields

namespace {

/// Names come from the file: keep the listing one line per item whatever they hold.
std::string printable(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      c = '?';
    }
  }
  return out;
}

struct FieldPrinter {
  std::string& out;
  template <class T> void operator()(const fields::Field& f, const T& value) {
    out += fmt::format(" {}={}", f.name, fields::showValue(f, value));
  }
};

std::string hexBytes(int64_t v) {
  return fields::showValue(fields::hex(""), v);
}

std::string tensorRefs(const std::vector<int32_t>& refs) {
  std::string out;
  for (int32_t r : refs) {
    out += r < 0 ? std::string(" -") : fmt::format(" t{}", r);
  }
  return out.empty() ? std::string(" none") : out;
}

void appendHeader(std::string& out, const Program& p) {
  const SystolicConfig& c = p.config;
  out += fmt::format("; nnaccel program for the systolic engine ({} version {})\n",
                     std::string_view(format::kMagic, format::kMagicBytes), Program::kVersion);
  out += fmt::format("; model '{}', dtype {}, rounding {}, {}\n", printable(p.model),
                     fields::enumName(p.dtype), fields::enumName(p.rounding),
                     p.baseline ? "baseline (patent baselines)" : "proposed dataflow");
  out += fmt::format("; config '{}': {}x{} PE array (rows x cols), SBUF {} partitions x {} bytes, "
                     "PSUM {} columns x {} entries (tile <= {}x{}), zero mode {}, shadow "
                     "weights {}\n",
                     printable(c.name), c.peRows, c.peCols, c.peRows, c.sbufBytesPerPartition,
                     c.peCols, c.psumEntriesPerColumn, c.psumMaxTileRows, c.psumMaxTileCols,
                     fields::enumName(c.psumZeroMode), c.shadowWeights ? "on" : "off");
  out += fmt::format("; DRAM {} bytes ({})\n", p.dramBytes, hexBytes(p.dramBytes));

  out += fmt::format(";\n; tensors ({}):\n", p.tensors.size());
  out += fmt::format(";  {:>4}  {:<10}  {:<5}  {:<16}  {:>10}  {:>9}  {:>12}  {:>5}  {}\n", "#",
                     "role", "dtype", "shape", "addr", "bytes", "scale", "value", "name");
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    const DramTensor& t = p.tensors[i];
    std::string shape;
    for (int64_t d : t.shape) {
      if (!shape.empty()) {
        shape += 'x';
      }
      shape += std::to_string(d);
    }
    int64_t bytes = static_cast<int64_t>(dtypeSizeBytes(t.dtype));
    for (int64_t d : t.shape) {
      if (__builtin_mul_overflow(bytes, d, &bytes)) {
        bytes = -1; // only an unvalidated program holds such a shape
        break;
      }
    }
    out += fmt::format(";  {:>4}  {:<10}  {:<5}  {:<16}  {:>10}  {:>9}  {:>12}  {:>5}  {}\n", i,
                       fields::enumName(t.role), fields::enumName(t.dtype),
                       shape.empty() ? "scalar" : shape, hexBytes(t.addr), bytes, t.scale, t.value,
                       printable(t.name));
  }
  out += fmt::format("; segments ({}):\n", p.segments.size());
  for (size_t i = 0; i < p.segments.size(); ++i) {
    const DramSegment& s = p.segments[i];
    out += fmt::format(";  {:>4}  DRAM [{}, {}) {} bytes\n", i, hexBytes(s.addr),
                       hexBytes(s.addr + static_cast<int64_t>(s.bytes.size())), s.bytes.size());
  }
  out +=
      fmt::format(";\n; instructions ({}), layers ({})\n", p.instructions.size(), p.layers.size());
  out += "; each line: index engine mnemonic field=value ... | wait s<sem>>=<count> signal "
         "s<sem>\n";
  out += "; SBUF/DRAM byte addresses and byte strides in hex; PSUM entries, steps and counts in "
         "decimal\n";
}

void appendLayer(std::string& out, size_t index, const Layer& l) {
  out += fmt::format("; layer {}: {} ({}) {}\n", index, printable(l.name), printable(l.op),
                     printable(l.shape));
  out += fmt::format(";   {} unit, instructions [{}, {}), {} useful MACs, inputs{}, outputs{}",
                     fields::enumName(l.unit), l.firstInstr, l.endInstr, l.usefulMacs,
                     tensorRefs(l.inputTensors), tensorRefs(l.outputTensors));
  if (!l.note.empty()) {
    out += fmt::format(", note: {}", printable(l.note));
  }
  out += '\n';
}

} // namespace

std::string formatInstruction(const Instruction& inst) {
  std::string out = fmt::format("{:<4} {}", engineName(engineOf(inst.op)), mnemonic(inst.op));
  fields::forEachOpField(inst, FieldPrinter{out});
  std::string sync;
  for (const SemWait& w : inst.sync.waits) {
    if (w.sem >= 0) {
      sync += fmt::format("{}s{}>={}", sync.empty() ? "wait " : " ", w.sem, w.count);
    }
  }
  if (inst.sync.signal >= 0) {
    sync += fmt::format("{}signal s{}", sync.empty() ? "" : " ", inst.sync.signal);
  }
  if (!sync.empty()) {
    out += " | " + sync;
  }
  return out;
}

std::string disassemble(const Program& p) {
  std::string out;
  appendHeader(out, p);
  size_t nextLayer = 0;
  int64_t layerEnd = 0; // end of the layer whose instructions are being printed
  bool outside = false; // printed the "outside any layer" marker for this gap
  auto openLayersUpTo = [&](int64_t instr) {
    while (nextLayer < p.layers.size() && p.layers[nextLayer].firstInstr <= instr) {
      appendLayer(out, nextLayer, p.layers[nextLayer]);
      layerEnd = std::max(layerEnd, p.layers[nextLayer].endInstr);
      outside = false;
      ++nextLayer;
    }
  };
  for (size_t i = 0; i < p.instructions.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    openLayersUpTo(index);
    if (index >= layerEnd && !outside) {
      out += "; (outside any layer)\n";
      outside = true;
    }
    out += fmt::format("{:>5} {}\n", i, formatInstruction(p.instructions[i]));
  }
  openLayersUpTo(std::numeric_limits<int64_t>::max());
  return out;
}

} // namespace nnaccel::arch::systolic
