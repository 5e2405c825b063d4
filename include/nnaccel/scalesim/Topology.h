/// \file
/// SCALE-Sim v2 topology files (.csv), read exactly as SCALE-Sim reads them and written in the
/// form it expects.
///
/// Convolution topologies have a header line and rows `name, IFMAP H, IFMAP W, filter H,
/// filter W, channels, filters, stride H[, stride W],`. SCALE-Sim drops the last field of every
/// row (the one after the trailing comma, so a row without one loses its last number), uses the
/// height stride for the width when only one stride is left, and splits a row whose name
/// contains "DP" into one single-channel layer per channel (named NAME + "Channel_" + index).
/// GEMM topologies (`-i gemm`) have rows `name, M, N, K,` and map to an M x K ifmap, a 1 x K
/// filter, one channel and N filters. docs/ScaleSim.md lists every rule and error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::scalesim {

/// One convolution layer as SCALE-Sim sees it (no padding: the ifmap is already padded).
struct Layer {
  std::string name;
  int64_t ifmapHeight = 0;
  int64_t ifmapWidth = 0;
  int64_t filterHeight = 0;
  int64_t filterWidth = 0;
  int64_t channels = 0;
  int64_t numFilters = 0;
  int64_t strideHeight = 1;
  int64_t strideWidth = 1;
  int64_t sourceLine = 0; ///< 1-based line of the topology file (0: not from a file)

  /// Output rows: ceil((ifmapHeight - filterHeight + strideHeight) / strideHeight).
  int64_t ofmapHeight() const;
  int64_t ofmapWidth() const;
  /// Multiply-accumulates: ofmap pixels x filter window x filters.
  int64_t macs() const;
};

enum class TopologyFormat {
  Conv, ///< `-i conv`: convolution rows
  Gemm, ///< `-i gemm`: M, N, K rows
};

struct Topology {
  std::string name; ///< file name without directory and extension
  std::vector<Layer> layers;
};

/// Parses topology text; \p fileName names it in errors. Throws nnaccel::Error(Model) naming
/// the file, the line and the reason (wrong field count, a value that is not a positive
/// integer, a filter larger than the ifmap).
Topology parseTopologyText(const std::string& text, const std::string& fileName,
                           TopologyFormat format);
/// Reads and parses \p path (Error(Io) when it cannot be read).
Topology parseTopologyFile(const std::string& path, TopologyFormat format);

/// The convolution-format CSV of \p layers: SCALE-Sim's header and one row per layer, every
/// line ending in the trailing comma SCALE-Sim expects, both strides written.
std::string formatTopology(const std::vector<Layer>& layers);

} // namespace nnaccel::scalesim
