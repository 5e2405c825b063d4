/// \file
/// Patent model (see ZeroRunLength.h): an executable model of the patent kept to check the text's
/// worked examples; the sparse engine's compiler and simulator do not use it.
///
/// Zero-run-length data/index vectors (digest §3.1): the per-channel coder shared with the
/// weight tile stream, and the tensor-level encoder/decoder.
#include "nnaccel/arch/sparse/patent/ZeroRunLength.h"

#include "KeyedError.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>

namespace nnaccel::arch::sparse::patent {

namespace {

using detail::error;

} // namespace

int32_t maxZeroRun(int indexBits) {
  if (indexBits < 1 || indexBits > 16) {
    throw error(ErrorKind::Usage, "indexBits",
                fmt::format("index width must be in [1, 16] bits, got {}", indexBits));
  }
  return static_cast<int32_t>((int64_t{1} << indexBits) - 1);
}

int64_t appendZeroRuns(std::span<const int32_t> dense, int32_t maxRun, std::vector<int32_t>& data,
                       std::vector<uint16_t>& index) {
  NNACCEL_ASSERT(maxRun >= 1 && maxRun <= 0xFFFF) << "bad maxRun " << maxRun;
  int64_t appended = 0;
  int64_t run = 0;
  for (const int32_t value : dense) {
    if (value == 0) {
      ++run;
      continue;
    }
    while (run > maxRun) { // a pad stands for maxRun zeros and one zero-valued element
      data.push_back(0);
      index.push_back(static_cast<uint16_t>(maxRun));
      run -= int64_t{maxRun} + 1;
      ++appended;
    }
    data.push_back(value);
    index.push_back(static_cast<uint16_t>(run));
    run = 0;
    ++appended;
  }
  return appended;
}

void expandZeroRuns(std::span<const int32_t> data, std::span<const uint16_t> index,
                    std::span<int32_t> dense) {
  NNACCEL_ASSERT(data.size() == index.size()) << "data/index length mismatch";
  int64_t pos = -1;
  const auto size = static_cast<int64_t>(dense.size());
  for (size_t i = 0; i < data.size(); ++i) {
    pos += int64_t{index[i]} + 1;
    if (pos >= size) {
      throw error(
          ErrorKind::Model, "index",
          fmt::format("entry {} decodes to element {} past the channel end {}", i, pos, size));
    }
    dense[static_cast<size_t>(pos)] = data[i];
  }
}

int64_t ZeroRunLengthVectors::storageBits(int valueBits) const {
  return static_cast<int64_t>(data.size()) * (valueBits + indexBits);
}

ZeroRunLengthVectors encodeZeroRunLength(std::span<const int32_t> dense, int64_t channels,
                                         int indexBits) {
  const int32_t maxRun = maxZeroRun(indexBits);
  const auto total = static_cast<int64_t>(dense.size());
  if (channels <= 0 || total % channels != 0) {
    throw error(ErrorKind::Usage, "channels",
                fmt::format("{} channels do not divide {} elements", channels, total));
  }
  ZeroRunLengthVectors out;
  out.indexBits = indexBits;
  out.channelElements = total / channels;
  out.channelCounts.reserve(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    out.channelCounts.push_back(
        appendZeroRuns(dense.subspan(static_cast<size_t>(c * out.channelElements),
                                     static_cast<size_t>(out.channelElements)),
                       maxRun, out.data, out.index));
  }
  return out;
}

std::vector<int32_t> decodeZeroRunLength(const ZeroRunLengthVectors& vectors) {
  int64_t entries = 0;
  for (const int64_t count : vectors.channelCounts) {
    if (count < 0) {
      throw error(ErrorKind::Model, "channelCounts", "negative channel count");
    }
    entries += count;
  }
  if (vectors.data.size() != vectors.index.size() ||
      entries != static_cast<int64_t>(vectors.data.size()) || vectors.channelElements < 0) {
    throw error(ErrorKind::Model, "channelCounts",
                fmt::format("{} data, {} index entries but channel counts sum to {}",
                            vectors.data.size(), vectors.index.size(), entries));
  }
  const auto channels = static_cast<int64_t>(vectors.channelCounts.size());
  std::vector<int32_t> dense(static_cast<size_t>(channels * vectors.channelElements), 0);
  size_t first = 0;
  for (int64_t c = 0; c < channels; ++c) {
    const auto count = static_cast<size_t>(vectors.channelCounts[static_cast<size_t>(c)]);
    expandZeroRuns(std::span(vectors.data).subspan(first, count),
                   std::span(vectors.index).subspan(first, count),
                   std::span(dense).subspan(static_cast<size_t>(c * vectors.channelElements),
                                            static_cast<size_t>(vectors.channelElements)));
    first += count;
  }
  return dense;
}

} // namespace nnaccel::arch::sparse::patent
