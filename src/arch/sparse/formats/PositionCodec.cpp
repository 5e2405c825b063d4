/// \file
/// The greedy position encoder (digest §3.9 pad policy, generalised to every wrap mode and
/// user table) and the out-of-line parts of the position decoder.
#include "nnaccel/arch/sparse/formats/PositionCodec.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::sparse::formats {

namespace {

Error usageError(std::string key, std::string reason) {
  ErrorContext context;
  context.key = std::move(key);
  return Error(ErrorKind::Usage, std::move(context), std::move(reason));
}

std::string show(const Position& p) {
  return fmt::format("(r={}, s={}, k={})", p.r, p.s, p.k);
}

void validateFrame(const Frame& frame) {
  if (frame.rMax <= 0 || frame.sMax <= 0) {
    throw usageError("frame", fmt::format("frame sizes must be positive, got rMax={} sMax={}",
                                          frame.rMax, frame.sMax));
  }
}

bool inFrame(const Position& p, const Frame& frame) {
  return p.r >= 0 && p.r < frame.rMax && p.s >= 0 && p.s < frame.sMax && p.k >= 0;
}

bool sameRow(const Position& a, const Position& b) {
  return a.k == b.k && a.s == b.s;
}

/// One encoder step: the code to emit and where it lands.
struct Step {
  uint16_t code = 0;
  Position landing;
};

/// The greedy encoder state for one table and frame (see encodePositions).
class Encoder {
public:
  Encoder(const CodeTable& table, const Frame& frame) : table_(table), frame_(frame) {}

  /// The next code on the way from \p from to \p target (target after from in raster order).
  Step choose(const Position& from, const Position& target) const {
    if (runReachable(from, target)) {
      const int64_t gap = runDistance(from, target) - 1;
      const std::span<const int32_t> runs = table_.arguments(CodeKind::Run);
      if (std::binary_search(runs.begin(), runs.end(), gap)) {
        return stepWith(from, {CodeKind::Run, static_cast<int32_t>(gap)});
      }
      // Pad: the largest run that stops short of the target.
      const auto it = std::upper_bound(runs.begin(), runs.end(), gap - 1);
      if (it != runs.begin()) {
        return stepWith(from, {CodeKind::Run, *(it - 1)});
      }
    }
    // A jump: Channel codes to a later channel, Row codes otherwise (or when there are no
    // Channel codes; with wrapS a Row code from the last row enters the next channel).
    CodeKind kind = CodeKind::Row;
    if (target.k != from.k && table_.has(CodeKind::Channel)) {
      kind = CodeKind::Channel;
    }
    const std::span<const int32_t> args = table_.arguments(kind);
    if (args.empty()) {
      throw unreachable(from, target);
    }
    // Landings grow with the argument, so the largest one not past the target is found by
    // binary search.
    const auto notPast = [&](int32_t n) {
      return !rasterLess(target, stepWith(from, {kind, n}).landing);
    };
    const auto firstPast = std::partition_point(args.begin(), args.end(), notPast);
    if (firstPast != args.begin()) {
      const Step best = stepWith(from, {kind, *(firstPast - 1)});
      if (sameRow(best.landing, target) && inFrame(best.landing, frame_)) {
        return best;
      }
      return stepWith(from, {kind, args.front()});
    }
    throw unreachable(from, target);
  }

  Error unreachable(const Position& from, const Position& target) const {
    return Error(ErrorKind::Unsupported, ErrorContext{table_.name(), "", "", std::nullopt, ""},
                 fmt::format("code table '{}' cannot reach {} from {} (wrapR={}, wrapS={})",
                             table_.toString(), show(target), show(from), frame_.wrapR,
                             frame_.wrapS));
  }

private:
  bool runReachable(const Position& from, const Position& target) const {
    if (frame_.wrapR && frame_.wrapS) {
      return true;
    }
    if (frame_.wrapR) {
      return from.k == target.k;
    }
    return sameRow(from, target);
  }

  /// The linear distance along Run codes (valid when runReachable).
  int64_t runDistance(const Position& from, const Position& target) const {
    if (frame_.wrapR && frame_.wrapS) {
      const auto linear = [&](const Position& p) {
        return p.r + frame_.rMax * (p.s + frame_.sMax * p.k);
      };
      return linear(target) - linear(from);
    }
    if (frame_.wrapR) {
      return (target.r + frame_.rMax * target.s) - (from.r + frame_.rMax * from.s);
    }
    return target.r - from.r;
  }

  Step stepWith(const Position& from, const Code& code) const {
    const int number = table_.find(code.kind, code.n);
    NNACCEL_ASSERT(number >= 0) << "code not in table";
    Step step{static_cast<uint16_t>(number), from};
    applyCode(step.landing, code, frame_);
    return step;
  }

  const CodeTable& table_;
  const Frame& frame_;
};

} // namespace

std::vector<CodedEntry> encodePositions(std::span<const Position> positions,
                                        std::span<const int32_t> values, const CodeTable& table,
                                        const Frame& frame) {
  validateFrame(frame);
  if (positions.size() != values.size()) {
    throw usageError("values",
                     fmt::format("{} positions but {} values", positions.size(), values.size()));
  }
  for (size_t i = 0; i < positions.size(); ++i) {
    if (!inFrame(positions[i], frame)) {
      throw usageError("positions",
                       fmt::format("position {} {} is outside the frame rMax={} sMax={}", i,
                                   show(positions[i]), frame.rMax, frame.sMax));
    }
    if (i > 0 && !rasterLess(positions[i - 1], positions[i])) {
      throw usageError("positions",
                       fmt::format("position {} {} does not follow {} in (k, s, r) raster order", i,
                                   show(positions[i]), show(positions[i - 1])));
    }
    if (values[i] == 0) {
      throw usageError("values", fmt::format("value {} is zero (zero marks a pad entry)", i));
    }
  }

  const Encoder encoder(table, frame);
  std::vector<CodedEntry> entries;
  entries.reserve(positions.size());
  Position current{-1, 0, 0};
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& target = positions[i];
    while (true) {
      const Step step = encoder.choose(current, target);
      if (step.landing == target) {
        entries.push_back({step.code, values[i]});
        current = target;
        break;
      }
      if (!rasterLess(step.landing, target) || !inFrame(step.landing, frame)) {
        throw encoder.unreachable(current, target);
      }
      entries.push_back({step.code, 0});
      current = step.landing;
    }
  }
  return entries;
}

PositionDecoder::PositionDecoder(const CodeTable& table, const Frame& frame)
    : codes_(table.codes().begin(), table.codes().end()), frame_(frame) {
  if ((frame.wrapR && frame.rMax <= 0) || (frame.wrapS && frame.sMax <= 0)) {
    throw usageError("frame", fmt::format("wrapped frame sizes must be positive, got rMax={} "
                                          "sMax={}",
                                          frame.rMax, frame.sMax));
  }
}

void PositionDecoder::throwBadCode(uint16_t code) const {
  throw usageError(
      "code", fmt::format("code {} is outside the code table ({} codes)", code, codes_.size()));
}

std::vector<Position> decodePositions(std::span<const CodedEntry> entries, const CodeTable& table,
                                      const Frame& frame) {
  PositionDecoder decoder(table, frame);
  std::vector<Position> positions;
  positions.reserve(entries.size());
  for (const CodedEntry& entry : entries) {
    positions.push_back(decoder.next(entry.code));
  }
  return positions;
}

} // namespace nnaccel::arch::sparse::formats
