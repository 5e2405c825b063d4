// Resolution of ONNX attributes, defaults, opset differences and auto_pad rules into the
// concrete parameter structs of OpParams.h, with validation against the inferred input shapes.
// Every consumer of node semantics (shape inference, executors, quantizer, engines) reads these
// structs, so the ONNX rules live here once.
#include "nnaccel/ir/OpParams.h"

#include "NodeInputs.h"
#include "nnaccel/ir/LogicOps.h"
#include "nnaccel/ir/ShapeOps.h"
#include "nnaccel/support/IntMath.h"
#include "nnaccel/tensor/Half.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <sstream>

namespace nnaccel::ir {

// The module's private helpers (NodeInputs.h).
using namespace detail;

namespace {

int64_t sizeOf(const std::vector<int64_t>& d) {
  return static_cast<int64_t>(d.size());
}
std::string floatStr(float v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
const AttrMap& attrsOf(const Graph& g, NodeId id) {
  return g.node(id).attrs;
}

// --- sliding windows (Conv, ConvTranspose, pooling) --------------------------------------------

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

std::string autoPadName(AutoPad ap) {
  switch (ap) {
  case AutoPad::NotSet:
    return "NOTSET";
  case AutoPad::SameUpper:
    return "SAME_UPPER";
  case AutoPad::SameLower:
    return "SAME_LOWER";
  case AutoPad::Valid:
    return "VALID";
  }
  NNACCEL_UNREACHABLE("bad auto_pad");
  return "";
}

AutoPad readAutoPad(const Graph& g, NodeId id) {
  const std::string s = attrsOf(g, id).getString("auto_pad", "NOTSET");
  for (AutoPad ap : {AutoPad::NotSet, AutoPad::SameUpper, AutoPad::SameLower, AutoPad::Valid}) {
    if (s == autoPadName(ap)) {
      return ap;
    }
  }
  g.fail(id,
         "unknown auto_pad " + quoted(s) + " (expected NOTSET, SAME_UPPER, SAME_LOWER or VALID)");
}

/// A per-spatial-axis ints attribute (kernel_shape, strides, dilations, output_padding) with
/// default \p dflt; every value must be >= \p minValue.
Dims spatialAttr(const Graph& g, NodeId id, const std::string& name, int64_t rank, int64_t dflt,
                 int64_t minValue) {
  Dims v = attrsOf(g, id).getInts(name, Dims(static_cast<size_t>(rank), dflt));
  if (sizeOf(v) != rank) {
    g.fail(id, "attribute " + quoted(name) + " has " + str(sizeOf(v)) + " values, expected " +
                   str(rank) + " (one per spatial axis)");
  }
  requireExtents(g, id, v, name);
  for (int64_t x : v) {
    if (x < minValue) {
      g.fail(id, name + " must be " + (minValue == 1 ? "positive" : ">= 0") + ", got " +
                     listToString(v));
    }
  }
  return v;
}

struct Pads {
  Dims begin, end;
};

/// The explicit pads attribute (zeros when absent). Non-zero pads together with an auto_pad
/// other than NOTSET are ambiguous (runtimes disagree on which wins) and rejected.
Pads readPads(const Graph& g, NodeId id, int64_t rank, AutoPad ap) {
  const Dims v = attrsOf(g, id).getInts("pads", Dims(static_cast<size_t>(2 * rank), 0));
  if (sizeOf(v) != 2 * rank) {
    g.fail(id, "attribute 'pads' has " + str(sizeOf(v)) + " values, expected " + str(2 * rank) +
                   " (begin and end per spatial axis)");
  }
  requireExtents(g, id, v, "pads");
  bool nonZero = false;
  for (int64_t x : v) {
    if (x < 0) {
      g.fail(id, "pads must be >= 0, got " + listToString(v));
    }
    nonZero = nonZero || x != 0;
  }
  if (nonZero && ap != AutoPad::NotSet) {
    g.fail(id, "pads " + listToString(v) + " cannot be combined with auto_pad=" + autoPadName(ap));
  }
  return Pads{Dims(v.begin(), v.begin() + rank), Dims(v.begin() + rank, v.end())};
}

/// Output extent of a forward sliding window (Conv, pooling) on spatial axis \p axis. For
/// SAME_UPPER/SAME_LOWER it sets \p pb/\p pe (the extra odd pad goes to the end / the
/// beginning); for VALID they must be zero; for NOTSET they are the attribute values.
/// ceil_mode follows the rule that the last window must start inside the input or the left
/// padding.
int64_t windowOutput(const Graph& g, NodeId id, size_t axis, int64_t in, int64_t kernel,
                     int64_t stride, int64_t dilation, AutoPad ap, bool ceilMode, int64_t& pb,
                     int64_t& pe) {
  const int64_t eff = (kernel - 1) * dilation + 1;
  if (ap == AutoPad::SameUpper || ap == AutoPad::SameLower) {
    const int64_t out = ceilDiv(in, stride);
    const int64_t total = std::max<int64_t>(0, (out - 1) * stride + eff - in);
    const int64_t small = total / 2;
    pb = ap == AutoPad::SameUpper ? small : total - small;
    pe = total - pb;
    return out;
  }
  const int64_t padded = in + pb + pe;
  if (padded < eff) {
    const std::string k = dilation == 1 ? "kernel " + str(kernel)
                                        : "dilated kernel extent " + str(eff) + " (kernel " +
                                              str(kernel) + ", dilation " + str(dilation) + ")";
    g.fail(id, k + " is larger than the padded input " + str(padded) + " on spatial axis " +
                   str(static_cast<int64_t>(axis)));
  }
  int64_t out = (ceilMode ? ceilDiv(padded - eff, stride) : (padded - eff) / stride) + 1;
  if (ceilMode && (out - 1) * stride >= in + pb) {
    --out;
  }
  return out;
}

/// ConvTranspose output extents and pads: from output_shape (pads derived), from auto_pad SAME
/// (output = input * stride) or from explicit pads. padsEnd absorbs output_padding so that
/// out = stride * (in - 1) + dilated_kernel - padsBegin - padsEnd holds on every axis.
void resolveTransposed(const Graph& g, NodeId id, ConvParams& p, AutoPad ap, const Pads& pads) {
  const int64_t sr = p.spatialRank;
  p.outputPadding = spatialAttr(g, id, "output_padding", sr, 0, 0);
  Dims target;
  if (const Dims* os = attrsOf(g, id).find<Dims>("output_shape")) {
    target = *os;
    if (sizeOf(target) == sr + 2) {
      target.erase(target.begin(), target.begin() + 2);
    }
    if (sizeOf(target) != sr) {
      g.fail(id, "attribute 'output_shape' has " + str(sizeOf(*os)) + " values, expected " +
                     str(sr) + " (one per spatial axis)");
    }
    requireExtents(g, id, target, "output_shape");
    for (int64_t t : target) {
      if (t <= 0) {
        g.fail(id, "output_shape must be positive, got " + listToString(*os));
      }
    }
  } else if (ap == AutoPad::SameUpper || ap == AutoPad::SameLower) {
    for (int64_t i = 0; i < sr; ++i) {
      target.push_back(p.inSpatial[static_cast<size_t>(i)] * p.strides[static_cast<size_t>(i)]);
    }
  }
  p.padsBegin.assign(static_cast<size_t>(sr), 0);
  p.padsEnd.assign(static_cast<size_t>(sr), 0);
  p.outSpatial.assign(static_cast<size_t>(sr), 0);
  for (size_t i = 0; i < static_cast<size_t>(sr); ++i) {
    const int64_t stride = p.strides[i];
    const int64_t dil = p.dilations[i];
    const int64_t op = p.outputPadding[i];
    if (op >= stride && op >= dil) {
      g.fail(id, "output_padding " + str(op) + " must be smaller than stride " + str(stride) +
                     " or dilation " + str(dil) + " on spatial axis " + std::to_string(i));
    }
    const int64_t full = stride * (p.inSpatial[i] - 1) + op + (p.kernel[i] - 1) * dil + 1;
    int64_t pb = 0;
    int64_t pe = 0;
    int64_t out = 0;
    if (!target.empty()) {
      const int64_t total = full - target[i];
      const int64_t half = floorDiv(total, 2);
      if (ap == AutoPad::SameUpper) {
        pb = half;
        pe = total - half;
      } else {
        pe = half;
        pb = total - half;
      }
      if (pb < 0) {
        g.fail(id,
               "output extent " + str(target[i]) + " on spatial axis " + std::to_string(i) +
                   " needs negative leading padding (total padding " + str(total) + ")",
               ErrorKind::Unsupported);
      }
      out = target[i];
    } else {
      pb = pads.begin[i];
      pe = pads.end[i];
      out = full - pb - pe;
      if (out <= 0) {
        g.fail(id, "output extent " + str(out) + " on spatial axis " + std::to_string(i) +
                       " is not positive (pads " + str(pb) + "+" + str(pe) +
                       " exceed the full output " + str(full) + ")");
      }
    }
    p.padsBegin[i] = pb;
    p.padsEnd[i] = pe - op;
    p.outSpatial[i] = out;
  }
}

} // namespace

// --- Conv / ConvTranspose ------------------------------------------------------------------------

namespace {
/// Multiply-accumulates of a convolution, or nullopt if the count does not fit int64. Conv:
/// every output element sums over C/group channels and the kernel; ConvTranspose: every input
/// element scatters into M/group channels over the kernel.
std::optional<int64_t> macCount(const ConvParams& p) {
  Dims factors{p.batch, p.transposed ? p.inChannels : p.outChannels,
               (p.transposed ? p.outChannels : p.inChannels) / p.group};
  const Dims& spatial = p.transposed ? p.inSpatial : p.outSpatial;
  factors.insert(factors.end(), spatial.begin(), spatial.end());
  factors.insert(factors.end(), p.kernel.begin(), p.kernel.end());
  return checkedProduct(factors, std::numeric_limits<int64_t>::max());
}
} // namespace

int64_t ConvParams::macs() const {
  const std::optional<int64_t> m = macCount(*this);
  NNACCEL_ASSERT(m.has_value()) << "MAC count of a convolution overflows int64";
  return *m;
}

ConvParams convParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    NNACCEL_ASSERT(n.op == OpKind::Conv || n.op == OpKind::ConvTranspose ||
                   n.op == OpKind::QLinearConv || n.op == OpKind::ConvInteger)
        << "convParams on " << opName(n.op);
    // QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B
    const bool qlinear = n.op == OpKind::QLinearConv;
    ConvParams p;
    p.transposed = n.op == OpKind::ConvTranspose;
    const Value& x = requiredInput(g, id, 0, "data");
    const Value& w = requiredInput(g, id, qlinear ? 3 : 1, "weight");
    const int64_t rank = sizeOf(x.shape);
    if (rank < 3) {
      g.fail(id, "input " + quoted(x.name) + " must have rank >= 3 (N, C, spatial...), found " +
                     dimsToString(x.shape));
    }
    if (sizeOf(w.shape) != rank) {
      g.fail(id, "weight " + quoted(w.name) + " has shape " + dimsToString(w.shape) +
                     ", expected rank " + str(rank) + " like the input");
    }
    p.spatialRank = rank - 2;
    p.batch = x.shape[0];
    p.inChannels = x.shape[1];
    p.group = attrsOf(g, id).getInt("group", 1);
    if (p.group < 1) {
      g.fail(id, "group must be positive, got " + str(p.group));
    }
    if (p.inChannels % p.group != 0) {
      g.fail(id, "group=" + str(p.group) + " does not divide input channels=" + str(p.inChannels));
    }
    if (!p.transposed) {
      if (w.shape[1] * p.group != p.inChannels) {
        g.fail(id, "weight " + quoted(w.name) + " has shape " + dimsToString(w.shape) + ": " +
                       str(w.shape[1]) + " input channels per group, expected " +
                       str(p.inChannels / p.group) + " (input channels=" + str(p.inChannels) +
                       ", group=" + str(p.group) + ")");
      }
      p.outChannels = w.shape[0];
      if (p.outChannels % p.group != 0) {
        g.fail(id,
               "group=" + str(p.group) + " does not divide output channels=" + str(p.outChannels));
      }
    } else {
      if (w.shape[0] != p.inChannels) {
        g.fail(id, "weight " + quoted(w.name) + " has shape " + dimsToString(w.shape) + ": " +
                       str(w.shape[0]) + " input channels, expected " + str(p.inChannels));
      }
      p.outChannels = w.shape[1] * p.group;
    }
    p.kernel.assign(w.shape.begin() + 2, w.shape.end());
    if (const Dims* ks = n.attrs.find<Dims>("kernel_shape"); ks && *ks != p.kernel) {
      g.fail(id, "kernel_shape " + listToString(*ks) + " does not match weight " + quoted(w.name) +
                     " of shape " + dimsToString(w.shape));
    }
    // ConvInteger: x, w, x_zero_point, w_zero_point (no bias).
    const Value* b = n.op == OpKind::ConvInteger ? nullptr : optionalInput(g, id, qlinear ? 8 : 2);
    if (b != nullptr) {
      if (!b->shapeKnown || b->shape != Dims{p.outChannels}) {
        g.fail(id, "bias " + quoted(b->name) + " has shape " +
                       (b->shapeKnown ? dimsToString(b->shape) : std::string("unknown")) +
                       ", expected " + str(p.outChannels) + " (one per output channel)");
      }
      p.hasBias = true;
    }
    p.inSpatial.assign(x.shape.begin() + 2, x.shape.end());
    p.strides = spatialAttr(g, id, "strides", p.spatialRank, 1, 1);
    p.dilations = spatialAttr(g, id, "dilations", p.spatialRank, 1, 1);
    const AutoPad ap = readAutoPad(g, id);
    const Pads pads = readPads(g, id, p.spatialRank, ap);
    if (p.transposed) {
      resolveTransposed(g, id, p, ap, pads);
    } else {
      p.padsBegin = pads.begin;
      p.padsEnd = pads.end;
      p.outputPadding.assign(static_cast<size_t>(p.spatialRank), 0);
      for (size_t i = 0; i < static_cast<size_t>(p.spatialRank); ++i) {
        p.outSpatial.push_back(windowOutput(g, id, i, p.inSpatial[i], p.kernel[i], p.strides[i],
                                            p.dilations[i], ap, false, p.padsBegin[i],
                                            p.padsEnd[i]));
      }
    }
    if (!macCount(p)) {
      g.fail(id, "the convolution needs more than 2^63 multiply-accumulates",
             ErrorKind::Unsupported);
    }
    return p;
  });
}

// --- pooling -------------------------------------------------------------------------------------

PoolParams poolParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    NNACCEL_ASSERT(n.op == OpKind::MaxPool || n.op == OpKind::AveragePool ||
                   n.op == OpKind::GlobalMaxPool || n.op == OpKind::GlobalAveragePool)
        << "poolParams on " << opName(n.op);
    PoolParams p;
    p.kind = (n.op == OpKind::MaxPool || n.op == OpKind::GlobalMaxPool) ? PoolParams::Kind::Max
                                                                        : PoolParams::Kind::Average;
    p.global = n.op == OpKind::GlobalMaxPool || n.op == OpKind::GlobalAveragePool;
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    if (rank < 3) {
      g.fail(id, "input " + quoted(x.name) + " must have rank >= 3 (N, C, spatial...), found " +
                     dimsToString(x.shape));
    }
    p.spatialRank = rank - 2;
    const auto sr = static_cast<size_t>(p.spatialRank);
    p.batch = x.shape[0];
    p.channels = x.shape[1];
    p.inSpatial.assign(x.shape.begin() + 2, x.shape.end());
    if (p.global) {
      p.kernel = p.inSpatial;
      p.outSpatial.assign(sr, 1);
      p.strides.assign(sr, 1);
      p.dilations.assign(sr, 1);
      p.padsBegin.assign(sr, 0);
      p.padsEnd.assign(sr, 0);
      return p;
    }
    if (!n.attrs.has("kernel_shape")) {
      g.fail(id, "missing required attribute 'kernel_shape'");
    }
    p.kernel = spatialAttr(g, id, "kernel_shape", p.spatialRank, 1, 1);
    p.strides = spatialAttr(g, id, "strides", p.spatialRank, 1, 1);
    if (n.op == OpKind::MaxPool) {
      p.dilations = spatialAttr(g, id, "dilations", p.spatialRank, 1, 1);
      // storage_order only affects the layout of the (optional) Indices output.
      const int64_t order = n.attrs.getInt("storage_order", 0);
      if (order != 0 && order != 1) {
        g.fail(id, "storage_order must be 0 (row major) or 1 (column major), got " + str(order));
      }
      p.storageOrderColumnMajor = order == 1;
    } else {
      if (n.attrs.has("dilations")) {
        g.fail(id, "attribute 'dilations' of AveragePool needs opset 19", ErrorKind::Unsupported);
      }
      p.dilations.assign(sr, 1);
      p.countIncludePad = n.attrs.getInt("count_include_pad", 0) != 0;
    }
    p.ceilMode = n.attrs.getInt("ceil_mode", 0) != 0;
    const AutoPad ap = readAutoPad(g, id);
    const Pads pads = readPads(g, id, p.spatialRank, ap);
    p.padsBegin = pads.begin;
    p.padsEnd = pads.end;
    for (size_t i = 0; i < sr; ++i) {
      const int64_t eff = (p.kernel[i] - 1) * p.dilations[i] + 1;
      for (int64_t pad : {p.padsBegin[i], p.padsEnd[i]}) {
        if (pad >= eff) {
          g.fail(id, "pad " + str(pad) + " is not smaller than the kernel extent " + str(eff) +
                         " on spatial axis " + std::to_string(i) +
                         " (a window would lie entirely in the padding)");
        }
      }
      p.outSpatial.push_back(windowOutput(g, id, i, p.inSpatial[i], p.kernel[i], p.strides[i],
                                          p.dilations[i], ap, p.ceilMode, p.padsBegin[i],
                                          p.padsEnd[i]));
    }
    return p;
  });
}

// --- BatchNormalization --------------------------------------------------------------------------

namespace {

/// True when \p from broadcasts onto \p to one way (numpy rules, \p to unchanged).
bool broadcastsOnto(const Dims& from, const Dims& to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t d = from[from.size() - 1 - i];
    if (d != 1 && d != to[to.size() - 1 - i])
      return false;
  }
  return true;
}

} // namespace

LrnParams lrnParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    if (x.shape.size() < 3) {
      g.fail(id, "input " + quoted(x.name) + " must have rank >= 3 (N, C, spatial...), found " +
                     dimsToString(x.shape));
    }
    LrnParams p;
    p.size = requiredIntAttr(g, id, "size");
    if (p.size < 1) {
      g.fail(id, "size must be positive, got " + str(p.size));
    }
    p.alpha = n.attrs.getFloat("alpha", p.alpha);
    p.beta = n.attrs.getFloat("beta", p.beta);
    p.bias = n.attrs.getFloat("bias", p.bias);
    if (!std::isfinite(p.alpha) || !std::isfinite(p.beta) || !std::isfinite(p.bias)) {
      g.fail(id, "alpha, beta and bias must be finite");
    }
    return p;
  });
}

NormalizationParams normalizationParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "input");
    const int64_t rank = sizeOf(x.shape);
    NormalizationParams p;
    p.epsilon = n.attrs.getFloat("epsilon", 1e-5f);
    if (!(p.epsilon >= 0.0f) || !std::isfinite(p.epsilon)) {
      g.fail(id, "epsilon must be finite and non-negative, got " + floatStr(p.epsilon));
    }
    const Value& scale = requiredInput(g, id, 1, "scale");
    int64_t first = 2;
    if (n.op == OpKind::InstanceNormalization) {
      p.perChannelAffine = true;
      if (rank < 3) {
        g.fail(id, "input " + quoted(x.name) + " must have rank >= 3 (N, C, spatial...), found " +
                       dimsToString(x.shape));
      }
      const Value& bias = requiredInput(g, id, 2, "B");
      for (const Value* v : {&scale, &bias}) {
        if (v->shape != Dims{x.shape[1]}) {
          g.fail(id, quoted(v->name) + " has shape " + dimsToString(v->shape) + ", expected " +
                         str(x.shape[1]) + " (one per channel)");
        }
      }
    } else {
      NNACCEL_ASSERT(n.op == OpKind::LayerNormalization)
          << "normalizationParams on " << opName(n.op);
      if (rank < 1) {
        g.fail(id, "input " + quoted(x.name) + " must have rank >= 1");
      }
      first = normalizeAxis(g, id, n.attrs.getInt("axis", -1), rank, "axis");
      if (n.attrs.getInt("stash_type", 1) != 1) {
        g.fail(id, "stash_type other than 1 (float32 statistics) is not supported",
               ErrorKind::Unsupported);
      }
      const Dims normalized(x.shape.begin() + first, x.shape.end());
      const Value* bias = optionalInput(g, id, 2);
      for (const Value* v : {&scale, bias}) {
        if (v != nullptr && !broadcastsOnto(v->shape, normalized)) {
          g.fail(id, quoted(v->name) + " has shape " + dimsToString(v->shape) +
                         ", which does not broadcast onto the normalized dims " +
                         dimsToString(normalized));
        }
      }
    }
    p.statShape = x.shape;
    for (int64_t a = first; a < rank; ++a) {
      p.axes.push_back(a);
      p.statShape[static_cast<size_t>(a)] = 1;
    }
    return p;
  });
}

BatchNormParams batchNormParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    NNACCEL_ASSERT(n.op == OpKind::BatchNormalization) << "batchNormParams on " << opName(n.op);
    const Value& x = requiredInput(g, id, 0, "data");
    if (x.shape.size() < 2) {
      g.fail(id, "input " + quoted(x.name) + " must have rank >= 2 (N, C, ...), found " +
                     dimsToString(x.shape));
    }
    BatchNormParams p;
    p.channels = x.shape[1];
    static constexpr const char* kRoles[] = {"scale", "bias", "mean", "var"};
    for (size_t i = 1; i <= 4; ++i) {
      const Value& v = requiredInput(g, id, i, kRoles[i - 1]);
      if (v.shape != Dims{p.channels}) {
        g.fail(id, std::string(kRoles[i - 1]) + " " + quoted(v.name) + " has shape " +
                       dimsToString(v.shape) + ", expected " + str(p.channels) +
                       " (one per channel)");
      }
    }
    if (n.opset < 9 && n.attrs.getInt("spatial", 1) == 0) {
      g.fail(id, "spatial=0 (per-element statistics) is not supported", ErrorKind::Unsupported);
    }
    if (n.opset >= 14 && n.attrs.getInt("training_mode", 0) != 0) {
      g.fail(id, "training_mode=1 is not supported (inference only)", ErrorKind::Unsupported);
    }
    for (size_t k = 1; k < n.outputs.size(); ++k) {
      if (n.outputs[k] != kNoValue) {
        g.fail(id, "training-mode outputs (running or saved mean/var) are not supported",
               ErrorKind::Unsupported);
      }
    }
    p.epsilon = n.attrs.getFloat("epsilon", 1e-5f);
    if (!(p.epsilon >= 0.0f)) {
      g.fail(id, "epsilon must be >= 0, got " + floatStr(p.epsilon));
    }
    return p;
  });
}

// --- activations ---------------------------------------------------------------------------------

namespace {
/// Clip bound from an optional scalar constant input (opset >= 11).
float clipBound(const Graph& g, NodeId id, size_t index, const char* role, float dflt) {
  const Tensor* t = constantInput(g, id, index, role);
  if (t == nullptr || t->numElements() == 0) {
    return dflt;
  }
  if (t->numElements() != 1) {
    g.fail(id, std::string(role) + " must be a scalar, found shape " + dimsToString(t->shape()));
  }
  return static_cast<float>(t->elementAsDouble(0));
}
} // namespace

ActivationParams activationParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    NNACCEL_ASSERT(isUnaryActivation(n.op)) << "activationParams on " << opName(n.op);
    ActivationParams p;
    p.kind = n.op;
    switch (n.op) {
    case OpKind::LeakyRelu:
      p.alpha = n.attrs.getFloat("alpha", 0.01f);
      break;
    case OpKind::Elu:
      p.alpha = n.attrs.getFloat("alpha", 1.0f);
      break;
    case OpKind::Selu:
      p.alpha = n.attrs.getFloat("alpha", 1.67326319217681884765625f);
      p.gamma = n.attrs.getFloat("gamma", 1.05070102214813232421875f);
      break;
    case OpKind::HardSigmoid:
      p.alpha = n.attrs.getFloat("alpha", 0.2f);
      p.beta = n.attrs.getFloat("beta", 0.5f);
      break;
    case OpKind::Swish:
      p.alpha = n.attrs.getFloat("alpha", 1.0f);
      break;
    case OpKind::Gelu: {
      const std::string approximate = n.attrs.getString("approximate", "none");
      if (approximate != "none" && approximate != "tanh") {
        g.fail(id, "approximate must be \"none\" or \"tanh\", got " + quoted(approximate));
      }
      p.tanhApproximation = approximate == "tanh";
      break;
    }
    case OpKind::Clip:
      if (n.opset < 11) {
        if (n.inputs.size() > 1) {
          g.fail(id, "min and max are attributes, not inputs, before opset 11");
        }
        p.alpha = n.attrs.getFloat("min", std::numeric_limits<float>::lowest());
        p.beta = n.attrs.getFloat("max", std::numeric_limits<float>::max());
      } else {
        for (const char* name : {"min", "max"}) {
          if (n.attrs.has(name)) {
            g.fail(id, "attribute " + quoted(name) + " was replaced by an input in opset 11");
          }
        }
        const float inf = std::numeric_limits<float>::infinity();
        p.alpha = clipBound(g, id, 1, "min", -inf);
        p.beta = clipBound(g, id, 2, "max", inf);
      }
      break;
    default:
      break;
    }
    return p;
  });
}

namespace {

/// ONNX Gelu (opset 20): 0.5 x (1 + erf(x / sqrt 2)), or with approximate = "tanh"
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); evaluated in double, rounded once.
float geluOf(float x, bool tanhApproximation) {
  const auto v = static_cast<double>(x);
  if (tanhApproximation) {
    const double k = std::sqrt(2.0 / std::numbers::pi);
    return static_cast<float>(0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
  }
  return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2)));
}

} // namespace

float applyActivation(const ActivationParams& p, float x) {
  switch (p.kind) {
  case OpKind::Relu:
    return x < 0.0f ? 0.0f : x;
  case OpKind::LeakyRelu:
    return x < 0.0f ? p.alpha * x : x;
  case OpKind::Clip:
    return std::min(std::max(x, p.alpha), p.beta);
  case OpKind::Sigmoid:
    return 1.0f / (1.0f + std::exp(-x));
  case OpKind::HardSigmoid:
    return std::max(0.0f, std::min(1.0f, p.alpha * x + p.beta));
  case OpKind::HardSwish:
    return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
  case OpKind::Tanh:
    return std::tanh(x);
  case OpKind::Elu:
    return x < 0.0f ? p.alpha * std::expm1(x) : x;
  case OpKind::Selu:
    return x > 0.0f ? p.gamma * x : p.gamma * (p.alpha * std::exp(x) - p.alpha);
  case OpKind::Softplus:
    // log(1 + exp(x)) without overflow for large x.
    return x > 0.0f ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  case OpKind::Exp:
    return std::exp(x);
  case OpKind::Erf:
    return std::erf(x);
  case OpKind::Gelu:
    return geluOf(x, p.tanhApproximation);
  case OpKind::Swish: { // ONNX Swish (opset 24): x * sigmoid(alpha x), in double, rounded once
    const auto v = static_cast<double>(x);
    return static_cast<float>(v / (1.0 + std::exp(-static_cast<double>(p.alpha) * v)));
  }
  case OpKind::Mish: { // ONNX Mish (opset 18): x * tanh(softplus(x)), in double, rounded once
    const auto v = static_cast<double>(x);
    const double softplus = v > 0.0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
    return static_cast<float>(v * std::tanh(softplus));
  }
  case OpKind::Softsign:
    return x / (1.0f + std::fabs(x));
  case OpKind::Sqrt:
    return std::sqrt(x);
  case OpKind::Reciprocal:
    return 1.0f / x;
  case OpKind::Log:
    return std::log(x);
  case OpKind::Neg:
    return -x;
  case OpKind::Abs:
    return std::fabs(x);
  case OpKind::Floor:
    return std::floor(x);
  case OpKind::Ceil:
    return std::ceil(x);
  case OpKind::Round: // half to even (ONNX Round), the default rounding mode's nearbyint
    return std::nearbyint(x);
  default:
    break;
  }
  NNACCEL_UNREACHABLE("applyActivation on a non-activation op");
  return x;
}

float minMaxOf(bool max, float a, float b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  return max ? std::max(a, b) : std::min(a, b);
}

// --- broadcasting, Gemm, Softmax
// ------------------------------------------------------------------

Dims broadcastShapes(const Graph& g, NodeId id, const Dims& a, const Dims& b) {
  const size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      g.fail(id, "cannot broadcast shapes " + dimsToString(a) + " and " + dimsToString(b));
    }
  }
  return out;
}

int64_t nodeMacs(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  switch (n.op) {
  case OpKind::Conv:
  case OpKind::ConvTranspose:
  case OpKind::QLinearConv:
  case OpKind::ConvInteger:
    return convParams(g, id).macs();
  case OpKind::Gemm: {
    const GemmParams p = gemmParams(g, id);
    return p.m * p.k * p.n;
  }
  case OpKind::MatMul:
  case OpKind::MatMulInteger: {
    const Dims& a = g.value(n.inputs.at(0)).shape;
    return numElements(g.value(n.outputs.at(0)).shape) * (a.empty() ? 1 : a.back());
  }
  default:
    return 0;
  }
}

GemmParams gemmParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    NNACCEL_ASSERT(n.op == OpKind::Gemm) << "gemmParams on " << opName(n.op);
    const Value& a = requiredInput(g, id, 0, "A");
    const Value& b = requiredInput(g, id, 1, "B");
    for (const Value* v : {&a, &b}) {
      if (v->shape.size() != 2) {
        g.fail(id, "input " + quoted(v->name) + " must be 2-D, found " + dimsToString(v->shape));
      }
    }
    GemmParams p;
    p.alpha = n.attrs.getFloat("alpha", 1.0f);
    p.beta = n.attrs.getFloat("beta", 1.0f);
    p.transA = n.attrs.getInt("transA", 0) != 0;
    p.transB = n.attrs.getInt("transB", 0) != 0;
    p.m = p.transA ? a.shape[1] : a.shape[0];
    p.k = p.transA ? a.shape[0] : a.shape[1];
    p.n = p.transB ? b.shape[0] : b.shape[1];
    const int64_t kb = p.transB ? b.shape[1] : b.shape[0];
    if (kb != p.k) {
      g.fail(id, "inner dimensions differ: op(A) is " + str(p.m) + "x" + str(p.k) + ", op(B) is " +
                     str(kb) + "x" + str(p.n));
    }
    const Value* c = optionalInput(g, id, 2);
    if (c == nullptr && n.opset < 11) {
      g.fail(id, "input C is required before opset 11");
    }
    if (c != nullptr) {
      if (!c->shapeKnown) {
        g.fail(id, "input C " + quoted(c->name) + " has no inferred shape");
      }
      const Dims mn{p.m, p.n};
      bool ok = c->shape.size() <= 2;
      for (size_t i = 0; ok && i < c->shape.size(); ++i) {
        const int64_t target = mn[2 - c->shape.size() + i];
        ok = c->shape[i] == 1 || c->shape[i] == target;
      }
      if (!ok) {
        g.fail(id, "input C " + quoted(c->name) + " of shape " + dimsToString(c->shape) +
                       " does not broadcast to " + dimsToString(mn));
      }
      p.hasC = true;
    }
    return p;
  });
}

SoftmaxParams softmaxParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    if (rank == 0) {
      g.fail(id, "input " + quoted(x.name) + " must have rank >= 1");
    }
    SoftmaxParams p;
    p.coerce2d = n.opset < 13;
    p.axis = normalizeAxis(g, id, n.attrs.getInt("axis", p.coerce2d ? 1 : -1), rank, "axis");
    return p;
  });
}

ReduceParams reduceParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    std::vector<int64_t> given;
    bool haveAxes = false;
    if (n.op == OpKind::ReduceSum && n.opset >= 13) {
      if (const Tensor* t = constantInput(g, id, 1, "axes")) {
        given = intValues(g, id, *t, "axes");
        haveAxes = true;
      }
    } else if (const auto* a = n.attrs.find<std::vector<int64_t>>("axes")) {
      given = *a;
      haveAxes = true;
    }
    ReduceParams p;
    p.keepDims = n.attrs.getInt("keepdims", 1) != 0;
    const bool noop = n.op == OpKind::ReduceSum && n.attrs.getInt("noop_with_empty_axes", 0) != 0;
    if (!haveAxes || given.empty()) {
      if (!noop)
        for (int64_t a = 0; a < rank; ++a)
          p.axes.push_back(a);
    } else {
      std::set<int64_t> seen;
      for (int64_t a : given) {
        const int64_t axis = normalizeAxis(g, id, a, rank, "axis");
        if (!seen.insert(axis).second)
          g.fail(id, "axes " + listToString(given) + " contain a duplicate");
      }
      p.axes.assign(seen.begin(), seen.end());
    }
    for (int64_t a = 0; a < rank; ++a) {
      const bool reduced = std::find(p.axes.begin(), p.axes.end(), a) != p.axes.end();
      if (!reduced)
        p.outShape.push_back(x.shape[static_cast<size_t>(a)]);
      else if (p.keepDims)
        p.outShape.push_back(1);
    }
    return p;
  });
}

ArgReduceParams argReduceParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    ArgReduceParams p;
    p.axis = normalizeAxis(g, id, n.attrs.getInt("axis", 0), sizeOf(x.shape), "axis");
    p.keepDims = n.attrs.getInt("keepdims", 1) != 0;
    p.selectLastIndex = n.attrs.getInt("select_last_index", 0) != 0;
    for (size_t a = 0; a < x.shape.size(); ++a) {
      if (static_cast<int64_t>(a) != p.axis)
        p.outShape.push_back(x.shape[a]);
      else if (p.keepDims)
        p.outShape.push_back(1);
    }
    return p;
  });
}

Dims expandShape(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Value& x = requiredInput(g, id, 0, "input");
    const std::vector<int64_t> shape =
        intValues(g, id, requiredConstantInput(g, id, 1, "shape"), "shape");
    requireExtents(g, id, shape, "shape");
    for (int64_t d : shape)
      if (d < 0)
        g.fail(id, "shape " + listToString(shape) + " has the negative entry " + str(d));
    std::optional<Dims> out = broadcastAll({x.shape, Dims(shape.begin(), shape.end())});
    if (!out)
      g.fail(id, "cannot expand " + dimsToString(x.shape) + " to " + listToString(shape) +
                     " (extents differ and neither is 1)");
    return *out;
  });
}

std::vector<int64_t> tileRepeats(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Value& x = requiredInput(g, id, 0, "input");
    const std::vector<int64_t> repeats =
        intValues(g, id, requiredConstantInput(g, id, 1, "repeats"), "repeats");
    if (repeats.size() != x.shape.size())
      g.fail(id, "repeats " + listToString(repeats) + " has " + str(sizeOf(repeats)) +
                     " entries for an input of rank " + str(sizeOf(x.shape)));
    for (int64_t r : repeats)
      if (r < 1)
        g.fail(id,
               "repeats " + listToString(repeats) + " has the entry " + str(r) +
                   "; every count must be at least 1",
               ErrorKind::Unsupported);
    return repeats;
  });
}

// --- axes and permutations -----------------------------------------------------------------------

int64_t concatAxis(const Graph& g, NodeId id) {
  const Value& x = requiredInput(g, id, 0, "data");
  return normalizeAxis(g, id, requiredIntAttr(g, id, "axis"), sizeOf(x.shape), "axis");
}

int64_t flattenAxis(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    const int64_t axis = g.node(id).attrs.getInt("axis", 1);
    if (axis == rank) {
      return rank;
    }
    return normalizeAxis(g, id, axis, rank, "axis");
  });
}

int64_t gatherAxis(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Value& x = requiredInput(g, id, 0, "data");
    return normalizeAxis(g, id, g.node(id).attrs.getInt("axis", 0), sizeOf(x.shape), "axis");
  });
}

std::vector<int64_t> transposePerm(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    std::vector<int64_t> reversed(static_cast<size_t>(rank));
    for (int64_t i = 0; i < rank; ++i) {
      reversed[static_cast<size_t>(i)] = rank - 1 - i;
    }
    const std::vector<int64_t> perm = g.node(id).attrs.getInts("perm", reversed);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> identity(static_cast<size_t>(rank));
    for (int64_t i = 0; i < rank; ++i) {
      identity[static_cast<size_t>(i)] = i;
    }
    if (sorted != identity) {
      g.fail(id, "perm " + listToString(perm) + " is not a permutation of " + str(rank) + " axes");
    }
    return perm;
  });
}

namespace {
/// Squeeze/Unsqueeze axes from the attribute (opset < 13) or the constant input 1 (opset >= 13);
/// nullopt when absent.
std::optional<std::vector<int64_t>> readAxes(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.opset < 13) {
    if (optionalInput(g, id, 1) != nullptr) {
      g.fail(id, "axes is an attribute, not an input, before opset 13");
    }
    if (const auto* a = n.attrs.find<std::vector<int64_t>>("axes")) {
      return *a;
    }
    return std::nullopt;
  }
  if (n.attrs.has("axes")) {
    g.fail(id, "attribute 'axes' was replaced by an input in opset 13");
  }
  if (const Tensor* t = constantInput(g, id, 1, "axes")) {
    return intValues(g, id, *t, "axes");
  }
  return std::nullopt;
}

/// Normalizes \p axes for \p rank, rejects duplicates and sorts them.
std::vector<int64_t> normalizeAxes(const Graph& g, NodeId id, std::vector<int64_t> axes,
                                   int64_t rank) {
  const std::vector<int64_t> given = axes;
  for (int64_t& a : axes) {
    a = normalizeAxis(g, id, a, rank, "axis");
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    g.fail(id, "axes " + listToString(given) + " contain a duplicate");
  }
  return axes;
}
} // namespace

std::vector<int64_t> squeezeAxes(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    std::optional<std::vector<int64_t>> axes = readAxes(g, id);
    std::vector<int64_t> result;
    if (!axes) {
      for (int64_t i = 0; i < rank; ++i) {
        if (x.shape[static_cast<size_t>(i)] == 1) {
          result.push_back(i);
        }
      }
      return result;
    }
    result = normalizeAxes(g, id, *axes, rank);
    for (int64_t a : result) {
      if (x.shape[static_cast<size_t>(a)] != 1) {
        g.fail(id, "cannot squeeze axis " + str(a) + " of extent " +
                       str(x.shape[static_cast<size_t>(a)]) + " (input " + dimsToString(x.shape) +
                       ")");
      }
    }
    return result;
  });
}

std::vector<int64_t> unsqueezeAxes(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Value& x = requiredInput(g, id, 0, "data");
    std::optional<std::vector<int64_t>> axes = readAxes(g, id);
    if (!axes) {
      g.fail(id, g.node(id).opset < 13 ? "missing required attribute 'axes'"
                                       : "missing required input 1 (axes)");
    }
    return normalizeAxes(g, id, *axes, sizeOf(x.shape) + sizeOf(*axes));
  });
}

// --- Reshape, Pad --------------------------------------------------------------------------------

Dims reshapeTarget(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    const std::vector<int64_t> shape =
        intValues(g, id, requiredConstantInput(g, id, 1, "shape"), "shape");
    requireExtents(g, id, shape, "shape");
    const bool allowZero = n.opset >= 14 && n.attrs.getInt("allowzero", 0) != 0;
    Dims out(shape.size());
    std::optional<size_t> inferred;
    bool hasZero = false;
    for (size_t i = 0; i < shape.size(); ++i) {
      const int64_t v = shape[i];
      if (v == -1) {
        if (inferred) {
          g.fail(id, "shape " + listToString(shape) + " has more than one -1");
        }
        inferred = i;
        out[i] = 1;
      } else if (v < -1) {
        g.fail(id, "shape " + listToString(shape) + " has the invalid entry " + str(v));
      } else if (v == 0 && !allowZero) {
        if (i >= x.shape.size()) {
          g.fail(id, "shape " + listToString(shape) + " copies dimension " + std::to_string(i) +
                         " (0), which the input " + dimsToString(x.shape) + " does not have");
        }
        out[i] = x.shape[i];
      } else {
        hasZero = hasZero || v == 0;
        out[i] = v;
      }
    }
    if (allowZero && hasZero && inferred) {
      g.fail(id, "shape " + listToString(shape) + " has both 0 and -1 with allowzero=1");
    }
    const int64_t total = product(x.shape);
    const std::optional<int64_t> knownOrOverflow = checkedProduct(out, detail::kMaxElements);
    if (!knownOrOverflow) {
      g.fail(id, "cannot reshape " + dimsToString(x.shape) + " (" + str(total) + " elements) to " +
                     listToString(shape) + " (too many elements)");
    }
    const int64_t known = *knownOrOverflow;
    if (inferred) {
      if (known == 0 || total % known != 0) {
        g.fail(id, "cannot reshape " + dimsToString(x.shape) + " (" + str(total) +
                       " elements) to " + listToString(shape));
      }
      out[*inferred] = total / known;
    } else if (known != total) {
      g.fail(id, "cannot reshape " + dimsToString(x.shape) + " (" + str(total) + " elements) to " +
                     listToString(shape) + " (" + str(known) + " elements)");
    }
    return out;
  });
}

PadParams padParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    PadParams p;
    const std::string mode = n.attrs.getString("mode", "constant");
    if (mode == "constant") {
      p.mode = PadParams::Mode::Constant;
    } else if (mode == "reflect") {
      p.mode = PadParams::Mode::Reflect;
    } else if (mode == "edge") {
      p.mode = PadParams::Mode::Edge;
    } else {
      g.fail(id, "unknown mode " + quoted(mode) + " (expected constant, reflect or edge)");
    }
    std::vector<int64_t> pads;
    if (n.opset < 11) {
      if (optionalInput(g, id, 1) != nullptr) {
        g.fail(id, "pads is an attribute, not an input, before opset 11");
      }
      pads = requiredIntsAttr(g, id, "pads");
      p.value = n.attrs.getFloat("value", 0.0f);
      if (x.dtype != DType::F32) {
        // Pad-2 is defined for floating-point data only; an integer input needs an integral
        // fill value to mean anything.
        if (!(std::trunc(p.value) == p.value) || std::fabs(p.value) > 9.0e18f) {
          g.fail(id, "value " + floatStr(p.value) + " is not an integer, but the input is " +
                         std::string(dtypeName(x.dtype)));
        }
        p.intValue = static_cast<int64_t>(p.value);
      }
    } else {
      for (const char* name : {"pads", "value"}) {
        if (n.attrs.has(name)) {
          g.fail(id, "attribute " + quoted(name) + " was replaced by an input in opset 11");
        }
      }
      pads = intValues(g, id, requiredConstantInput(g, id, 1, "pads"), "pads");
      if (const Tensor* v = constantInput(g, id, 2, "constant_value");
          v != nullptr && v->numElements() > 0) {
        if (v->numElements() != 1) {
          g.fail(id, "constant_value must be a scalar, found shape " + dimsToString(v->shape()));
        }
        if (v->dtype() != x.dtype) {
          g.fail(id, "constant_value has dtype " + std::string(dtypeName(v->dtype())) +
                         ", expected " + std::string(dtypeName(x.dtype)) + " like the input");
        }
        p.value = static_cast<float>(v->elementAsDouble(0));
        p.intValue = x.dtype == DType::F32 ? 0 : v->elementAsInt64(0);
      }
    }
    p.valueIsInteger = x.dtype != DType::F32;
    requireExtents(g, id, pads, "pads");
    if (sizeOf(pads) != 2 * rank) {
      g.fail(id, "pads " + listToString(pads) + " has " + str(sizeOf(pads)) + " values, expected " +
                     str(2 * rank) + " (begin and end per axis of " + dimsToString(x.shape) + ")");
    }
    p.padsBegin.assign(pads.begin(), pads.begin() + rank);
    p.padsEnd.assign(pads.begin() + rank, pads.end());
    for (size_t i = 0; i < static_cast<size_t>(rank); ++i) {
      if (x.shape[i] + p.padsBegin[i] + p.padsEnd[i] <= 0) {
        g.fail(id, "pads " + listToString(pads) + " leave extent " +
                       str(x.shape[i] + p.padsBegin[i] + p.padsEnd[i]) + " on axis " +
                       std::to_string(i) + " of " + dimsToString(x.shape));
      }
    }
    return p;
  });
}

// --- Resize / Upsample ---------------------------------------------------------------------------

namespace {
std::vector<float> floatValues(const Graph& g, NodeId id, const Tensor& t, std::string_view role) {
  if (t.dtype() != DType::F32) {
    g.fail(id, std::string(role) + " must be a float tensor, found " +
                   std::string(dtypeName(t.dtype())));
  }
  return std::vector<float>(t.values<float>().begin(), t.values<float>().end());
}

ResizeParams::Mode resizeMode(const Graph& g, NodeId id, bool allowCubic) {
  const std::string mode = g.node(id).attrs.getString("mode", "nearest");
  if (mode == "nearest") {
    return ResizeParams::Mode::Nearest;
  }
  if (mode == "linear") {
    return ResizeParams::Mode::Linear;
  }
  if (mode == "cubic" && allowCubic) {
    return ResizeParams::Mode::Cubic;
  }
  g.fail(id, "unknown mode " + quoted(mode) +
                 (allowCubic ? " (expected nearest, linear or cubic)"
                             : " (expected nearest or linear)"));
}

void requireOneOf(const Graph& g, NodeId id, const std::string& what, const std::string& value,
                  std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (value == a) {
      return;
    }
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  g.fail(id, "unknown " + what + " " + quoted(value) + " (expected one of " + list + ")");
}
} // namespace

ResizeParams resizeParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    NNACCEL_ASSERT(n.op == OpKind::Resize || n.op == OpKind::Upsample)
        << "resizeParams on " << opName(n.op);
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    ResizeParams p;
    std::vector<float> scales;
    std::vector<int64_t> sizes;
    const bool legacy = n.op == OpKind::Upsample || n.opset < 11;
    p.mode = resizeMode(g, id, !legacy);
    if (legacy) {
      // Upsample-7/9 and Resize-10: asymmetric coordinates. Nearest rounds the source
      // coordinate down, except on a downsampled axis of Resize-10, where it rounds up (see
      // ResizeParams::nearestMode); Upsample never downsamples.
      p.coordinateTransform = "asymmetric";
      p.nearestMode = n.op == OpKind::Upsample ? "floor" : "legacy_opset10";
      if (n.op == OpKind::Upsample && n.opset < 9) {
        if (optionalInput(g, id, 1) != nullptr) {
          g.fail(id, "scales is an attribute, not an input, before opset 9");
        }
        const auto* s = n.attrs.find<std::vector<float>>("scales");
        if (s == nullptr) {
          g.fail(id, "missing required attribute 'scales'");
        }
        scales = *s;
      } else {
        scales = floatValues(g, id, requiredConstantInput(g, id, 1, "scales"), "scales");
      }
      if (n.op == OpKind::Upsample) {
        for (float s : scales) {
          if (!(s >= 1.0f)) {
            g.fail(id, "Upsample scales must be >= 1, got " + listToString(scales));
          }
        }
      }
    } else {
      p.coordinateTransform = n.attrs.getString("coordinate_transformation_mode", "half_pixel");
      if (n.opset < 13) {
        requireOneOf(g, id, "coordinate_transformation_mode", p.coordinateTransform,
                     {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                      "tf_half_pixel_for_nn", "tf_crop_and_resize"});
      } else {
        requireOneOf(g, id, "coordinate_transformation_mode", p.coordinateTransform,
                     {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                      "tf_crop_and_resize"});
      }
      p.nearestMode = n.attrs.getString("nearest_mode", "round_prefer_floor");
      requireOneOf(g, id, "nearest_mode", p.nearestMode,
                   {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
      p.cubicCoeffA = n.attrs.getFloat("cubic_coeff_a", -0.75f);
      p.excludeOutside = n.attrs.getInt("exclude_outside", 0) != 0;
      p.extrapolationValue = n.attrs.getFloat("extrapolation_value", 0.0f);
      const Tensor* scalesT = constantInput(g, id, 2, "scales");
      const Tensor* sizesT = constantInput(g, id, 3, "sizes");
      const bool haveScales = scalesT != nullptr && scalesT->numElements() > 0;
      const bool haveSizes = sizesT != nullptr && sizesT->numElements() > 0;
      if (haveScales == haveSizes) {
        g.fail(id, "exactly one of scales and sizes must be given");
      }
      if (haveScales) {
        scales = floatValues(g, id, *scalesT, "scales");
      } else {
        sizes = intValues(g, id, *sizesT, "sizes");
      }
      if (p.coordinateTransform == "tf_crop_and_resize") {
        p.roi = floatValues(g, id, requiredConstantInput(g, id, 1, "roi"), "roi");
        if (static_cast<int64_t>(p.roi.size()) != 2 * rank) {
          g.fail(id, "roi has " + str(static_cast<int64_t>(p.roi.size())) + " values, expected " +
                         str(2 * rank) + " (starts and ends per axis)");
        }
      }
    }
    p.outShape.resize(static_cast<size_t>(rank));
    if (!sizes.empty()) {
      if (sizeOf(sizes) != rank) {
        g.fail(id, "sizes " + listToString(sizes) + " has " + str(sizeOf(sizes)) +
                       " values, expected " + str(rank) + " (one per axis)");
      }
      requireExtents(g, id, sizes, "sizes");
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] <= 0) {
          g.fail(id, "sizes must be positive, got " + listToString(sizes));
        }
        p.outShape[i] = sizes[i];
        p.scales.push_back(static_cast<float>(sizes[i]) / static_cast<float>(x.shape[i]));
      }
      p.scalesFromSizes = true;
      return p;
    }
    if (static_cast<int64_t>(scales.size()) != rank) {
      g.fail(id, "scales " + listToString(scales) + " has " +
                     str(static_cast<int64_t>(scales.size())) + " values, expected " + str(rank) +
                     " (one per axis)");
    }
    for (size_t i = 0; i < scales.size(); ++i) {
      if (!(scales[i] > 0.0f) || !std::isfinite(scales[i])) {
        g.fail(id, "scales must be positive, got " + listToString(scales));
      }
      const double extent = std::floor(static_cast<float>(x.shape[i]) * scales[i]);
      if (extent > static_cast<double>(detail::kMaxExtent)) {
        g.fail(id, "scale " + floatStr(scales[i]) + " gives a too large output extent on axis " +
                       std::to_string(i));
      }
      const auto out = static_cast<int64_t>(extent);
      if (out <= 0) {
        g.fail(id, "scale " + floatStr(scales[i]) + " gives output extent 0 on axis " +
                       std::to_string(i) + " (input extent " + str(x.shape[i]) + ")");
      }
      p.outShape[i] = out;
    }
    p.scales = scales;
    return p;
  });
}

// --- DepthToSpace, Slice, Cast -------------------------------------------------------------------

DepthToSpaceParams depthToSpaceParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    if (x.shape.size() != 4) {
      g.fail(id, "input " + quoted(x.name) + " must be 4-D (N, C, H, W), found " +
                     dimsToString(x.shape));
    }
    DepthToSpaceParams p;
    p.blocksize = requiredIntAttr(g, id, "blocksize");
    requireExtents(g, id, {p.blocksize}, "blocksize");
    if (p.blocksize < 1) {
      g.fail(id, "blocksize must be positive, got " + str(p.blocksize));
    }
    if (n.opset >= 11) {
      const std::string mode = n.attrs.getString("mode", "DCR");
      requireOneOf(g, id, "mode", mode, {"DCR", "CRD"});
      p.crd = mode == "CRD";
    }
    if (x.shape[1] % (p.blocksize * p.blocksize) != 0) {
      g.fail(id, "channels=" + str(x.shape[1]) +
                     " are not divisible by blocksize^2=" + str(p.blocksize * p.blocksize));
    }
    return p;
  });
}

SplitParams splitParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "input");
    const int64_t rank = sizeOf(x.shape);
    SplitParams p;
    p.axis = normalizeAxis(g, id, n.attrs.getInt("axis", 0), rank, "axis");
    const int64_t extent = x.shape[static_cast<size_t>(p.axis)];
    const auto outputs = static_cast<int64_t>(n.outputs.size());
    if (n.opset < 13) {
      if (const auto* a = n.attrs.find<std::vector<int64_t>>("split"))
        p.sizes = *a;
    } else if (const Tensor* t = constantInput(g, id, 1, "split")) {
      p.sizes = intValues(g, id, *t, "split");
    }
    if (p.sizes.empty()) {
      if (outputs == 0 || extent % outputs != 0)
        g.fail(id, "axis " + str(p.axis) + " of extent " + str(extent) + " does not split into " +
                       str(outputs) + " equal parts");
      p.sizes.assign(static_cast<size_t>(outputs), extent / outputs);
    }
    int64_t total = 0;
    for (int64_t s : p.sizes) {
      if (s < 0)
        g.fail(id, "split " + listToString(p.sizes) + " has a negative size");
      total += s;
    }
    if (sizeOf(p.sizes) != outputs || total != extent)
      g.fail(id, "split " + listToString(p.sizes) + " does not give " + str(outputs) +
                     " outputs summing to the extent " + str(extent) + " of axis " + str(p.axis));
    return p;
  });
}

SliceParams sliceParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const Value& x = requiredInput(g, id, 0, "data");
    const int64_t rank = sizeOf(x.shape);
    std::vector<int64_t> starts, ends, axes, steps;
    bool haveAxes = false;
    if (n.opset < 10) {
      if (optionalInput(g, id, 1) != nullptr) {
        g.fail(id, "starts and ends are attributes, not inputs, before opset 10");
      }
      starts = requiredIntsAttr(g, id, "starts");
      ends = requiredIntsAttr(g, id, "ends");
      if (const auto* a = n.attrs.find<std::vector<int64_t>>("axes")) {
        axes = *a;
        haveAxes = true;
      }
    } else {
      starts = intValues(g, id, requiredConstantInput(g, id, 1, "starts"), "starts");
      ends = intValues(g, id, requiredConstantInput(g, id, 2, "ends"), "ends");
      if (const Tensor* t = constantInput(g, id, 3, "axes")) {
        axes = intValues(g, id, *t, "axes");
        haveAxes = true;
      }
      if (const Tensor* t = constantInput(g, id, 4, "steps")) {
        steps = intValues(g, id, *t, "steps");
      }
    }
    if (!haveAxes) {
      for (size_t i = 0; i < starts.size(); ++i) {
        axes.push_back(static_cast<int64_t>(i));
      }
    }
    if (steps.empty()) {
      steps.assign(starts.size(), 1);
    }
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size()) {
      g.fail(id, "starts, ends, axes and steps differ in length (" + str(sizeOf(starts)) + ", " +
                     str(sizeOf(ends)) + ", " + str(sizeOf(axes)) + ", " + str(sizeOf(steps)) +
                     ")");
    }
    SliceParams p;
    p.starts.assign(static_cast<size_t>(rank), 0);
    p.ends = x.shape;
    p.steps.assign(static_cast<size_t>(rank), 1);
    std::set<int64_t> seen;
    for (size_t i = 0; i < starts.size(); ++i) {
      const int64_t axis = normalizeAxis(g, id, axes[i], rank, "axis");
      if (!seen.insert(axis).second) {
        g.fail(id, "axes " + listToString(axes) + " contain a duplicate");
      }
      const int64_t dim = x.shape[static_cast<size_t>(axis)];
      const int64_t step = steps[i];
      if (step == 0) {
        g.fail(id, "step on axis " + str(axis) + " is 0");
      }
      int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
      int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
      if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
      } else {
        start = std::clamp<int64_t>(start, 0, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
      }
      p.starts[static_cast<size_t>(axis)] = start;
      p.ends[static_cast<size_t>(axis)] = end;
      p.steps[static_cast<size_t>(axis)] = step;
    }
    return p;
  });
}

QdqParams qdqParams(const Graph& g, NodeId id) {
  return withNodeContext(g, id, [&] {
    const Node& n = g.node(id);
    const bool quantize = n.op == OpKind::QuantizeLinear;
    const Value& x = requiredInput(g, id, 0, "x");
    const Tensor& scale = requiredConstantInput(g, id, 1, quantize ? "y_scale" : "x_scale");
    const Tensor* zero = constantInput(g, id, 2, quantize ? "y_zero_point" : "x_zero_point");
    QdqParams p;
    if (scale.dtype() != DType::F32) {
      g.fail(id, "scale must be f32, found " + std::string(dtypeName(scale.dtype())),
             ErrorKind::Unsupported);
    }
    if (scale.rank() > 1 || (scale.rank() == 1 && n.opset < 13 && scale.numElements() != 1)) {
      g.fail(id, "scale must be a scalar" + std::string(n.opset >= 13 ? " or 1-D" : "") +
                     " (opset " + str(n.opset) + "), found " + listToString(scale.shape()));
    }
    const int64_t count = scale.numElements();
    if (scale.rank() == 1 && (count > 1 || n.opset >= 13)) {
      const int64_t rank = static_cast<int64_t>(x.shape.size());
      const int64_t axis = normalizeAxis(g, id, n.attrs.getInt("axis", 1), rank, "axis");
      if (count != x.shape[static_cast<size_t>(axis)] && count != 1) {
        g.fail(id, "a per-axis scale of " + str(count) + " values for axis " + str(axis) +
                       " of extent " + str(x.shape[static_cast<size_t>(axis)]));
      }
      p.axis = count > 1 ? axis : -1;
    }
    for (float v : scale.values<float>()) {
      if (!(v > 0.0f) || !std::isfinite(v)) {
        g.fail(id, "scale " +
                       listToString(std::vector<float>(scale.values<float>().begin(),
                                                       scale.values<float>().end())) +
                       " must be positive and finite");
      }
      p.scales.push_back(v);
    }
    p.quantized = quantize ? DType::U8 : x.dtype;
    if (zero != nullptr) {
      if (zero->shape() != scale.shape()) {
        g.fail(id, "zero point shape " + listToString(zero->shape()) +
                       " differs from the scale's " + listToString(scale.shape()));
      }
      p.quantized = zero->dtype();
    }
    if (p.quantized != DType::U8 && p.quantized != DType::I8 &&
        !(p.quantized == DType::I32 && !quantize)) {
      g.fail(id,
             "quantized type " + std::string(dtypeName(p.quantized)) + " is not int8 or uint8" +
                 (quantize ? "" : " (or int32 without a zero point)"),
             ErrorKind::Unsupported);
    }
    if (!quantize && x.dtype != p.quantized) {
      g.fail(id, "input " + quoted(x.name) + " is " + std::string(dtypeName(x.dtype)) +
                     " but the zero point is " + std::string(dtypeName(p.quantized)));
    }
    if (quantize && x.dtype != DType::F32) {
      g.fail(id,
             "input " + quoted(x.name) + " is " + std::string(dtypeName(x.dtype)) +
                 "; QuantizeLinear takes f32",
             ErrorKind::Unsupported);
    }
    for (int64_t i = 0; i < count; ++i) {
      p.zeros.push_back(
          zero == nullptr ? 0 : static_cast<int32_t>(zero->castTo(DType::I32).data<int32_t>()[i]));
    }
    if (p.quantized == DType::I32 &&
        std::any_of(p.zeros.begin(), p.zeros.end(), [](int32_t z) { return z != 0; })) {
      g.fail(id, "an int32 input must have a zero point of 0");
    }
    return p;
  });
}

DType castTarget(const Graph& g, NodeId id) {
  const int64_t to = requiredIntAttr(g, id, "to");
  // onnx::TensorProto_DataType numbering.
  switch (to) {
  case 1:
  case 10: // float16: held as fp32, the values rounded to half precision (castValues)
    return DType::F32;
  case 2:
    return DType::U8;
  case 3:
    return DType::I8;
  case 6:
    return DType::I32;
  case 7:
    return DType::I64;
  case 9:
    return DType::Bool;
  default:
    break;
  }
  static const std::pair<int64_t, const char*> kNames[] = {
      {4, "uint16"},  {5, "int16"},      {8, "string"},      {11, "double"},  {12, "uint32"},
      {13, "uint64"}, {14, "complex64"}, {15, "complex128"}, {16, "bfloat16"}};
  for (const auto& [code, name] : kNames) {
    if (code == to) {
      g.fail(id, std::string("cast to ") + name + " is not supported", ErrorKind::Unsupported);
    }
  }
  g.fail(id, "unknown cast target type " + str(to));
}

Tensor castValues(const Graph& g, NodeId id, const Tensor& x) {
  Tensor y = x.castTo(castTarget(g, id));
  if (requiredIntAttr(g, id, "to") == 10) {
    float* v = y.data<float>();
    for (int64_t i = 0; i < y.numElements(); ++i)
      v[i] = roundToHalf(v[i]);
  }
  return y;
}

} // namespace nnaccel::ir
