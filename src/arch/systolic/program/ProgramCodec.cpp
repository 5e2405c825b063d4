/// \file
/// The systolic program file (.nnx): encodeProgram / decodeProgram and the file wrappers.
///
/// The framing is in ProgramFormat.h and the field order in IsaFields.h: the encoder and the
/// decoder are two visitors over the same tables, so they cannot disagree on a field. The
/// decoder treats its input as hostile: every read is bounds-checked, every length is checked
/// against the bytes that remain before anything is allocated, every enum and bool is range
/// checked, and any failure is a one-line nnaccel::Error (Io) naming the file and the offset.
/// A decoded program is then checked by validateProgram, so the simulator only ever sees
/// programs that satisfy the ISA's rules.
#include "IsaFields.h"
#include "ProgramFormat.h"
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/ReadFile.h"

#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>

namespace nnaccel::arch::systolic {
namespace format {

namespace {
constexpr std::array<uint32_t, 256> makeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) {
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = makeCrcTable();
} // namespace

uint32_t crc32(const uint8_t* data, size_t size) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    c = kCrcTable[(c ^ data[i]) & 0xFFu] ^ (c >> 8);
  }
  return c ^ 0xFFFFFFFFu;
}

} // namespace format

namespace {

using fields::Field;
using format::Section;

template <class T>
concept Enum = std::is_enum_v<T>;

[[noreturn]] void failAt(const std::string& file, size_t offset, const std::string& reason) {
  throw Error(ErrorKind::Io, ErrorContext{.file = file},
              fmt::format("offset {}: {}", offset, reason));
}

void putFixed(std::vector<uint8_t>& out, uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  }
}

uint64_t getFixed(const uint8_t* p, int bytes) {
  uint64_t bits = 0;
  for (int i = 0; i < bytes; ++i) {
    bits |= static_cast<uint64_t>(p[i]) << (8 * i);
  }
  return bits;
}

/// Encoder visitor: appends each field in table order.
class Writer {
public:
  std::vector<uint8_t> out;

  template <class T> void operator()(const Field&, const T& value) { put(value); }

  void varint(int64_t v) {
    uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); // zigzag
    while (z >= 0x80) {
      out.push_back(static_cast<uint8_t>(z | 0x80));
      z >>= 7;
    }
    out.push_back(static_cast<uint8_t>(z));
  }
  void put(int64_t v) { varint(v); }
  void put(int32_t v) { varint(v); }
  void put(bool v) { varint(v ? 1 : 0); }
  void put(float v) { putFixed(out, std::bit_cast<uint32_t>(v), 4); }
  void put(double v) { putFixed(out, std::bit_cast<uint64_t>(v), 8); }
  /// An `auto` energy as a quiet NaN, which no number in a config can be.
  void put(const std::optional<double>& v) {
    put(v ? *v : std::numeric_limits<double>::quiet_NaN());
  }
  /// An `auto` integer as a 0 flag; a number as a 1 flag and the number.
  void put(const std::optional<int64_t>& v) {
    put(v.has_value());
    if (v)
      put(*v);
  }
  template <Enum E> void put(E v) { varint(static_cast<int64_t>(v)); }
  void put(const std::string& s) {
    varint(static_cast<int64_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  void put(const std::vector<uint8_t>& bytes) {
    varint(static_cast<int64_t>(bytes.size()));
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  template <class T> void put(const std::vector<T>& items) {
    varint(static_cast<int64_t>(items.size()));
    for (const T& item : items) {
      put(item);
    }
  }
  void section(Section s) { varint(static_cast<int64_t>(s)); }
  template <class R> void record(const R& r) { fields::forEachField(r, *this); }
  template <class R> void records(const std::vector<R>& rs) {
    varint(static_cast<int64_t>(rs.size()));
    for (const R& r : rs) {
      record(r);
    }
  }
  void instruction(const Instruction& inst) {
    out.push_back(static_cast<uint8_t>(inst.op.index()));
    fields::forEachField(inst.sync, *this);
    fields::forEachOpField(inst, *this);
  }
};

template <size_t... I> Op makeOp(size_t index, std::index_sequence<I...>) {
  static constexpr Op (*kMake[])() = {
      []() -> Op { return std::variant_alternative_t<I, Op>{}; }...};
  return kMake[index]();
}

/// Decoder visitor: reads each field in table order from [pos, end) of the payload. Offsets in
/// messages are file offsets.
class Reader {
public:
  Reader(const std::vector<uint8_t>& bytes, size_t begin, size_t end, const std::string& file)
      : bytes_(bytes), pos_(begin), end_(end), file_(file) {}

  template <class T> void operator()(const Field& f, T& value) {
    field_ = f.name;
    get(value);
    field_ = nullptr;
  }

  [[noreturn]] void fail(size_t offset, const std::string& reason) const {
    std::string where;
    if (!record_.empty()) {
      where = " in " + record_;
      if (field_ != nullptr) {
        where += fmt::format(", field '{}'", field_);
      }
    }
    failAt(file_, offset, reason + where);
  }

  size_t pos() const { return pos_; }
  size_t remaining() const { return end_ - pos_; }

  uint8_t byte() {
    if (pos_ >= end_) {
      fail(pos_, "unexpected end of payload");
    }
    return bytes_[pos_++];
  }

  int64_t varint() {
    const size_t start = pos_;
    uint64_t z = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= end_) {
        fail(start, "truncated varint");
      }
      const uint8_t b = bytes_[pos_++];
      if (shift == 63 && b > 1) {
        fail(start, "varint overflows 64 bits");
      }
      z |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        if (b == 0 && shift > 0) {
          fail(start, "non-canonical varint (redundant trailing zero byte)");
        }
        break;
      }
    }
    return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
  }

  /// A list or string length: each element takes at least one byte, so a length beyond the
  /// remaining bytes is corrupt, and nothing is ever allocated for more than the file holds.
  size_t length() {
    const size_t start = pos_;
    const int64_t n = varint();
    if (n < 0) {
      fail(start, fmt::format("negative length {}", n));
    }
    if (static_cast<uint64_t>(n) > remaining()) {
      fail(start, fmt::format("length {} exceeds the {} remaining payload bytes", n, remaining()));
    }
    return static_cast<size_t>(n);
  }

  void get(int64_t& v) { v = varint(); }
  void get(int32_t& v) {
    const size_t start = pos_;
    const int64_t x = varint();
    if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
      fail(start, fmt::format("value {} does not fit a 32-bit field", x));
    }
    v = static_cast<int32_t>(x);
  }
  void get(bool& v) {
    const size_t start = pos_;
    const int64_t x = varint();
    if (x != 0 && x != 1) {
      fail(start, fmt::format("invalid bool value {}", x));
    }
    v = x == 1;
  }
  void get(float& v) { v = std::bit_cast<float>(static_cast<uint32_t>(fixed(4))); }
  void get(double& v) { v = std::bit_cast<double>(fixed(8)); }
  /// Only the canonical quiet NaN is `auto`; any other NaN is kept as a number, which the
  /// config's validation then rejects (the format stays canonical).
  void get(std::optional<double>& v) {
    double d = 0;
    get(d);
    const bool autoMarker = std::bit_cast<uint64_t>(d) ==
                            std::bit_cast<uint64_t>(std::numeric_limits<double>::quiet_NaN());
    v = autoMarker ? std::nullopt : std::optional<double>(d);
  }
  void get(std::optional<int64_t>& v) {
    bool present = false;
    get(present);
    v.reset();
    if (present) {
      int64_t x = 0;
      get(x);
      v = x;
    }
  }
  template <Enum E> void get(E& v) {
    const size_t start = pos_;
    const int64_t x = varint();
    if (x < 0 || static_cast<uint64_t>(x) >= fields::enumCount<E>()) {
      fail(start, fmt::format("invalid {} value {}", fields::EnumInfo<E>::kType, x));
    }
    v = static_cast<E>(x);
  }
  void get(std::string& s) {
    const size_t n = length();
    s.assign(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
  }
  void get(std::vector<uint8_t>& bytes) {
    const size_t n = length();
    const auto first = bytes_.begin() + static_cast<std::ptrdiff_t>(pos_);
    bytes.assign(first, first + static_cast<std::ptrdiff_t>(n));
    pos_ += n;
  }
  template <class T> void get(std::vector<T>& items) {
    const size_t n = length();
    items.clear();
    for (size_t i = 0; i < n; ++i) {
      get(items.emplace_back());
    }
  }

  void section(Section expected, const char* name) {
    record_.clear();
    const size_t start = pos_;
    const int64_t tag = varint();
    if (tag != static_cast<int64_t>(expected)) {
      fail(start, fmt::format("expected the {} section (tag {}), found tag {}", name,
                              static_cast<int>(expected), tag));
    }
  }
  /// Names the record being read in messages ("tensor 3").
  void enter(std::string what) { record_ = std::move(what); }
  template <class R> void record(R& r, std::string what) {
    enter(std::move(what));
    fields::forEachField(r, *this);
  }
  template <class R> void records(std::vector<R>& rs, const char* what) {
    const size_t n = length();
    for (size_t i = 0; i < n; ++i) {
      record(rs.emplace_back(), fmt::format("{} {}", what, i));
    }
  }
  void instruction(Instruction& inst, size_t index) {
    record_ = fmt::format("instruction {}", index);
    const size_t start = pos_;
    const uint8_t opcode = byte();
    if (opcode >= std::variant_size_v<Op>) {
      fail(start, fmt::format("unknown opcode {}", opcode));
    }
    inst.op = makeOp(opcode, std::make_index_sequence<std::variant_size_v<Op>>{});
    record_ += fmt::format(" ({})", mnemonic(inst.op));
    fields::forEachField(inst.sync, *this);
    fields::forEachOpField(inst, *this);
  }

private:
  uint64_t fixed(int bytes) {
    if (remaining() < static_cast<size_t>(bytes)) {
      fail(pos_, fmt::format("truncated {}-byte value", bytes));
    }
    const uint64_t bits = getFixed(bytes_.data() + pos_, bytes);
    pos_ += static_cast<size_t>(bytes);
    return bits;
  }

  const std::vector<uint8_t>& bytes_;
  size_t pos_;
  size_t end_;
  const std::string& file_;
  std::string record_;          ///< e.g. "instruction 12 (MATMUL)", for messages
  const char* field_ = nullptr; ///< the field being read, for messages
};

/// A printable rendering of a bad magic (non-printable bytes as '.').
std::string printable(const uint8_t* p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += (p[i] >= 0x20 && p[i] < 0x7F) ? static_cast<char>(p[i]) : '.';
  }
  return s;
}

} // namespace

std::vector<uint8_t> encodeProgram(const Program& p) {
  Writer w;
  w.section(Section::Config);
  w.record(p.config);
  w.section(Section::Header);
  fields::forEachHeaderField(p, w);
  w.section(Section::Tensors);
  w.records(p.tensors);
  w.section(Section::Segments);
  w.records(p.segments);
  w.section(Section::Layers);
  w.records(p.layers);
  w.section(Section::Instructions);
  w.varint(static_cast<int64_t>(p.instructions.size()));
  for (const Instruction& inst : p.instructions) {
    w.instruction(inst);
  }

  std::vector<uint8_t> file(std::begin(format::kMagic), std::end(format::kMagic));
  putFixed(file, Program::kVersion, 4);
  putFixed(file, w.out.size(), 8);
  file.insert(file.end(), w.out.begin(), w.out.end());
  putFixed(file, format::crc32(w.out.data(), w.out.size()), 4);
  return file;
}

Program decodeProgram(const std::vector<uint8_t>& bytes, const std::string& file) {
  using namespace format;
  const size_t magicSeen = std::min(bytes.size(), kMagicBytes);
  if (bytes.empty() || std::memcmp(bytes.data(), kMagic, magicSeen) != 0) {
    failAt(file, 0,
           fmt::format("bad magic '{}', expected '{}': not an nnaccel systolic program",
                       printable(bytes.data(), magicSeen), std::string(kMagic, kMagicBytes)));
  }
  if (bytes.size() < kPayloadOffset + kCrcBytes) {
    failAt(file, bytes.size(),
           fmt::format("file truncated: {} bytes, a program file has at least {}", bytes.size(),
                       kPayloadOffset + kCrcBytes));
  }
  const uint64_t version = getFixed(bytes.data() + kVersionOffset, 4);
  if (version != Program::kVersion) {
    failAt(file, kVersionOffset,
           fmt::format("unsupported program format version {} (this build reads version {})",
                       version, Program::kVersion));
  }
  const uint64_t payloadBytes = getFixed(bytes.data() + kLengthOffset, 8);
  const size_t available = bytes.size() - kPayloadOffset - kCrcBytes;
  if (payloadBytes > available) {
    failAt(file, bytes.size(),
           fmt::format("file truncated: the header announces {} payload bytes, only {} are present",
                       payloadBytes, available));
  }
  const size_t payloadEnd = kPayloadOffset + static_cast<size_t>(payloadBytes);
  if (payloadBytes < available) {
    failAt(file, payloadEnd + kCrcBytes,
           fmt::format("{} bytes of trailing garbage after the CRC", available - payloadBytes));
  }
  const uint32_t storedCrc = static_cast<uint32_t>(getFixed(bytes.data() + payloadEnd, 4));
  const uint32_t actualCrc = crc32(bytes.data() + kPayloadOffset, payloadEnd - kPayloadOffset);
  if (storedCrc != actualCrc) {
    failAt(file, payloadEnd,
           fmt::format("CRC mismatch: stored 0x{:08x}, computed 0x{:08x} (the file is corrupt)",
                       storedCrc, actualCrc));
  }

  Program p;
  Reader r(bytes, kPayloadOffset, payloadEnd, file);
  r.section(Section::Config, "config");
  r.record(p.config, "the config");
  r.section(Section::Header, "header");
  r.enter("the header");
  fields::forEachHeaderField(p, r);
  r.section(Section::Tensors, "tensors");
  r.records(p.tensors, "tensor");
  r.section(Section::Segments, "segments");
  r.records(p.segments, "segment");
  r.section(Section::Layers, "layers");
  r.records(p.layers, "layer");
  r.section(Section::Instructions, "instructions");
  const size_t numInstructions = r.length();
  for (size_t i = 0; i < numInstructions; ++i) {
    r.instruction(p.instructions.emplace_back(), i);
  }
  r.enter("");
  if (r.remaining() != 0) {
    r.fail(r.pos(), fmt::format("{} unexpected bytes after the last section", r.remaining()));
  }
  validateProgram(p, file);
  return p;
}

void writeProgramFile(const Program& p, const std::string& path) {
  const std::vector<uint8_t> bytes = encodeProgram(p);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) {
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  if (!out) {
    const int error = errno;
    throw Error(ErrorKind::Io, ErrorContext{.file = path},
                fmt::format("cannot write program file ({})", std::strerror(error)));
  }
}

Program readProgramFile(const std::string& path) {
  const std::string text = readFileCapped(path, kMaxDataFileBytes, "program file");
  return decodeProgram(std::vector<uint8_t>(text.begin(), text.end()), path);
}

} // namespace nnaccel::arch::systolic
