// numpy <-> Tensor copies for the Python package (Arrays.h).
#include "Arrays.h"

#include "nnaccel/support/Error.h"

#include <cstring>
#include <fmt/format.h>

namespace py = pybind11;

namespace nnaccel::python {
namespace {

template <typename T> Tensor copyIn(const py::handle& object) {
  const auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(object);
  Dims shape(a.shape(), a.shape() + a.ndim());
  Tensor t(DTypeOf<T>::value, shape);
  if (t.sizeBytes() > 0)
    std::memcpy(t.rawData(), a.data(), t.sizeBytes());
  return t;
}

template <typename T> py::array copyOut(const Tensor& t) {
  py::array_t<T> a(std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
  if (t.sizeBytes() > 0)
    std::memcpy(a.mutable_data(), t.rawData(), t.sizeBytes());
  return a;
}

} // namespace

Tensor toTensor(const py::handle& object, const std::string& what) {
  const py::array a = py::array::ensure(object);
  if (!a)
    throw Error(ErrorKind::Usage, {}, fmt::format("{}: expected a numpy array", what));
  const char kind = a.dtype().kind();
  const py::ssize_t size = a.dtype().itemsize();
  if (kind == 'f' && (size == 4 || size == 8))
    return copyIn<float>(a);
  if (kind == 'i' && size == 1)
    return copyIn<int8_t>(a);
  if (kind == 'u' && size == 1)
    return copyIn<uint8_t>(a);
  if (kind == 'i' && size == 4)
    return copyIn<int32_t>(a);
  if (kind == 'i' && size == 8)
    return copyIn<int64_t>(a);
  if (kind == 'b') {
    const Tensor bytes = copyIn<uint8_t>(a.attr("view")(py::dtype("uint8")));
    Tensor t(DType::Bool, bytes.shape());
    if (t.sizeBytes() > 0)
      std::memcpy(t.rawData(), bytes.rawData(), t.sizeBytes());
    return t;
  }
  throw Error(ErrorKind::Usage, {},
              fmt::format("{}: numpy dtype {} has no nnaccel tensor type (float32, float64, "
                          "int8, uint8, int32, int64, bool)",
                          what, py::str(a.dtype()).cast<std::string>()));
}

py::array toArray(const Tensor& t) {
  switch (t.dtype()) {
  case DType::F32:
    return copyOut<float>(t);
  case DType::I8:
    return copyOut<int8_t>(t);
  case DType::U8:
    return copyOut<uint8_t>(t);
  case DType::I32:
    return copyOut<int32_t>(t);
  case DType::I64:
    return copyOut<int64_t>(t);
  case DType::Bool: {
    py::array_t<bool> a(std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
    if (t.sizeBytes() > 0)
      std::memcpy(a.mutable_data(), t.rawData(), t.sizeBytes());
    return a;
  }
  }
  NNACCEL_ASSERT(false) << "unhandled dtype";
  return {};
}

std::vector<Tensor> toTensors(const py::handle& arrays, const std::string& what) {
  std::vector<Tensor> out;
  if (arrays.is_none())
    return out;
  if (py::isinstance<py::array>(arrays))
    return {toTensor(arrays, what)}; // one array for a one-input model
  size_t i = 0;
  for (const py::handle item : arrays)
    out.push_back(toTensor(item, fmt::format("{}[{}]", what, i++)));
  return out;
}

py::list toArrays(const std::vector<Tensor>& tensors) {
  py::list out;
  for (const Tensor& t : tensors)
    out.append(toArray(t));
  return out;
}

} // namespace nnaccel::python
