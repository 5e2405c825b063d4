/// \file
/// Tests of a sweep's CSV (nnaccel/explore/SweepCsv.h): the exact layout, a round trip that
/// keeps every double and every quoted error message, each malformed-file error with its line,
/// and the merge of shards: byte-identical to the whole sweep, and refused with the file's name
/// when the shards come from different grids, different shard counts, twice, or not at all.
#include "nnaccel/explore/SweepCsv.h"

#include "../../support/ErrorOf.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>

namespace {

using namespace nnaccel;
using namespace nnaccel::explore;

using nnaccel::test::errorOf;

SweepSpec spec() {
  return SweepSpec{
      .model = "lenet5",
      .engine = "systolic",
      .config = "small",
      .configDigest = "0123456789abcdef",
      .params = {parseParam("array.rows=8,16,32"), parseParam("dtypes=[int8],[int8, fp32]")},
      .objective = Objective::Edp,
      .verify = true};
}

/// A ranked sweep of spec() restricted to \p shard, with awkward doubles and messages.
SweepResult sweep(const Shard& shard = Shard{}) {
  SweepResult r{spec(), shard, {}};
  const Grid grid(r.spec.params);
  for (size_t i : shardPoints(grid.size(), shard)) {
    PointResult p;
    p.index = i;
    p.values = grid.values(i);
    if (i == 1) {
      p.status = PointStatus::Error;
      p.error = "--param: array.rows: \"8\" is too small, expected >= 16";
      p.multipliers = 64;
    } else {
      p.status = i == 4 ? PointStatus::Mismatch : PointStatus::Ok;
      p.cycles = 1000 + static_cast<int64_t>((i * 7919) % 13) * 100;
      p.timeUs = static_cast<double>(p.cycles) / 3.0; // not a short decimal
      p.energyPj = 0.1 + 0.2 * static_cast<double>(i) + 1e9;
      p.edpPjUs = p.energyPj * p.timeUs;
      p.utilization = 1.0 / 7.0;
      p.dramBytes = 123456789012;
      p.multipliers = 256;
      p.sramBytes = 1 << 20;
      p.verified = i == 4 ? "no" : "yes";
      if (i == 4)
        p.error = "layer 'conv1', element 3: 5 vs 6";
    }
    r.points.push_back(p);
  }
  rankPoints(r.points, r.spec.objective);
  return r;
}

TEST(SweepCsv, WritesTheSpecTheHeaderAndOneRowPerPoint) {
  const std::string csv = toCsv(sweep());
  const std::string head =
      "# nnaccel sweep 2\n"
      "# model: lenet5\n"
      "# engine: systolic\n"
      "# config: small\n"
      "# config_fnv1a: 0123456789abcdef\n"
      "# param: array.rows=8,16,32\n"
      "# param: dtypes=[int8],[int8, fp32]\n"
      "# points: 6\n"
      "# objective: edp\n"
      "# pareto: cycles,energy_pj\n"
      "# verify: yes\n"
      "index,array.rows,dtypes,status,cycles,time_us,energy_pj,edp_pj_us,"
      "utilization,dram_bytes,multipliers,sram_bytes,area_mm2,verified,pareto,best,"
      "error\n"
      "0,8,[int8],ok,";
  EXPECT_EQ(csv.substr(0, head.size()), head);
  EXPECT_NE(csv.find("\n1,8,\"[int8, fp32]\",error,,,,,,,64,,,,0,0,\"--param: array.rows: "
                     "\"\"8\"\" is too small, expected >= 16\"\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",mismatch,"), std::string::npos);
  EXPECT_EQ(csv.find("# shard"), std::string::npos);
  EXPECT_NE(toCsv(sweep(Shard{2, 3})).find("# verify: yes\n# shard: 2/3\nindex,"),
            std::string::npos);
}

TEST(SweepCsv, RoundTripKeepsEveryValueExactly) {
  for (const Shard& shard : {Shard{}, Shard{2, 3}}) {
    const SweepResult r = sweep(shard);
    const SweepResult back = readCsv(toCsv(r), "a.csv");
    EXPECT_EQ(back.spec, r.spec);
    EXPECT_EQ(back.shard, r.shard);
    EXPECT_EQ(back.points, r.points);
    EXPECT_EQ(toCsv(back), toCsv(r));
  }
  for (const PointResult& p : sweep().points)
    EXPECT_EQ(parseCsvRow(csvRow(p), 2, "row"), p);
  // Windows line ends read the same.
  std::string crlf;
  for (char c : toCsv(sweep()))
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(readCsv(crlf, "a.csv").points, sweep().points);
}

TEST(SweepCsv, MalformedFilesNameTheFileAndLine) {
  const std::string good = toCsv(sweep());
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const auto error = [](const std::string& text) {
    return errorOf([&] { readCsv(text, "s.csv"); }, ErrorKind::Config);
  };
  EXPECT_EQ(error("index,cycles\n"),
            "s.csv: line 1: expected '# nnaccel sweep 2' (not a sweep CSV?)");
  EXPECT_EQ(error(replaced("# engine: systolic\n", "")),
            "s.csv: line 11: the '# engine:' line is missing");
  EXPECT_EQ(error(replaced("# verify: yes", "# colour: blue")),
            "s.csv: line 11: unknown line '# colour: blue'");
  EXPECT_EQ(error(replaced("# verify: yes", "# verify: maybe")),
            "s.csv: line 11: verify: expected yes or no, got 'maybe'");
  EXPECT_EQ(error(replaced("# points: 6", "# points: 7")),
            "s.csv: line 12: '# points: 7' but the params make 6 points");
  EXPECT_EQ(error(replaced("# pareto: cycles,energy_pj", "# pareto: cycles")),
            "s.csv: line 10: --pareto 'cycles': a front needs two or more metrics, e.g. "
            "cycles,energy_pj");
  EXPECT_EQ(error(replaced("# param: array.rows=8,16,32", "# param: array.rows=")),
            "s.csv: line 6: --param 'array.rows=': no values (expected KEY=V1,V2,...)");
  EXPECT_EQ(
      error(replaced("index,array.rows", "index,array.cols")),
      "s.csv: line 12: expected the header row 'index,array.rows,dtypes,status,cycles,"
      "time_us,energy_pj,edp_pj_us,utilization,dram_bytes,multipliers,sram_bytes,area_mm2,verified,"
      "pareto,best,error'");
  EXPECT_EQ(error(replaced("\n0,8,[int8],ok,", "\n0,8,[int8],ok,,")),
            "s.csv: line 13: expected 17 fields, found 18");
  EXPECT_EQ(error(replaced("\n0,8,[int8],ok,", "\n0,8,[int8],fine,")),
            "s.csv: line 13: status: expected ok, mismatch, error or interrupted, got 'fine'");
  EXPECT_EQ(error(replaced("\n2,16,[int8],ok,", "\n2,16,[int8],ok,12x")),
            "s.csv: line 15: cycles: '12x1400' is not an integer");
  EXPECT_EQ(error(replaced("\n2,16,[int8],ok,", "\n9,16,[int8],ok,")),
            "s.csv: line 15: point 9 is outside the grid of 6 points");
  EXPECT_EQ(error(replaced("\n2,16,[int8],ok,", "\n2,32,[int8],ok,")),
            "s.csv: line 15: the values of point 2 are not the grid's");
  EXPECT_EQ(error(replaced("\n2,16,[int8],ok,", "\n0,8,[int8],ok,")),
            "s.csv: line 15: point 0 is given twice");
  EXPECT_EQ(error(replaced("# verify: yes\n", "# verify: yes\n# shard: 1/2\n")),
            "s.csv: line 15: point 1 is not in shard 1/2");
  EXPECT_EQ(error(good + "5,32,\"[int8, fp32],ok\n"),
            "s.csv: line 19: a quoted field is not closed");
  // A shard whose job was killed while it wrote its last row: the cut row is named, not
  // read as a shorter point.
  EXPECT_EQ(error(good.substr(0, good.size() - 20)),
            "s.csv: line 18: expected 17 fields, found 11");
}

/// The shard files of sweep() split into \p n, as readCsv returns them.
std::vector<std::pair<std::string, SweepResult>> shardFiles(size_t n) {
  std::vector<std::pair<std::string, SweepResult>> files;
  for (size_t k = n; k >= 1; --k) // any order
    files.emplace_back(fmt::format("s{}.csv", k),
                       readCsv(toCsv(sweep(Shard{k, n})), fmt::format("s{}.csv", k)));
  return files;
}

TEST(SweepMerge, MergedShardsEqualTheWholeSweep) {
  const std::string whole = toCsv(sweep());
  for (size_t n : {1u, 2u, 3u, 4u, 8u})
    EXPECT_EQ(toCsv(mergeShards(shardFiles(n))), whole) << n;
  // A shard's own front and best are its points' only; the merge ranks the whole grid again.
  EXPECT_NE(toCsv(sweep(Shard{2, 3})), whole);
}

TEST(SweepMerge, ShardsOfAnotherSweepAreRefusedNamingTheFile) {
  const auto error = [](const std::vector<std::pair<std::string, SweepResult>>& files) {
    return errorOf([&] { mergeShards(files); }, ErrorKind::Usage);
  };
  EXPECT_EQ(error({}), "sweep merge: no files to merge");

  auto files = shardFiles(2);
  files[1].second.spec.params[0] = parseParam("array.rows=8,16,64");
  EXPECT_EQ(error(files), "s1.csv: not a shard of the same sweep as s2.csv: params "
                          "'array.rows=8,16,64 dtypes=[int8],[int8, fp32]' instead of "
                          "'array.rows=8,16,32 dtypes=[int8],[int8, fp32]'");
  files = shardFiles(2);
  files[1].second.spec.configDigest = "fedcba9876543210";
  EXPECT_EQ(error(files), "s1.csv: not a shard of the same sweep as s2.csv: config_fnv1a "
                          "'fedcba9876543210' instead of '0123456789abcdef'");
  files = shardFiles(2);
  files[1].second.spec.paretoAxes = {"cycles", "multipliers"};
  EXPECT_EQ(error(files), "s1.csv: not a shard of the same sweep as s2.csv: pareto "
                          "'cycles,multipliers' instead of 'cycles,energy_pj'");
  files = shardFiles(2);
  files[1].second.spec.verify = false;
  EXPECT_EQ(error(files),
            "s1.csv: not a shard of the same sweep as s2.csv: verify 'no' instead of 'yes'");

  files = shardFiles(2);
  files.emplace_back("t1.csv", sweep(Shard{1, 3}));
  EXPECT_EQ(error(files), "t1.csv: shard 1/3 of 3 shards, but s2.csv is shard 2/2 of 2");

  files = shardFiles(2);
  files.push_back(files[0]);
  files.back().first = "copy.csv";
  EXPECT_EQ(error(files), "copy.csv: shard 2/2 is also in s2.csv");

  files = shardFiles(3);
  files.erase(files.begin() + 1); // s2.csv
  EXPECT_EQ(error(files),
            "sweep merge: shard 2/3 is missing (given: 1/3 in s1.csv, 3/3 in s3.csv)");

  files = shardFiles(2);
  files[0].second.points.pop_back(); // s2.csv lost its last point (a killed job)
  EXPECT_EQ(error(files), "s2.csv: shard 2/2 has 2 of its 3 points (point 5 is missing)");
}

} // namespace
