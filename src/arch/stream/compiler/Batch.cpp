/// \file
/// perFrameModel (Compiler.h): a batch becomes frames. The ASIC is configured for one frame;
/// the images of a batch follow one another through it (digest: frames back to back), so the
/// compiler works on the batch-1 form of the model and the simulator streams N frames.
#include "nnaccel/arch/stream/Compiler.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::stream {

namespace {

/// True when \p perFrame is \p batched with its leading dimension 1 instead of \p batch.
bool leadingBatch(const Dims& batched, const Dims& perFrame, int64_t batch) {
  if (batched.empty() || batched.size() != perFrame.size() || batched[0] != batch ||
      perFrame[0] != 1)
    return false;
  return std::equal(batched.begin() + 1, batched.end(), perFrame.begin() + 1);
}

} // namespace

int64_t perFrameModel(const quant::QuantizedModel& qm, quant::QuantizedModel& perFrame) {
  const ir::Graph& g = qm.graph;
  if (g.inputs.size() != 1 || g.value(g.inputs[0]).shape.empty())
    return 1; // the compiler reports what it cannot stream
  const int64_t batch = g.value(g.inputs[0]).shape[0];
  if (batch <= 1)
    return 1;
  perFrame = qm;
  ir::Graph& f = perFrame.graph;
  f.value(f.inputs[0]).shape[0] = 1;
  for (ir::ValueId v : f.outputs)
    if (auto& declared = f.value(v).declaredShape; declared && !declared->empty())
      (*declared)[0] = -1;
  for (ir::ValueId v = 0; v < static_cast<ir::ValueId>(f.numValues()); ++v)
    if (ir::Value& val = f.value(v); !val.constant && val.producer >= 0)
      val.shapeKnown = false;
  ir::inferShapes(f);
  for (ir::ValueId v = 0; v < static_cast<ir::ValueId>(g.numValues()); ++v) {
    const ir::Value& b = g.value(v);
    if (b.constant || !b.shapeKnown || f.value(v).producer < 0)
      continue; // constants, and values no node computes any more (folded away)
    if (!leadingBatch(b.shape, f.value(v).shape, batch))
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = b.name},
                  fmt::format("batch {}: value '{}' has shape {} ({} for one image); the stream "
                              "ASIC streams a batch as frames, so every value must carry the "
                              "batch as its leading dimension",
                              batch, b.name, dimsToString(b.shape),
                              dimsToString(f.value(v).shape)));
  }
  return batch;
}

} // namespace nnaccel::arch::stream
