/// \file
/// int8 post-training quantization: calibration and the QuantizedModel every int8 consumer
/// (the int8 reference executor, the engines' compilers) reads.
///
/// Scheme (docs/Quantization.md has the full specification):
///  - weights: symmetric per-output-channel int8 in [-127, 127], scale_w[oc] = max|w[oc]| / 127
///    (an all-zero channel gets scale 1/127);
///  - activations: per-tensor int8 in [-128, 127], scale = max|x| / 127 over the calibration
///    runs (1 when the tensor is always 0) and zero point 0; an imported QDQ model's activations
///    keep the model's own scale and zero point (real = scale * (q - zero), a uint8 code u held
///    as the int8 code u - 128 with zero point z - 128);
///    a bool computed by a comparison is held as s8 0 or 1 at scale 1;
///    scale-preserving ops (Relu, Clip, MaxPool, data movement, Resize) give their output the
///    input's scale;
///  - biases: int32 at scale s_in * scale_w[oc]; accumulation in int32;
///  - requantization: quant/Requantize.h (round half away from zero).
/// quantize() runs the fp32 reference executor on the calibration inputs, records every
/// intermediate's range, and fills one QuantNode per graph node with everything an engine needs.
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/Requantize.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::quant {

/// An int8 tensor with its scale and zero point (real value = (q - zeroPoint) * scale), or a raw
/// tensor (scale 0) for values that are not quantized (non-f32 values such as a Dropout mask, or
/// constants read in fp32).
struct QuantTensor {
  Tensor data;           ///< s8 when quantized, any dtype when raw
  float scale = 0;       ///< > 0 when quantized
  int32_t zeroPoint = 0; ///< the code of real 0, in [-128, 127]

  bool isQuantized() const { return scale > 0; }
  /// fp32 tensor (q - zeroPoint) * scale (dequantizeValue per element); a raw tensor is
  /// returned unchanged.
  Tensor dequantize() const;
};

/// Quantizes an f32 tensor with quantizeValue (per tensor).
QuantTensor quantizeTensor(const Tensor& x, float scale, Rounding rounding = Rounding::HalfAway,
                           int32_t zeroPoint = 0);
/// max|x| / 127 in fp32, or 1 when maxAbs == 0 (any scale represents an all-zero tensor).
float symmetricScale(float maxAbs);

/// How the int8 executor evaluates a node.
enum class QuantOpKind {
  Folded,       ///< every output is a graph constant: nothing runs
  Accumulate,   ///< Conv, ConvTranspose, Gemm, MatMul with constant weights
  TensorMatMul, ///< MatMul of two computed tensors (attention): int32 sums of K products of
                ///< the int8 operands, requantized by mulMultiplier (tensorMatmulAccumulate)
  Clamp,        ///< Relu, Clip: min(max(q, clampMin), clampMax); scale preserving
  MaxPool,      ///< MaxPool, GlobalMaxPool on int8; scale preserving
  DataMovement, ///< Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, Transpose,
                ///< Pad (constant 0), DepthToSpace, Slice; scale preserving
  Gather,       ///< Resize/Upsample nearest as a gather table; scale preserving
  Interpolate,  ///< Resize/Upsample linear: integer weights per axis (interpolateAt); scale
                ///< preserving
  Softmax,      ///< Softmax: exp table on max - q, integer division by the sum (softmaxLine)
  Reduce,       ///< ReduceMean/Sum/Max/Min over contiguous axes: a line's sum or extremum,
                ///< requantized (reduceLine)
  AveragePool,  ///< AveragePool, GlobalAveragePool: int32 sum, per-count multiplier
  AddSub,       ///< Add, Sub: two-stage rescale (AddSubMultipliers)
  Mul,          ///< Mul: requantize(qa * qb); Div of two tensors: divValue
  Concat,       ///< inputs requantized to the output scale, then concatenated
  MinMax,       ///< Min, Max of two tensors: both requantized to the output scale, compared
  Compare,      ///< Equal, Greater, Less, GreaterOrEqual, LessOrEqual: both operands onto the
                ///< coarser scale, compared; the bool output is held as s8 0/1 at scale 1
  Select,       ///< Where(cond, x, y) of a comparison's s8 0/1: x and y requantized to the
                ///< output scale (inputMultipliers[1], [2]), the condition picks (select())
  Lookup,       ///< unary element-wise function as 256-entry int8 tables (lookupTable())
  FloatIsland,  ///< dequantize, reference::evalNode in fp32, quantize the outputs
};
std::string_view quantOpKindName(QuantOpKind kind);
/// Clamp, MaxPool, DataMovement, Gather and Interpolate: output scale == input scale by
/// construction.
bool isScalePreserving(QuantOpKind kind);

/// Everything needed to evaluate one node in int8. Fields not used by the node's kind are empty.
/// Scales of the node's values are in QuantizedModel::scales (input 0: s_in, output 0: s_out).
struct QuantNode {
  QuantOpKind kind = QuantOpKind::FloatIsland;
  std::string islandReason; ///< FloatIsland: why the node has no integer form

  // --- Accumulate ---------------------------------------------------------------------------
  /// s8 weights. Conv: [M, C/g, k...] and ConvTranspose: [C, M/g, k...] (ONNX layouts);
  /// Gemm/MatMul: [N, K] = alpha * op(B) transposed, one row per output channel.
  Tensor weights;
  std::vector<float> weightScales;          ///< per output channel
  std::vector<int32_t> bias;                ///< per output channel (zeros when absent)
  std::vector<QuantMultiplier> multipliers; ///< per output channel: s_in * s_w[oc] / s_out
  int64_t reductionLength = 0;              ///< K: int8 products summed per output
  bool transA = false;                      ///< Gemm: A is [K, M]

  // --- Clamp --------------------------------------------------------------------------------
  int32_t clampMin = kInt8Min; ///< Relu: 0; Clip: quantizeValue(min, s)
  int32_t clampMax = kInt8Max; ///< Clip: quantizeValue(max, s)

  // --- AveragePool --------------------------------------------------------------------------
  std::vector<CountMultiplier> countMultipliers; ///< s_in / (s_out * count), ascending count

  // --- AddSub / Mul / Concat / MinMax -------------------------------------------------------
  AddSubMultipliers addSub; ///< AddSub
  /// Mul, TensorMatMul: s_a * s_b / s_out; Div (kind Mul): s_a / (2^kReciprocalBits * s_b *
  /// s_out)
  QuantMultiplier mulMultiplier;
  /// Concat, MinMax: s_in[i] / s_out per input; Compare: s_in[i] / max(s_in[0], s_in[1])
  std::vector<QuantMultiplier> inputMultipliers;
  /// Concat of a model that rounds half to even (an imported QDQ model): per input,
  /// kLookupEntries codes indexed by q + 128, rescaleTable(): the input onto the output's scale
  /// and zero point through fp32 as ONNX defines the QDQ form (DequantizeLinear, then
  /// QuantizeLinear). Empty (or an empty entry): the input is requantized by inputMultipliers.
  std::vector<std::vector<int8_t>> inputTables;
  /// Concat input \p i's rescale table, or nullptr when inputMultipliers requantizes it.
  const std::vector<int8_t>* inputTable(size_t i) const {
    return i < inputTables.size() && !inputTables[i].empty() ? &inputTables[i] : nullptr;
  }

  // --- Gather -------------------------------------------------------------------------------
  std::vector<int32_t> gatherIndex; ///< flat input index of every output element

  // --- Reduce -------------------------------------------------------------------------------
  QuantMultiplier reduceMultiplier; ///< Mean: s_in / (length * s_out); others: s_in / s_out

  // --- Softmax ------------------------------------------------------------------------------
  std::vector<int32_t> softmaxExp; ///< kLookupEntries entries: round(exp(-d * s_in) * 2^15)
  QuantMultiplier softmaxOutput;   ///< 2^-16 / s_out

  // --- Interpolate --------------------------------------------------------------------------
  std::vector<InterpolationAxis> interpolation; ///< one per axis of the input

  // --- Lookup -------------------------------------------------------------------------------
  /// kLookupEntries int8 outputs per table, indexed by q + 128: table t maps the input q to
  /// quantize(f(dequantize(q, s_in)), s_out) with f the node's fp32 function (reference
  /// evalNode). One table, or one per index along lookupAxis when a constant operand (a PRelu
  /// slope, a per-channel divisor) varies along that output axis.
  std::vector<int8_t> lookupTables;
  int64_t lookupAxis = -1; ///< -1: a single table for every element
};

/// A graph with its int8 quantization.
/// How activation ranges are chosen from the calibration runs (docs/Quantization.md,
/// "Calibration methods"). Every method first finds max|x| of each computed f32 value; the
/// others then clip it to a threshold T chosen on a 2048-bin histogram of |x| over [0, max|x|]:
///  - MinMax: T = max|x| (no clipping);
///  - Percentile: the smallest bin edge below which `percentile` % of the values lie;
///  - Mse: the T minimising the expected squared error of symmetric int8 with step T/127
///    (uniform rounding noise step^2/12 inside, (|x| - T)^2 for clipped values);
///  - Entropy: the T minimising the KL divergence between the clipped histogram and its 128-level
///    quantization (the TensorRT entropy calibrator's method, Migacz, GTC 2017).
/// Graph inputs and outputs are never clipped (the user's data, and a saturated output would
/// be visible directly).
enum class CalibrationMethod { MinMax, Percentile, Mse, Entropy };

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::MinMax;
  double percentile = 99.99; ///< Percentile only: in (0, 100]
  /// Equalize the channels between convolutions before calibrating (docs/Quantization.md
  /// "Channel equalization"): the fp32 function is unchanged, the per-tensor int8 ranges of the
  /// values between them are balanced. Not applied to QDQ models, whose scales are their own.
  bool equalize = false;
  /// Asymmetric activations (docs/Quantization.md "Asymmetric calibration"): each calibrated
  /// value's range [min(lo, 0), max(hi, 0)] spread over all 256 int8 codes with a zero point,
  /// instead of max|x| over [-127, 127]. A non-negative value (after a Relu) then gets a step
  /// half as large. Weights stay symmetric; engines without zero points refuse such a model.
  bool asymmetric = false;
  /// Empirical bias correction after calibration (docs/Quantization.md "Bias correction"): each
  /// integer layer's int32 bias shifted, in graph order, by its output channels' mean int8
  /// error over the calibration sets. Not applied to QDQ models, whose biases are their own.
  bool biasCorrection = false;
};

/// "minmax", "percentile", "mse", "entropy"; calibrationMethodFromName is its inverse.
std::string_view calibrationMethodName(CalibrationMethod m);
std::optional<CalibrationMethod> calibrationMethodFromName(std::string_view name);

struct QuantizedModel {
  ir::Graph graph; ///< the fp32 graph (a copy); node and value ids as in it
  /// Per ValueId: the scale (> 0) of every f32 value that is computed or a graph input, and of
  /// every f32 constant read as an int8 operand; 1 for the bool output of a Compare node (held
  /// as s8 0/1); 0 for other values.
  std::vector<float> scales;
  /// Per ValueId: the zero point of every quantized value (the code of real 0): 0 for every
  /// value nnaccel quantizes itself and for constants; an imported QDQ model's own zero points
  /// (as int8 codes) for the activations it quantizes. Empty means all 0.
  std::vector<int32_t> zeroPoints;
  /// Per ValueId: calibrated max|x| over all calibration runs, before any clipping method (0 when
  /// never computed).
  std::vector<float> calibratedMaxAbs;
  /// Per ValueId: int8 form of constants that integer kernels read as operands (Add, Concat,
  /// Relu of a constant, ...); empty QuantTensor otherwise.
  std::vector<QuantTensor> constants;
  std::vector<QuantNode> nodes; ///< per NodeId
  int64_t calibrationCount = 0; ///< number of calibration input sets used
  /// Convolution/consumer groups whose channels were equalized (CalibrationOptions::equalize);
  /// `graph` holds the rescaled weights.
  int64_t equalizedGroups = 0;
  /// Layers of ONNX Runtime's dynamic quantization rewritten as static int8 layers with the
  /// model's own weights (docs/Quantization.md, "Dynamically quantized models").
  int64_t staticizedLayers = 0;
  /// Output channels whose bias CalibrationOptions::biasCorrection shifted (0 when off).
  int64_t correctedBiasChannels = 0;
  CalibrationOptions calibration; ///< how the activation ranges were chosen
  /// How requantizations and the quantization of the model's inputs round a half-way value:
  /// away from zero for the models nnaccel quantizes itself, to even for imported QDQ models
  /// (ONNX's QuantizeLinear, ONNX Runtime's kernels). Every multiplier of the model carries it.
  Rounding rounding = Rounding::HalfAway;
  /// A model input's int8 form: quantizeTensor at its scale with the model's rounding.
  QuantTensor quantizeInput(const Tensor& x, ir::ValueId v) const {
    return quantizeTensor(x, scale(v), rounding, zeroPoint(v));
  }

  const QuantNode& node(ir::NodeId id) const { return nodes.at(static_cast<size_t>(id)); }
  float scale(ir::ValueId id) const { return scales.at(static_cast<size_t>(id)); }
  int32_t zeroPoint(ir::ValueId id) const {
    return zeroPoints.empty() ? 0 : zeroPoints.at(static_cast<size_t>(id));
  }
  /// The first value with a non-zero zero point (an asymmetric activation), or kNoValue.
  ir::ValueId firstAsymmetricValue() const;
  /// The zero points of node \p id's data operands (inputs 0..2) and of its output 0 (all 0 for
  /// a constant operand or a missing input), as the kernels take them.
  ZeroPoints zeroPointsOf(ir::NodeId id) const;
};

/// Calibration inputs used when none are given: kDefaultCalibrationCount sets drawn with
/// makeCalibrationInputs(g, kDefaultCalibrationCount, kDefaultCalibrationSeed).
inline constexpr int kDefaultCalibrationCount = 4;
inline constexpr uint64_t kDefaultCalibrationSeed = 0x6e6e616363656cULL; // "nnaccel"
/// Seed of the evaluation inputs on which `nnaccel run --dtype int8` measures the int8-versus-
/// fp32 agreement: a different stream from the calibration sets, so none of them is measured.
inline constexpr int kDefaultEvaluationCount = 8;
inline constexpr uint64_t kDefaultEvaluationSeed = 0x6576616cULL; // "eval"

/// \p count seeded random input sets for \p g (Graph::inputs order): every f32 input element
/// is uniform in [-1, 1) on the 2^-23 grid, Rng::uniform(-1, 1) = 2u - 1 with u = (top 24 bits
/// of one draw) * 2^-24, from one nnaccel::Rng (support/Rng.h) seeded with \p seed and drawn
/// set by set, input by input, element by element. The same seed gives the same bits
/// everywhere. Throws nnaccel::Error (Usage) for count < 1 and (Unsupported) for non-f32 inputs.
std::vector<std::vector<Tensor>> makeCalibrationInputs(const ir::Graph& g, int count,
                                                       uint64_t seed);

/// One seeded random tensor per graph input (Graph::inputs order): the documented default model
/// input when the user gives none, makeCalibrationInputs(g, 1, seed).front(). Throws
/// Error(Unsupported) naming the input when an input is not f32 ("pass it with --input").
std::vector<Tensor> randomInputs(const ir::Graph& g, uint64_t seed);

/// Throws nnaccel::Error when an f32 tensor of \p inputs (one calibration input set, in
/// Graph::inputs order) holds a NaN or an infinity: ErrorKind::Io naming \p files[i] when the
/// input came from a file (`x.npy: input 'x' holds a non-finite value (nan at element 3); int8
/// calibration needs finite inputs`), else ErrorKind::Model naming the set (\p setIndex) and
/// the graph's file. quantize() checks every set; callers reading files check first.
void checkCalibrationInputs(const ir::Graph& g, const std::vector<Tensor>& inputs,
                            const std::vector<std::string>& files = {}, size_t setIndex = 0);

/// The int8 half of the NaN/Inf policy (docs/Quantization.md §2a): throws nnaccel::Error
/// (Unsupported: a data error, exit 1) naming the input and the first element when an f32 input of
/// an int8 run (\p inputs, in Graph::inputs order) holds a NaN or an infinity, which no int8 code
/// represents (before: NaN became 0 and the run verified). The int8 reference executor and every
/// engine's int8 run call it; fp32 runs take such inputs. The error names \p files[i] when the
/// input came from a file (the CLI checks its --input files first), else the graph's file.
void checkFiniteInt8Inputs(const ir::Graph& g, const std::vector<Tensor>& inputs,
                           const std::vector<std::string>& files = {});

/// Quantizes \p g (shape-inferred and verified) calibrating on \p calibrationInputs (each in
/// Graph::inputs order), or on the default random inputs when it is empty. Deterministic: the
/// same graph and inputs give an identical QuantizedModel. Throws nnaccel::Error naming the
/// node when a value is not finite during calibration, a requantization multiplier is out of
/// range or a reduction is long enough to overflow the int32 accumulator.
QuantizedModel quantize(const ir::Graph& g,
                        const std::vector<std::vector<Tensor>>& calibrationInputs,
                        const CalibrationOptions& calibration = {});

} // namespace nnaccel::quant
