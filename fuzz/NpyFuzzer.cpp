/// \file
/// Fuzz target: .npy bytes -> parseNpy (every --input and `run --output` round trip reads it).
#include "FuzzTarget.h"
#include "nnaccel/tensor/Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return nnaccel::fuzz::accept(
      [&] { (void)nnaccel::parseNpy(nnaccel::fuzz::text(data, size), "fuzz.npy"); });
}
