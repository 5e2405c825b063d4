/// \file
/// Coordinate-typed position codes (seed 001, digest §3.3, Tables 11 and 12): the greedy
/// encoder of (value, position) lists into (code, value) entries with zero-valued pads, and the
/// stateful decoder that the simulator runs per entry.
///
/// Weights use (r, s, k) with r the fast axis; activations use the same API with (x, y) as
/// (r, s), k unused (Frame::sMax = tile height, wrapS = false). Decoding follows Table 11 with
/// the optional wrap of Table 12, corrected to compare `>=` (digest erratum 4), starting from
/// r = -1 (digest erratum 5).
#pragma once

#include "nnaccel/arch/sparse/formats/CodeTable.h"

#include <compare>
#include <cstdint>
#include <span>
#include <vector>

namespace nnaccel::arch::sparse::formats {

/// A position: r (fast axis, x for activations), s (row, y), k (tile-relative channel).
struct Position {
  int64_t r = 0;
  int64_t s = 0;
  int64_t k = 0;
  /// Raster order is (k, s, r); the member-wise default compares r first, so it is NOT the
  /// raster order. Use rasterLess for ordering.
  auto operator<=>(const Position&) const = default;
};

/// True when \p a comes before \p b in (k, s, r) raster order (r fastest).
constexpr bool rasterLess(const Position& a, const Position& b) {
  if (a.k != b.k) {
    return a.k < b.k;
  }
  if (a.s != b.s) {
    return a.s < b.s;
  }
  return a.r < b.r;
}

/// The coordinate frame: rMax = number of columns (fast axis), sMax = rows per channel.
/// wrapR / wrapS enable Table 12's wrap (with the corrected `>=` test, digest erratum 4):
/// r >= rMax carries into s, s >= sMax carries into k. Encoded positions must lie inside the
/// frame (0 <= r < rMax, 0 <= s < sMax, k >= 0); rMax and sMax must be positive.
struct Frame {
  int64_t rMax = 0;
  int64_t sMax = 0;
  bool wrapR = true;
  bool wrapS = true;
};

/// One coded entry: a code number and a value; value 0 marks a zero-valued pad entry.
struct CodedEntry {
  uint16_t code = 0;
  int32_t value = 0;
  bool operator==(const CodedEntry&) const = default;
};

/// Applies one code to \p pos in place: Table 11, then Table 12's wrap for the enabled axes
/// (`>=` test, digest erratum 4; full divide, so any run length decodes).
inline void applyCode(Position& pos, const Code& code, const Frame& frame) {
  switch (code.kind) {
  case CodeKind::Run:
    pos.r += code.n + 1;
    break;
  case CodeKind::Row:
    pos.r = code.n;
    ++pos.s;
    break;
  case CodeKind::Channel:
    pos.r = code.n;
    pos.s = 0;
    ++pos.k;
    break;
  }
  if (frame.wrapR && pos.r >= frame.rMax) {
    pos.s += pos.r / frame.rMax;
    pos.r %= frame.rMax;
  }
  if (frame.wrapS && pos.s >= frame.sMax) {
    pos.k += pos.s / frame.sMax;
    pos.s %= frame.sMax;
  }
}

/// Greedy encoder (digest §3.9 pad policy). \p positions must be strictly increasing in
/// (k, s, r) raster order and inside \p frame; \p values non-zero, same length (otherwise
/// nnaccel::Error, Usage). Per element, from the current position (initially r = -1):
///  - if the target is reachable with Run codes alone (anywhere with wrapR and wrapS; in the
///    same channel with wrapR only; in the same row without wrapR), emit R(d) when the gap d is
///    in the table, else a pad with the largest Run code <= d - 1;
///  - otherwise jump with a Row code (target in the same channel) or a Channel code (target in
///    a later channel; a Row code that wraps into the next channel when there is no Channel
///    code and wrapS is on): when the jump lands in the target's row, take the largest argument
///    whose landing is not past the target (exact: emit the value; else a pad), otherwise a pad
///    with the smallest argument.
/// Returns the entries including pads. Throws nnaccel::Error (Unsupported) when the table
/// cannot reach a position at all (e.g. no Row code without wrap) or a pad would land outside
/// the frame.
std::vector<CodedEntry> encodePositions(std::span<const Position> positions,
                                        std::span<const int32_t> values, const CodeTable& table,
                                        const Frame& frame);

/// Stateful decoder: the initial position is (r = -1, s = 0, k = 0) (digest erratum 5); next()
/// applies one code (Table 11, then Table 12's wrap when enabled). No allocation per entry.
class PositionDecoder {
public:
  /// Throws nnaccel::Error (Usage) when a wrapped axis has a non-positive size.
  PositionDecoder(const CodeTable& table, const Frame& frame);

  /// Applies code number \p code and returns the new position. Throws nnaccel::Error (Usage)
  /// for a code number outside the table.
  Position next(uint16_t code) {
    if (code >= codes_.size()) {
      throwBadCode(code);
    }
    applyCode(pos_, codes_[code], frame_);
    return pos_;
  }
  /// Back to the initial state (r = -1, s = 0, k = 0).
  void reset() { pos_ = Position{-1, 0, 0}; }
  /// The position reached by the last next() (the initial state after reset()).
  const Position& position() const { return pos_; }

private:
  [[noreturn]] void throwBadCode(uint16_t code) const;

  std::vector<Code> codes_;
  Frame frame_;
  Position pos_{-1, 0, 0};
};

/// Decodes every entry (pads included) from the initial state.
std::vector<Position> decodePositions(std::span<const CodedEntry> entries, const CodeTable& table,
                                      const Frame& frame);

} // namespace nnaccel::arch::sparse::formats
