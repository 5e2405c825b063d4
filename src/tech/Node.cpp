// Process nodes and the Stillmaker–Baas scaling between them (docs/Technology.md, "Scaling
// between nodes").
//
// Source: A. Stillmaker and B. Baas, "Scaling equations for the accurate prediction of CMOS
// device performance from 180 nm to 7 nm", Integration, the VLSI Journal 58 (2017) 74-81,
// doi:10.1016/j.vlsi.2017.02.002. The paper fits polynomials in the supply voltage to HSPICE
// results (PTM and ITRS device models). Its tables are read here in two transcriptions that agree
// on every shared entry: wromaszkan/nodeScale nodeScale.py @ a912c607 (UCLA NanoCAD; `areaDict`,
// `depCoeffDict`) and Accelergy-Project/accelergy-library-plug-in scaling.py @ ba4e9dac
// (`AREA_SCALING`, 130-7 nm). The authors' erratum (VCL publication page) confirms the Table 5
// energy rows of 32 nm HP and 65 nm, which these transcriptions reproduce
// (docs/research/TechnologySources.md section 2).
#include "nnaccel/tech/Node.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::tech {

namespace {

/// The nodes of the Stillmaker–Baas tables (28 nm is interpolated, see below).
constexpr std::array<double, 11> kTableNm{180, 130, 90, 65, 45, 32, 20, 16, 14, 10, 7};

/// Area scaling, row = from, column = to, in kTableNm order: area_to = area_from * factor.
/// Stillmaker–Baas area table, as transcribed in nodeScale.py `areaDict` (180-7 nm) and
/// accelergy-library-plug-in scaling.py `AREA_SCALING` (130-7 nm; 0 differences).
constexpr std::array<std::array<double, 11>, 11> kAreaFactor{{
    {1, 0.34, 0.15, 0.08, 0.053, 0.025, 0.011, 0.01, 0.0093, 0.0055, 0.0032},
    {2.9, 1, 0.44, 0.23, 0.16, 0.072, 0.033, 0.03, 0.027, 0.016, 0.0092},
    {6.6, 2.3, 1, 0.53, 0.35, 0.16, 0.075, 0.067, 0.061, 0.036, 0.021},
    {12, 4.3, 1.9, 1, 0.66, 0.31, 0.14, 0.13, 0.12, 0.068, 0.039},
    {19, 6.4, 2.8, 1.5, 1, 0.46, 0.21, 0.19, 0.17, 0.1, 0.059},
    {40, 14, 6.1, 3.3, 2.2, 1, 0.46, 0.41, 0.38, 0.22, 0.13},
    {88, 30, 13, 7.1, 4.7, 2.2, 1, 0.89, 0.82, 0.48, 0.28},
    {99, 34, 15, 7.9, 5.3, 2.4, 1.1, 1, 0.91, 0.54, 0.31},
    {110, 37, 16, 8.7, 5.8, 2.7, 1.2, 1.1, 1, 0.59, 0.34},
    {180, 63, 28, 15, 9.8, 4.5, 2.1, 1.9, 1.7, 1, 0.58},
    {320, 110, 48, 25, 17, 7.8, 3.6, 3.2, 2.9, 1.7, 1},
}};

/// Energy factor E(V) = e2 V^2 + e1 V + e0 per node (Stillmaker–Baas Table 5; HP devices below
/// 65 nm, where the paper separates HP and LP; nodeScale.py `depCoeffDict` columns 4-6).
constexpr std::array<std::array<double, 3>, 11> kEnergyCoeff{{
    {0, 24.64, -17.98},          // 180 nm
    {7.171, -6.709, 2.904},      // 130 nm
    {4.762, -4.781, 2.092},      // 90 nm
    {3.755, -4.398, 1.975},      // 65 nm (confirmed by the authors' erratum)
    {1.018, -0.3107, 0.1539},    // 45 nm HP
    {0.8367, -0.4341, 0.1701},   // 32 nm HP (confirmed by the authors' erratum)
    {0.373, -0.1582, 0.04104},   // 20 nm HP
    {0.2958, -0.1241, 0.03024},  // 16 nm HP
    {0.2363, -0.09675, 0.02239}, // 14 nm HP
    {0.2068, -0.09311, 0.02375}, // 10 nm HP
    {0.1776, -0.09097, 0.02447}, // 7 nm HP
}};

/// A node's default supply and where it comes from. The paper's own per-node voltages were not
/// found (docs/Technology.md); these are the nominal supplies of the Predictive Technology Model
/// cards (ptm.asu.edu), the device models the paper simulated, read in copies of the cards:
/// 45 nm HP 1.0 V (verilog-to-routing vtr_flow/tech/PTM_45nm/45nm.pm @ dc1f5d4), 32 nm HP 0.9 V
/// (eelab-dev/EEcircuit src/sim/models/ptm.ts @ 285e243), and the PTM-MG (multi-gate) cards for
/// 20-7 nm, 0.9/0.85/0.8/0.75/0.7 V (haoge0811/CSM data/modelfiles/PTM_MG/param.inc @ 1d09f3f,
/// "provide nominal supply voltage"). 130 nm 1.3 V is the PTM default named in
/// vtr_flow/tech/PTM_130nm/readme.txt @ d9c2d49; 180, 90 and 65 nm (1.8, 1.2, 1.1 V) are from a
/// secondary table (Arcadia-1/gmoverid-skill transistor-models/SKILL.md), no card being found.
/// 28 nm takes 0.9 V, the supply of both its neighbours (our choice).
struct NamedNode {
  double nm;
  double vddV;
  const char* vddSource;
};

constexpr const char* kCard = "PTM model card nominal";
constexpr const char* kMg = "PTM-MG nominal (param.inc)";
constexpr const char* kSecondary = "PTM nominal (secondary table)";

/// The nodes nnaccel names, largest first, with their default supplies.
constexpr std::array<NamedNode, 12> kNodes{{
    {180, 1.8, kSecondary},
    {130, 1.3, "PTM 130 nm default (VTR readme)"},
    {90, 1.2, kSecondary},
    {65, 1.1, kSecondary},
    {45, 1.0, kCard},
    {32, 0.9, kCard},
    {28, 0.9, "both neighbours' (32 nm card, 20 nm PTM-MG)"},
    {20, 0.9, kMg},
    {16, 0.85, kMg},
    {14, 0.8, kMg},
    {10, 0.75, kMg},
    {7, 0.7, kMg},
}};

/// A node nnaccel names: a table node, or 28 nm between 32 and 20 nm.
struct NodePlace {
  size_t lower = 0, upper = 0; ///< table indices (equal for a table node)
  double t = 0;                ///< log-interpolation weight of `upper`
};

NodePlace placeOf(double nm) {
  for (size_t i = 0; i < kTableNm.size(); ++i)
    if (kTableNm[i] == nm)
      return {i, i, 0};
  // 28 nm is not in the Stillmaker–Baas tables: its factors are interpolated geometrically
  // in log(feature size) between 32 and 20 nm (our choice, docs/Technology.md).
  const size_t lo = 5, hi = 6;
  return {lo, hi, std::log(kTableNm[lo] / nm) / std::log(kTableNm[lo] / kTableNm[hi])};
}

double areaFactor(const NodePlace& from, const NodePlace& to) {
  const auto at = [](size_t f, size_t t) { return kAreaFactor[f][t]; };
  const auto row = [&](size_t f) {
    return std::pow(at(f, to.lower), 1 - to.t) * std::pow(at(f, to.upper), to.t);
  };
  return std::pow(row(from.lower), 1 - from.t) * std::pow(row(from.upper), from.t);
}

double energyPolynomial(size_t i, double v) {
  const auto& c = kEnergyCoeff[i];
  return c[0] * v * v + c[1] * v + c[2];
}

double energyFactor(const NodePlace& p, double v) {
  return std::pow(energyPolynomial(p.lower, v), 1 - p.t) *
         std::pow(energyPolynomial(p.upper, v), p.t);
}

/// The node \p name ("16nm" or "16") names.
const NamedNode& namedNode(std::string_view name) {
  std::string s(name);
  if (s.size() > 2 && s.substr(s.size() - 2) == "nm")
    s.resize(s.size() - 2);
  for (const NamedNode& n : kNodes)
    if (fmt::format("{}", n.nm) == s)
      return n;
  throw Error(
      ErrorKind::Config, {},
      fmt::format("unknown process node '{}' (known: {})", name, fmt::join(nodeNames(), ", ")));
}

} // namespace

std::vector<std::string> nodeNames() {
  std::vector<std::string> names;
  for (const NamedNode& n : kNodes)
    names.push_back(fmt::format("{}nm", n.nm));
  return names;
}

ProcessNode node(std::string_view name, std::optional<double> vddV) {
  const NamedNode& d = namedNode(name);
  const double nm = d.nm;
  ProcessNode n{fmt::format("{}nm", nm), nm, 0, ""};
  n.vddV = vddV.value_or(d.vddV);
  n.vddSource = vddV ? "configured" : d.vddSource;
  // A sanity bound of ours (the paper's fitted voltage ranges were not read): the polynomial must
  // stay positive, and the supply a CMOS logic supply.
  const NodePlace p = placeOf(nm);
  if (!(n.vddV >= 0.4 && n.vddV <= 2.0) || energyFactor(p, n.vddV) <= 0)
    throw Error(ErrorKind::Config, {},
                fmt::format("supply {} V is outside what the {} scaling equations cover "
                            "(0.4-2.0 V, with a positive energy factor)",
                            n.vddV, n.name));
  return n;
}

double areaScale(const ProcessNode& from, const ProcessNode& to) {
  return areaFactor(placeOf(from.featureNm), placeOf(to.featureNm));
}

double energyScale(const ProcessNode& from, const ProcessNode& to) {
  return energyFactor(placeOf(to.featureNm), to.vddV) /
         energyFactor(placeOf(from.featureNm), from.vddV);
}

} // namespace nnaccel::tech
