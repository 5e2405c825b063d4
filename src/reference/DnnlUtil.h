// Shared oneDNN plumbing for the reference kernels: the process-wide CPU engine, a stream per
// thread, memory descriptors for nnaccel tensors, a primitive prepared once and executed many
// times (with reorders between the tensors' plain row-major layout and the primitive's preferred
// one).
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <dnnl.hpp>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>

namespace nnaccel::reference::dnnl_util {

/// The CPU engine shared by every kernel of the process. Creating it first caps oneDNN's ISA at
/// AVX2 (dnnl::set_max_cpu_isa), so fp32 results are the same bits on every AVX2-or-better
/// x86-64 machine.
const dnnl::engine& engine();
/// oneDNN's effective CPU ISA after the cap, e.g. "avx2" (see dnnlIsaName in Executor.h).
std::string isaName();
/// This thread's in-order stream on engine() (oneDNN streams must not be shared across threads).
dnnl::stream& stream();

/// oneDNN data type holding \p t; asserts that oneDNN has one (f32, s8, u8, s32).
dnnl::memory::data_type dataType(DType t);
/// True when oneDNN has a data type for \p t.
bool hasDataType(DType t);

dnnl::memory::dims toDims(const Dims& d);
/// Dense row-major descriptor of \p shape (a rank-0 shape is described as {1}).
dnnl::memory::desc plainDesc(const Dims& shape, DType t);
/// Descriptor with explicit element strides (for transposed views such as Gemm's transA).
dnnl::memory::desc stridedDesc(const Dims& shape, const Dims& strides, DType t);

/// oneDNN counts dilation from 0 (no dilation) where ONNX counts from 1: returns d - 1.
dnnl::memory::dims dilationsFromOnnx(const Dims& onnxDilations);
/// The right padding that makes oneDNN's forward window formula
///   out = (in + padBegin + padEnd - ((k - 1) * d + 1)) / stride + 1
/// produce exactly \p outSpatial: (out - 1) * stride + dilated kernel - in - padBegin per axis.
/// It may be larger than ONNX's pads_end (ceil_mode overhang) or smaller, even negative (the
/// floor-mode remainder that no window reaches); oneDNN accepts both.
dnnl::memory::dims forwardPadEnd(const Dims& inSpatial, const Dims& outSpatial, const Dims& kernel,
                                 const Dims& strides, const Dims& dilations, const Dims& padsBegin);

/// Memory object over \p t's storage with descriptor \p md (no copy). Inputs are only read.
dnnl::memory wrap(const Tensor& t, const dnnl::memory::desc& md);
dnnl::memory wrap(Tensor& t, const dnnl::memory::desc& md);

/// Arguments of one primitive execution. Each entry is user memory in its own layout;
/// Primitive::execute reorders it to what the primitive descriptor asks for when the two differ.
using Args = std::unordered_map<int, dnnl::memory>;

/// Runs \p f, turning a dnnl::error (a configuration oneDNN rejects) into
/// Error(Unsupported) "oneDNN cannot run <what>: <reason>" so no oneDNN exception escapes.
template <typename F> auto guard(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    throw Error(ErrorKind::Unsupported, {}, "oneDNN cannot run " + what + ": " + e.what());
  }
}

struct FreeBuffer {
  void operator()(std::byte* p) const;
};
/// Host memory for oneDNN buffers the kernels own (the workspace, converted constants).
using Buffer = std::unique_ptr<std::byte, FreeBuffer>;
/// At least \p bytes, 64-byte aligned.
Buffer allocateBuffer(size_t bytes);

/// A oneDNN primitive created once and executed any number of times on arguments with the same
/// descriptors. Arguments whose user layout (the plain tensor layout) differs from the layout the
/// primitive descriptor asks for go through a staging buffer and a reorder primitive created on
/// first use and kept. Staging buffers and the scratchpad live in a per-thread workspace shared
/// by all primitives (they are only needed during one execution). Inputs named as constant are
/// the exception from the second execution on: they are reordered once more into a buffer of
/// their own and reused, so e.g. Conv weights are converted to the blocked layout once per
/// Executor rather than on every run. The same primitive with the same reorders gives the same
/// bits however often it runs.
class Primitive {
public:
  Primitive(const dnnl::primitive_desc_base& pd, const dnnl::primitive& prim);

  /// Executes with \p inputs (read) and \p outputs (written), reordering to and from the
  /// primitive's layouts, then waits. Argument ids are the DNNL_ARG_* constants; every call must
  /// pass the same descriptors as the first. An input listed in \p constantInputs must wrap the
  /// same, unchanged data on every call: its converted copy is reused.
  void execute(const Args& inputs, const Args& outputs,
               std::initializer_list<int> constantInputs = {});

private:
  /// One argument: the user's descriptor and, when the primitive wants another layout, the
  /// staging buffer in that layout and the reorder between the two.
  struct Staging {
    dnnl::memory::desc user;
    dnnl::memory buffer; ///< empty when the user memory is passed directly
    dnnl::reorder reorder;
    size_t workspaceOffset = 0;         ///< where the buffer lives in the workspace
    Buffer owned;                       ///< a constant's converted copy, once kept
    const void* constantData = nullptr; ///< the user data \c owned was converted from
  };
  Staging& staging(int arg, const dnnl::memory& user, bool isOutput);

  dnnl::primitive_desc_base pd_;
  dnnl::primitive prim_;
  dnnl::memory scratchpad_; ///< at offset 0 of the workspace
  size_t workspaceBytes_ = 0;
  int64_t executions_ = 0;
  std::unordered_map<int, Staging> staging_;
};

} // namespace nnaccel::reference::dnnl_util
