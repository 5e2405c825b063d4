/// \file
/// Patent model (see WeightTileStream.h): an executable model of the patent kept to check the
/// text's worked examples; the sparse engine's compiler and simulator do not use it.
///
/// The Fig. 4B weight tile stream: coding a dense tile per input channel (through the shared
/// zero-run coder of ZeroRunLength.h), and its symbolic and packed serialisations.
#include "nnaccel/arch/sparse/patent/WeightTileStream.h"

#include "KeyedError.h"
#include "nnaccel/arch/sparse/patent/ZeroRunLength.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <limits>

namespace nnaccel::arch::sparse::patent {

namespace {

using detail::error;

/// Appends unsigned bit fields LSB-first.
class BitWriter {
public:
  explicit BitWriter(int64_t reserveBits) {
    bytes_.reserve(static_cast<size_t>((reserveBits + 7) / 8));
  }
  void put(uint64_t value, int width) {
    for (int i = 0; i < width; ++i, ++bits_) {
      if (bits_ % 8 == 0) {
        bytes_.push_back(0);
      }
      if ((value >> i) & 1U) {
        bytes_.back() = static_cast<uint8_t>(bytes_.back() | (1U << (bits_ % 8)));
      }
    }
  }
  PackedWeightTile finish() && { return PackedWeightTile{std::move(bytes_), bits_}; }

private:
  std::vector<uint8_t> bytes_;
  int64_t bits_ = 0;
};

/// Reads unsigned bit fields LSB-first, bounded by the stream's bit length.
class BitReader {
public:
  explicit BitReader(const PackedWeightTile& packed) : packed_(packed) {
    if (packed.bits < 0 || packed.bits > static_cast<int64_t>(packed.bytes.size()) * 8) {
      throw error(ErrorKind::Model, "bits",
                  fmt::format("packed tile claims {} bits but holds {} bytes", packed.bits,
                              packed.bytes.size()));
    }
  }
  bool atEnd() const { return pos_ == packed_.bits; }
  uint64_t get(int width, const char* field) {
    if (packed_.bits - pos_ < width) {
      throw error(ErrorKind::Model, field,
                  fmt::format("packed weight tile truncated: {} needs {} bits at bit {} of {}",
                              field, width, pos_, packed_.bits));
    }
    uint64_t value = 0;
    for (int i = 0; i < width; ++i, ++pos_) {
      const auto byte = packed_.bytes[static_cast<size_t>(pos_ / 8)];
      value |= static_cast<uint64_t>((byte >> (pos_ % 8)) & 1U) << i;
    }
    return value;
  }

private:
  const PackedWeightTile& packed_;
  int64_t pos_ = 0;
};

void checkFormat(const WeightTileFormat& format) {
  if (format.headerBits < 1 || format.headerBits > 32) {
    throw error(
        ErrorKind::Usage, "headerBits",
        fmt::format("header field width must be in [1, 32] bits, got {}", format.headerBits));
  }
  maxZeroRun(format.indexBits); // validates indexBits
  if (format.valueBits < 2 || format.valueBits > 32) {
    throw error(ErrorKind::Usage, "valueBits",
                fmt::format("value width must be in [2, 32] bits, got {}", format.valueBits));
  }
}

uint64_t headerField(int64_t value, const WeightTileFormat& format, const char* field) {
  if (value < 0 || value >= (int64_t{1} << format.headerBits)) {
    throw error(
        ErrorKind::Usage, field,
        fmt::format("{} = {} does not fit a {}-bit header field", field, value, format.headerBits));
  }
  return static_cast<uint64_t>(value);
}

/// A stream of int64 symbols with bounds-checked reads (for fromSymbols).
class SymbolReader {
public:
  explicit SymbolReader(std::span<const int64_t> symbols) : symbols_(symbols) {}
  bool atEnd() const { return pos_ == symbols_.size(); }
  int64_t get(const char* field, int64_t lo, int64_t hi) {
    if (pos_ == symbols_.size()) {
      throw error(
          ErrorKind::Model, field,
          fmt::format("weight tile stream truncated: {} expected at symbol {}", field, pos_));
    }
    const int64_t value = symbols_[pos_];
    if (value < lo || value > hi) {
      throw error(
          ErrorKind::Model, field,
          fmt::format("{} = {} at symbol {} is outside [{}, {}]", field, value, pos_, lo, hi));
    }
    ++pos_;
    return value;
  }
  int64_t header(const char* field, int64_t lo, int64_t hi) { return get(field, lo, hi); }
  int64_t zeroCount() { return get("zero count", 0, 0xFFFF); }
  int64_t value() {
    return get("value", std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  }

private:
  std::span<const int64_t> symbols_;
  size_t pos_ = 0;
};

constexpr int64_t kMaxField = std::numeric_limits<int64_t>::max();

/// Reads a coded tile from any field source with header(field, lo, hi), zeroCount(), value()
/// and atEnd(): the one parser shared by the symbolic and the packed forms.
template <typename Reader> CodedWeightTile readCoded(Reader& in) {
  CodedWeightTile coded;
  const int64_t outputs = in.header("K", 0, kMaxField);
  for (int64_t i = 0; i < outputs; ++i) {
    coded.outputChannels.push_back(in.header("k_i", 0, kMaxField));
  }
  coded.inputChannels = in.header("C", 0, kMaxField);
  int64_t previous = -1;
  while (!in.atEnd()) {
    CodedWeightChannel channel;
    const int64_t delta = in.header("delta_c", 0, coded.inputChannels - previous - 2);
    channel.inputChannel = previous + delta + 1;
    previous = channel.inputChannel;
    const int64_t count = in.header("count", 0, kMaxField);
    for (int64_t i = 0; i < count; ++i) {
      channel.zeroCounts.push_back(static_cast<uint16_t>(in.zeroCount()));
      channel.values.push_back(static_cast<int32_t>(in.value()));
    }
    coded.channels.push_back(std::move(channel));
  }
  return coded;
}

/// Adapts BitReader to readCoded's interface (field widths from the format).
class PackedFieldReader {
public:
  PackedFieldReader(const PackedWeightTile& packed, const WeightTileFormat& format)
      : bits_(packed), format_(format) {}
  bool atEnd() const { return bits_.atEnd(); }
  int64_t header(const char* field, int64_t lo, int64_t hi) {
    const auto value = static_cast<int64_t>(bits_.get(format_.headerBits, field));
    if (value < lo || value > hi) {
      throw error(
          ErrorKind::Model, field,
          fmt::format("packed weight tile: {} = {} is outside [{}, {}]", field, value, lo, hi));
    }
    return value;
  }
  int64_t zeroCount() { return static_cast<int64_t>(bits_.get(format_.indexBits, "zero count")); }
  int64_t value() { // sign-extended two's complement
    const uint64_t raw = bits_.get(format_.valueBits, "value");
    const uint64_t sign = uint64_t{1} << (format_.valueBits - 1);
    return static_cast<int64_t>(raw ^ sign) - static_cast<int64_t>(sign);
  }

private:
  BitReader bits_;
  const WeightTileFormat& format_;
};

} // namespace

int64_t CodedWeightTile::entries(int64_t inputChannel) const {
  for (const CodedWeightChannel& channel : channels) {
    if (channel.inputChannel == inputChannel) {
      return static_cast<int64_t>(channel.values.size());
    }
  }
  return 0;
}

CodedWeightTile compressWeightTile(const WeightTile& tile, int indexBits) {
  const int32_t maxRun = maxZeroRun(indexBits);
  if (tile.inputChannels < 0 || tile.kernelR < 1 || tile.kernelS < 1 ||
      static_cast<int64_t>(tile.weights.size()) != tile.inputChannels * tile.channelElements()) {
    throw error(ErrorKind::Usage, "weights",
                fmt::format("weight tile of C={} K={} S={} R={} needs {} values, has {}",
                            tile.inputChannels, tile.outputChannels.size(), tile.kernelS,
                            tile.kernelR, tile.inputChannels * tile.channelElements(),
                            tile.weights.size()));
  }
  CodedWeightTile coded;
  coded.outputChannels = tile.outputChannels;
  coded.inputChannels = tile.inputChannels;
  const auto channelSize = static_cast<size_t>(tile.channelElements());
  for (int64_t c = 0; c < tile.inputChannels; ++c) {
    CodedWeightChannel channel;
    channel.inputChannel = c;
    appendZeroRuns(
        std::span(tile.weights).subspan(static_cast<size_t>(c) * channelSize, channelSize), maxRun,
        channel.values, channel.zeroCounts);
    if (!channel.values.empty()) {
      coded.channels.push_back(std::move(channel));
    }
  }
  return coded;
}

WeightTile expandWeightTile(const CodedWeightTile& coded, int64_t kernelR, int64_t kernelS) {
  if (kernelR < 1 || kernelS < 1 || coded.inputChannels < 0) {
    throw error(
        ErrorKind::Usage, "kernel",
        fmt::format("bad weight tile shape C={} S={} R={}", coded.inputChannels, kernelS, kernelR));
  }
  WeightTile tile;
  tile.outputChannels = coded.outputChannels;
  tile.inputChannels = coded.inputChannels;
  tile.kernelR = kernelR;
  tile.kernelS = kernelS;
  tile.weights.assign(static_cast<size_t>(tile.inputChannels * tile.channelElements()), 0);
  const auto channelSize = static_cast<size_t>(tile.channelElements());
  int64_t previous = -1;
  for (const CodedWeightChannel& channel : coded.channels) {
    if (channel.inputChannel <= previous || channel.inputChannel >= coded.inputChannels ||
        channel.values.size() != channel.zeroCounts.size()) {
      throw error(ErrorKind::Model, "channels",
                  fmt::format("coded channel {} is out of order, out of range (C={}) or has "
                              "mismatched vectors",
                              channel.inputChannel, coded.inputChannels));
    }
    previous = channel.inputChannel;
    expandZeroRuns(
        channel.values, channel.zeroCounts,
        std::span(tile.weights)
            .subspan(static_cast<size_t>(channel.inputChannel) * channelSize, channelSize));
  }
  return tile;
}

std::vector<int64_t> toSymbols(const CodedWeightTile& coded) {
  std::vector<int64_t> symbols;
  symbols.push_back(static_cast<int64_t>(coded.outputChannels.size()));
  symbols.insert(symbols.end(), coded.outputChannels.begin(), coded.outputChannels.end());
  symbols.push_back(coded.inputChannels);
  int64_t previous = -1;
  for (const CodedWeightChannel& channel : coded.channels) {
    NNACCEL_ASSERT(channel.inputChannel > previous) << "coded channels out of order";
    symbols.push_back(channel.inputChannel - previous - 1);
    previous = channel.inputChannel;
    symbols.push_back(static_cast<int64_t>(channel.values.size()));
    for (size_t i = 0; i < channel.values.size(); ++i) {
      symbols.push_back(channel.zeroCounts[i]);
      symbols.push_back(channel.values[i]);
    }
  }
  return symbols;
}

CodedWeightTile fromSymbols(std::span<const int64_t> symbols) {
  SymbolReader reader(symbols);
  return readCoded(reader);
}

std::vector<int64_t> encodeWeightTileSymbols(const WeightTile& tile, int indexBits) {
  return toSymbols(compressWeightTile(tile, indexBits));
}

WeightTile decodeWeightTileSymbols(std::span<const int64_t> symbols, int64_t kernelR,
                                   int64_t kernelS) {
  return expandWeightTile(fromSymbols(symbols), kernelR, kernelS);
}

int64_t packedBits(const CodedWeightTile& coded, const WeightTileFormat& format) {
  checkFormat(format);
  int64_t bits = format.headerBits * (2 + static_cast<int64_t>(coded.outputChannels.size()));
  for (const CodedWeightChannel& channel : coded.channels) {
    bits += 2 * format.headerBits +
            static_cast<int64_t>(channel.values.size()) * (format.indexBits + format.valueBits);
  }
  return bits;
}

PackedWeightTile pack(const CodedWeightTile& coded, const WeightTileFormat& format) {
  BitWriter out(packedBits(coded, format)); // validates the format
  const int64_t maxRun = maxZeroRun(format.indexBits);
  const int64_t valueLimit = int64_t{1} << (format.valueBits - 1);
  const uint64_t valueMask = (uint64_t{1} << format.valueBits) - 1;
  out.put(headerField(static_cast<int64_t>(coded.outputChannels.size()), format, "K"),
          format.headerBits);
  for (const int64_t k : coded.outputChannels) {
    out.put(headerField(k, format, "k_i"), format.headerBits);
  }
  out.put(headerField(coded.inputChannels, format, "C"), format.headerBits);
  int64_t previous = -1;
  for (const CodedWeightChannel& channel : coded.channels) {
    NNACCEL_ASSERT(channel.inputChannel > previous) << "coded channels out of order";
    out.put(headerField(channel.inputChannel - previous - 1, format, "delta_c"), format.headerBits);
    previous = channel.inputChannel;
    out.put(headerField(static_cast<int64_t>(channel.values.size()), format, "count"),
            format.headerBits);
    for (size_t i = 0; i < channel.values.size(); ++i) {
      if (channel.zeroCounts[i] > maxRun) {
        throw error(ErrorKind::Usage, "indexBits",
                    fmt::format("zero count {} of input channel {} does not fit {} index bits",
                                channel.zeroCounts[i], channel.inputChannel, format.indexBits));
      }
      const int64_t value = channel.values[i];
      if (value < -valueLimit || value >= valueLimit) {
        throw error(ErrorKind::Usage, "valueBits",
                    fmt::format("weight {} of input channel {} does not fit {} value bits", value,
                                channel.inputChannel, format.valueBits));
      }
      out.put(channel.zeroCounts[i], format.indexBits);
      out.put(static_cast<uint64_t>(value) & valueMask, format.valueBits);
    }
  }
  return std::move(out).finish();
}

CodedWeightTile unpack(const PackedWeightTile& packed, const WeightTileFormat& format) {
  checkFormat(format);
  PackedFieldReader reader(packed, format);
  return readCoded(reader);
}

} // namespace nnaccel::arch::sparse::patent
