/// \file
/// Compatibility names for the generator that moved to nnaccel/support/Rng.h (nnaccel::Rng),
/// kept only until every user includes that header; new code uses nnaccel::Rng directly.
#pragma once

#include "nnaccel/support/Rng.h"

namespace nnaccel::zoo {

using nnaccel::fnv1a64;
using nnaccel::Rng;
using nnaccel::splitmix64;

} // namespace nnaccel::zoo
