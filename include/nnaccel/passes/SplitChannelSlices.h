/// \file
/// A convolution whose output channels are only ever read in slices becomes one convolution per
/// slice.
///
/// Why: detection heads compute several maps in one convolution and slice them apart afterwards
/// (M-LSD's decoder computes 16 channels, upsamples them, and keeps channel 7 as the centre-score
/// logits and channels 8-11 as line offsets; YOLO- and CenterNet-style heads do the same). In
/// int8 the sliced value has one per-tensor scale, set by its widest channels: M-LSD's offsets
/// reach ±72 pixels, which leaves the score logits a step of 0.63 before their Sigmoid. One
/// convolution per slice gives each map its own scale, and the channels no slice keeps (11 of
/// M-LSD's 16) are no longer computed at all. Same function, fewer multiply-accumulates; the
/// int8 effect is measured in docs/Passes.md.
///
/// Matched pattern: a Conv with group 1, constant f32 weights and bias (not a QDQ model's, whose
/// scales are its own), whose output passes through a chain of single-use channel-local nodes
/// (unary activations whose other operands are scalar constants; Resize/Upsample that keep N
/// and C) and is then read only by Slice nodes that cut the channel axis alone with step 1, or
/// Split nodes along the channel axis. Nothing on the way is a graph output. Rewrite: per slice
/// (per used Split output), a Conv with that slice's weight rows and bias entries, then a copy
/// of the chain (a Resize's `sizes` operand gets the slice's channel count), writing the slice's
/// own output value. Applied only when it changes something: more than one slice, or channels
/// no slice reads.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Splits every matching convolution; returns the number of convolutions split.
std::size_t splitConvAtChannelSlices(ir::Graph& g);

} // namespace nnaccel::passes
