/// \file
/// Fuzz target: text bytes -> the CSV and INI readers: a sweep shard (`sweep merge`), a
/// SCALE-Sim config and a SCALE-Sim topology in both of its formats.
#include "FuzzTarget.h"
#include "nnaccel/explore/SweepCsv.h"
#include "nnaccel/scalesim/Config.h"
#include "nnaccel/scalesim/Topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnaccel;
  const std::string text = fuzz::text(data, size);
  fuzz::accept([&] { (void)explore::readCsv(text, "fuzz.csv"); });
  fuzz::accept([&] { (void)scalesim::parseConfigText(text, "fuzz.cfg"); });
  fuzz::accept(
      [&] { (void)scalesim::parseTopologyText(text, "fuzz.csv", scalesim::TopologyFormat::Conv); });
  return fuzz::accept(
      [&] { (void)scalesim::parseTopologyText(text, "fuzz.csv", scalesim::TopologyFormat::Gemm); });
}
