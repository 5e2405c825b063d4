/// \file
/// Patent model. This is an executable model of seed 001's Fig. 4B (¶0120-0123), kept to check
/// the text's worked example (PatentVectors.Fig4bTileStream). The sparse engine does not use it:
/// its compiler keeps each (group, plane)'s entries coded with the configured code table
/// (formats/PositionCodec.h) and only charges this stream's size formula, with 16-bit header
/// fields (WeightGroup::streamBits); its simulator works on the decoded entries. No tile is ever
/// serialised.
///
/// The weight tile stream of seed 001 (digest §3.2, Fig. 4B, ¶0120-0123): how one output-
/// channel group's weights sit in DRAM. The stream is
///   K, k_1 .. k_K, C                                   (tile header)
///   per non-empty input channel c, ascending:
///     delta_c = c - c_prev - 1 (c_prev = -1 at first)  (empty channels are skipped)
///     count   = entries of the channel, pads included
///     count x (zero count, value)                      in kernel order: k_1's S x R kernel
///                                                      raster (r fastest), then k_2's, ...
/// Runs cross kernel boundaries and restart in each input channel; trailing zeros are not coded;
/// a run longer than 2^indexBits - 1 gets zero-valued pads (ZeroRunLength.h).
///
/// Three views: the dense tile (WeightTile), the coded tile (CodedWeightTile: per-channel
/// entries, what the engine's count RAMs and weight FIFOs hold), and two serialisations of the
/// coded tile: the symbolic stream (exactly the patent's printed numbers) and a packed binary
/// form with documented field widths (WeightTileFormat) whose size in bits the engine charges
/// as DRAM traffic.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace nnaccel::arch::sparse::patent {

/// One dense weight tile: the kernels of a group of output channels over all input channels.
struct WeightTile {
  std::vector<int64_t> outputChannels; ///< k_1 .. k_K, absolute output-channel numbers
  int64_t inputChannels = 0;           ///< C
  int64_t kernelR = 0;                 ///< kernel width R (the fast axis r)
  int64_t kernelS = 0;                 ///< kernel height S
  std::vector<int32_t> weights;        ///< [c][k][s][r]: C * K * S * R values

  int64_t kernelElements() const { return kernelR * kernelS; }
  /// Dense values of input channel c: K kernels of S x R, in stream order.
  int64_t channelElements() const {
    return static_cast<int64_t>(outputChannels.size()) * kernelElements();
  }
  /// Index of weight (c, k, s, r) in \c weights; k is the position within outputChannels.
  size_t index(int64_t c, int64_t k, int64_t s, int64_t r) const {
    return static_cast<size_t>(
        ((c * static_cast<int64_t>(outputChannels.size()) + k) * kernelS + s) * kernelR + r);
  }
  int32_t& at(int64_t c, int64_t k, int64_t s, int64_t r) { return weights[index(c, k, s, r)]; }
  int32_t at(int64_t c, int64_t k, int64_t s, int64_t r) const {
    return weights[index(c, k, s, r)];
  }
  bool operator==(const WeightTile&) const = default;
};

/// The coded entries of one non-empty input channel.
struct CodedWeightChannel {
  int64_t inputChannel = 0;         ///< absolute input channel c
  std::vector<uint16_t> zeroCounts; ///< zeros before each entry
  std::vector<int32_t> values;      ///< entry values; 0 = pad
  bool operator==(const CodedWeightChannel&) const = default;
};

/// A tile after zero-run-length coding: what the stream serialises.
struct CodedWeightTile {
  std::vector<int64_t> outputChannels;      ///< k_1 .. k_K
  int64_t inputChannels = 0;                ///< C
  std::vector<CodedWeightChannel> channels; ///< non-empty input channels, ascending
  /// Entries of input channel c (pads included); 0 for an empty channel.
  int64_t entries(int64_t inputChannel) const;
  bool operator==(const CodedWeightTile&) const = default;
};

/// Codes \p tile with \p indexBits-bit zero counts (pads for longer runs). Throws
/// nnaccel::Error (Usage) when the tile's sizes are inconsistent or indexBits is not in [1, 16].
CodedWeightTile compressWeightTile(const WeightTile& tile, int indexBits = 4);
/// The dense tile back, given the kernel size (not in the stream). Throws nnaccel::Error
/// (Model) when entries run past a channel or a channel is out of range.
WeightTile expandWeightTile(const CodedWeightTile& coded, int64_t kernelR, int64_t kernelS);

/// The symbolic stream (the numbers printed in Fig. 4B).
std::vector<int64_t> toSymbols(const CodedWeightTile& coded);
/// Parses a symbolic stream. Throws nnaccel::Error (Model) for a truncated stream, negative
/// fields, channels past C, or zero counts above 65535.
CodedWeightTile fromSymbols(std::span<const int64_t> symbols);

/// Convenience: toSymbols(compressWeightTile(tile, indexBits)).
std::vector<int64_t> encodeWeightTileSymbols(const WeightTile& tile, int indexBits = 4);
/// Convenience: expandWeightTile(fromSymbols(symbols), kernelR, kernelS).
WeightTile decodeWeightTileSymbols(std::span<const int64_t> symbols, int64_t kernelR,
                                   int64_t kernelS);

/// Field widths of the packed form. Every field is an unsigned little-endian bit field, packed
/// LSB-first into bytes (bit i of the stream is bit i % 8 of byte i / 8), in stream order:
/// headerBits for K, each k_i, C, and each channel's delta and count; indexBits for a zero
/// count; valueBits for a value (two's complement).
struct WeightTileFormat {
  int headerBits = 16; ///< [1, 32]
  int indexBits = 4;   ///< [1, 16]
  int valueBits = 8;   ///< [2, 32]
};

/// The packed stream; \c bits is its exact length (the last byte is zero-padded).
struct PackedWeightTile {
  std::vector<uint8_t> bytes;
  int64_t bits = 0;
};

/// Size in bits of the packed form of \p coded (without packing it).
int64_t packedBits(const CodedWeightTile& coded, const WeightTileFormat& format);
/// Packs \p coded. Throws nnaccel::Error (Usage) for bad widths, or a field or value that does
/// not fit its width.
PackedWeightTile pack(const CodedWeightTile& coded, const WeightTileFormat& format);
/// Unpacks a stream written by pack() with the same format. Throws nnaccel::Error (Model) for
/// a truncated or inconsistent stream.
CodedWeightTile unpack(const PackedWeightTile& packed, const WeightTileFormat& format);

} // namespace nnaccel::arch::sparse::patent
