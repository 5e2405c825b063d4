/// \file
/// The sparse engine's studies (`nnaccel sweep NAME --arch sparse`, engines::Study): the
/// weight/activation density sweep against the dense baseline (DensityStudy.cpp).
#pragma once

#include "nnaccel/engines/Engine.h"

namespace nnaccel::arch::sparse {

/// `sweep density`: magnitude-pruned weights and synthetic activations at each density.
engines::Study densityStudy();

} // namespace nnaccel::arch::sparse
