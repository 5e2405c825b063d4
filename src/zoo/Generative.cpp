// The DCGAN generator of Radford et al. (2016) as in the PyTorch DCGAN example (nz=100,
// ngf=64, nc=3): a 100x1x1 latent vector grows to a 3x64x64 image through stride-2
// transposed convolutions (k4, p1) with BatchNorm + ReLU, and Tanh at the end.
#include "Models.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <iterator>
#include <string>

namespace nnaccel::zoo {

ir::ValueId buildDcganGenerator(GraphBuilder& b, ir::ValueId x) {
  int index = 0;
  auto name = [&] { return "main." + std::to_string(index++); };
  // 1x1 -> 4x4 (k4, s1, p0), then four doublings to 64x64.
  const int64_t widths[] = {512, 256, 128, 64};
  for (size_t i = 0; i < std::size(widths); ++i) {
    const ConvTransposeSpec spec =
        i == 0 ? ConvTransposeSpec{.outChannels = widths[i], .kernel = 4, .bias = false}
               : ConvTransposeSpec{
                     .outChannels = widths[i], .kernel = 4, .stride = 2, .pad = 1, .bias = false};
    x = b.convTranspose(name(), x, spec);
    x = b.batchNorm(name(), x);
    x = b.relu(name(), x);
  }
  x = b.convTranspose(
      name(), x,
      {.outChannels = 3, .kernel = 4, .stride = 2, .pad = 1, .bias = false, .gain = kTanhGain});
  return b.tanh(name(), x);
}

} // namespace nnaccel::zoo
