/// \file
/// The byte transpose from the ONNX activation layout [N, C, positions] to the channels-last
/// layout [N, positions, C] of oneDNN's int8 convolutions, for their sources
/// (Int8ConvKernels.cpp). oneDNN 2.6's reorder moves bytes one at a time (about 0.25 ns per byte
/// on the development machine, slower than its blocked fp32 reorder of four times the bytes);
/// this works in 8 x 8 blocks of SSE2 unpacks. The source transpose also brings s8 codes into
/// the u8 range the int8 kernels take (a shift, and the split at 128), so a shifted source costs
/// no extra pass.
#pragma once

#include <cstdint>

namespace nnaccel::reference {

/// For each of \p batch images of \p channels x \p positions s8 codes \p x (ONNX layout):
/// u = x + \p shift (mod 256) written channels-last to \p low; with \p rest non-null, u is split
/// into low = min(u, 128) and rest = u - low (both channels-last).
void toChannelsLast(const int8_t* x, int64_t batch, int64_t channels, int64_t positions,
                    uint8_t shift, uint8_t* low, uint8_t* rest);

} // namespace nnaccel::reference
