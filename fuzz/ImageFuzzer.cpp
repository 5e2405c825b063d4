/// \file
/// Fuzz target: PNG/JPEG bytes -> decodeImage, header only and whole (libpng, libjpeg-turbo
/// behind nnaccel's checks of sizes and channels).
#include "FuzzTarget.h"
#include "nnaccel/tensor/Image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = nnaccel::fuzz::text(data, size);
  nnaccel::fuzz::accept([&] { (void)nnaccel::decodeImage(bytes, "fuzz.img", true); });
  return nnaccel::fuzz::accept([&] { (void)nnaccel::decodeImage(bytes, "fuzz.img", false); });
}
