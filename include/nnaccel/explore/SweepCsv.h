/// \file
/// A sweep's CSV file: what `nnaccel sweep --csv` writes, `nnaccel sweep merge` reads, and the
/// MPI ranks send each other one row at a time. The file is the sweep's only record, so it
/// carries the sweep's identity (SweepSpec) in `# key: value` lines before the header row, and
/// merging checks that every shard comes from the same grid.
///
/// Layout (docs/Sweep.md):
///
///     # nnaccel sweep 2
///     # model: resnet50
///     # engine: systolic
///     # config: server
///     # config_fnv1a: 0123456789abcdef
///     # param: array.rows=32,64,128
///     # points: 3
///     # objective: cycles
///     # pareto: cycles,energy_pj
///     # verify: yes
///     # shard: 1/2                        (only in a shard's file)
///     index,array.rows,status,cycles,time_us,energy_pj,edp_pj_us,utilization,dram_bytes,...
///
/// Fields are RFC 4180 (quoted when they hold a comma, a quote or a line break). Numbers are
/// written exactly: integers in decimal, doubles in the shortest form that reads back to the
/// same double, so a row that goes through text (a shard file, an MPI message) ranks and prints
/// exactly like the original. No wall-clock time is written.
#pragma once

#include "nnaccel/explore/Sweep.h"

#include <string>
#include <utility>
#include <vector>

namespace nnaccel::explore {

/// The CSV columns after the params', in order.
const std::vector<std::string>& resultColumns();

/// The whole file: the spec lines, the shard line unless \p result covers the whole grid, the
/// header row and one row per point.
std::string toCsv(const SweepResult& result);
/// One point's row (no line break); values must have one entry per param.
std::string csvRow(const PointResult& p);

/// Reads a file written by toCsv; \p origin (its path) prefixes every error. Throws
/// nnaccel::Error (Config) for a malformed file: a missing or unknown spec line, a header that
/// does not match the params, a row with the wrong field count or a bad number, a point that is
/// outside the grid or the file's shard, or given twice.
SweepResult readCsv(const std::string& text, const std::string& origin);
/// Reads one row written by csvRow for a sweep with \p paramCount params.
PointResult parseCsvRow(const std::string& line, size_t paramCount, const std::string& origin);

/// Combines shard files (path, contents) into the whole sweep and ranks it again. The files
/// must share one spec and one shard count N and cover shards 1..N once each (a single
/// whole-grid file is accepted too). Throws nnaccel::Error (Usage) naming the file that
/// differs (another grid, another N, a shard given twice) or the shard that is missing.
SweepResult mergeShards(const std::vector<std::pair<std::string, SweepResult>>& shards);

} // namespace nnaccel::explore
