/// \file
/// Process nodes and the scaling of area and energy between them (docs/Technology.md). Every
/// cost figure nnaccel uses is measured at one node by its source; it reaches the node a config
/// names through the Stillmaker–Baas scaling equations (one published method, cited in
/// Node.cpp), never through a hand-picked factor.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::tech {

/// A CMOS process node and the supply voltage its energy figures are evaluated at.
struct ProcessNode {
  std::string name;      ///< "45nm"
  double featureNm = 0;  ///< 45
  double vddV = 0;       ///< supply voltage (V) the energy factors are evaluated at
  std::string vddSource; ///< where the default supply comes from (or "configured")
};

/// The nodes nnaccel prices, largest first: 180, 130, 90, 65, 45, 32, 28, 20, 16, 14, 10, 7 nm.
std::vector<std::string> nodeNames();

/// Node \p name ("16nm" or "16") at its default supply, or at \p vddV when given. An unknown
/// name, or a supply outside the range the scaling equations were fitted over, throws
/// nnaccel::Error (Config) naming the value and what is accepted.
ProcessNode node(std::string_view name, std::optional<double> vddV = std::nullopt);

/// Area at \p to = area at \p from * areaScale(from, to) (Stillmaker–Baas area factors).
double areaScale(const ProcessNode& from, const ProcessNode& to);

/// Energy per action at \p to = energy at \p from * energyScale(from, to): the ratio of the
/// Stillmaker–Baas energy polynomials of the two nodes at their supplies (HP devices).
double energyScale(const ProcessNode& from, const ProcessNode& to);

} // namespace nnaccel::tech
