/// \file
/// The mass multiplier of the stream engine (seed 002 Figs. 1-6, digest_002 §3): one circuit
/// per input channel that forms every multiple of the current input value a that a B-bit weight
/// can ask for, so that consumers (compositors, convolution units) only select products.
///
/// A construction ("plan") is built once per (B, signedness, form) the way the patent builds it:
/// terms a<<k are wiring, registered sub-compositions are sums/differences of shifted registered
/// values, one adder per new value. The functional model evaluates exactly that construction (it
/// never computes a*w), so the tests check the construction against a*w; the cost model counts
/// the same plan. The forms, the unit model and a table per B are in
/// docs/arch/StreamMassMultiplier.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace nnaccel::arch::stream {

/// How the multiples are composed (digest §3).
enum class MultiplierForm {
  ShiftedTerms, ///< Fig. 3: each product independently = sum of a<<k at the weight's set bits
  SignedDigit,  ///< Fig. 4: terms k = 0..B with subtraction, each product independently from
                ///< its canonical signed digits (15a = 16a - a)
  SharedPairs,  ///< Fig. 5A: one 2-input add/subtract per pipeline stage; every registered value
                ///< is shared (pairs, triples, quads, ...) and shifts of it are free
  SharedQuads,  ///< Fig. 6: up to 4-input add/subtract per stage (triples from terms, then
                ///< septets/octets), shared like SharedPairs
};

const char* multiplierFormName(MultiplierForm form);

/// Largest weight width the plans enumerate (all 2^B products are built and evaluated).
inline constexpr int kMaxEnumeratedWeightBits = 16;

/// One operand of an adder: the registered value of node `node`, shifted left by `shift`
/// (wiring), subtracted when `negate`.
struct PlanOperand {
  int32_t node = 0;
  int shift = 0;
  bool negate = false;
};

/// One registered value of the construction. Node 0 is the input a itself (coefficient 1, stage
/// 0, no operands); every other node is one adder (>= 2 operands) or one negator (1 negated
/// operand) at pipeline stage `stage`, and equals coefficient * a.
struct PlanNode {
  int64_t coefficient = 1;
  int stage = 0;
  bool product = false; ///< some multiple on the output is this node, shifted (not an intermediate)
  std::vector<PlanOperand> operands;
};

/// A multiple on the output: node `node` shifted left by `shift`, negated when `negate`
/// (`node` < 0: the constant 0).
struct ProductRef {
  int32_t node = -1;
  int shift = 0;
  bool negate = false;
};

/// What one mass multiplier costs, counted from its plan. Unit: one "adder" is a 2-input
/// add/subtract of A+B(+1)-bit values; an n-input adder counts n-1.
struct MassMultiplierCost {
  int weightBits = 0;
  bool signedWeights = false;
  int64_t products = 0;      ///< distinct nonzero multiples on the output (2^B - 1)
  int64_t adders = 0;        ///< 2-input add/subtract equivalents (negators not included)
  int64_t adderCircuits = 0; ///< adders of any width (1 per node that adds)
  int64_t intermediates = 0; ///< registered values that are not (shifted) products
  int64_t negators = 0;      ///< 0 - x units making negative multiples (signed weights)
  int64_t registers = 0;     ///< value registers summed over stages 1..pipelineStages
  int pipelineStages = 0;    ///< register stages from the input to the multiples (0: wiring)
  int adderLevels = 0;       ///< critical path in 2-input adder levels
  int maxTermsPerProduct = 0;
  // Per consumer (split-index form; the plain form is 1 lookup of 2^B inputs, no recombining).
  int lookupsPerProduct = 1;   ///< multiplexors selecting from the multiples per product
  int64_t muxInputs = 0;       ///< inputs of each such multiplexor (2^B, the 0 included)
  int64_t recombineAdders = 0; ///< 2-input adders per consumer recombining the lookups
  bool operator==(const MassMultiplierCost&) const = default;
};

/// The construction of every multiple of one input for B-bit weights.
class MassMultiplier {
public:
  /// Throws nnaccel::Error (Config, key weightBits) unless 1 <= weightBits <= 16.
  MassMultiplier(int weightBits, bool signedWeights, MultiplierForm form);

  int weightBits() const { return weightBits_; }
  bool signedWeights() const { return signed_; }
  MultiplierForm form() const { return form_; }
  /// Number of weight codes, 2^B (the output bus carries one multiple per code).
  int64_t codes() const { return int64_t{1} << weightBits_; }
  /// Smallest and largest weight (two's complement range when signed).
  int32_t minWeight() const;
  int32_t maxWeight() const;

  /// Every multiple of \p input, by composing the plan: multiples[c] = input * weight of code c
  /// (c is the weight's two's-complement code for signed weights). Throws nnaccel::Error unless
  /// multiples.size() == codes().
  void compute(int32_t input, std::span<int64_t> multiples) const;
  /// The multiple for one weight (composed, not multiplied). Throws nnaccel::Error for a weight
  /// outside [minWeight(), maxWeight()].
  int64_t multiple(int32_t input, int32_t weight) const;

  const std::vector<PlanNode>& nodes() const { return nodes_; }
  const std::vector<ProductRef>& productRefs() const { return products_; } ///< by code
  MassMultiplierCost cost() const;

private:
  void evaluate(int32_t input, std::vector<int64_t>& values) const;
  int64_t fromRef(const ProductRef& ref, std::span<const int64_t> values) const;

  int weightBits_;
  bool signed_;
  MultiplierForm form_;
  std::vector<PlanNode> nodes_;
  std::vector<ProductRef> products_;
};

/// The cost of MassMultiplier(weightBits, signedWeights, form). Signed B-bit weights build the
/// magnitudes 1..2^(B-1) and negate (one negator per negated value, one more stage).
MassMultiplierCost massMultiplierCost(MultiplierForm form, int weightBits,
                                      bool signedWeights = false);

/// Pipeline stages of a form without enumerating the products (any 1 <= weightBits <= 62):
/// the independent forms take 1 stage, the shared forms ceil(log_k(max terms)) with k = 2 or 4
/// operands per adder; +1 for negation with signed weights. Equals massMultiplierCost(...)
/// .pipelineStages wherever both exist.
int analyticPipelineStages(MultiplierForm form, int weightBits, bool signedWeights = false);
/// Most nonzero terms any product needs (binary for ShiftedTerms, canonical signed digits else).
int analyticMaxTerms(MultiplierForm form, int weightBits, bool signedWeights = false);

/// Split-index form (digest §3 variants): a weightBits-bit weight cut into chunks of
/// narrow.weightBits() bits, each chunk looked up in the one narrow (unsigned) mass multiplier
/// and recombined, a*w = sum_i (a*chunk_i) << (i*c), minus a << weightBits when a signed
/// weight is negative (its two's-complement code's top bit). Throws nnaccel::Error when the
/// narrow multiplier is signed, its width does not divide weightBits, weightBits > 32, or the
/// weight is out of range.
int64_t splitIndexProduct(const MassMultiplier& narrow, int32_t input, int32_t weight,
                          int weightBits, bool signedWeight = false);
/// Cost of the split-index form: the narrow multiplier of chunkBits (unsigned), with
/// lookupsPerProduct = weightBits / chunkBits muxes of 2^chunkBits inputs and lookups - 1
/// recombining adders per consumer (+1 for the sign correction of signed weights).
MassMultiplierCost splitIndexCost(MultiplierForm form, int weightBits, int chunkBits,
                                  bool signedWeights = false);

/// The area unit model of the break-even argument (docs/arch/StreamMassMultiplier.md), in
/// full-adder cells: an n-bit 2-input adder/subtractor or negator is n cells, an A x B array
/// multiplier is B - 1 adders of A + B bits, a k-input multiplexor of n bits is (k - 1) * n
/// 2:1 mux cells of muxCellCost each.
struct AreaModel {
  int inputBits = 8;          ///< A
  double muxCellCost = 0.25;  ///< one 2:1 mux bit, in full-adder cells
  bool wiredProducts = false; ///< Fig. 1: fixed weights, products wired, no multiplexors
};
/// K = consumers independent A x B multipliers.
double independentMultipliersArea(int weightBits, int64_t consumers, const AreaModel& model);
/// One mass multiplier plus, per consumer, its selector multiplexors and recombining adders.
double massMultiplierArea(const MassMultiplierCost& cost, int64_t consumers,
                          const AreaModel& model);
/// The fewest consumers for which massMultiplierArea < independentMultipliersArea; nullopt when
/// a consumer's selection costs at least a multiplier (then it never wins).
std::optional<int64_t> breakEvenConsumers(const MassMultiplierCost& cost, const AreaModel& model);

} // namespace nnaccel::arch::stream
