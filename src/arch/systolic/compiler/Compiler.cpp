/// \file
/// The systolic compiler's driver: picks where every node runs (PE array, pooling engine, view,
/// host fallback), allocates DRAM, turns nodes into ConvDesc / PoolDesc for the lowerings, and
/// builds the baselines the patents improve on (seed 000 FIG. 3; zero-inserted dilated kernel).
#include "CompilerContext.h"
#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <set>

namespace nnaccel::arch::systolic {

int64_t CompilerContext::allocDram(int64_t bytes) {
  const int64_t addr = program.dramBytes;
  program.dramBytes +=
      (std::max<int64_t>(bytes, 1) + kDramAlignBytes - 1) / kDramAlignBytes * kDramAlignBytes;
  return addr;
}

int64_t CompilerContext::addSegment(std::vector<uint8_t> bytes) {
  const int64_t addr = allocDram(static_cast<int64_t>(bytes.size()));
  program.segments.push_back(DramSegment{addr, std::move(bytes)});
  return addr;
}

int32_t CompilerContext::addTensor(DramTensor t, int64_t aliasAddr) {
  t.addr = aliasAddr >= 0 ? aliasAddr : allocDram(t.bytes());
  program.tensors.push_back(std::move(t));
  return static_cast<int32_t>(program.tensors.size() - 1);
}

Range CompilerContext::dramRange(int32_t tensor) const {
  const DramTensor& t = program.tensors.at(static_cast<size_t>(tensor));
  return Range{Space::Dram, t.addr, t.addr + t.bytes()};
}

namespace {

template <class T> void put(uint8_t* out, T v) {
  std::memcpy(out, &v, sizeof v);
}

std::optional<ActFunc> actFuncOf(ir::OpKind k) {
  using ir::OpKind;
  switch (k) {
  case OpKind::Relu:
    return ActFunc::Relu;
  case OpKind::Clip:
    return ActFunc::Clip;
  case OpKind::LeakyRelu:
    return ActFunc::LeakyRelu;
  case OpKind::Sigmoid:
    return ActFunc::Sigmoid;
  case OpKind::Tanh:
    return ActFunc::Tanh;
  case OpKind::Elu:
    return ActFunc::Elu;
  case OpKind::HardSigmoid:
    return ActFunc::HardSigmoid;
  case OpKind::HardSwish:
    return ActFunc::HardSwish;
  case OpKind::Selu:
    return ActFunc::Selu;
  case OpKind::Softplus:
    return ActFunc::Softplus;
  default:
    return std::nullopt;
  }
}

class Driver {
public:
  Driver(CompilerContext& ctx) : ctx_(ctx), g_(ctx.g) {}

  void run() {
    tensorOfValue_.assign(g_.numValues(), -1);
    for (ir::ValueId v : g_.inputs)
      tensorOf(v, DramTensor::Role::Input);
    for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g_.numNodes()); ++id) {
      if (consumed_.count(id))
        continue;
      if (isFolded(id))
        continue;
      now_ = id;
      lowerNode(id);
    }
    noteSpills();
  }

private:
  const ir::Node& node(ir::NodeId id) const { return g_.node(id); }
  bool int8() const { return ctx_.options.dtype == DType::I8; }

  bool isFolded(ir::NodeId id) const {
    if (int8() && ctx_.qm->node(id).kind == quant::QuantOpKind::Folded)
      return true;
    const ir::Node& n = node(id);
    return std::all_of(n.outputs.begin(), n.outputs.end(),
                       [&](ir::ValueId v) { return v == ir::kNoValue || g_.isConstant(v); });
  }

  int32_t tensorOf(ir::ValueId v, DramTensor::Role role = DramTensor::Role::Activation,
                   int64_t aliasAddr = -1) {
    NNACCEL_ASSERT(v >= 0 && static_cast<size_t>(v) < tensorOfValue_.size()) << "value " << v;
    if (tensorOfValue_[static_cast<size_t>(v)] >= 0)
      return tensorOfValue_[static_cast<size_t>(v)];
    const ir::Value& val = g_.value(v);
    DramTensor t;
    t.name = val.name;
    t.value = v;
    t.shape = val.shape;
    t.dtype = val.dtype;
    // int8 programs hold f32 values, and the bools comparisons compute (0/1), as s8.
    if (int8() && (val.dtype == DType::F32 || ctx_.qm->scale(v) > 0)) {
      t.dtype = DType::I8;
      t.scale = ctx_.qm->scale(v);
      t.zeroPoint = g_.isConstant(v) ? 0 : ctx_.qm->zeroPoint(v);
    }
    const bool isOutput = g_.isOutput(v);
    t.role = isOutput && role == DramTensor::Role::Activation ? DramTensor::Role::Output : role;
    std::string spill;
    // A view's tensor aliases its input's bytes, whose lifetime already covers the view's
    // readers (Residency).
    if (aliasAddr < 0 && t.role == DramTensor::Role::Activation) {
      aliasAddr = ctx_.residency.place(v, t.bytes(), now_, spill).value_or(-1);
    }
    const int32_t idx = ctx_.addTensor(std::move(t), aliasAddr);
    tensorOfValue_[static_cast<size_t>(v)] = idx;
    if (!spill.empty())
      spillOf_[idx] = std::move(spill);
    return idx;
  }

  Layer& beginLayer(ir::NodeId id, LayerUnit unit, std::string op, std::string shape) {
    Layer l;
    l.name = node(id).name;
    l.op = std::move(op);
    l.shape = std::move(shape);
    l.node = id;
    l.unit = unit;
    l.firstInstr = l.endInstr = ctx_.emitter.size();
    for (ir::ValueId v : node(id).inputs)
      l.inputTensors.push_back(v == ir::kNoValue || g_.isConstant(v) ? -1 : tensorOf(v));
    ctx_.program.layers.push_back(std::move(l));
    return ctx_.program.layers.back();
  }
  void setOutputs(Layer& l, const std::vector<ir::ValueId>& outs) {
    for (ir::ValueId v : outs) {
      l.outputValues.push_back(v);
      l.outputTensors.push_back(v == ir::kNoValue ? -1 : tensorOf(v));
    }
  }
  /// Appends to each layer's note which of its outputs DRAM holds because the resident region
  /// could not (after the lowering's own note, which the baseline rows parse).
  void noteSpills() {
    for (Layer& l : ctx_.program.layers)
      for (size_t j = 0; j < l.outputTensors.size(); ++j)
        if (auto it = spillOf_.find(l.outputTensors[j]); it != spillOf_.end())
          l.note += fmt::format("{}{}output '{}' ({})", l.note.empty() ? "" : "; ", kSpillNote,
                                g_.value(l.outputValues[j]).name, it->second);
  }
  void endLayer() { ctx_.program.layers.back().endInstr = ctx_.emitter.size(); }

  void lowerHost(ir::NodeId id, const std::string& reason) {
    const ir::Node& n = node(id);
    Layer& l = beginLayer(id, LayerUnit::Host, std::string(ir::opName(n.op)), shapeOf(n));
    l.note = reason;
    setOutputs(l, n.outputs);
    const auto layerIndex = static_cast<int32_t>(ctx_.program.layers.size() - 1);
    ctx_.emitter.emitFence(HostOp{id, layerIndex});
    endLayer();
  }

  std::string shapeOf(const ir::Node& n) const {
    std::string s;
    for (ir::ValueId v : n.inputs)
      if (v != ir::kNoValue && !g_.isConstant(v)) {
        s = dimsToString(g_.value(v).shape);
        break;
      }
    for (ir::ValueId v : n.outputs)
      if (v != ir::kNoValue) {
        s += " -> " + dimsToString(g_.value(v).shape);
        break;
      }
    return s;
  }

  void lowerNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    using ir::OpKind;
    if (int8()) {
      const quant::QuantNode& qn = ctx_.qm->node(id);
      if (qn.kind == quant::QuantOpKind::FloatIsland)
        return lowerHost(id, "no integer form: " + qn.islandReason);
    }
    switch (n.op) {
    case OpKind::Conv:
    case OpKind::ConvTranspose:
      return lowerConvNode(id);
    case OpKind::Gemm:
    case OpKind::MatMul:
      return lowerGemmNode(id);
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return lowerPoolNode(id);
    default:
      break;
    }
    if (ir::isRowMajorView(n.op) && lowerView(id))
      return;
    if (int8() && ctx_.qm->node(id).kind == quant::QuantOpKind::Interpolate)
      return lowerInterpolateNode(id);
    if (int8() && ctx_.qm->node(id).kind == quant::QuantOpKind::Reduce)
      return lowerReduceNode(id);
    if (int8() && isElementwiseKind(ctx_.qm->node(id).kind))
      return lowerElementwiseNode(id);
    if (int8() && ctx_.qm->node(id).kind == quant::QuantOpKind::DataMovement)
      return lowerDataMovementNode(id);
    lowerHost(id, common::noUnitNote(g_, id, "systolic"));
  }

  /// Transpose, Slice, DepthToSpace, Pad, a subsampling Resize: DMA address patterns
  /// (DataMovementLowering.cpp).
  void lowerDataMovementNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    auto lowered = common::lowerElementwise(*ctx_.qm, id);
    if (const auto* why = std::get_if<std::string>(&lowered))
      return lowerHost(id, common::noUnitNote(g_, id, "systolic") + ": " + *why);
    const auto& l = std::get<common::ElementwiseLayer>(lowered);
    if (const std::string why = dataMovementObstacle(l); !why.empty())
      return lowerHost(id, common::noUnitNote(g_, id, "systolic") + ": " + why);
    const int32_t in = tensorOf(n.inputs[0]);
    const int32_t out = tensorOf(n.outputs[0]);
    Layer& layer = beginLayer(id, LayerUnit::Vector, std::string(ir::opName(n.op)), shapeOf(n));
    setOutputs(layer, {n.outputs[0]});
    lowerDataMovement(ctx_, l, in, out);
    endLayer();
  }

  /// A row-major view whose output aliases its input's DRAM tensor (no data moves). In int8 the
  /// rule is every engine's (common::isAliasView: same scale, a non-constant input); the fp32
  /// path, which only this engine has, asks the same of the value types.
  bool lowerView(ir::NodeId id) {
    const ir::Node& n = node(id);
    if (int8() ? !common::isAliasView(*ctx_.qm, id)
               : (n.inputs.empty() || g_.isConstant(n.inputs[0])))
      return false;
    for (size_t i = 1; i < n.outputs.size(); ++i)
      if (n.outputs[i] != ir::kNoValue && !g_.users(n.outputs[i]).empty())
        return false;
    const ir::ValueId in = n.inputs[0], out = n.outputs[0];
    if (g_.value(in).dtype != g_.value(out).dtype)
      return false;
    if (tensorOfValue_[static_cast<size_t>(out)] >= 0)
      return false;
    const int32_t src = tensorOf(in);
    Layer& l = beginLayer(id, LayerUnit::View, std::string(ir::opName(n.op)), shapeOf(n));
    tensorOf(out, DramTensor::Role::Activation,
             ctx_.program.tensors[static_cast<size_t>(src)].addr);
    setOutputs(l, {out});
    endLayer();
    return true;
  }

  /// The activation fused into \p id's output stage, if the engine can apply it; marks the
  /// activation node consumed. Returns the value the layer finally produces.
  ir::ValueId fuseActivation(ir::NodeId id, ConvDesc& d, std::string& opName) {
    const ir::Node& n = node(id);
    if (!n.fusedActivation)
      return n.outputs[0];
    const ir::NodeId act = n.fusedActivation->activationNode;
    const ir::Node& an = node(act);
    if (int8()) {
      // The rule every engine's drain applies (arch/common/Lowering.h).
      const std::optional<common::FusedClamp> clamp = common::fusedClamp(*ctx_.qm, id);
      if (!clamp)
        return n.outputs[0];
      d.func = ActFunc::Identity;
      d.clampLo = clamp->clampMin;
      d.clampHi = clamp->clampMax;
    } else {
      auto f = actFuncOf(an.op);
      if (!f)
        return n.outputs[0];
      const ir::ActivationParams p = ir::activationParams(g_, act);
      d.func = *f;
      d.alpha = p.alpha;
      d.beta = p.beta;
      d.gamma = p.gamma;
    }
    consumed_.insert(act);
    opName.append("+").append(ir::opName(an.op));
    return an.outputs[0];
  }

  void setActRecords(ir::NodeId id, ConvDesc& d, std::vector<float> fpBias) {
    if (int8()) {
      const quant::QuantNode* qn = &ctx_.qm->node(id);
      d.actRecord = [qn](int64_t m, uint8_t* out) {
        const auto i = static_cast<size_t>(m);
        put<int32_t>(out, qn->bias[i]);
        put<int32_t>(out + 4, qn->multipliers[i].multiplier);
        put<int32_t>(out + 8, qn->multipliers[i].shift);
      };
    } else {
      auto bias = std::make_shared<std::vector<float>>(std::move(fpBias));
      d.actRecord = [bias](int64_t m, uint8_t* out) {
        put<float>(out, bias->empty() ? 0.0f : (*bias)[static_cast<size_t>(m)]);
      };
    }
  }

  void lowerConvNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    const ir::ConvParams cp = ir::convParams(g_, id);
    if (cp.spatialRank > 2)
      return lowerHost(
          id, fmt::format("{}-D convolution (the array maps 1-D and 2-D)", cp.spatialRank));
    if (!int8() && !g_.isConstant(n.inputs[1]))
      return lowerHost(id, "weights are not a constant");
    ConvDesc d;
    d.node = id;
    d.transposed = cp.transposed;
    d.batch = cp.batch;
    d.inChannels = cp.inChannels;
    d.outChannels = cp.outChannels;
    d.groups = cp.group;
    auto axis = [&](size_t i) {
      return AxisGeometry{cp.inSpatial[i], cp.outSpatial[i], cp.kernel[i],
                          cp.strides[i],   cp.dilations[i],  cp.padsBegin[i]};
    };
    if (cp.spatialRank == 2) {
      d.h = axis(0);
      d.w = axis(1);
    } else {
      d.h = AxisGeometry{1, 1, 1, 1, 1, 0};
      d.w = axis(0);
    }
    const int64_t cg = cp.inChannels / cp.group, mg = cp.outChannels / cp.group;
    const int64_t kh = d.h.kernel, kw = d.w.kernel;
    const bool tr = d.transposed;
    // Weight (m, c, r, s) in the ONNX layout: Conv [M, C/g, k...], ConvTranspose [C, M/g, k...].
    auto weightIndex = [=](int64_t m, int64_t c, int64_t r, int64_t s) {
      const int64_t lead = tr ? (c * mg + m % mg) : (m * cg + c % cg);
      return (lead * kh + r) * kw + s;
    };
    std::vector<float> bias;
    if (int8()) {
      const int8_t* w = ctx_.qm->node(id).weights.data<int8_t>();
      d.weightAt = [w, weightIndex](int64_t m, int64_t c, int64_t r, int64_t s, uint8_t* out) {
        put<int8_t>(out, w[weightIndex(m, c, r, s)]);
      };
    } else {
      auto wt = g_.value(n.inputs[1]).constant;
      d.weightAt = [wt, weightIndex](int64_t m, int64_t c, int64_t r, int64_t s, uint8_t* out) {
        put<float>(out, wt->data<float>()[weightIndex(m, c, r, s)]);
      };
      if (n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue) {
        if (!g_.isConstant(n.inputs[2]))
          return lowerHost(id, "bias is not a constant");
        const Tensor& b = *g_.value(n.inputs[2]).constant;
        bias.assign(b.data<float>(), b.data<float>() + b.numElements());
      }
    }
    setActRecords(id, d, std::move(bias));
    std::string opName(ir::opName(n.op));
    const ir::ValueId outValue = fuseActivation(id, d, opName);

    const int64_t spatialIn = d.h.in * d.w.in, spatialOut = d.h.out * d.w.out;
    d.inTensor = tensorOf(n.inputs[0]);
    d.inCStride = spatialIn;
    d.inNStride = d.inChannels * spatialIn;
    d.inYStride = d.w.in;
    d.inXStride = 1;
    d.outTensor = tensorOf(outValue);
    d.outCStride = spatialOut;
    d.outNStride = d.outChannels * spatialOut;
    d.outYStride = d.w.out;
    d.outXStride = 1;

    std::string shape =
        fmt::format("{} -> {} k{}x{} s{}x{} d{}x{} g{}", dimsToString(g_.value(n.inputs[0]).shape),
                    dimsToString(g_.value(outValue).shape), kh, kw, d.h.stride, d.w.stride,
                    d.h.dilation, d.w.dilation, d.groups);
    Layer& l = beginLayer(id, LayerUnit::PeArray, opName, shape);
    l.usefulMacs = ir::nodeMacs(g_, id);
    setOutputs(l, {outValue});
    const bool dilated = d.h.dilation > 1 || d.w.dilation > 1;
    if (ctx_.options.baseline && tr) {
      l.note = "baseline: zero-inserted input + rotated weight copy (seed 000 FIG. 3)";
      lowerTransposedBaseline(d);
    } else if (ctx_.options.baseline && dilated) {
      l.note = "baseline: zero-inserted (dilated) kernel";
      lowerDilatedBaseline(d);
    } else {
      lowerConv(ctx_, d);
    }
    endLayer();
  }

  /// Seed 000 FIG. 3: write the zero-inserted input (zeros everywhere, then the input scattered
  /// with the stride, plus the zero border) and a 180-degree rotated copy of the weights into
  /// DRAM, then run a stride-1 convolution over them.
  void lowerTransposedBaseline(const ConvDesc& d) {
    const int64_t eb = ctx_.elemBytes;
    auto border = [](const AxisGeometry& a) { return (a.kernel - 1) * a.dilation - a.padBegin; };
    const int64_t bn = border(d.h), bw = border(d.w);
    if (bn < 0 || bw < 0) {
      ctx_.program.layers.back().note +=
          " (not applicable: padding exceeds the kernel; method used)";
      return lowerConv(ctx_, d);
    }
    // The stride-1 convolution over the dilated array produces `out` positions.
    auto extent = [](const AxisGeometry& a) { return a.out + (a.kernel - 1) * a.dilation; };
    const int64_t dh = extent(d.h), dw = extent(d.w);
    DramTensor dil;
    dil.name = g_.node(d.node).name + ".zero_inserted";
    dil.dtype = int8() ? DType::I8 : DType::F32;
    dil.shape = {d.batch, d.inChannels, dh, dw};
    dil.role = DramTensor::Role::Scratch;
    const int32_t dilT = ctx_.addTensor(dil);
    const int64_t dilAddr = ctx_.program.tensors[static_cast<size_t>(dilT)].addr;
    const Range dilRange = ctx_.dramRange(dilT);
    Emitter& em = ctx_.emitter;
    DmaCopy fill;
    fill.fillZero = true; // real 0: the input's zero point
    fill.fillValue = int8() ? ctx_.qm->zeroPoint(g_.node(d.node).inputs[0]) : 0;
    fill.elemBytes = eb;
    fill.innerCount = d.batch * d.inChannels * dh * dw;
    fill.dst.addr = dilAddr;
    fill.dst.innerStep = eb;
    em.emit(fill, {}, {dilRange});
    DmaCopy scatter;
    scatter.elemBytes = eb;
    scatter.partitionCount = d.batch * d.inChannels;
    scatter.outerCount = d.h.in;
    scatter.innerCount = d.w.in;
    const DramTensor& in = ctx_.program.tensors[static_cast<size_t>(d.inTensor)];
    scatter.src = DramPattern{in.addr, d.inCStride * eb, d.inYStride * eb, d.inXStride * eb};
    // Input (i, j) lands at dilated (i*S + bn, j*S + bw); rows past the crop are dropped by
    // the copy's bounds (the output extent already accounts for them).
    scatter.dst = DramPattern{dilAddr + (bn * dw + bw) * eb, dh * dw * eb, d.h.stride * dw * eb,
                              d.w.stride * eb};
    const int64_t lastRow = (d.h.in - 1) * d.h.stride + bn,
                  lastCol = (d.w.in - 1) * d.w.stride + bw;
    if (lastRow >= dh || lastCol >= dw) {
      // output_padding-free crop on the far side: copy only the rows/cols that land inside.
      scatter.outerCount = std::min(d.h.in, (dh - 1 - bn) / d.h.stride + 1);
      scatter.innerCount = std::min(d.w.in, (dw - 1 - bw) / d.w.stride + 1);
    }
    em.emit(scatter, {ctx_.dramRange(d.inTensor)}, {dilRange});

    const std::vector<uint8_t> original = packWeights(ctx_, d);
    const int64_t wBytes = static_cast<int64_t>(original.size());
    const int64_t origAddr = ctx_.addSegment(original);
    const int64_t rotAddr = ctx_.allocDram(wBytes);
    const int64_t kv = d.h.kernel * d.w.kernel;
    DmaCopy rot;
    rot.elemBytes = eb;
    rot.partitionCount = wBytes / (kv * eb);
    rot.innerCount = kv;
    rot.src = DramPattern{origAddr + (kv - 1) * eb, kv * eb, 0, -eb};
    rot.dst = DramPattern{rotAddr, kv * eb, 0, eb};
    em.emit(rot, {Range{Space::Dram, origAddr, origAddr + wBytes}},
            {Range{Space::Dram, rotAddr, rotAddr + wBytes}});

    ConvDesc c = d;
    c.transposed = false;
    c.h = AxisGeometry{dh, d.h.out, d.h.kernel, 1, d.h.dilation, 0};
    c.w = AxisGeometry{dw, d.w.out, d.w.kernel, 1, d.w.dilation, 0};
    c.inTensor = dilT;
    c.inCStride = dh * dw;
    c.inNStride = d.inChannels * dh * dw;
    c.inYStride = dw;
    c.inXStride = 1;
    c.packedWeightsAddr = rotAddr;
    lowerConv(ctx_, c);
  }

  /// A dilated convolution with the holes made explicit: a (K-1)*D+1 kernel with zeros.
  void lowerDilatedBaseline(const ConvDesc& d) {
    ConvDesc c = d;
    const int64_t dh = d.h.dilation, dw = d.w.dilation;
    c.h.kernel = (d.h.kernel - 1) * dh + 1;
    c.w.kernel = (d.w.kernel - 1) * dw + 1;
    c.h.dilation = c.w.dilation = 1;
    const int64_t eb = ctx_.elemBytes;
    // The zero-inserted kernel's weights for one output block must fit the state buffer.
    const int64_t cg = d.inChannels / d.groups, mg = d.outChannels / d.groups;
    const int64_t cBlocks = (cg + ctx_.config.peRows - 1) / ctx_.config.peRows;
    const int64_t perPartition =
        cBlocks * std::min(mg, ctx_.config.peCols) * c.h.kernel * c.w.kernel * eb;
    if (2 * perPartition > ctx_.sbufBytes() && ctx_.config.sbufResidentBytesPerPartition > 0)
      throw WorkingAreaTooSmall{d.node};
    if (2 * perPartition > ctx_.sbufBytes()) {
      ctx_.program.layers.back().note =
          "baseline not applicable: the zero-inserted kernel does not fit the state buffer";
      return lowerConv(ctx_, d);
    }
    auto inner = d.weightAt;
    c.weightAt = [inner, dh, dw, eb](int64_t m, int64_t ch, int64_t r, int64_t s, uint8_t* out) {
      if (r % dh == 0 && s % dw == 0)
        inner(m, ch, r / dh, s / dw, out);
      else
        std::memset(out, 0, static_cast<size_t>(eb));
    };
    lowerConv(ctx_, c);
  }

  void lowerGemmNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    ConvDesc d;
    d.node = id;
    int64_t rows = 0, k = 0, cols = 0;
    bool transA = false;
    std::vector<float> bias;
    if (n.op == ir::OpKind::Gemm) {
      const ir::GemmParams gp = ir::gemmParams(g_, id);
      rows = gp.m;
      k = gp.k;
      cols = gp.n;
      transA = gp.transA;
      if (!int8()) {
        if (!g_.isConstant(n.inputs[1]))
          return lowerHost(id, "B is not a constant");
        if (gp.hasC) {
          if (!g_.isConstant(n.inputs[2]))
            return lowerHost(id, "C is not a constant");
          const Tensor& c = *g_.value(n.inputs[2]).constant;
          if (c.numElements() != cols && c.numElements() != 1)
            return lowerHost(id, "C is not a per-column bias");
          for (int64_t j = 0; j < cols; ++j)
            bias.push_back(gp.beta * c.data<float>()[c.numElements() == 1 ? 0 : j]);
        }
        auto b = g_.value(n.inputs[1]).constant;
        const float alpha = gp.alpha;
        const bool transB = gp.transB;
        d.weightAt = [b, alpha, transB, k, cols](int64_t m, int64_t c, int64_t, int64_t,
                                                 uint8_t* out) {
          put<float>(out, alpha * b->data<float>()[transB ? m * k + c : c * cols + m]);
        };
      }
    } else if (!g_.isConstant(n.inputs[1])) {
      return lowerTensorMatMulNode(id);
    } else {
      const Dims& a = g_.value(n.inputs[0]).shape;
      const Dims& b = g_.value(n.inputs[1]).shape;
      if (a.size() < 2 || b.size() != 2 || !g_.isConstant(n.inputs[1]))
        return lowerHost(id, "MatMul needs A of rank >= 2 and a constant 2-D B");
      k = a.back();
      cols = b[1];
      rows = numElements(a) / k;
      if (!int8()) {
        auto bt = g_.value(n.inputs[1]).constant;
        d.weightAt = [bt, cols](int64_t m, int64_t c, int64_t, int64_t, uint8_t* out) {
          put<float>(out, bt->data<float>()[c * cols + m]);
        };
      }
    }
    if (int8()) {
      const quant::QuantNode& qn = ctx_.qm->node(id);
      transA = qn.transA;
      const int8_t* w = qn.weights.data<int8_t>();
      d.weightAt = [w, k](int64_t m, int64_t c, int64_t, int64_t, uint8_t* out) {
        put<int8_t>(out, w[m * k + c]);
      };
    }
    setActRecords(id, d, std::move(bias));
    std::string opName(ir::opName(n.op));
    const ir::ValueId outValue = fuseActivation(id, d, opName);
    setMatrixGeometry(d, n.inputs[0], outValue, rows, k, cols);
    d.inCStride = transA ? rows : 1;
    d.inXStride = transA ? 1 : k;
    Layer& l =
        beginLayer(id, LayerUnit::PeArray, opName, fmt::format("{}x{} * {}x{}", rows, k, k, cols));
    l.usefulMacs = ir::nodeMacs(g_, id);
    setOutputs(l, {outValue});
    lowerConv(ctx_, d);
    endLayer();
  }

  /// A MatMul of two computed tensors (attention's Q K^T and P V): per batch index one GEMM
  /// whose stationary weights are that batch's B, DMA'd from where B lives into the weight
  /// buffer (docs/arch/Systolic.md, "MatMul of two tensors").
  void lowerTensorMatMulNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    const Dims& a = g_.value(n.inputs[0]).shape;
    const Dims& b = g_.value(n.inputs[1]).shape;
    const Dims& out = g_.value(n.outputs[0]).shape;
    if (g_.isConstant(n.inputs[0]) || a.size() < 2 || b.size() < 2)
      return lowerHost(id, "a MatMul of two tensors needs a computed A and operands of rank >= 2");
    const int64_t rows = a[a.size() - 2], k = a.back(), cols = b.back();
    const std::optional<int64_t> aStride = batchStride(a, out, rows * k);
    const std::optional<int64_t> bStride = batchStride(b, out, k * cols);
    if (!aStride || !bStride)
      return lowerHost(id, "its batch dims broadcast in a pattern one image stride cannot walk");
    ConvDesc d;
    d.node = id;
    d.batch = numElements(out) / (rows * cols);
    d.weightTensor = tensorOf(n.inputs[1]);
    d.weightNStride = *bStride;
    d.weightCStride = cols;
    if (int8()) {
      const quant::QuantMultiplier mult = ctx_.qm->node(id).mulMultiplier;
      d.actRecord = [mult](int64_t, uint8_t* rec) {
        put<int32_t>(rec, 0);
        put<int32_t>(rec + 4, mult.multiplier);
        put<int32_t>(rec + 8, mult.shift);
      };
    } else {
      setActRecords(id, d, {});
    }
    std::string opName(ir::opName(n.op));
    const ir::ValueId outValue = fuseActivation(id, d, opName);
    setMatrixGeometry(d, n.inputs[0], outValue, rows, k, cols);
    d.inNStride = *aStride;
    d.outNStride = rows * cols;
    Layer& l = beginLayer(id, LayerUnit::PeArray, opName,
                          fmt::format("{} x {}x{} * {}x{}", d.batch, rows, k, k, cols));
    l.usefulMacs = ir::nodeMacs(g_, id);
    l.note = *bStride != 0 ? "weights: the computed B, loaded per batch index"
                           : "weights: the computed B, one for every batch index";
    setOutputs(l, {outValue});
    lowerConv(ctx_, d);
    endLayer();
  }

  /// A rows x k by k x cols product as a 1x1 convolution over a 1 x rows plane: A's rows are
  /// the pixels, its columns the input channels (A row-major; the caller changes the input
  /// strides for a transposed A), the output row-major [rows, cols].
  void setMatrixGeometry(ConvDesc& d, ir::ValueId a, ir::ValueId out, int64_t rows, int64_t k,
                         int64_t cols) {
    d.inChannels = k;
    d.outChannels = cols;
    d.h = AxisGeometry{1, 1, 1, 1, 1, 0};
    d.w = AxisGeometry{rows, rows, 1, 1, 1, 0};
    d.inTensor = tensorOf(a);
    d.inCStride = 1;
    d.inXStride = k;
    d.outTensor = tensorOf(out);
    d.outCStride = 1;
    d.outXStride = cols;
  }

  /// Elements between consecutive batch indices of a MatMul operand of \p shape (\p matrix
  /// elements per batch) under \p out's batch dims: one matrix after another, or the same one
  /// for every index (broadcast); nothing for other patterns.
  static std::optional<int64_t> batchStride(const Dims& shape, const Dims& out, int64_t matrix) {
    const std::vector<int64_t> index = quant::matmulBatchIndex(shape, out);
    bool linear = true, fixed = true;
    for (size_t i = 0; i < index.size(); ++i) {
      linear = linear && index[i] == static_cast<int64_t>(i);
      fixed = fixed && index[i] == 0;
    }
    if (fixed)
      return 0;
    if (linear)
      return matrix;
    return std::nullopt;
  }

  /// An int8 element-wise node on the vector unit or as a DMA pattern (VectorLowering.cpp).
  void lowerElementwiseNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    std::variant<ElementwisePlan, std::string> planned = planElementwise(ctx_, id);
    // A nearest Resize the vector unit cannot replicate may still be a strided copy (a
    // subsampling downscale): the DMA's address patterns move it.
    if (std::holds_alternative<std::string>(planned) &&
        ctx_.qm->node(id).kind == quant::QuantOpKind::Gather &&
        std::holds_alternative<common::ElementwiseLayer>(common::lowerElementwise(*ctx_.qm, id)))
      return lowerDataMovementNode(id);
    if (const auto* why = std::get_if<std::string>(&planned))
      return lowerHost(id, *why);
    ElementwisePlan& plan = std::get<ElementwisePlan>(planned);
    std::string opName(ir::opName(n.op));
    const ir::ValueId out = fuseVectorClamp(id, plan, opName);
    ElementwiseIo io;
    for (ir::ValueId v : n.inputs) // -1: a constant or an absent optional input (Resize's roi)
      io.inputs.push_back(v == ir::kNoValue || g_.isConstant(v) ? -1 : tensorOf(v));
    io.output = tensorOf(out);
    Layer& l = beginLayer(id, LayerUnit::Vector, opName, shapeOf(n));
    setOutputs(l, {out});
    lowerElementwise(ctx_, id, plan, io);
    endLayer();
  }

  /// A Relu/Clip that alone reads an Add/Sub/Mul result folds into the VECTOR's clamp (the
  /// residual Add + Relu of ResNets); returns the value the layer finally produces.
  ir::ValueId fuseVectorClamp(ir::NodeId id, ElementwisePlan& plan, std::string& opName) {
    const ir::ValueId out = node(id).outputs[0];
    const VectorFunc f = plan.op.func;
    const bool binary = isBinary(f);
    const std::vector<ir::NodeId>& users = g_.users(out);
    const bool isOutput = g_.isOutput(out);
    if (plan.kind != ElementwisePlan::Kind::Vector || !binary || users.size() != 1 || isOutput)
      return out;
    const ir::NodeId act = users.front();
    const quant::QuantNode& q = ctx_.qm->node(act);
    if (q.kind != quant::QuantOpKind::Clamp || node(act).inputs.empty() ||
        node(act).inputs[0] != out || consumed_.count(act))
      return out;
    plan.op.clampLo = std::max<int64_t>(plan.op.clampLo, q.clampMin);
    plan.op.clampHi = std::min<int64_t>(plan.op.clampHi, q.clampMax);
    consumed_.insert(act);
    opName.append("+").append(ir::opName(node(act).op));
    return node(act).outputs[0];
  }

  void lowerPoolNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    const ir::PoolParams pp = ir::poolParams(g_, id);
    if (pp.spatialRank != 2)
      return lowerHost(id, "pooling engine maps 2-D pooling only");
    if (n.outputs.size() > 1 && n.outputs[1] != ir::kNoValue)
      return lowerHost(id, "MaxPool Indices output");
    PoolDesc d;
    d.node = id;
    d.kind = pp.kind == ir::PoolParams::Kind::Max ? Pool::Kind::Max : Pool::Kind::Average;
    d.batch = pp.batch;
    d.channels = pp.channels;
    d.inH = pp.inSpatial[0];
    d.inW = pp.inSpatial[1];
    d.outH = pp.outSpatial[0];
    d.outW = pp.outSpatial[1];
    if (pp.global) {
      d.kernelH = d.inH;
      d.kernelW = d.inW;
    } else {
      d.kernelH = pp.kernel[0];
      d.kernelW = pp.kernel[1];
      d.strideH = pp.strides[0];
      d.strideW = pp.strides[1];
      d.dilH = pp.dilations[0];
      d.dilW = pp.dilations[1];
      d.padTop = pp.padsBegin[0];
      d.padLeft = pp.padsBegin[1];
      d.padBottom = pp.padsEnd[0];
      d.padRight = pp.padsEnd[1];
      d.countIncludePad = pp.countIncludePad;
    }
    if (int8() && d.kind == Pool::Kind::Average) {
      for (const quant::CountMultiplier& cm : ctx_.qm->node(id).countMultipliers) {
        if (cm.count > INT32_MAX)
          return lowerHost(id, "average window too large for the pool table");
        d.countTable.push_back(
            {static_cast<int32_t>(cm.count), cm.multiplier.multiplier, cm.multiplier.shift});
      }
    }
    emitPool(id, d);
  }

  /// A linear Resize of an NCHW plane on the pooling engine (an interpolating POOL per band of
  /// output rows, the tap tables in the pool table); other shapes stay on the host.
  void lowerInterpolateNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    const std::vector<quant::InterpolationAxis>& axes = ctx_.qm->node(id).interpolation;
    const Dims& in = g_.value(n.inputs[0]).shape;
    const Dims& out = g_.value(n.outputs[0]).shape;
    auto identity = [&](size_t a) {
      if (axes[a].interpolates || in[a] != out[a])
        return false;
      for (int64_t o = 0; o < out[a]; ++o)
        if (axes[a].index0[static_cast<size_t>(o)] != o)
          return false;
      return true;
    };
    if (in.size() != 4 || !identity(0) || !identity(1))
      return lowerHost(id, "the pooling engine interpolates the last two axes of an NCHW tensor");
    auto taps = [](const quant::InterpolationAxis& ax) {
      std::vector<std::array<int32_t, 3>> t;
      for (size_t o = 0; o < ax.index0.size(); ++o)
        t.push_back(ax.interpolates ? std::array{ax.index0[o], ax.index1[o], ax.weight1[o]}
                                    : std::array{ax.index0[o], ax.index0[o], 0});
      return t;
    };
    PoolDesc d;
    d.node = id;
    d.kind = Pool::Kind::Interpolate;
    d.batch = in[0];
    d.channels = in[1];
    d.inH = in[2];
    d.inW = in[3];
    d.outH = out[2];
    d.outW = out[3];
    d.rowTaps = taps(axes[2]);
    d.columnTaps = taps(axes[3]);
    emitPool(id, d);
  }

  /// ReduceMean/ReduceSum over the last axis: each line is one partition's row, so the pooling
  /// engine averages it as a 1 x L window whose pool-table record holds the reduction's own
  /// multiplier (the int32 line sum requantized once, as quant::reduceLine does). Over an axis
  /// with elements after it (channels of NCHW), the line runs across partitions: the PE array
  /// sums it (lowerReduceOnArray). Max and Min across partitions: the host.
  void lowerReduceNode(ir::NodeId id) {
    const ir::Node& n = node(id);
    const std::optional<quant::LineGeometry> geo =
        quant::reduceGeometry(ir::reduceParams(g_, id).axes, g_.value(n.inputs[0]).shape);
    const bool sumOrMean = n.op == ir::OpKind::ReduceMean || n.op == ir::OpKind::ReduceSum;
    if (!geo || !sumOrMean || geo->length > INT32_MAX)
      return lowerHost(id, common::noUnitNote(g_, id, "systolic") +
                               ": a maximum or minimum across SBUF partitions has no unit");
    if (geo->inner != 1)
      return lowerReduceOnArray(id, *geo);
    const quant::QuantMultiplier m = ctx_.qm->node(id).reduceMultiplier;
    PoolDesc d;
    d.node = id;
    d.kind = Pool::Kind::Average;
    d.channels = geo->outer; // one line per partition
    d.inW = d.kernelW = geo->length;
    d.countTable.push_back({static_cast<int32_t>(geo->length), m.multiplier, m.shift});
    emitPool(id, d);
  }

  /// A sum or mean of [outer, length, inner] over `length` as a 1 x 1 convolution of `length`
  /// input channels into one output channel whose weights are all 1 (seed 000 [0047]: the
  /// array's columns accumulate down the partitions): the PSUM holds the exact int32 line sum,
  /// and the activation record applies the reduction's own multiplier, as quant::reduceLine.
  void lowerReduceOnArray(ir::NodeId id, const quant::LineGeometry& geo) {
    const ir::Node& n = node(id);
    const quant::QuantMultiplier m = ctx_.qm->node(id).reduceMultiplier;
    ConvDesc d;
    d.node = id;
    d.batch = geo.outer;
    d.inChannels = geo.length;
    d.outChannels = 1;
    d.h = AxisGeometry{1, 1, 1, 1, 1, 0};
    d.w = AxisGeometry{geo.inner, geo.inner, 1, 1, 1, 0};
    d.weightAt = [](int64_t, int64_t, int64_t, int64_t, uint8_t* out) { put<int8_t>(out, 1); };
    d.actRecord = [m](int64_t, uint8_t* out) {
      put<int32_t>(out, 0);
      put<int32_t>(out + 4, m.multiplier);
      put<int32_t>(out + 8, m.shift);
    };
    d.inTensor = tensorOf(n.inputs[0]);
    d.inNStride = geo.length * geo.inner;
    d.inCStride = geo.inner;
    d.inXStride = 1;
    d.outTensor = tensorOf(n.outputs[0]);
    d.outNStride = geo.inner;
    d.outXStride = 1;
    Layer& l = beginLayer(id, LayerUnit::PeArray, std::string(ir::opName(n.op)),
                          fmt::format("{} -> {} (sum of {} partitions on the array)",
                                      dimsToString(g_.value(n.inputs[0]).shape),
                                      dimsToString(g_.value(n.outputs[0]).shape), geo.length));
    setOutputs(l, {n.outputs[0]});
    lowerConv(ctx_, d);
    endLayer();
  }

  /// Emits pooling layer \p d of node \p id, or sends the node to the host when it does not
  /// fit the state buffer or the pool table.
  void emitPool(ir::NodeId id, PoolDesc& d) {
    const ir::Node& n = node(id);
    d.inTensor = tensorOf(n.inputs[0]);
    d.outTensor = tensorOf(n.outputs[0]);
    if (int8()) {
      const quant::ZeroPoints z = ctx_.qm->zeroPointsOf(id);
      d.zeroIn = z.in[0];
      d.zeroOut = z.out;
    }
    const int64_t first = ctx_.emitter.size();
    Layer& l = beginLayer(id, LayerUnit::Pool, std::string(ir::opName(n.op)), shapeOf(n));
    setOutputs(l, {n.outputs[0]});
    if (!lowerPool(ctx_, d)) {
      NNACCEL_ASSERT(ctx_.emitter.size() == first) << "lowerPool emitted before giving up";
      ctx_.program.layers.pop_back();
      if (ctx_.config.sbufResidentBytesPerPartition > 0)
        throw WorkingAreaTooSmall{id};
      return lowerHost(id, "pooling window does not fit the state buffer or pool table");
    }
    endLayer();
  }

  CompilerContext& ctx_;
  const ir::Graph& g_;
  std::vector<int32_t> tensorOfValue_;
  std::set<ir::NodeId> consumed_;
  ir::NodeId now_ = 0;                     ///< the node being lowered (Residency's step)
  std::map<int32_t, std::string> spillOf_; ///< activation tensors DRAM holds, and why
};

} // namespace

Program compile(const ir::Graph& g, const quant::QuantizedModel* qm, const SystolicConfig& config,
                const CompileOptions& options) {
  if (options.dtype != DType::I8 && options.dtype != DType::F32)
    throw Error(ErrorKind::Usage, ErrorContext{}, "the systolic engine compiles int8 or fp32");
  if (!config.supports(options.dtype))
    throw Error(ErrorKind::Config, ErrorContext{.key = "dtypes"},
                fmt::format("config '{}' does not support {}", config.name,
                            options.dtype == DType::I8 ? "int8" : "fp32"));
  NNACCEL_ASSERT(options.dtype != DType::I8 || qm != nullptr) << "int8 compile needs the model";
  // A layer whose tiles need more of the SBUF than the resident region leaves gets it: the
  // region halves (to 0 at worst) and the layer's note says so.
  SystolicConfig c = config;
  ir::NodeId shrunkFor = -1;
  for (;;) {
    Program p;
    p.config = c;
    p.dtype = options.dtype;
    if (qm != nullptr)
      p.rounding = qm->rounding;
    p.model = g.name;
    p.baseline = options.baseline;
    CompilerContext ctx(g, qm, c, options, p);
    ctx.elemBytes = options.dtype == DType::I8 ? 1 : 4;
    try {
      Driver(ctx).run();
    } catch (const WorkingAreaTooSmall& e) {
      shrunkFor = e.node;
      const int64_t half = c.sbufResidentBytesPerPartition / 2 / kDramAlignBytes * kDramAlignBytes;
      c.sbufResidentBytesPerPartition = half;
      continue;
    }
    for (Layer& l : p.layers)
      if (l.node == shrunkFor)
        l.note += fmt::format("{}the SBUF resident region shrank from {} to {} bytes per "
                              "partition for this layer's tiles",
                              l.note.empty() ? "" : "; ", config.sbufResidentBytesPerPartition,
                              c.sbufResidentBytesPerPartition);
    validateProgram(p, g.name + ".nnx");
    return p;
  }
}

} // namespace nnaccel::arch::systolic
