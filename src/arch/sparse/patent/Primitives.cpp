/// \file
/// Patent model (see Primitives.h): an executable model of the patent kept to check the text's
/// worked examples; the sparse engine's compiler and simulator do not use it.
///
/// The four primitive instructions of seed 001 (encode sparse data, calculate index, multiply
/// pairs, scatter-add) and the Table 14 sparse-convolution program built from them. The
/// choices the patent leaves open are documented in Primitives.h.
#include "nnaccel/arch/sparse/patent/Primitives.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <string_view>

namespace nnaccel::arch::sparse::patent {

using formats::CodedEntry;
using formats::CodeTable;
using formats::encodePositions;
using formats::Frame;
using formats::Position;
using formats::PositionDecoder;

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

[[noreturn]] void usage(std::string reason) {
  throw Error(ErrorKind::Usage, ErrorContext{}, std::move(reason));
}

/// Checks a register width and that an operand fits it.
void checkLanes(std::string_view instruction, std::string_view operand, size_t valid, int lanes) {
  if (lanes < 1) {
    usage(fmt::format("{}: the {} register has {} lanes, expected at least 1", instruction, operand,
                      lanes));
  }
  if (valid > static_cast<size_t>(lanes)) {
    usage(fmt::format("{}: the {} operand has {} values but its register only {} lanes",
                      instruction, operand, valid, lanes));
  }
}

void checkEncodeConfig(const EncodeSparseConfig& config) {
  if (config.lanes < 1) {
    usage(fmt::format("encode sparse data: lanes = {}, expected at least 1", config.lanes));
  }
  if (config.indexBits < 1 || config.indexBits > 16) {
    usage(fmt::format("encode sparse data: indexBits = {}, expected 1 to 16", config.indexBits));
  }
}

/// An empty Cartesian-product register of the given shape.
PairVector makePairVector(int weightLanes, size_t validWeights, int activationLanes,
                          size_t validActivations) {
  PairVector v;
  v.weightLanes = weightLanes;
  v.activationLanes = activationLanes;
  v.validWeights = static_cast<int>(validWeights);
  v.validActivations = static_cast<int>(validActivations);
  v.lanes.assign(static_cast<size_t>(weightLanes) * static_cast<size_t>(activationLanes), 0);
  return v;
}

/// Table 13 on lanes selected by \p valid (masked lanes: no request and no range check).
template <typename ValidFn>
void scatterLanes(std::span<int32_t> accumulator, std::span<const int32_t> indices,
                  std::span<const int32_t> scalars, ValidFn valid, PrimitiveCounts* counts) {
  const auto size = static_cast<int64_t>(accumulator.size());
  // Check every lane first so that a failing instruction leaves the accumulator unchanged.
  for (size_t j = 0; j < indices.size(); ++j) {
    if (valid(j) && (indices[j] < 0 || indices[j] >= size)) {
      usage(fmt::format("scatter-add lane {}: index {} is outside the accumulator [0, {})", j,
                        indices[j], size));
    }
  }
  PrimitiveCounts local;
  local.scatterAddCalls = 1;
  for (size_t j = 0; j < indices.size(); ++j) {
    if (!valid(j)) {
      ++local.maskedLanes;
      continue;
    }
    if (scalars[j] == 0) {
      ++local.zeroValueLanes;
      continue;
    }
    // A 32-bit adder: wraps modulo 2^32 instead of overflowing (no UB).
    int32_t& target = accumulator[static_cast<size_t>(indices[j])];
    target =
        static_cast<int32_t>(static_cast<uint32_t>(target) + static_cast<uint32_t>(scalars[j]));
    ++local.scatterRequests;
  }
  if (counts != nullptr) {
    *counts += local;
  }
}

/// Decodes the index lanes of one CalculateIndices operand, advancing \p state.
std::vector<Position> decodeOperand(std::span<const int32_t> indices, PositionDecoder& state,
                                    std::string_view operand) {
  std::vector<Position> positions;
  positions.reserve(indices.size());
  for (size_t j = 0; j < indices.size(); ++j) {
    const int32_t code = indices[j];
    if (code < 0 || code > std::numeric_limits<uint16_t>::max()) {
      usage(fmt::format("calculate index: {} lane {}: index {} is not a code number (0 to 65535)",
                        operand, j, code));
    }
    try {
      positions.push_back(state.next(static_cast<uint16_t>(code)));
    } catch (const Error& e) {
      throw Error(e.kind(), e.context(),
                  fmt::format("calculate index: {} lane {}: {}", operand, j, e.reason()));
    }
  }
  return positions;
}

} // namespace

PrimitiveCounts& PrimitiveCounts::operator+=(const PrimitiveCounts& other) {
  encodeSparseCalls += other.encodeSparseCalls;
  multiplyPairsCalls += other.multiplyPairsCalls;
  calculateIndexCalls += other.calculateIndexCalls;
  scatterAddCalls += other.scatterAddCalls;
  products += other.products;
  addresses += other.addresses;
  maskedLanes += other.maskedLanes;
  zeroValueLanes += other.zeroValueLanes;
  scatterRequests += other.scatterRequests;
  return *this;
}

// --- Encode sparse data ------------------------------------------------------------------------

EncodeSparseRegisters::EncodeSparseRegisters(int lanes) {
  if (lanes < 1) {
    usage(fmt::format("encode sparse data: lanes = {}, expected at least 1", lanes));
  }
  const auto n = static_cast<size_t>(lanes);
  a.assign(n, 0);
  b.assign(n, 0);
  ax.assign(n, 0);
  bx.assign(n, 0);
}

void encodeSparseStep(EncodeSparseRegisters& regs, const EncodeSparseConfig& config,
                      std::span<const int32_t> input, int64_t inputIndex, PrimitiveCounts* counts) {
  checkEncodeConfig(config);
  const auto lanes = static_cast<size_t>(config.lanes);
  if (regs.a.size() != lanes || regs.b.size() != lanes || regs.ax.size() != lanes ||
      regs.bx.size() != lanes) {
    usage(fmt::format("encode sparse data: the A/B/AX/BX registers have {} lanes, the "
                      "configuration {}",
                      regs.a.size(), lanes));
  }
  if (input.size() > lanes) {
    usage(fmt::format("encode sparse data: the input word has {} values but I only {} lanes",
                      input.size(), lanes));
  }
  if (regs.g < 0 || static_cast<size_t>(regs.g) > 2 * lanes) {
    usage(fmt::format("encode sparse data: G = {} is outside [0, {}]", regs.g, 2 * lanes));
  }
  if (config.encoding == IndexEncoding::Direct &&
      (inputIndex < 0 || inputIndex + static_cast<int64_t>(input.size()) - 1 > kInt32Max)) {
    usage(fmt::format("encode sparse data: direct index IX = {} is outside [0, 2^31)", inputIndex));
  }
  const int32_t maxRun = (int32_t{1} << config.indexBits) - 1;

  EncodeSparseRegisters next = regs; // committed only if the whole word fits
  int64_t outputs = 0;
  auto emit = [&](int32_t value, int32_t index) {
    const auto slot = static_cast<size_t>(next.g);
    if (slot >= 2 * lanes) {
      usage(fmt::format("encode sparse data: output {} would overflow B (G = {}); store A/AX "
                        "while G >= {} before the next instruction",
                        outputs, regs.g, lanes));
    }
    if (slot < lanes) {
      next.a[slot] = value;
      next.ax[slot] = index;
    } else {
      next.b[slot - lanes] = value;
      next.bx[slot - lanes] = index;
    }
    ++next.g;
    ++outputs;
  };
  for (size_t j = 0; j < input.size(); ++j) {
    if (input[j] != 0) {
      if (config.encoding == IndexEncoding::Direct) {
        emit(input[j], static_cast<int32_t>(inputIndex + static_cast<int64_t>(j)));
      } else {
        emit(input[j], next.zeroRun);
        next.zeroRun = 0;
      }
    } else if (config.encoding == IndexEncoding::ZeroCount) {
      if (next.zeroRun == maxRun) {
        emit(0, maxRun); // this zero becomes a zero-valued pad entry
        next.zeroRun = 0;
      } else {
        ++next.zeroRun;
      }
    }
  }
  regs = std::move(next);
  if (counts != nullptr) {
    ++counts->encodeSparseCalls;
  }
}

bool encodeSparseFull(const EncodeSparseRegisters& regs) {
  return static_cast<size_t>(std::max(regs.g, 0)) >= regs.a.size();
}

SparseVector encodeSparseStore(EncodeSparseRegisters& regs) {
  const auto lanes = regs.a.size();
  const size_t n = std::min(static_cast<size_t>(std::max(regs.g, 0)), lanes);
  SparseVector word;
  word.values.assign(regs.a.begin(), regs.a.begin() + static_cast<std::ptrdiff_t>(n));
  word.indices.assign(regs.ax.begin(), regs.ax.begin() + static_cast<std::ptrdiff_t>(n));
  regs.a = regs.b;
  regs.ax = regs.bx;
  std::fill(regs.b.begin(), regs.b.end(), 0);
  std::fill(regs.bx.begin(), regs.bx.end(), 0);
  regs.g -= static_cast<int32_t>(n);
  return word;
}

std::vector<SparseVector> encodeSparseVectors(std::span<const int32_t> scalars,
                                              const EncodeSparseConfig& config,
                                              PrimitiveCounts* counts) {
  checkEncodeConfig(config);
  const auto lanes = static_cast<size_t>(config.lanes);
  EncodeSparseRegisters regs(config.lanes);
  std::vector<SparseVector> words;
  for (size_t start = 0; start < scalars.size(); start += lanes) {
    const size_t n = std::min(lanes, scalars.size() - start);
    encodeSparseStep(regs, config, scalars.subspan(start, n), static_cast<int64_t>(start), counts);
    if (encodeSparseFull(regs)) {
      words.push_back(encodeSparseStore(regs));
    }
  }
  if (regs.g > 0) {
    words.push_back(encodeSparseStore(regs)); // the final partial word
  }
  // Pads inside the trailing zero run encode nothing: drop them (trailing zeros are not coded).
  while (!words.empty()) {
    SparseVector& last = words.back();
    while (!last.values.empty() && last.values.back() == 0) {
      last.values.pop_back();
      last.indices.pop_back();
    }
    if (!last.values.empty()) {
      break;
    }
    words.pop_back();
  }
  return words;
}

SparseVector encodeSparse(std::span<const int32_t> scalars, const EncodeSparseConfig& config) {
  SparseVector all;
  for (const SparseVector& word : encodeSparseVectors(scalars, config)) {
    all.values.insert(all.values.end(), word.values.begin(), word.values.end());
    all.indices.insert(all.indices.end(), word.indices.begin(), word.indices.end());
  }
  return all;
}

SparseVector encodeSparseCoded(std::span<const int32_t> scalars, const CodeTable& table,
                               const Frame& frame) {
  if (frame.rMax < 1 || frame.sMax < 1) {
    usage(fmt::format("encode sparse data: frame rMax = {}, sMax = {}, expected positive",
                      frame.rMax, frame.sMax));
  }
  std::vector<Position> positions;
  std::vector<int32_t> values;
  const int64_t plane = frame.rMax * frame.sMax;
  for (size_t j = 0; j < scalars.size(); ++j) {
    if (scalars[j] == 0) {
      continue;
    }
    const auto index = static_cast<int64_t>(j);
    positions.push_back(
        Position{index % frame.rMax, (index / frame.rMax) % frame.sMax, index / plane});
    values.push_back(scalars[j]);
  }
  SparseVector out;
  for (const CodedEntry& entry : encodePositions(positions, values, table, frame)) {
    out.values.push_back(entry.value);
    out.indices.push_back(entry.code);
  }
  return out;
}

std::vector<SparseVector> splitIntoVectors(const SparseVector& vector, int lanes) {
  if (lanes < 1) {
    usage(fmt::format("split into vectors: lanes = {}, expected at least 1", lanes));
  }
  if (vector.values.size() != vector.indices.size()) {
    usage(fmt::format("split into vectors: {} values but {} indices", vector.values.size(),
                      vector.indices.size()));
  }
  std::vector<SparseVector> out;
  for (size_t start = 0; start < vector.values.size(); start += static_cast<size_t>(lanes)) {
    const size_t end = std::min(vector.values.size(), start + static_cast<size_t>(lanes));
    SparseVector& v = out.emplace_back();
    v.values.assign(vector.values.begin() + static_cast<std::ptrdiff_t>(start),
                    vector.values.begin() + static_cast<std::ptrdiff_t>(end));
    v.indices.assign(vector.indices.begin() + static_cast<std::ptrdiff_t>(start),
                     vector.indices.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return out;
}

// --- Multiply pairs and calculate index --------------------------------------------------------

PairVector multiplyPairs(std::span<const int32_t> weights, int weightLanes,
                         std::span<const int32_t> activations, int activationLanes,
                         PrimitiveCounts* counts) {
  checkLanes("multiply pairs", "weight", weights.size(), weightLanes);
  checkLanes("multiply pairs", "activation", activations.size(), activationLanes);
  auto checkValues = [](std::span<const int32_t> values, std::string_view operand) {
    for (size_t j = 0; j < values.size(); ++j) {
      if (values[j] < std::numeric_limits<int16_t>::min() ||
          values[j] > std::numeric_limits<int16_t>::max()) {
        usage(fmt::format("multiply pairs: {} lane {}: value {} does not fit 16 bits", operand, j,
                          values[j]));
      }
    }
  };
  checkValues(weights, "weight");
  checkValues(activations, "activation");
  PairVector p = makePairVector(weightLanes, weights.size(), activationLanes, activations.size());
  const auto f = static_cast<size_t>(weightLanes);
  for (size_t i = 0; i < activations.size(); ++i) {
    for (size_t w = 0; w < weights.size(); ++w) {
      p.lanes[w + i * f] = weights[w] * activations[i]; // t = f + i*F (Table 5)
    }
  }
  if (counts != nullptr) {
    ++counts->multiplyPairsCalls;
    counts->products += p.validCount();
  }
  return p;
}

PairVector linearIndices(std::span<const Position> weights, int weightLanes,
                         std::span<const Position> activations, int activationLanes,
                         const OutputFrame& frame, PrimitiveCounts* counts) {
  checkLanes("calculate index", "weight", weights.size(), weightLanes);
  checkLanes("calculate index", "activation", activations.size(), activationLanes);
  if (frame.maxXOa < 1 || frame.maxYOa < 1 || frame.maxXOa > kInt32Max ||
      frame.maxYOa > kInt32Max || frame.maxXOa * frame.maxYOa > kInt32Max) {
    usage(fmt::format("calculate index: output frame max_x_oa = {}, max_y_oa = {} must be "
                      "positive with a plane below 2^31",
                      frame.maxXOa, frame.maxYOa));
  }
  const int64_t plane = frame.maxXOa * frame.maxYOa;
  PairVector p = makePairVector(weightLanes, weights.size(), activationLanes, activations.size());
  const auto f = static_cast<size_t>(weightLanes);
  for (size_t i = 0; i < activations.size(); ++i) {
    for (size_t w = 0; w < weights.size(); ++w) {
      const size_t t = w + i * f;
      const int64_t x = weights[w].r + activations[i].r;
      const int64_t y = weights[w].s + activations[i].s;
      const int64_t k = weights[w].k;
      if (x < 0 || x >= frame.maxXOa || y < 0 || y >= frame.maxYOa || k < 0 || k > kInt32Max) {
        usage(fmt::format("calculate index lane {}: output position (x={}, y={}, k={}) is "
                          "outside the frame {}x{}",
                          t, x, y, k, frame.maxXOa, frame.maxYOa));
      }
      const int64_t address = x + y * frame.maxXOa + k * plane; // Eq. 1
      if (address > kInt32Max) {
        usage(fmt::format("calculate index lane {}: address {} does not fit 31 bits", t, address));
      }
      p.lanes[t] = static_cast<int32_t>(address);
    }
  }
  if (counts != nullptr) {
    counts->addresses += p.validCount();
  }
  return p;
}

CalculateIndexResult calculateIndices(std::span<const int32_t> weightIndices,
                                      const PositionDecoder& weightState, int weightLanes,
                                      std::span<const int32_t> activationIndices,
                                      const PositionDecoder& activationState, int activationLanes,
                                      const OutputFrame& frame, PrimitiveCounts* counts) {
  checkLanes("calculate index", "weight", weightIndices.size(), weightLanes);
  checkLanes("calculate index", "activation", activationIndices.size(), activationLanes);
  CalculateIndexResult result{PairVector{}, weightState, activationState};
  const std::vector<Position> weights = decodeOperand(weightIndices, result.weightState, "weight");
  const std::vector<Position> activations =
      decodeOperand(activationIndices, result.activationState, "activation");
  result.addresses =
      linearIndices(weights, weightLanes, activations, activationLanes, frame, counts);
  if (counts != nullptr) {
    ++counts->calculateIndexCalls;
  }
  return result;
}

// --- Scatter-add -------------------------------------------------------------------------------

void scatterAdd(std::span<int32_t> accumulator, std::span<const int32_t> indices,
                std::span<const int32_t> scalars, PrimitiveCounts* counts) {
  if (indices.size() != scalars.size()) {
    usage(fmt::format("scatter-add: {} indices but {} scalars", indices.size(), scalars.size()));
  }
  scatterLanes(
      accumulator, indices, scalars, [](size_t) { return true; }, counts);
}

void scatterAdd(std::span<int32_t> accumulator, const PairVector& addresses,
                const PairVector& products, PrimitiveCounts* counts) {
  auto shapeOf = [](const PairVector& v) {
    return fmt::format("{}x{} lanes ({}x{} valid, {} stored)", v.weightLanes, v.activationLanes,
                       v.validWeights, v.validActivations, v.lanes.size());
  };
  const bool consistent =
      addresses.weightLanes >= 1 && addresses.activationLanes >= 1 &&
      addresses.lanes.size() == static_cast<size_t>(addresses.weightLanes) *
                                    static_cast<size_t>(addresses.activationLanes);
  if (!consistent || addresses.weightLanes != products.weightLanes ||
      addresses.activationLanes != products.activationLanes ||
      addresses.validWeights != products.validWeights ||
      addresses.validActivations != products.validActivations ||
      addresses.lanes.size() != products.lanes.size()) {
    usage(fmt::format("scatter-add: the address register has {}, the product register {}",
                      shapeOf(addresses), shapeOf(products)));
  }
  scatterLanes(
      accumulator, addresses.lanes, products.lanes,
      [&](size_t t) { return addresses.valid(static_cast<int>(t)); }, counts);
}

// --- The Table 14 loop -------------------------------------------------------------------------

SparseConvResult sparseConvolution(const SparseConvShape& shape, std::span<const int8_t> input,
                                   std::span<const int8_t> weights,
                                   const SparseConvOptions& options) {
  const SparseConvShape& sh = shape;
  if (sh.channels < 1 || sh.height < 1 || sh.width < 1 || sh.outChannels < 1 ||
      sh.kernelHeight < 1 || sh.kernelWidth < 1) {
    usage(fmt::format("sparse convolution: sizes C={} H={} W={} K={} kH={} kW={} must be "
                      "positive",
                      sh.channels, sh.height, sh.width, sh.outChannels, sh.kernelHeight,
                      sh.kernelWidth));
  }
  if (sh.kernelHeight % 2 == 0 || sh.kernelWidth % 2 == 0) {
    usage(fmt::format("sparse convolution: kernel {}x{} must have odd sizes for same padding",
                      sh.kernelHeight, sh.kernelWidth));
  }
  if (options.weightLanes < 1 || options.activationLanes < 1 || options.outChannelsPerChunk < 0) {
    usage(fmt::format("sparse convolution: F = {}, I = {} must be positive and Kc = {} "
                      "non-negative",
                      options.weightLanes, options.activationLanes, options.outChannelsPerChunk));
  }
  const auto C = static_cast<size_t>(sh.channels);
  const auto H = static_cast<size_t>(sh.height);
  const auto W = static_cast<size_t>(sh.width);
  const auto K = static_cast<size_t>(sh.outChannels);
  const auto kH = static_cast<size_t>(sh.kernelHeight);
  const auto kW = static_cast<size_t>(sh.kernelWidth);
  if (input.size() != C * H * W) {
    usage(fmt::format("sparse convolution: input has {} values, expected C*H*W = {}", input.size(),
                      C * H * W));
  }
  if (weights.size() != K * C * kH * kW) {
    usage(fmt::format("sparse convolution: weights have {} values, expected K*C*kH*kW = {}",
                      weights.size(), K * C * kH * kW));
  }
  const int F = options.weightLanes;
  const int I = options.activationLanes;
  const size_t padH = (kH - 1) / 2;
  const size_t padW = (kW - 1) / 2;
  // Halo-inclusive accumulator plane (§2.5): X = x + r' in [0, W + kW - 1), likewise Y.
  const size_t accW = W + kW - 1;
  const size_t accH = H + kH - 1;
  const OutputFrame frame{static_cast<int64_t>(accW), static_cast<int64_t>(accH)};
  const size_t chunk = options.outChannelsPerChunk == 0
                           ? K
                           : std::min(K, static_cast<size_t>(options.outChannelsPerChunk));

  // Weights: the kernel of channel k is one R x S block with r fastest, the kernels of a chunk
  // follow each other (runs cross kernel boundaries), so the frame wraps r into s and s into k.
  const Frame weightFrame{static_cast<int64_t>(kW), static_cast<int64_t>(kH), true, true};
  // Activations: one W x H plane per channel, x fastest, no channel axis.
  const Frame activationFrame{static_cast<int64_t>(W), static_cast<int64_t>(H), true, false};
  const EncodeSparseConfig zeroCount{0, IndexEncoding::ZeroCount, 4};
  const CodeTable weightTable =
      options.weightCodes ? *options.weightCodes : CodeTable::zeroRunLength(zeroCount.indexBits);
  const CodeTable activationTable = options.activationCodes
                                        ? *options.activationCodes
                                        : CodeTable::zeroRunLength(zeroCount.indexBits);

  SparseConvResult result;
  PrimitiveCounts& counts = result.counts;
  auto encodeBlock = [&](std::span<const int32_t> block, const std::optional<CodeTable>& codes,
                         const Frame& blockFrame, int lanes) {
    if (codes) {
      ++counts.encodeSparseCalls;
      return splitIntoVectors(encodeSparseCoded(block, *codes, blockFrame), lanes);
    }
    EncodeSparseConfig config = zeroCount;
    config.lanes = lanes;
    return encodeSparseVectors(block, config, &counts);
  };

  std::vector<std::vector<SparseVector>> activationVectors(C);
  std::vector<int32_t> block(H * W);
  for (size_t c = 0; c < C; ++c) {
    std::copy_n(input.begin() + static_cast<std::ptrdiff_t>(c * H * W), H * W, block.begin());
    activationVectors[c] = encodeBlock(block, options.activationCodes, activationFrame, I);
  }

  result.output.assign(K * H * W, 0);
  const PositionDecoder weightStart(weightTable, weightFrame);
  const PositionDecoder activationStart(activationTable, activationFrame);
  std::vector<int32_t> accumulator;
  for (size_t k0 = 0; k0 < K; k0 += chunk) {
    const size_t kc = std::min(chunk, K - k0);
    accumulator.assign(kc * accH * accW, 0);
    block.assign(kc * kH * kW, 0);
    for (size_t c = 0; c < C; ++c) {
      // Correlation vs convolution (digest §2.5): the patent adds positions (X = x + r), which
      // is a true convolution; ONNX Conv is a cross-correlation. We store the weights flipped,
      // r' = kW-1-j and s' = kH-1-i, so that X = x + r' lands input x on output X - padW =
      // x - j + padW, i.e. out[x'] gathers in[x' + j - padW] * w[j] as ONNX does.
      for (size_t k = 0; k < kc; ++k) {
        for (size_t s = 0; s < kH; ++s) {
          for (size_t r = 0; r < kW; ++r) {
            const size_t from = (((k0 + k) * C + c) * kH + (kH - 1 - s)) * kW + (kW - 1 - r);
            block[(k * kH + s) * kW + r] = weights[from];
          }
        }
      }
      const std::vector<SparseVector> weightVectors =
          encodeBlock(block, options.weightCodes, weightFrame, F);
      if (weightVectors.empty()) {
        continue; // no non-zero weight for this chunk and channel
      }
      PositionDecoder activationState = activationStart; // IA runs restart per channel
      for (const SparseVector& a : activationVectors[c]) {
        PositionDecoder weightState = weightStart; // the rewind to the channel's first weight
        PositionDecoder activationAfter = activationState;
        for (const SparseVector& w : weightVectors) {
          const PairVector products = multiplyPairs(w.values, F, a.values, I, &counts);
          CalculateIndexResult x = calculateIndices(w.indices, weightState, F, a.indices,
                                                    activationState, I, frame, &counts);
          scatterAdd(accumulator, x.addresses, products, &counts);
          weightState = std::move(x.weightState);
          activationAfter = std::move(x.activationState);
        }
        activationState = std::move(activationAfter);
      }
    }
    for (size_t k = 0; k < kc; ++k) {
      for (size_t y = 0; y < H; ++y) {
        for (size_t x = 0; x < W; ++x) {
          result.output[((k0 + k) * H + y) * W + x] =
              accumulator[(k * accH + y + padH) * accW + x + padW];
        }
      }
    }
  }
  return result;
}

} // namespace nnaccel::arch::sparse::patent
