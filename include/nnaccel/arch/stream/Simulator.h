/// \file
/// The stream engine's simulator: executes a Program (the ASIC configuration) on whole frames
/// and nothing else. Tiles are evaluated in placement order (row by row; in a row the kernel
/// tiles left to right, then the aux tiles), which the forward-only bus rule makes a
/// topological order. Every kernel tile runs the everted aperture engine (Aperture.h) on its
/// input set, position by position; every aux tile runs its adder, requantizer, LUT and patch
/// function (Patch.h) on the stream skeleton. Each set on a bus is a stream of positions with
/// the cycle of its first position; the simulator measures every engine's emission steps, derives
/// the cycles from them, and checks that every adder's two operands meet exactly where the
/// configured FIFO delays say (a misconfigured delay is reported, not silently realigned).
/// Timing rules: docs/arch/StreamCycleModel.md.
#pragma once

#include "nnaccel/arch/stream/Program.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace nnaccel::arch::stream {

/// One set's stream on a bus.
struct SetStream {
  FrameShape frame; ///< positions of one frame; channels of this set
  int64_t frames = 0;
  std::vector<Value> values; ///< all frames, position-major, channels innermost
  int64_t startCycle = 0;    ///< frame 0 position 0 leaves its tile
  int64_t cyclesPerPosition = 1;
  /// Kernel-tile partials: positions from input (i, j) to output (i, j) within their layer.
  int64_t latencyPositions = 0;
};

/// Figures of one layer measured by the simulator.
struct LayerDetail {
  int64_t kernelTiles = 0, auxTiles = 0, bypassTiles = 0;
  int64_t issuedMacs = 0;    ///< multiplies the kernel tiles performed (per frame)
  int64_t discardedMacs = 0; ///< of those, at positions a Sample discarded
  int64_t fifoBits = 0;      ///< FIFO and delay-line storage of its tiles
  int64_t firstOutputCycle = 0;
  int64_t latencyCycles = 0; ///< its first output minus its input's first position
  /// Energy of one frame, by the events the simulator executed (EnergyPrices' units).
  struct Energy {
    double cellsPj = 0;           ///< select-adds in the cells, bias adds in adder 4707
    double massMultipliersPj = 0; ///< adds forming the multiples of each input value
    double weightsPj = 0;         ///< cells' weights loaded from the store (time multiplexing)
    double fifosPj = 0;           ///< values through row FIFOs, 4706, 4902 and alignment FIFOs
    double auxPj = 0;             ///< adds, compares, mux selects and LUT lookups in aux tiles
    double busesPj = 0;           ///< sets driven onto a bus, and across chip links
    double totalPj() const {
      return cellsPj + massMultipliersPj + weightsPj + fifosPj + auxPj + busesPj;
    }
  } energy;
};

struct SimOptions {
  /// Frames streamed back to back: at least the input's images (frame k is image k, and again
  /// cyclically when more frames are asked for).
  int64_t frames = 1;
  /// Called after each program layer's outputs are complete (verification hooks).
  std::function<void(size_t layerIndex)> onLayerDone;
};

class Simulator {
public:
  Simulator(const Program& program, const quant::QuantizedModel& qm);
  /// The int8 input images (one frame each: NCHW, or NHWC for a pixel-major program) streamed
  /// on the primary input bus.
  void setInput(const Tensor& int8Input);
  void run(const SimOptions& options = {});

  /// Value \p v (int8 NCHW) of every input image as its layer left it on the buses: the
  /// per-frame shape with the images as its leading dimension.
  Tensor value(ir::ValueId v) const;
  bool hasValue(ir::ValueId v) const;
  const std::vector<LayerDetail>& layerDetails() const { return details_; }
  std::vector<report::LayerStats> layerStats() const;

  /// Cycle of the first primary-output value of frame 0, from the first input position.
  int64_t firstOutputCycle() const { return firstOutputCycle_; }
  /// Cycles between the same position of consecutive frames at the primary output.
  int64_t framePeriodCycles() const { return framePeriodCycles_; }
  /// Frames the last run streamed.
  int64_t frames() const { return frames_; }
  /// The run: the first output's latency, then one frame period per frame.
  int64_t runCycles() const { return firstOutputCycle_ + frames_ * framePeriodCycles_; }
  /// Adder operands that did not meet where the configured FIFOs put them, and tiles whose
  /// measured start differs from the compiler's plan (empty when the configuration is
  /// consistent).
  const std::vector<std::string>& timingViolations() const { return violations_; }
  /// Per kernel tile: the cycle its output stream starts (measured).
  int64_t kernelTileStart(size_t i) const { return kernelStart_.at(i); }

private:
  void runKernelTile(size_t i);
  void runAuxTile(size_t i);
  const SetStream& set(const BusRef& b) const;
  /// The layer detail the tiles of layer \p name charge their events to.
  LayerDetail::Energy& energyOf(const std::string& name);
  /// One set (\p channels, \p positions per frame) driven onto a bus (and a chip link when it
  /// is read across chips, \p crossesChip): \p partialSums (a kernel tile's output) or
  /// activations (an aux tile's).
  void chargeBus(LayerDetail::Energy& e, int64_t channels, int64_t positions, bool crossesChip,
                 bool partialSums);
  bool crossesChip(const BusRef& src, int64_t readerRow) const;
  void checkMeet(const std::string& where, int64_t primaryArrival, int64_t auxArrival,
                 int64_t cyclesPerPosition);
  /// A channel scale's frame must begin while its vector (held \p vectorHoldCycles) is there.
  void checkLatch(const std::string& where, int64_t primaryArrival, int64_t vectorArrival,
                  int64_t vectorHoldCycles);

  const Program& program_;
  const quant::QuantizedModel& qm_;
  Tensor input_;
  int64_t frames_ = 1, images_ = 1;
  std::map<std::pair<int64_t, int64_t>, SetStream> sets_;
  /// Per driven set: tiles still to read it. A set no tile will read again and that is not a
  /// layer's output is released (partial-sum streams would otherwise hold gigabytes).
  std::map<std::pair<int64_t, int64_t>, int64_t> readersLeft_;
  std::set<std::pair<int64_t, int64_t>> keep_;
  void released(const BusRef& b); ///< one reader of \p b is done
  std::vector<LayerDetail> details_;
  std::vector<int64_t> kernelStart_;
  std::vector<std::string> violations_;
  int64_t firstOutputCycle_ = 0, framePeriodCycles_ = 0;
  std::map<std::string, LayerDetail::Energy> energy_; ///< per layer name, one frame
  int64_t massMultiplierAdders_ = 0;                  ///< adders of one mass multiplier
  EnergyPrices prices_;                               ///< each event's energy
};

} // namespace nnaccel::arch::stream
