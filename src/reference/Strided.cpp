// Numpy broadcasting of shapes and broadcast strides for the loop kernels.
#include "Strided.h"

#include <algorithm>

namespace nnaccel::reference {

Dims broadcastShape(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(ErrorKind::Model, {},
                  "shapes " + dimsToString(a) + " and " + dimsToString(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Dims broadcastStrides(const Dims& shape, const Dims& outShape) {
  NNACCEL_ASSERT(shape.size() <= outShape.size())
      << dimsToString(shape) << " does not broadcast to " << dimsToString(outShape);
  const Dims dense = rowMajorStrides(shape);
  const size_t lead = outShape.size() - shape.size();
  Dims strides(outShape.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    NNACCEL_ASSERT(shape[i] == outShape[lead + i] || shape[i] == 1)
        << dimsToString(shape) << " does not broadcast to " << dimsToString(outShape);
    strides[lead + i] = shape[i] == 1 ? 0 : dense[i];
  }
  return strides;
}

} // namespace nnaccel::reference
