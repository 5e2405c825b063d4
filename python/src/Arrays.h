/// \file
/// numpy arrays to and from nnaccel tensors, for the Python package (python/README.md).
/// Arrays are copied both ways (a tensor owns its bytes); any numpy array of a dtype nnaccel
/// has (float32, int8, uint8, int32, int64, bool) converts, whatever its strides, and a
/// float64 array is narrowed to float32, as numpy users hand plain `np.array([...])` around.
#pragma once
#include "nnaccel/tensor/Tensor.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <vector>

namespace nnaccel::python {

/// \p array as a tensor (a C-contiguous copy). Throws Error (Usage) naming \p what for a
/// dtype nnaccel has no tensor type for.
Tensor toTensor(const pybind11::handle& array, const std::string& what);
/// A new numpy array holding a copy of \p t.
pybind11::array toArray(const Tensor& t);
/// Each element of a Python sequence of arrays (None: empty).
std::vector<Tensor> toTensors(const pybind11::handle& arrays, const std::string& what);
pybind11::list toArrays(const std::vector<Tensor>& tensors);

} // namespace nnaccel::python
