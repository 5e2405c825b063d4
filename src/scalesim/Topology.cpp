/// \file
/// SCALE-Sim topology CSV reader and writer, following topology_utils.load_arrays_conv/_gemm:
/// the first line is a header, blank lines are skipped, the field after the last comma is
/// dropped, "DP" rows are split per channel, GEMM rows map M, N, K onto a convolution.
#include "nnaccel/scalesim/Topology.h"

#include "TextUtil.h"
#include "nnaccel/support/Error.h"

#include <filesystem>
#include <fmt/format.h>
#include <sstream>

namespace nnaccel::scalesim {

namespace {

using detail::parsePythonInt;
using detail::trim;

std::vector<std::string_view> splitFields(std::string_view row) {
  std::vector<std::string_view> fields;
  while (true) {
    const size_t comma = row.find(',');
    fields.push_back(row.substr(0, comma));
    if (comma == std::string_view::npos) {
      return fields;
    }
    row.remove_prefix(comma + 1);
  }
}

class RowReader {
public:
  RowReader(const std::string& file, int64_t line) : file_(file), line_(line) {}

  [[noreturn]] void fail(const std::string& reason) const {
    throw Error(ErrorKind::Model, ErrorContext{.file = fmt::format("{}:{}", file_, line_)}, reason);
  }

  int64_t positive(std::string_view field, const char* what) const {
    const std::optional<int64_t> v = parsePythonInt(field);
    if (!v) {
      fail(fmt::format("{}: expected an integer, got '{}'", what, trim(field)));
    }
    if (*v < 1) {
      fail(fmt::format("{}: expected a positive integer, got {}", what, *v));
    }
    return *v;
  }

private:
  const std::string& file_;
  int64_t line_;
};

void checkFits(const RowReader& reader, const Layer& l) {
  if (l.filterHeight > l.ifmapHeight) {
    reader.fail(fmt::format("filter height {} is larger than the ifmap height {}", l.filterHeight,
                            l.ifmapHeight));
  }
  if (l.filterWidth > l.ifmapWidth) {
    reader.fail(fmt::format("filter width {} is larger than the ifmap width {}", l.filterWidth,
                            l.ifmapWidth));
  }
}

/// The most layers a topology may hold after SCALE-Sim's per-channel expansion of depthwise
/// rows: far beyond any network (GoogLeNet's depthwise-free 57 rows, MobileNetV2's widest
/// expansion 960), small enough that the layers fit in memory.
constexpr int64_t kMaxTopologyLayers = int64_t{1} << 20;

void parseConvRow(const RowReader& reader, std::vector<std::string_view> fields, int64_t lineNo,
                  std::vector<Layer>& out) {
  static const char* const kColumns[] = {"IFMAP height",  "IFMAP width", "filter height",
                                         "filter width",  "channels",    "filters",
                                         "stride height", "stride width"};
  if (fields.size() < 8) {
    reader.fail(fmt::format("expected at least 8 fields before the last comma (name, IFMAP H, "
                            "IFMAP W, filter H, filter W, channels, filters, stride), got {}",
                            fields.size()));
  }
  Layer l;
  l.name = std::string(trim(fields[0]));
  l.sourceLine = lineNo;
  int64_t* const slots[] = {&l.ifmapHeight, &l.ifmapWidth, &l.filterHeight, &l.filterWidth,
                            &l.channels,    &l.numFilters, &l.strideHeight, &l.strideWidth};
  for (size_t i = 1; i < fields.size(); ++i) {
    // SCALE-Sim converts every field after the name, the extra ones too, then ignores them.
    const int64_t v = reader.positive(fields[i], i <= 8 ? kColumns[i - 1] : "extra column");
    if (i <= 8) {
      *slots[i - 1] = v;
    }
  }
  if (fields.size() == 8) {
    l.strideWidth = l.strideHeight; // one stride left: it applies to both axes
  }
  checkFits(reader, l);
  if (l.name.find("DP") != std::string::npos) {
    const int64_t channels = l.channels;
    // The expansion is bounded like the rows a file can hold: a fuzzed "DP" row of 3.4e10
    // channels asked for 3.4e10 layers (out of memory).
    if (channels > kMaxTopologyLayers - static_cast<int64_t>(out.size()))
      reader.fail(fmt::format("depthwise layer '{}' (a name with \"DP\") expands into {} "
                              "per-channel layers; a topology holds at most {} layers",
                              l.name, channels, kMaxTopologyLayers));
    const std::string base = l.name;
    for (int64_t ch = 0; ch < channels; ++ch) {
      Layer one = l;
      one.name = fmt::format("{}Channel_{}", base, ch);
      one.channels = 1;
      out.push_back(std::move(one));
    }
  } else {
    out.push_back(std::move(l));
  }
}

void parseGemmRow(const RowReader& reader, const std::vector<std::string_view>& fields,
                  int64_t lineNo, std::vector<Layer>& out) {
  if (fields.size() < 4) {
    reader.fail(fmt::format(
        "expected at least 4 fields before the last comma (name, M, N, K), got {}", fields.size()));
  }
  const int64_t m = reader.positive(fields[1], "M");
  const int64_t n = reader.positive(fields[2], "N");
  const int64_t k = reader.positive(fields[3], "K");
  Layer l;
  l.name = std::string(trim(fields[0]));
  l.sourceLine = lineNo;
  l.ifmapHeight = m;
  l.ifmapWidth = k;
  l.filterHeight = 1;
  l.filterWidth = k;
  l.channels = 1;
  l.numFilters = n;
  out.push_back(std::move(l));
}

} // namespace

int64_t Layer::ofmapHeight() const {
  return (ifmapHeight - filterHeight + strideHeight + strideHeight - 1) / strideHeight;
}

int64_t Layer::ofmapWidth() const {
  return (ifmapWidth - filterWidth + strideWidth + strideWidth - 1) / strideWidth;
}

int64_t Layer::macs() const {
  return ofmapHeight() * ofmapWidth() * filterHeight * filterWidth * channels * numFilters;
}

Topology parseTopologyText(const std::string& text, const std::string& fileName,
                           TopologyFormat format) {
  Topology topo;
  const std::string base = std::filesystem::path(fileName).filename().string();
  const size_t dot = base.rfind('.');
  topo.name = dot == std::string::npos ? base : base.substr(0, dot);

  std::istringstream in(text);
  int64_t lineNo = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++lineNo;
    const std::string_view row = trim(raw);
    if (lineNo == 1 || row.empty()) {
      continue; // the header, and blank lines
    }
    std::vector<std::string_view> fields = splitFields(row);
    fields.pop_back(); // SCALE-Sim drops the field after the last comma
    const RowReader reader(fileName, lineNo);
    if (format == TopologyFormat::Gemm) {
      parseGemmRow(reader, fields, lineNo, topo.layers);
    } else {
      parseConvRow(reader, std::move(fields), lineNo, topo.layers);
    }
  }
  if (topo.layers.empty()) {
    throw Error(ErrorKind::Model, ErrorContext{.file = fileName},
                "no layers (the first line is the header; every further non-empty line is a "
                "layer)");
  }
  return topo;
}

Topology parseTopologyFile(const std::string& path, TopologyFormat format) {
  return parseTopologyText(detail::readTextFile(path), path, format);
}

std::string formatTopology(const std::vector<Layer>& layers) {
  std::string out = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                    "Channels, Num Filter, Stride Height, Stride Width,\n";
  for (const Layer& l : layers) {
    out += fmt::format("{}, {}, {}, {}, {}, {}, {}, {}, {},\n", l.name, l.ifmapHeight, l.ifmapWidth,
                       l.filterHeight, l.filterWidth, l.channels, l.numFilters, l.strideHeight,
                       l.strideWidth);
  }
  return out;
}

} // namespace nnaccel::scalesim
