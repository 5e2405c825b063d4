/// \file
/// Patent model. This is an executable model of seed 001's Fig. 3B (data and index vectors),
/// kept to check the text's worked examples (PatentVectors.Fig3bDataAndIndexVectors). The sparse
/// engine does not use it: its compiler and simulator code zero runs with the position codec's
/// plain zrlN table (formats/CodeTable.h, formats/PositionCodec.h), which this model equals
/// (ZeroRunLength.SameAsThePlainRunTableOfThePositionCodec). Only the patent model of the weight
/// tile stream (WeightTileStream.h) reuses its per-channel coder.
///
/// The basic compressed-sparse form of seed 001 (digest §3.1, Fig. 3B): a data vector of the
/// non-zero values and an index vector holding, for each, the number of zeros since the
/// previous one. Index entries are indexBits wide (4 in the patent); a run longer than
/// 2^indexBits - 1 zeros is broken by zero-valued pad entries. Runs restart in every channel,
/// trailing zeros of a channel are not coded, and each channel has a count of its entries
/// (pads included). The weight tile stream (WeightTileStream.h) reuses the per-channel coder.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace nnaccel::arch::sparse::patent {

/// The largest zero count an index of \p indexBits bits holds: 2^indexBits - 1. Throws
/// nnaccel::Error (Usage) unless indexBits is in [1, 16].
int32_t maxZeroRun(int indexBits);

/// Run-length codes one channel of \p dense values, appending to \p data and \p index.
/// A run of more than maxRun zeros emits (maxRun, 0) pads, each standing for maxRun zeros plus
/// one zero-valued element. Returns the number of entries appended (pads included).
int64_t appendZeroRuns(std::span<const int32_t> dense, int32_t maxRun, std::vector<int32_t>& data,
                       std::vector<uint16_t>& index);

/// Expands \p data / \p index entries back into \p dense (which must be zero-filled by the
/// caller and exactly one channel long). Throws nnaccel::Error (Model) when the entries run
/// past the end of \p dense.
void expandZeroRuns(std::span<const int32_t> data, std::span<const uint16_t> index,
                    std::span<int32_t> dense);

/// The data and index vectors of a tensor split into channels of equal size.
struct ZeroRunLengthVectors {
  int indexBits = 4;
  int64_t channelElements = 0;        ///< dense elements per channel
  std::vector<int32_t> data;          ///< values in scan order; 0 = pad
  std::vector<uint16_t> index;        ///< zero count before each entry
  std::vector<int64_t> channelCounts; ///< entries per channel, pads included
  /// Bits of the data and index vectors: entries * (valueBits + indexBits); the per-channel
  /// counts are kept in a separate count RAM and not included.
  int64_t storageBits(int valueBits) const;
};

/// Encodes \p dense (channels x channelElements, channel-major) with runs restarting in each
/// channel. \p channels must be positive and divide dense.size() (else nnaccel::Error, Usage).
ZeroRunLengthVectors encodeZeroRunLength(std::span<const int32_t> dense, int64_t channels,
                                         int indexBits = 4);

/// The dense tensor back (channels * channelElements values). Throws nnaccel::Error (Model)
/// for inconsistent vectors.
std::vector<int32_t> decodeZeroRunLength(const ZeroRunLengthVectors& vectors);

} // namespace nnaccel::arch::sparse::patent
