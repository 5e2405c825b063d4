// Resize / Upsample by loops that follow the ONNX specification (and the ONNX test-data
// generator, onnx/backend/test/case/node/resize.py) exactly: per axis, every output coordinate
// maps to an input coordinate by the coordinate transformation, which selects taps (nearest: 1,
// linear: 2, cubic: 4, clamped to the edge) with weights; the N-D result is the nested 1-D
// interpolation, innermost axis first, accumulated in double and rounded to fp32 once.
//
// oneDNN's resampling primitive is not used: it derives its factor from the tensor extents
// (out / in) where ONNX uses the given scale (they differ when in * scale is not an integer),
// it only knows the half_pixel transformation, and its nearest rounding is fixed.
#include "KernelUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

namespace nnaccel::reference {

namespace {
using Mode = ir::ResizeParams::Mode;

struct Tap {
  int64_t offset; ///< element offset along the axis (index * stride)
  double weight;
};

/// The taps of one output position along one axis; `extrapolate` means the position lies
/// outside the crop box of tf_crop_and_resize and takes extrapolation_value.
struct Position {
  std::vector<Tap> taps;
  bool extrapolate = false;
};

/// Input coordinate of output index \p x, or nullopt (extrapolate) for tf_crop_and_resize.
/// \p scale is the scale used in the map and \p outWidth = scale * in, as the ONNX reference
/// computes it (fp32 when the scale was given, the integer extent when sizes were given).
std::optional<double> sourceCoordinate(const ir::ResizeParams& p, double x, double scale,
                                       double outWidth, int64_t inLen, double roiStart,
                                       double roiEnd) {
  const std::string& t = p.coordinateTransform;
  const auto in = static_cast<double>(inLen);
  if (t == "half_pixel") {
    return (x + 0.5) / scale - 0.5;
  }
  if (t == "pytorch_half_pixel") {
    return outWidth == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
  }
  if (t == "asymmetric") {
    return x / scale;
  }
  if (t == "tf_half_pixel_for_nn") {
    return (x + 0.5) / scale;
  }
  if (t == "align_corners") {
    return outWidth == 1.0 ? 0.0 : x * (in - 1) / (outWidth - 1);
  }
  if (t == "tf_crop_and_resize") {
    double xo = outWidth == 1.0 ? (roiEnd - roiStart) * (in - 1) / 2
                                : x * (roiEnd - roiStart) * (in - 1) / (outWidth - 1);
    xo += roiStart * (in - 1);
    if (xo < 0 || xo > in - 1) {
      return std::nullopt;
    }
    return xo;
  }
  unsupported("Resize coordinate_transformation_mode '" + t + "' is not supported");
}

std::array<double, 4> cubicCoeffs(double r, double a) {
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
          ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) - 4 * a};
}

/// True when nearest mode \p mode picks the upper neighbour at fractional \p ratio in (0, 1) on
/// an axis resized by \p scale.
bool nearestTakesUpper(const std::string& mode, double ratio, double scale) {
  if (mode == "round_prefer_floor") {
    return ratio > 0.5;
  }
  if (mode == "round_prefer_ceil") {
    return ratio >= 0.5;
  }
  if (mode == "floor") {
    return false;
  }
  if (mode == "ceil") {
    return true;
  }
  if (mode == "legacy_opset10") {
    return scale < 1.0; // Resize-10: floor when upsampling the axis, ceil when downsampling
  }
  unsupported("Resize nearest_mode '" + mode + "' is not supported");
}

Position position(const ir::ResizeParams& p, int64_t x, double scale, double outWidth,
                  int64_t inLen, int64_t stride, double roiStart, double roiEnd) {
  Position pos;
  const auto coord =
      sourceCoordinate(p, static_cast<double>(x), scale, outWidth, inLen, roiStart, roiEnd);
  if (!coord) {
    pos.extrapolate = true;
    return pos;
  }
  // The reference prefers the left neighbourhood: an integral coordinate k has ratio 1 over
  // the base k - 1, so the taps are {k - 1, k} (linear/nearest) or {k - 2 .. k + 1} (cubic).
  double base = std::floor(*coord);
  double ratio = *coord - base;
  if (ratio == 0.0) {
    base -= 1;
    ratio = 1.0;
  }
  const auto b = static_cast<int64_t>(base);
  auto add = [&](int64_t idx, double w) {
    if (w != 0.0) {
      pos.taps.push_back({std::clamp<int64_t>(idx, 0, inLen - 1) * stride, w});
    }
  };
  switch (p.mode) {
  case Mode::Nearest:
    add(ratio == 1.0 || nearestTakesUpper(p.nearestMode, ratio, scale) ? b + 1 : b, 1.0);
    break;
  case Mode::Linear:
    add(b, 1 - ratio);
    add(b + 1, ratio);
    break;
  case Mode::Cubic: {
    std::array<double, 4> c = cubicCoeffs(ratio, static_cast<double>(p.cubicCoeffA));
    if (p.excludeOutside) {
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        const int64_t idx = b - 1 + k;
        c[static_cast<size_t>(k)] = (idx < 0 || idx >= inLen) ? 0.0 : c[static_cast<size_t>(k)];
        sum += c[static_cast<size_t>(k)];
      }
      for (double& v : c) {
        v /= sum;
      }
    }
    for (int k = 0; k < 4; ++k) {
      add(b - 1 + k, c[static_cast<size_t>(k)]);
    }
    break;
  }
  }
  return pos;
}

/// The positions of every output index along axis \p a (taps at index * \p stride).
std::vector<Position> axisPositions(const ir::ResizeParams& p, const Dims& inShape, size_t a,
                                    int64_t stride) {
  const size_t rank = inShape.size();
  const int64_t inLen = inShape[a];
  const int64_t outLen = p.outShape[a];
  const float scaleF = p.scales[a];
  // Scales derived from sizes are out/in; use that ratio in double, as the reference does.
  // A given scale is used as the fp32 value it is, with out width = scale * in in fp32.
  const bool fromSizes = p.scalesFromSizes;
  const double scale = fromSizes ? static_cast<double>(outLen) / static_cast<double>(inLen)
                                 : static_cast<double>(scaleF);
  const double outWidth = fromSizes ? static_cast<double>(outLen)
                                    : static_cast<double>(scaleF * static_cast<float>(inLen));
  double roiStart = 0, roiEnd = 1;
  if (p.coordinateTransform == "tf_crop_and_resize") {
    NNACCEL_ASSERT(p.roi.size() == 2 * rank) << "tf_crop_and_resize needs a roi per axis";
    roiStart = p.roi[a];
    roiEnd = p.roi[a + rank];
  }
  std::vector<Position> positions;
  positions.reserve(static_cast<size_t>(outLen));
  for (int64_t o = 0; o < outLen; ++o)
    positions.push_back(position(p, o, scale, outWidth, inLen, stride, roiStart, roiEnd));
  return positions;
}

class Interpolator {
public:
  Interpolator(const ir::ResizeParams& p, const Tensor& x) : x_(x.data<float>()), p_(p) {
    const Dims strides = rowMajorStrides(x.shape());
    for (size_t a = 0; a < x.shape().size(); ++a)
      axes_.push_back(axisPositions(p, x.shape(), a, strides[a]));
  }

  /// Value at output index \p idx: nested interpolation from axis \p axis inward.
  double eval(size_t axis, const Dims& idx, int64_t offset) const {
    const Position& pos = axes_[axis][static_cast<size_t>(idx[axis])];
    if (pos.extrapolate) {
      return static_cast<double>(p_.extrapolationValue);
    }
    double acc = 0.0;
    const bool last = axis + 1 == axes_.size();
    for (const Tap& t : pos.taps) {
      const double v = last ? static_cast<double>(x_[offset + t.offset])
                            : eval(axis + 1, idx, offset + t.offset);
      acc += t.weight * v;
    }
    return acc;
  }

private:
  const float* x_;
  const ir::ResizeParams& p_;
  std::vector<std::vector<Position>> axes_;
};
} // namespace

std::vector<std::vector<ResizeTaps>> resizeTaps(const ir::ResizeParams& p, const Dims& inShape) {
  std::vector<std::vector<ResizeTaps>> axes(inShape.size());
  for (size_t a = 0; a < inShape.size(); ++a) {
    for (const Position& pos : axisPositions(p, inShape, a, 1)) {
      ResizeTaps t;
      t.extrapolate = pos.extrapolate;
      for (const Tap& tap : pos.taps)
        t.taps.emplace_back(tap.offset, tap.weight);
      axes[a].push_back(std::move(t));
    }
  }
  return axes;
}

Tensor resize(const ir::ResizeParams& p, const Tensor& x) {
  requireDType(x, DType::F32, "Resize");
  NNACCEL_ASSERT(p.outShape.size() == x.shape().size() && p.scales.size() == x.shape().size())
      << "resize params rank";
  Tensor y(DType::F32, p.outShape);
  if (y.numElements() == 0 || x.rank() == 0) {
    return y;
  }
  const Interpolator interp(p, x);
  float* dst = y.data<float>();
  Dims idx(p.outShape.size(), 0);
  const int64_t count = y.numElements();
  for (int64_t i = 0; i < count; ++i) {
    dst[i] = static_cast<float>(interp.eval(0, idx, 0));
    for (size_t a = idx.size(); a-- > 0;) {
      if (++idx[a] < p.outShape[a]) {
        break;
      }
      idx[a] = 0;
    }
  }
  return y;
}

} // namespace nnaccel::reference
