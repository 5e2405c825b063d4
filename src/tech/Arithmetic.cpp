// Arithmetic units of the technology model (docs/Technology.md, "Arithmetic"): integer and
// floating-point adders and multipliers by width, at 45 nm, scaled to any node by Node.h.
//
// Energy: M. Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014,
// 45 nm at 0.9 V, as tabulated in W. J. Dally, "Hardware for Deep Learning", Hot Chips 2023,
// slide "Cost of Operations" (the same values as Hennessy & Patterson, Computer Architecture 6th
// ed., Fig. 1.13). Area: the same slide (and H&P Fig. 1.13): Design Compiler synthesis, TSMC
// 45 nm, floating-point units from the DesignWare library. The ISSCC paper itself was not read;
// docs/research/TechnologySourcesVerified.md section 1 records where each value was read.
#include "Library.h"
#include "nnaccel/support/Error.h"

#include <array>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::tech::detail {

namespace {

struct Point {
  double widthBits, energyPj, areaUm2;
};

// Integer adders: 8, 16 and 32 bits (Horowitz/Dally: 0.03, 0.05, 0.1 pJ; 36, 67, 137 um^2).
constexpr std::array<Point, 3> kIntAdd{{{8, 0.03, 36}, {16, 0.05, 67}, {32, 0.1, 137}}};
// Integer multipliers: 8 and 32 bits (0.2, 3.1 pJ; 282, 3495 um^2).
constexpr std::array<Point, 2> kIntMul{{{8, 0.2, 282}, {32, 3.1, 3495}}};
// Floating point, 16 and 32 bits: add 0.4, 0.9 pJ and 1360, 4184 um^2; multiply 1.1, 3.7 pJ
// and 1640, 7700 um^2.
constexpr std::array<Point, 2> kFpAdd{{{16, 0.4, 1360}, {32, 0.9, 4184}}};
constexpr std::array<Point, 2> kFpMul{{{16, 1.1, 1640}, {32, 3.7, 7700}}};

constexpr int64_t kMaxIntWidthBits = 64;

/// Linear in width between the published widths, and beyond them along the nearest segment
/// (an adder's cost grows about linearly with its width; our choice of interpolation).
Point adderAt(double w) {
  size_t i = w <= kIntAdd[1].widthBits ? 0 : 1;
  const Point& a = kIntAdd[i];
  const Point& b = kIntAdd[i + 1];
  const double t = (w - a.widthBits) / (b.widthBits - a.widthBits);
  return {w, a.energyPj + t * (b.energyPj - a.energyPj), a.areaUm2 + t * (b.areaUm2 - a.areaUm2)};
}

/// A power law through the two published widths (an array multiplier's cost grows about with
/// the square of its width; the two points give exponents 1.98 for energy and 1.82 for area;
/// our choice of interpolation).
Point multiplierAt(double w) {
  const Point& a = kIntMul[0];
  const Point& b = kIntMul[1];
  const double r = std::log(w / a.widthBits) / std::log(b.widthBits / a.widthBits);
  return {w, a.energyPj * std::pow(b.energyPj / a.energyPj, r),
          a.areaUm2 * std::pow(b.areaUm2 / a.areaUm2, r)};
}

const Point& floatAt(const std::array<Point, 2>& points, int64_t w, std::string_view what) {
  for (const Point& p : points)
    if (p.widthBits == static_cast<double>(w))
      return p;
  throw Error(ErrorKind::Config, {},
              fmt::format("{} of {} bits has no published figure (16 and 32 bits have)", what, w));
}

} // namespace

/// The supply of Horowitz's table (45 nm at 0.9 V, as a secondary source states:
/// docs/research/TechnologySources.md section 1).
ProcessNode arithmeticSourceNode() {
  return node("45nm", 0.9);
}

SourceCost arithmeticCost(ComponentClass cls, int64_t widthBits) {
  const auto w = static_cast<double>(widthBits);
  const char* cite = "Horowitz ISSCC 2014 energy, Dally Hot Chips 2023 area (45 nm)";
  switch (cls) {
  case ComponentClass::IntAdder:
  case ComponentClass::IntMultiplier: {
    if (widthBits < 1 || widthBits > kMaxIntWidthBits)
      throw Error(ErrorKind::Config, {},
                  fmt::format("integer {} of {} bits: widths 1 to {} are priced",
                              cls == ComponentClass::IntAdder ? "adder" : "multiplier", widthBits,
                              kMaxIntWidthBits));
    const Point p = cls == ComponentClass::IntAdder ? adderAt(w) : multiplierAt(w);
    return {p.energyPj, 0, p.areaUm2, cite};
  }
  case ComponentClass::FpAdder: {
    const Point& p = floatAt(kFpAdd, widthBits, "floating-point adder");
    return {p.energyPj, 0, p.areaUm2, cite};
  }
  case ComponentClass::FpMultiplier: {
    const Point& p = floatAt(kFpMul, widthBits, "floating-point multiplier");
    return {p.energyPj, 0, p.areaUm2, cite};
  }
  default:
    NNACCEL_UNREACHABLE("not an arithmetic class");
  }
}

} // namespace nnaccel::tech::detail
