// The worked model of seed 002's Fig. 54 (digest_002 §8.6): the contrived network the patent
// composes onto its ASIC of 3x3 tiles to show every feature at once: a 7x7 kernel, a strided
// convolution (Sample), a 5x5 kernel, pooling, a sigmoid LUT, an upsampling Expand, a skip path
// joined by Concat, a 1x1 convolution and a global average. The patent gives no frame size;
// 64x64 RGB keeps the worked figures (P = 1, 4, 16, 64, 16, 64 cycles per position) and lets a
// test stream it in seconds.
#include "Models.h"
#include "nnaccel/zoo/GraphBuilder.h"

namespace nnaccel::zoo {

ir::ValueId buildPatentFig54(GraphBuilder& b, ir::ValueId x) {
  // 5402 + 5403: 7x7 convolution 3 -> 32 with ReLU, then a 2x2 Sample (a stride-2 convolution).
  x = b.relu("n5402.relu",
             b.conv("n5402", x, {.outChannels = 32, .kernel = 7, .stride = 2, .pad = 3}));
  // 5404: 5x5 convolution 32 -> 64 with ReLU; 5405: 2x2 MaxPool.
  x = b.relu("n5404.relu", b.conv("n5404", x, {.outChannels = 64, .kernel = 5, .pad = 2}));
  x = b.maxPool("n5405", x, {.kernel = 2, .stride = 2});
  // 5406: 3x3 convolution 64 -> 128 with a sigmoid (a LUT on the aux tile).
  const ir::ValueId skip =
      b.sigmoid("n5406.sigmoid",
                b.conv("n5406", x, {.outChannels = 128, .kernel = 3, .pad = 1, .gain = kTanhGain}));
  // 5407: 2x2 MaxPool; 5408: 3x3 convolution 128 -> 256 ("any activation": ReLU here);
  // 5409: 2x2 Expand (nearest upsampling).
  x = b.maxPool("n5407", skip, {.kernel = 2, .stride = 2});
  x = b.relu("n5408.relu", b.conv("n5408", x, {.outChannels = 256, .kernel = 3, .pad = 1}));
  const Dims& s = b.shape(x);
  x = b.resize("n5409", x, s[2] * 2, s[3] * 2, ResizeMode::Nearest);
  // 5410: 3x3 convolution 128 -> 256 on the skip path from 5406; 5411: Concat to 512 channels.
  const ir::ValueId y =
      b.conv("n5410", skip, {.outChannels = 256, .kernel = 3, .pad = 1, .gain = kLinearGain});
  x = b.concat("n5411", {x, y}, 1);
  // 5412: 2x2 MaxPool; 5413: 1x1 convolution 512 -> 1024; 5414: global average; 5415: the
  // 1024 outputs.
  x = b.maxPool("n5412", x, {.kernel = 2, .stride = 2});
  x = b.conv("n5413", x, {.outChannels = 1024, .kernel = 1, .gain = kLinearGain});
  x = b.globalAvgPool("n5414", x);
  return b.flatten("n5415", x);
}

} // namespace nnaccel::zoo
