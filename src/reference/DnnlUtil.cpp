// oneDNN engine/stream singletons, tensor <-> dnnl::memory wrapping, and the prepared Primitive
// (staging buffers, kept reorders, scratchpad) shared by every oneDNN-backed reference kernel.
#include "DnnlUtil.h"

#include <algorithm>

namespace nnaccel::reference::dnnl_util {

const dnnl::engine& engine() {
  static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
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

Primitive::Primitive(const dnnl::primitive_desc_base& pd, const dnnl::primitive& prim)
    : pd_(pd), prim_(prim) {
  const dnnl::memory::desc scratch = pd_.scratchpad_desc();
  if (scratch.get_size() > 0) {
    scratchpad_ = dnnl::memory(scratch, engine());
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
  if (want != userMd) {
    st.buffer = dnnl::memory(want, engine());
    st.reorder = isOutput ? dnnl::reorder(st.buffer, user) : dnnl::reorder(user, st.buffer);
  }
  return staging_.emplace(arg, std::move(st)).first->second;
}

void Primitive::execute(const Args& inputs, const Args& outputs,
                        std::initializer_list<int> constantInputs) {
  dnnl::stream& s = stream();
  Args args;
  for (const auto& [arg, mem] : inputs) {
    Staging& st = staging(arg, mem, false);
    if (!st.buffer) {
      args.emplace(arg, mem);
      continue;
    }
    const bool constant =
        std::find(constantInputs.begin(), constantInputs.end(), arg) != constantInputs.end();
    if (!constant || !st.constantData) {
      st.reorder.execute(s, {{DNNL_ARG_FROM, mem}, {DNNL_ARG_TO, st.buffer}});
      st.constantData = constant ? mem.get_data_handle() : nullptr;
    } else {
      NNACCEL_ASSERT(st.constantData == mem.get_data_handle())
          << "constant oneDNN argument " << arg << " changed its data between executions";
    }
    args.emplace(arg, st.buffer);
  }
  std::vector<std::pair<const Staging*, dnnl::memory>> copyBack;
  for (const auto& [arg, mem] : outputs) {
    const Staging& st = staging(arg, mem, true);
    if (!st.buffer) {
      args.emplace(arg, mem);
    } else {
      args.emplace(arg, st.buffer);
      copyBack.emplace_back(&st, mem);
    }
  }
  if (scratchpad_) {
    args.emplace(DNNL_ARG_SCRATCHPAD, scratchpad_);
  }
  prim_.execute(s, args);
  for (const auto& [st, user] : copyBack) {
    st->reorder.execute(s, {{DNNL_ARG_FROM, st->buffer}, {DNNL_ARG_TO, user}});
  }
  s.wait();
}

} // namespace nnaccel::reference::dnnl_util
