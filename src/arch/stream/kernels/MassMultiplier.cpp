/// \file
/// The mass multiplier's constructions (Figs. 3-6), their functional evaluation, the cost
/// counts, the split-index form and the break-even area model. See MassMultiplier.h and
/// docs/arch/StreamMassMultiplier.md for the rules each construction follows.
#include "nnaccel/arch/stream/MassMultiplier.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <tuple>
#include <unordered_map>

namespace nnaccel::arch::stream {

namespace {

[[noreturn]] void fail(const char* key, std::string reason) {
  throw Error(ErrorKind::Config, ErrorContext{.key = key}, std::move(reason));
}

void checkEnumeratedBits(int weightBits) {
  if (weightBits < 1 || weightBits > kMaxEnumeratedWeightBits)
    fail("weightBits", fmt::format("weightBits={} is out of range 1..{} for an enumerated mass "
                                   "multiplier",
                                   weightBits, kMaxEnumeratedWeightBits));
}

int64_t shl(int64_t v, int shift) {
  return static_cast<int64_t>(static_cast<uint64_t>(v) << shift);
}

bool usesSignedDigits(MultiplierForm form) {
  return form != MultiplierForm::ShiftedTerms;
}
bool isShared(MultiplierForm form) {
  return form == MultiplierForm::SharedPairs || form == MultiplierForm::SharedQuads;
}
int maxOperands(MultiplierForm form) {
  return form == MultiplierForm::SharedQuads ? 4 : 2;
}

/// One nonzero digit of a weight: sign * 2^position.
struct Digit {
  int position = 0;
  int sign = 1;
};

/// The digits of v > 0, highest first: its set bits, or its canonical signed digits (the
/// non-adjacent form, the unique minimum-weight signed-digit representation).
std::vector<Digit> digitsOf(int64_t v, bool signedDigits) {
  std::vector<Digit> digits;
  for (int position = 0; v != 0; ++position, v >>= 1) {
    if ((v & 1) == 0)
      continue;
    const int sign = signedDigits ? 2 - static_cast<int>(v & 3) : 1; // +1 or -1
    digits.push_back({position, sign});
    v -= sign;
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

int termCount(int64_t v, bool signedDigits) {
  return static_cast<int>(digitsOf(v, signedDigits).size());
}

/// Smallest d with k^d >= terms: the fewest k-input adder stages a sum of `terms` terms needs.
int stagesFor(int terms, int k) {
  int stages = 0;
  for (int64_t reach = 1; reach < terms; reach *= k)
    ++stages;
  return stages;
}

/// Builds the shared forms: every odd value is one registered node made at the fewest stages
/// its signed-digit count allows (stage s holds values of at most k^s terms), by one adder of
/// at most k operands, each operand a shifted registered value of fewer terms. Among the ways
/// of cutting the value's digits into operands it takes the one needing the fewest new
/// intermediate values and adder inputs, then the one with the largest operand (the patent's
/// "consistently using the largest element available"); missing operands are built first.
class SharedBuilder {
public:
  SharedBuilder(int operandsPerAdder, std::vector<PlanNode>& nodes)
      : k_(operandsPerAdder), nodes_(nodes) {
    index_.emplace(1, 0);
  }

  int32_t ensure(int64_t odd) {
    if (auto it = index_.find(odd); it != index_.end())
      return it->second;
    digits_ = digitsOf(odd, true);
    const int stage = stagesFor(static_cast<int>(digits_.size()), k_);
    int64_t cap = 1;
    for (int s = 1; s < stage; ++s)
      cap *= k_;
    best_ = {};
    for (int blocks = 2; blocks <= k_; ++blocks) {
      if (best_.found && (best_.cost < blocks - 1 || (best_.cost == blocks - 1 && !best_.missing)))
        break;
      assignment_.assign(digits_.size(), 0);
      sizes_.assign(static_cast<size_t>(blocks), 0);
      search(0, 0, blocks, cap);
    }
    NNACCEL_ASSERT(best_.found) << "no split of " << odd;
    const std::vector<Digit> digits = digits_;
    const std::vector<int> assignment = best_.assignment;
    const int blocks = best_.blocks;
    std::vector<PlanOperand> operands;
    for (int b = 0; b < blocks; ++b) {
      const Part part = partOf(digits, assignment, b);
      const int32_t node = ensure(part.odd); // recursion may clobber the search state
      operands.push_back({node, part.shift, part.negative});
    }
    PlanNode node{.coefficient = odd, .stage = stage, .product = false, .operands = operands};
    nodes_.push_back(std::move(node));
    const auto id = static_cast<int32_t>(nodes_.size() - 1);
    index_.emplace(odd, id);
    return id;
  }

private:
  struct Part {
    int64_t odd = 0;
    int shift = 0;
    bool negative = false;
    int terms = 0;
  };
  struct Choice {
    bool found = false;
    int cost = 0;    ///< adder inputs - 1 + missing operands
    int missing = 0; ///< operands not registered yet
    int largest = 0; ///< terms of the largest operand
    int blocks = 0;
    std::vector<int> assignment;
  };

  static Part partOf(const std::vector<Digit>& digits, const std::vector<int>& assignment,
                     int block) {
    int64_t sum = 0;
    int low = 64, terms = 0;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (assignment[i] != block)
        continue;
      sum += digits[i].sign * (int64_t{1} << digits[i].position);
      low = std::min(low, digits[i].position);
      ++terms;
    }
    const int64_t scaled = sum / (int64_t{1} << low);
    return {scaled < 0 ? -scaled : scaled, low, sum < 0, terms};
  }

  /// Restricted-growth enumeration of the cuts of digits_ into exactly `blocks` operands of at
  /// most `cap` terms each.
  void search(size_t i, int used, int blocks, int64_t cap) {
    const size_t remaining = digits_.size() - i;
    if (remaining < static_cast<size_t>(blocks - used))
      return;
    if (i == digits_.size()) {
      consider(blocks);
      return;
    }
    for (int b = 0; b < std::min(used + 1, blocks); ++b) {
      if (sizes_[static_cast<size_t>(b)] >= cap)
        continue;
      assignment_[i] = b;
      ++sizes_[static_cast<size_t>(b)];
      search(i + 1, std::max(used, b + 1), blocks, cap);
      --sizes_[static_cast<size_t>(b)];
    }
  }

  void consider(int blocks) {
    Choice c{
        .found = true, .cost = 0, .missing = 0, .largest = 0, .blocks = blocks, .assignment = {}};
    for (int b = 0; b < blocks; ++b) {
      const Part part = partOf(digits_, assignment_, b);
      c.missing += index_.count(part.odd) ? 0 : 1;
      c.largest = std::max(c.largest, part.terms);
    }
    c.cost = blocks - 1 + c.missing;
    const auto key = [](const Choice& x) { return std::tuple(x.cost, x.missing, -x.largest); };
    if (best_.found && key(c) >= key(best_))
      return;
    c.assignment = assignment_;
    best_ = std::move(c);
  }

  int k_;
  std::vector<PlanNode>& nodes_;
  std::unordered_map<int64_t, int32_t> index_; ///< odd coefficient -> node
  // Search state of the value being cut.
  std::vector<Digit> digits_;
  std::vector<int> assignment_;
  std::vector<int64_t> sizes_;
  Choice best_;
};

int64_t oddPart(int64_t v) {
  return v >> std::countr_zero(static_cast<uint64_t>(v));
}

} // namespace

const char* multiplierFormName(MultiplierForm form) {
  switch (form) {
  case MultiplierForm::ShiftedTerms:
    return "ShiftedTerms";
  case MultiplierForm::SignedDigit:
    return "SignedDigit";
  case MultiplierForm::SharedPairs:
    return "SharedPairs";
  case MultiplierForm::SharedQuads:
    return "SharedQuads";
  }
  NNACCEL_UNREACHABLE("bad MultiplierForm");
}

MassMultiplier::MassMultiplier(int weightBits, bool signedWeights, MultiplierForm form)
    : weightBits_(weightBits), signed_(signedWeights), form_(form) {
  checkEnumeratedBits(weightBits);
  nodes_.push_back(PlanNode{}); // node 0: the input a
  const bool signedDigits = usesSignedDigits(form);
  // Magnitudes the output needs: 1..2^B-1, or 1..2^(B-1) for two's-complement weights.
  const int64_t maxMagnitude = signed_ ? int64_t{1} << (weightBits - 1) : codes() - 1;
  std::vector<ProductRef> magnitude(static_cast<size_t>(maxMagnitude + 1));
  if (isShared(form)) {
    std::vector<int64_t> odds;
    for (int64_t m = 1; m <= maxMagnitude; m += 2)
      odds.push_back(m);
    std::stable_sort(odds.begin(), odds.end(),
                     [](int64_t x, int64_t y) { return termCount(x, true) < termCount(y, true); });
    SharedBuilder builder(maxOperands(form), nodes_);
    for (int64_t odd : odds)
      builder.ensure(odd);
    for (int64_t m = 1; m <= maxMagnitude; ++m)
      magnitude[static_cast<size_t>(m)] = {builder.ensure(oddPart(m)),
                                           std::countr_zero(static_cast<uint64_t>(m)), false};
  } else {
    for (int64_t m = 1; m <= maxMagnitude; ++m) {
      const std::vector<Digit> digits = digitsOf(m, signedDigits);
      if (digits.size() == 1) {
        magnitude[static_cast<size_t>(m)] = {0, digits[0].position, digits[0].sign < 0};
        continue;
      }
      PlanNode node{.coefficient = m, .stage = 1, .product = false, .operands = {}};
      for (const Digit& d : digits)
        node.operands.push_back({0, d.position, d.sign < 0});
      nodes_.push_back(std::move(node));
      magnitude[static_cast<size_t>(m)] = {static_cast<int32_t>(nodes_.size() - 1), 0, false};
    }
  }
  int magnitudeStages = 0;
  for (const PlanNode& n : nodes_)
    magnitudeStages = std::max(magnitudeStages, n.stage);

  // Negative weights: one negator per negated value (shared forms negate the odd value once and
  // shift the result; the independent forms negate each product), one more stage.
  std::unordered_map<int32_t, int32_t> negatorOfNode; // shared forms: node -> its negator
  const auto negatorOf = [&](const ProductRef& mag) {
    const bool shared = isShared(form);
    if (auto it = negatorOfNode.find(mag.node); shared && it != negatorOfNode.end())
      return ProductRef{it->second, mag.shift, false};
    const int shift = shared ? 0 : mag.shift;
    const int64_t value = shl(nodes_[static_cast<size_t>(mag.node)].coefficient, shift);
    PlanNode node{.coefficient = mag.negate ? value : -value,
                  .stage = magnitudeStages + 1,
                  .product = false,
                  .operands = {{mag.node, shift, !mag.negate}}};
    nodes_.push_back(std::move(node));
    const auto id = static_cast<int32_t>(nodes_.size() - 1);
    if (shared)
      negatorOfNode.emplace(mag.node, id);
    return ProductRef{id, shared ? mag.shift : 0, false};
  };

  products_.resize(static_cast<size_t>(codes()));
  for (int64_t code = 1; code < codes(); ++code) {
    const int64_t weight = signed_ && code >= codes() / 2 ? code - codes() : code;
    products_[static_cast<size_t>(code)] = weight > 0
                                               ? magnitude[static_cast<size_t>(weight)]
                                               : negatorOf(magnitude[static_cast<size_t>(-weight)]);
  }
  for (const ProductRef& ref : products_)
    if (ref.node >= 0)
      nodes_[static_cast<size_t>(ref.node)].product = true;

  // Every node's coefficient is what its operands compose (the construction is consistent).
  for (size_t i = 1; i < nodes_.size(); ++i) {
    int64_t sum = 0;
    for (const PlanOperand& op : nodes_[i].operands) {
      const int64_t term = shl(nodes_[static_cast<size_t>(op.node)].coefficient, op.shift);
      sum += op.negate ? -term : term;
      NNACCEL_ASSERT(nodes_[static_cast<size_t>(op.node)].stage < nodes_[i].stage)
          << "operand not registered before its adder";
    }
    NNACCEL_ASSERT(sum == nodes_[i].coefficient) << "node " << i << " composes " << sum;
  }
}

int32_t MassMultiplier::minWeight() const {
  return signed_ ? -static_cast<int32_t>(codes() / 2) : 0;
}
int32_t MassMultiplier::maxWeight() const {
  return static_cast<int32_t>(signed_ ? codes() / 2 - 1 : codes() - 1);
}

void MassMultiplier::evaluate(int32_t input, std::vector<int64_t>& values) const {
  values.assign(nodes_.size(), 0);
  values[0] = input;
  for (size_t i = 1; i < nodes_.size(); ++i) {
    int64_t sum = 0;
    for (const PlanOperand& op : nodes_[i].operands) {
      const int64_t term = shl(values[static_cast<size_t>(op.node)], op.shift);
      sum = op.negate ? sum - term : sum + term;
    }
    values[i] = sum;
  }
}

int64_t MassMultiplier::fromRef(const ProductRef& ref, std::span<const int64_t> values) const {
  if (ref.node < 0)
    return 0;
  const int64_t v = shl(values[static_cast<size_t>(ref.node)], ref.shift);
  return ref.negate ? -v : v;
}

void MassMultiplier::compute(int32_t input, std::span<int64_t> multiples) const {
  if (static_cast<int64_t>(multiples.size()) != codes())
    fail("multiples", fmt::format("multiples has {} entries, expected {} (one per weight code)",
                                  multiples.size(), codes()));
  std::vector<int64_t> values;
  evaluate(input, values);
  for (size_t code = 0; code < multiples.size(); ++code)
    multiples[code] = fromRef(products_[code], values);
}

int64_t MassMultiplier::multiple(int32_t input, int32_t weight) const {
  if (weight < minWeight() || weight > maxWeight())
    fail("weight",
         fmt::format("weight {} is outside {}..{} of a {} {}-bit mass multiplier", weight,
                     minWeight(), maxWeight(), signed_ ? "signed" : "unsigned", weightBits_));
  std::vector<int64_t> values;
  evaluate(input, values);
  const int64_t code = weight < 0 ? weight + codes() : weight;
  return fromRef(products_[static_cast<size_t>(code)], values);
}

MassMultiplierCost MassMultiplier::cost() const {
  MassMultiplierCost c;
  c.weightBits = weightBits_;
  c.signedWeights = signed_;
  c.muxInputs = codes();
  for (const ProductRef& ref : products_)
    c.products += ref.node >= 0 ? 1 : 0;
  std::vector<int> lastUse(nodes_.size(), 0); // last stage whose adders read the node
  std::vector<int> levels(nodes_.size(), 0);  // critical path in 2-input adder levels
  for (size_t i = 1; i < nodes_.size(); ++i) {
    const PlanNode& n = nodes_[i];
    const auto inputs = static_cast<int64_t>(n.operands.size());
    if (inputs == 1) {
      ++c.negators;
    } else {
      c.adders += inputs - 1;
      ++c.adderCircuits;
    }
    c.intermediates += n.product ? 0 : 1;
    c.pipelineStages = std::max(c.pipelineStages, n.stage);
    int operandLevels = 0;
    for (const PlanOperand& op : n.operands) {
      lastUse[static_cast<size_t>(op.node)] =
          std::max(lastUse[static_cast<size_t>(op.node)], n.stage);
      operandLevels = std::max(operandLevels, levels[static_cast<size_t>(op.node)]);
    }
    levels[i] = operandLevels + std::max(1, stagesFor(static_cast<int>(inputs), 2));
    c.adderLevels = std::max(c.adderLevels, levels[i]);
  }
  // A value sits in a register at the end of each stage from the one making it (the input:
  // stage 1) to the output stage if it is a product, else to the stage before its last reader.
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const int last = nodes_[i].product ? c.pipelineStages : lastUse[i] - 1;
    c.registers += std::max(0, last - std::max(1, nodes_[i].stage) + 1);
  }
  const bool signedDigits = usesSignedDigits(form_);
  const int64_t maxMagnitude = signed_ ? codes() / 2 : codes() - 1;
  for (int64_t m = 1; m <= maxMagnitude; ++m)
    c.maxTermsPerProduct = std::max(c.maxTermsPerProduct, termCount(m, signedDigits));
  return c;
}

MassMultiplierCost massMultiplierCost(MultiplierForm form, int weightBits, bool signedWeights) {
  return MassMultiplier(weightBits, signedWeights, form).cost();
}

int analyticMaxTerms(MultiplierForm form, int weightBits, bool signedWeights) {
  if (weightBits < 1 || weightBits > 62)
    fail("weightBits", fmt::format("weightBits={} is out of range 1..62", weightBits));
  // Binary: 2^B-1 (or 2^(B-1)-1) has every bit set. Signed digits: the most nonzero canonical
  // digits below 2^n is floor(n/2)+1 (checked against enumeration in the tests).
  const int bits = signedWeights ? weightBits - 1 : weightBits;
  if (!usesSignedDigits(form))
    return std::max(1, bits);
  return bits / 2 + 1;
}

int analyticPipelineStages(MultiplierForm form, int weightBits, bool signedWeights) {
  const int terms = analyticMaxTerms(form, weightBits, signedWeights);
  const int magnitudeStages =
      isShared(form) ? stagesFor(terms, maxOperands(form)) : (terms >= 2 ? 1 : 0);
  return magnitudeStages + (signedWeights ? 1 : 0);
}

int64_t splitIndexProduct(const MassMultiplier& narrow, int32_t input, int32_t weight,
                          int weightBits, bool signedWeight) {
  const int chunkBits = narrow.weightBits();
  if (narrow.signedWeights())
    fail("narrow", "split-index lookups need an unsigned narrow mass multiplier");
  if (weightBits < chunkBits || weightBits > 32 || weightBits % chunkBits != 0)
    fail("weightBits", fmt::format("weightBits={} is not a multiple of chunkBits={} within 32 "
                                   "bits",
                                   weightBits, chunkBits));
  const int64_t low = signedWeight ? -(int64_t{1} << (weightBits - 1)) : 0;
  const int64_t high =
      signedWeight ? (int64_t{1} << (weightBits - 1)) - 1 : (int64_t{1} << weightBits) - 1;
  if (weight < low || weight > high)
    fail("weight", fmt::format("weight {} is outside {}..{} of a {} {}-bit weight", weight, low,
                               high, signedWeight ? "signed" : "unsigned", weightBits));
  std::vector<int64_t> multiples(static_cast<size_t>(narrow.codes()));
  narrow.compute(input, multiples);
  const uint64_t code =
      static_cast<uint64_t>(static_cast<int64_t>(weight)) & ((uint64_t{1} << weightBits) - 1);
  const uint64_t mask = (uint64_t{1} << chunkBits) - 1;
  uint64_t sum = 0; // modulo 2^64: partial sums may leave int64 for |input| = 2^31, 32 bits
  for (int shift = 0; shift < weightBits; shift += chunkBits)
    sum += static_cast<uint64_t>(multiples[(code >> shift) & mask]) << shift;
  if (signedWeight && weight < 0) // the code's top bit weighs -2^(W-1), not +2^(W-1)
    sum -= static_cast<uint64_t>(static_cast<int64_t>(input)) << weightBits;
  return static_cast<int64_t>(sum);
}

MassMultiplierCost splitIndexCost(MultiplierForm form, int weightBits, int chunkBits,
                                  bool signedWeights) {
  if (chunkBits < 1 || chunkBits > kMaxEnumeratedWeightBits)
    fail("chunkBits",
         fmt::format("chunkBits={} is out of range 1..{}", chunkBits, kMaxEnumeratedWeightBits));
  if (weightBits < chunkBits || weightBits > 32 || weightBits % chunkBits != 0)
    fail("chunkBits", fmt::format("chunkBits={} does not divide weightBits={} (at most 32)",
                                  chunkBits, weightBits));
  MassMultiplierCost c = massMultiplierCost(form, chunkBits, false);
  c.weightBits = weightBits;
  c.signedWeights = signedWeights;
  c.lookupsPerProduct = weightBits / chunkBits;
  c.recombineAdders = c.lookupsPerProduct - 1 + (signedWeights ? 1 : 0);
  return c;
}

double independentMultipliersArea(int weightBits, int64_t consumers, const AreaModel& model) {
  const int productBits = model.inputBits + weightBits;
  return static_cast<double>(consumers) * (weightBits - 1) * productBits;
}

namespace {
/// Area shared by all consumers and area per consumer of a mass multiplier.
std::pair<double, double> massArea(const MassMultiplierCost& cost, const AreaModel& model) {
  const int chunkBits = std::countr_zero(static_cast<uint64_t>(cost.muxInputs));
  const double chunkProductBits = model.inputBits + chunkBits + 1;
  const double shared = static_cast<double>(cost.adders + cost.negators) * chunkProductBits;
  double perConsumer =
      static_cast<double>(cost.recombineAdders) * (model.inputBits + cost.weightBits + 1);
  if (!model.wiredProducts)
    perConsumer += cost.lookupsPerProduct * static_cast<double>(cost.muxInputs - 1) *
                   chunkProductBits * model.muxCellCost;
  return {shared, perConsumer};
}
} // namespace

double massMultiplierArea(const MassMultiplierCost& cost, int64_t consumers,
                          const AreaModel& model) {
  const auto [shared, perConsumer] = massArea(cost, model);
  return shared + static_cast<double>(consumers) * perConsumer;
}

std::optional<int64_t> breakEvenConsumers(const MassMultiplierCost& cost, const AreaModel& model) {
  const auto [shared, perConsumer] = massArea(cost, model);
  const double perMultiplier = independentMultipliersArea(cost.weightBits, 1, model);
  if (perConsumer >= perMultiplier)
    return std::nullopt;
  auto k = static_cast<int64_t>(std::floor(shared / (perMultiplier - perConsumer)));
  while (k > 1 && massMultiplierArea(cost, k - 1, model) <
                      independentMultipliersArea(cost.weightBits, k - 1, model))
    --k;
  while (massMultiplierArea(cost, k, model) >=
         independentMultipliersArea(cost.weightBits, k, model))
    ++k;
  return k;
}

} // namespace nnaccel::arch::stream
