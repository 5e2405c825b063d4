// libFuzzer target for the ONNX importer: arbitrary bytes -> importOnnxBytes -> ir::inferShapes
// -> ir::verify. An nnaccel::Error is the normal outcome for bad input; anything else (a crash,
// a sanitizer report, an NNACCEL_ASSERT abort, a leaked std::exception, a timeout or an
// out-of-memory) is a finding. See docs/Fuzzing.md for how to build and run it.
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    nnaccel::ir::Graph g = nnaccel::frontend::importOnnxBytes(bytes, "fuzz.onnx");
    nnaccel::ir::inferShapes(g);
    nnaccel::ir::verify(g);
  } catch (const nnaccel::Error&) {
    // Rejected with a one-line user error: exactly what bad input must produce.
  }
  return 0;
}
