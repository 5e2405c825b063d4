/// \file
/// Fuzz target: .nnx bytes -> the systolic program decoder and its validation (what `disasm`
/// and `simulate --program` read).
#include "FuzzTarget.h"
#include "nnaccel/arch/systolic/Program.h"

#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return nnaccel::fuzz::accept([&] {
    (void)nnaccel::arch::systolic::decodeProgram(std::vector<uint8_t>(data, data + size),
                                                 "fuzz.nnx");
  });
}
