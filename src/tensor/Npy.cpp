// NumPy .npy reading and writing: magic/version/header-length prefix, a Python-dict-literal
// header parsed by a small recursive-descent parser, then raw little-endian C-order data.
#include "nnaccel/tensor/Npy.h"

#include "nnaccel/support/ReadFile.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

namespace nnaccel {

static_assert(std::endian::native == std::endian::little,
              "npy I/O copies little-endian data verbatim");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
/// Magic + version: the bytes before the header length field.
constexpr size_t kPreambleSize = kMagicSize + 2;

[[noreturn]] void fail(const std::string& path, const std::string& reason,
                       ErrorKind kind = ErrorKind::Io) {
  throw Error(kind, ErrorContext{.file = path}, reason);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

/// The element types nnaccel reads and writes, with their npy descriptors.
struct DTypeDescr {
  DType dtype;
  const char* descr;
};
constexpr DTypeDescr kDescrs[] = {
    {DType::F32, "<f4"}, {DType::I8, "|i1"},  {DType::U8, "|u1"},
    {DType::I32, "<i4"}, {DType::I64, "<i8"}, {DType::Bool, "|b1"},
};

std::optional<DType> dtypeFromDescr(const std::string& descr) {
  for (const DTypeDescr& d : kDescrs) {
    if (descr == d.descr) {
      return d.dtype;
    }
  }
  return std::nullopt;
}

const char* descrOf(DType dtype) {
  for (const DTypeDescr& d : kDescrs) {
    if (d.dtype == dtype) {
      return d.descr;
    }
  }
  NNACCEL_UNREACHABLE("dtype without npy descriptor");
  return "";
}

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  Dims shape;
};

/// Parses the header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
/// It accepts exactly the Python literal subset numpy writes (strings, True/False, tuples of
/// non-negative integers) with any whitespace and trailing commas.
class HeaderParser {
public:
  HeaderParser(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    expect('{');
    while (!tryConsume('}')) {
      const std::string key = parseString();
      expect(':');
      if (key == "descr") {
        markSeen(seenDescr, key);
        h.descr = parseString();
      } else if (key == "fortran_order") {
        markSeen(seenOrder, key);
        h.fortranOrder = parseBool();
      } else if (key == "shape") {
        markSeen(seenShape, key);
        h.shape = parseShape();
      } else {
        fail(path_, "malformed npy header: unexpected key '" + key + "'");
      }
      if (!tryConsume(',')) {
        expect('}');
        break;
      }
    }
    skipSpace();
    if (pos_ != text_.size()) {
      malformed("unexpected text after the header dictionary");
    }
    for (auto [seen, key] : {std::pair{seenDescr, "descr"}, std::pair{seenOrder, "fortran_order"},
                             std::pair{seenShape, "shape"}}) {
      if (!seen) {
        fail(path_, std::string("malformed npy header: missing key '") + key + "'");
      }
    }
    return h;
  }

private:
  [[noreturn]] void malformed(const std::string& what) const {
    fail(path_, "malformed npy header: " + what + " at column " + std::to_string(pos_ + 1));
  }

  void markSeen(bool& seen, const std::string& key) const {
    if (seen) {
      fail(path_, "malformed npy header: duplicate key '" + key + "'");
    }
    seen = true;
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool tryConsume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!tryConsume(c)) {
      malformed(std::string("expected '") + c + "'");
    }
  }

  std::string parseString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      malformed("expected a string");
    }
    const char quote = text_[pos_];
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) {
      malformed("unterminated string");
    }
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    if (s.find('\\') != std::string::npos) {
      malformed("escape sequences are not supported");
    }
    pos_ = end + 1;
    return s;
  }

  bool parseBool() {
    skipSpace();
    for (auto [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    malformed("expected True or False");
  }

  int64_t parseDim() {
    skipSpace();
    const size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v)) {
        malformed("dimension too large");
      }
      ++pos_;
    }
    if (pos_ == start) {
      malformed("expected a non-negative integer dimension");
    }
    return v;
  }

  Dims parseShape() {
    expect('(');
    Dims dims;
    while (!tryConsume(')')) {
      dims.push_back(parseDim());
      if (!tryConsume(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

  const std::string& path_;
  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t readLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

} // namespace

Tensor readNpy(const std::string& path) {
  return parseNpy(readFileCapped(path, kMaxDataFileBytes, "npy file"), path);
}

Tensor parseNpy(std::string_view bytes, const std::string& path) {
  if (bytes.size() < kMagicSize || bytes.compare(0, kMagicSize, kMagic) != 0) {
    fail(path, "not an npy file (bad magic)");
  }
  if (bytes.size() < kPreambleSize) {
    fail(path, "truncated npy header: file ends after the magic string");
  }
  const int major = static_cast<unsigned char>(bytes[kMagicSize]);
  const int minor = static_cast<unsigned char>(bytes[kMagicSize + 1]);
  if ((major != 1 && major != 2) || minor != 0) {
    fail(path, "unsupported npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (expected 1.0 or 2.0)");
  }
  const size_t lengthWidth = major == 1 ? 2 : 4;
  if (bytes.size() < kPreambleSize + lengthWidth) {
    fail(path, "truncated npy header: file ends inside the header length");
  }
  const size_t headerLength = readLittleEndian(bytes, kPreambleSize, lengthWidth);
  const size_t dataOffset = kPreambleSize + lengthWidth + headerLength;
  if (bytes.size() < dataOffset) {
    fail(path, "truncated npy header: header needs " + std::to_string(headerLength) +
                   " bytes, file has " +
                   std::to_string(bytes.size() - kPreambleSize - lengthWidth));
  }
  const NpyHeader header =
      HeaderParser(path, std::string_view(bytes).substr(kPreambleSize + lengthWidth, headerLength))
          .parse();
  const std::optional<DType> dtype = dtypeFromDescr(header.descr);
  if (!dtype) {
    fail(path, "unsupported npy dtype '" + header.descr +
                   "' (expected one of <f4, |i1, |u1, <i4, <i8, |b1)");
  }
  if (header.fortranOrder) {
    fail(path, "fortran-order npy arrays are not supported (save with numpy.ascontiguousarray)",
         ErrorKind::Unsupported);
  }
  // Check the size before allocating so a corrupt shape cannot request absurd memory.
  const size_t available = bytes.size() - dataOffset;
  uint64_t needed = dtypeSizeBytes(*dtype);
  for (int64_t d : header.shape) {
    if (__builtin_mul_overflow(needed, static_cast<uint64_t>(d), &needed)) {
      fail(path, "npy shape " + dimsToString(header.shape) + " is too large");
    }
  }
  if (needed != available) {
    fail(path, "npy data size mismatch: shape " + dimsToString(header.shape) + " of " +
                   std::string(dtypeName(*dtype)) + " needs " + std::to_string(needed) +
                   " bytes, file has " + std::to_string(available));
  }
  Tensor t(*dtype, header.shape);
  if (available != 0) {
    std::memcpy(t.rawData(), bytes.data() + dataOffset, available);
  }
  if (*dtype == DType::Bool) {
    for (size_t i = 0; i < available; ++i) {
      const auto byte = static_cast<unsigned char>(bytes[dataOffset + i]);
      if (byte > 1) {
        fail(path, "npy bool element " + std::to_string(i) + " has byte value " +
                       std::to_string(byte) + " (expected 0 or 1)");
      }
    }
  }
  return t;
}

void writeNpy(const std::string& path, const Tensor& t) {
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
  }
  shape += t.shape().size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descrOf(t.dtype()) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and a final newline so the data starts on a 64-byte boundary (as numpy).
  const size_t prefix = kPreambleSize + 2;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  NNACCEL_ASSERT(header.size() <= 0xffff) << "npy header too long for version 1.0";
  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  FilePtr f(std::fopen(path.c_str(), "wb"));
  if (!f) {
    fail(path, std::string("cannot open file for writing (") + std::strerror(errno) + ")");
  }
  const bool ok =
      std::fwrite(out.data(), 1, out.size(), f.get()) == out.size() &&
      (t.sizeBytes() == 0 || std::fwrite(t.rawData(), 1, t.sizeBytes(), f.get()) == t.sizeBytes());
  const bool closed = std::fclose(f.release()) == 0;
  if (!ok || !closed) {
    fail(path, std::string("write error (") + std::strerror(errno) + ")");
  }
}

} // namespace nnaccel
