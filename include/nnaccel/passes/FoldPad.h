/// \file
/// A zero Pad of the spatial axes folded into the convolutions that read it.
///
/// Why: TensorFlow's "valid" strided convolutions are exported as an explicit Pad (often
/// asymmetric, e.g. ZeroPadding2D(((0, 1), (0, 1)))) followed by a Conv without padding. On every
/// engine the Pad would be a data-movement layer of its own, while a convolution's own padding is
/// free address generation (the systolic and broadcast engines skip the padded taps; the stream
/// engine's tiles see zeros beyond the frame's edge).
///
/// Matched pattern: a constant-mode Pad whose fill value is 0, with non-negative pads on the
/// spatial axes only (none on N or C), whose output is not a graph output and is read only as the
/// data input of Conv nodes. Rewrite: each Conv's explicit pads become its resolved pads (after
/// auto_pad) plus the Pad's, auto_pad becomes NOTSET, the Conv reads the Pad's input, and the Pad
/// is removed once unused. The result is the same function: the padded taps multiply zeros
/// either way (fp32 may differ in summation order only, when the convolution kernel takes
/// another path for other pads), and in int8 a zero is code 0 at any symmetric scale.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Folds every matching Pad; returns the number of Pad nodes folded.
std::size_t foldPadIntoConv(ir::Graph& g);

} // namespace nnaccel::passes
