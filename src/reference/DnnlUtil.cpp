// oneDNN engine/stream singletons (with the CPU ISA capped at AVX2 for reproducible bits), tensor
// <-> dnnl::memory wrapping, and the prepared Primitive (staging buffers, kept reorders,
// scratchpad) shared by every oneDNN-backed reference kernel.
#include "DnnlUtil.h"

#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

namespace nnaccel::reference::dnnl_util {

namespace {
/// Caps oneDNN's JIT code at AVX2 before anything else touches oneDNN (the cap can only be set
/// before the first primitive is created): AVX-512 kernels accumulate in another order and give
/// other fp32 bits, so without the cap reference results (and the int8 calibration scales derived
/// from them) would depend on the machine. Returns the cap's status.
dnnl::status pinIsa() {
  return dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2);
}
} // namespace

const dnnl::engine& engine() {
  static const dnnl::engine eng = [] {
    // A failure (another component used oneDNN first) leaves oneDNN's default; isaName() then
    // reports the ISA actually in use.
    [[maybe_unused]] const dnnl::status pinned = pinIsa();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return eng;
}

std::string isaName() {
  engine(); // the cap applies from the engine's creation on
  switch (dnnl::get_effective_cpu_isa()) {
  case dnnl::cpu_isa::all:
    return "all";
  case dnnl::cpu_isa::sse41:
    return "sse41";
  case dnnl::cpu_isa::avx:
    return "avx";
  case dnnl::cpu_isa::avx2:
    return "avx2";
  case dnnl::cpu_isa::avx2_vnni:
    return "avx2_vnni";
  case dnnl::cpu_isa::avx512_mic:
    return "avx512_mic";
  case dnnl::cpu_isa::avx512_mic_4ops:
    return "avx512_mic_4ops";
  case dnnl::cpu_isa::avx512_core:
    return "avx512_core";
  case dnnl::cpu_isa::avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl::cpu_isa::avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl::cpu_isa::avx512_core_amx:
    return "avx512_core_amx";
  }
  return "unknown";
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

bool hasDataType(DType t) {
  return t == DType::F32 || t == DType::I8 || t == DType::U8 || t == DType::I32;
}

dnnl::memory::data_type dataType(DType t) {
  switch (t) {
  case DType::F32:
    return dnnl::memory::data_type::f32;
  case DType::I8:
    return dnnl::memory::data_type::s8;
  case DType::U8:
    return dnnl::memory::data_type::u8;
  case DType::I32:
    return dnnl::memory::data_type::s32;
  case DType::I64:
  case DType::Bool:
    break;
  }
  NNACCEL_UNREACHABLE("oneDNN has no data type for ") << dtypeName(t);
  return dnnl::memory::data_type::undef;
}

dnnl::memory::dims toDims(const Dims& d) {
  return dnnl::memory::dims(d.begin(), d.end());
}

dnnl::memory::desc plainDesc(const Dims& shape, DType t) {
  if (shape.empty()) {
    return stridedDesc({1}, {1}, t);
  }
  return stridedDesc(shape, rowMajorStrides(shape), t);
}

dnnl::memory::desc stridedDesc(const Dims& shape, const Dims& strides, DType t) {
  NNACCEL_ASSERT(shape.size() == strides.size() && !shape.empty() && shape.size() <= DNNL_MAX_NDIMS)
      << "bad oneDNN shape " << dimsToString(shape);
  return dnnl::memory::desc(toDims(shape), dataType(t), toDims(strides));
}

dnnl::memory::dims dilationsFromOnnx(const Dims& onnxDilations) {
  dnnl::memory::dims d;
  for (int64_t v : onnxDilations) {
    d.push_back(v - 1);
  }
  return d;
}

dnnl::memory::dims forwardPadEnd(const Dims& inSpatial, const Dims& outSpatial, const Dims& kernel,
                                 const Dims& strides, const Dims& dilations,
                                 const Dims& padsBegin) {
  dnnl::memory::dims pads;
  for (size_t i = 0; i < inSpatial.size(); ++i) {
    const int64_t dilatedKernel = (kernel[i] - 1) * dilations[i] + 1;
    pads.push_back((outSpatial[i] - 1) * strides[i] + dilatedKernel - inSpatial[i] - padsBegin[i]);
  }
  return pads;
}

dnnl::memory wrap(const Tensor& t, const dnnl::memory::desc& md) {
  NNACCEL_ASSERT(md.get_size() <= t.sizeBytes()) << "descriptor larger than tensor";
  // oneDNN takes a mutable handle; primitives only read their inputs.
  return dnnl::memory(md, engine(), const_cast<std::byte*>(t.rawData()));
}

dnnl::memory wrap(Tensor& t, const dnnl::memory::desc& md) {
  NNACCEL_ASSERT(md.get_size() <= t.sizeBytes()) << "descriptor larger than tensor";
  return dnnl::memory(md, engine(), t.rawData());
}

void FreeBuffer::operator()(std::byte* p) const {
  std::free(p);
}

Buffer allocateBuffer(size_t bytes) {
  auto* p =
      static_cast<std::byte*>(std::aligned_alloc(64, (std::max<size_t>(bytes, 1) + 63) / 64 * 64));
  if (!p) {
    throw std::bad_alloc();
  }
  return Buffer(p);
}

namespace {
size_t alignedSize(size_t bytes) {
  return (bytes + 63) / 64 * 64;
}

/// This thread's workspace for staging buffers and scratchpads. They are only used while one
/// primitive executes (execute() waits for it), so one growing buffer per thread serves every
/// primitive of every node: no allocation or page fault per execution, and the memory stays
/// warm in the cache from one node to the next.
class Workspace {
public:
  std::byte* reserve(size_t bytes) {
    if (bytes > capacity_) {
      data_ = allocateBuffer(bytes);
      capacity_ = bytes;
    }
    return data_.get();
  }

private:
  Buffer data_;
  size_t capacity_ = 0;
};

Workspace& workspace() {
  thread_local Workspace w;
  return w;
}
} // namespace

Primitive::Primitive(const dnnl::primitive_desc_base& pd, const dnnl::primitive& prim)
    : pd_(pd), prim_(prim) {
  const dnnl::memory::desc scratch = pd_.scratchpad_desc();
  if (scratch.get_size() > 0) {
    scratchpad_ = dnnl::memory(scratch, engine(), DNNL_MEMORY_NONE);
    workspaceBytes_ = alignedSize(scratch.get_size());
  }
}

Primitive::Staging& Primitive::staging(int arg, const dnnl::memory& user, bool isOutput) {
  const dnnl::memory::desc userMd = user.get_desc();
  if (const auto it = staging_.find(arg); it != staging_.end()) {
    NNACCEL_ASSERT(it->second.user == userMd)
        << "oneDNN argument " << arg << " changed its descriptor between executions";
    return it->second;
  }
  Staging st;
  st.user = userMd;
  const dnnl::memory::desc want = pd_.query_md(dnnl::query::exec_arg_md, arg);
  // A run-time attribute argument (e.g. a zero point) has no descriptor in the primitive
  // descriptor (an empty one): it is passed as given.
  if (want != userMd && want.get_size() != 0) {
    st.reorder =
        dnnl::reorder(isOutput ? dnnl::reorder::primitive_desc(engine(), want, engine(), userMd)
                               : dnnl::reorder::primitive_desc(engine(), userMd, engine(), want));
    st.buffer = dnnl::memory(want, engine(), DNNL_MEMORY_NONE);
    st.workspaceOffset = workspaceBytes_;
    workspaceBytes_ += alignedSize(want.get_size());
  }
  return staging_.emplace(arg, std::move(st)).first->second;
}

void Primitive::execute(const Args& inputs, const Args& outputs,
                        std::initializer_list<int> constantInputs) {
  struct Bound {
    int arg;
    Staging* st;
    dnnl::memory user;
  };
  // Resolve every argument first: a new staging buffer may enlarge the workspace.
  std::vector<Bound> in, out;
  for (const auto& [arg, mem] : inputs) {
    in.push_back({arg, &staging(arg, mem, false), mem});
  }
  for (const auto& [arg, mem] : outputs) {
    out.push_back({arg, &staging(arg, mem, true), mem});
  }
  std::byte* base = workspaceBytes_ > 0 ? workspace().reserve(workspaceBytes_) : nullptr;
  dnnl::stream& s = stream();
  Args args;
  for (const Bound& b : in) {
    Staging& st = *b.st;
    if (!st.buffer) {
      args.emplace(b.arg, b.user);
      continue;
    }
    const bool constant =
        std::find(constantInputs.begin(), constantInputs.end(), b.arg) != constantInputs.end();
    if (constant && executions_ > 0) {
      // Run again: keep the converted constant from now on. Not on the first execution, since
      // fresh memory is expensive (a page fault per 4 KiB on first touch) and a node that runs
      // once (evalNode, a single Executor::run) would pay it for nothing.
      if (!st.owned) {
        st.owned = allocateBuffer(st.buffer.get_desc().get_size());
        st.buffer.set_data_handle(st.owned.get(), s);
        st.reorder.execute(s, {{DNNL_ARG_FROM, b.user}, {DNNL_ARG_TO, st.buffer}});
        st.constantData = b.user.get_data_handle();
      }
      NNACCEL_ASSERT(st.constantData == b.user.get_data_handle())
          << "constant oneDNN argument " << b.arg << " changed its data between executions";
    } else {
      st.buffer.set_data_handle(base + st.workspaceOffset, s);
      st.reorder.execute(s, {{DNNL_ARG_FROM, b.user}, {DNNL_ARG_TO, st.buffer}});
    }
    args.emplace(b.arg, st.buffer);
  }
  for (const Bound& b : out) {
    if (b.st->buffer) {
      b.st->buffer.set_data_handle(base + b.st->workspaceOffset, s);
    }
    args.emplace(b.arg, b.st->buffer ? b.st->buffer : b.user);
  }
  if (scratchpad_) {
    scratchpad_.set_data_handle(base, s); // the scratchpad is at offset 0
    args.emplace(DNNL_ARG_SCRATCHPAD, scratchpad_);
  }
  prim_.execute(s, args);
  for (const Bound& b : out) {
    if (b.st->buffer) {
      b.st->reorder.execute(s, {{DNNL_ARG_FROM, b.st->buffer}, {DNNL_ARG_TO, b.user}});
    }
  }
  s.wait();
  ++executions_;
}

} // namespace nnaccel::reference::dnnl_util

namespace nnaccel::reference {
std::string dnnlIsaName() {
  return dnnl_util::isaName();
}
} // namespace nnaccel::reference
