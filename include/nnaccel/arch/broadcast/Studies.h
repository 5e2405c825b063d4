/// \file
/// The broadcast engine's studies (`nnaccel sweep NAME --arch broadcast`, engines::Study): the
/// kernel-vector width N x broadcast-group size P sweep per layer (VectorWidthStudy.cpp).
#pragma once

#include "nnaccel/engines/Engine.h"

namespace nnaccel::arch::broadcast {

/// `sweep vector-width`: every array layer timed at each (N, P); the best per layer and kernel.
engines::Study vectorWidthStudy();

} // namespace nnaccel::arch::broadcast
