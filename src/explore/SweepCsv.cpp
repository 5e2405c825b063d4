/// \file
/// A sweep's CSV file (include/nnaccel/explore/SweepCsv.h): the writer, an RFC 4180 reader that
/// checks the file against its own spec lines, and the merge of shard files into one sweep.
#include "nnaccel/explore/SweepCsv.h"

#include "nnaccel/report/Report.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>

namespace nnaccel::explore {

namespace {

/// 2: energy_pj counts static energy too, and the area_mm2 column (2026-11-29).
constexpr const char* kMagic = "# nnaccel sweep 2";

/// A field, quoted when needed (report::csvField).
std::string field(const std::string& text) {
  return report::csvField(text);
}

/// A double in the shortest text that reads back to the same double.
std::string exact(double v) {
  return fmt::format("{}", v);
}

Error malformed(const std::string& origin, size_t line, const std::string& reason) {
  return Error(ErrorKind::Config, ErrorContext{.file = origin},
               fmt::format("line {}: {}", line, reason));
}

/// One CSV record and the line it starts on.
struct Record {
  size_t line = 0;
  std::vector<std::string> fields;
};

/// The records of \p text from \p pos on (the first on line \p line); a blank line is skipped.
std::vector<Record> parseRecords(const std::string& text, size_t pos, size_t line,
                                 const std::string& origin) {
  std::vector<Record> records;
  while (pos < text.size()) {
    Record r{line, {}};
    std::string current;
    bool quoted = false, wasQuoted = false;
    for (;; ++pos) {
      if (pos == text.size()) {
        if (quoted)
          throw malformed(origin, r.line, "a quoted field is not closed");
        break;
      }
      const char c = text[pos];
      if (quoted) {
        if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
          current += '"';
          ++pos;
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n')
            ++line;
          current += c;
        }
      } else if (c == '"') {
        if (!current.empty() || wasQuoted)
          throw malformed(origin, line, "a quote inside an unquoted field");
        quoted = wasQuoted = true;
      } else if (c == ',') {
        r.fields.push_back(current);
        current.clear();
        wasQuoted = false;
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')
          ++pos;
        ++pos;
        ++line;
        break;
      } else {
        if (wasQuoted)
          throw malformed(origin, line, "text after a closing quote");
        current += c;
      }
    }
    r.fields.push_back(current);
    if (!(r.fields.size() == 1 && r.fields[0].empty() && !wasQuoted))
      records.push_back(std::move(r));
  }
  return records;
}

template <typename T>
T integer(const std::string& s, const std::string& origin, size_t line, const std::string& column) {
  if (s.empty())
    return 0;
  T v{};
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw malformed(origin, line, fmt::format("{}: '{}' is not an integer", column, s));
  return v;
}

double real(const std::string& s, const std::string& origin, size_t line,
            const std::string& column) {
  if (s.empty())
    return 0;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw malformed(origin, line, fmt::format("{}: '{}' is not a number", column, s));
  return v;
}

bool flag(const std::string& s, const std::string& origin, size_t line, const std::string& column) {
  if (s == "0")
    return false;
  if (s == "1")
    return true;
  throw malformed(origin, line, fmt::format("{}: expected 0 or 1, got '{}'", column, s));
}

PointResult rowFromFields(const std::vector<std::string>& f, size_t paramCount,
                          const std::string& origin, size_t line) {
  const std::vector<std::string>& cols = resultColumns();
  if (f.size() != 1 + paramCount + cols.size())
    throw malformed(
        origin, line,
        fmt::format("expected {} fields, found {}", 1 + paramCount + cols.size(), f.size()));
  PointResult p;
  p.index = integer<size_t>(f[0], origin, line, "index");
  if (f[0].empty())
    throw malformed(origin, line, "index: empty");
  p.values.assign(f.begin() + 1, f.begin() + 1 + static_cast<std::ptrdiff_t>(paramCount));
  size_t c = 1 + paramCount;
  const auto next = [&] { return std::make_pair(f[c], cols[c - 1 - paramCount]); };
  {
    const auto [s, name] = next();
    if (s == "ok")
      p.status = PointStatus::Ok;
    else if (s == "mismatch")
      p.status = PointStatus::Mismatch;
    else if (s == "error")
      p.status = PointStatus::Error;
    else if (s == "interrupted")
      p.status = PointStatus::Interrupted;
    else
      throw malformed(
          origin, line,
          fmt::format("status: expected ok, mismatch, error or interrupted, got '{}'", s));
    ++c;
  }
  p.cycles = integer<int64_t>(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.timeUs = real(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.energyPj = real(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.edpPjUs = real(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.utilization = real(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.dramBytes = integer<int64_t>(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.multipliers = integer<int64_t>(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.sramBytes = integer<int64_t>(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.areaMm2 = real(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.verified = f[c++];
  if (p.verified != "yes" && p.verified != "no" && p.verified != "skipped" && !p.verified.empty())
    throw malformed(
        origin, line,
        fmt::format("verified: expected yes, no, skipped or nothing, got '{}'", p.verified));
  p.pareto = flag(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.best = flag(f[c], origin, line, cols[c - 1 - paramCount]), ++c;
  p.error = f[c];
  return p;
}

/// The name of the first spec field where \p a and \p b differ, with both values.
std::string specDifference(const SweepSpec& a, const SweepSpec& b) {
  const auto differ = [](const std::string& what, const std::string& x, const std::string& y) {
    return fmt::format("{} '{}' instead of '{}'", what, y, x);
  };
  if (a.model != b.model)
    return differ("model", a.model, b.model);
  if (a.engine != b.engine)
    return differ("engine", a.engine, b.engine);
  if (a.config != b.config)
    return differ("config", a.config, b.config);
  if (a.configDigest != b.configDigest)
    return differ("config_fnv1a", a.configDigest, b.configDigest);
  if (a.params != b.params) {
    const auto list = [](const std::vector<Param>& ps) {
      std::vector<std::string> out;
      for (const Param& p : ps)
        out.push_back(paramText(p));
      return fmt::format("{}", fmt::join(out, " "));
    };
    return differ("params", list(a.params), list(b.params));
  }
  if (a.objective != b.objective)
    return differ("objective", objectiveName(a.objective), objectiveName(b.objective));
  if (a.paretoAxes != b.paretoAxes)
    return differ("pareto", fmt::format("{}", fmt::join(a.paretoAxes, ",")),
                  fmt::format("{}", fmt::join(b.paretoAxes, ",")));
  return differ("verify", a.verify ? "yes" : "no", b.verify ? "yes" : "no");
}

} // namespace

const std::vector<std::string>& resultColumns() {
  static const std::vector<std::string> kColumns = {
      "status",      "cycles",     "time_us",     "energy_pj",  "edp_pj_us",
      "utilization", "dram_bytes", "multipliers", "sram_bytes", "area_mm2",
      "verified",    "pareto",     "best",        "error"};
  return kColumns;
}

std::string csvRow(const PointResult& p) {
  std::string row = fmt::format("{}", p.index);
  for (const std::string& v : p.values)
    row.append(",").append(field(v));
  const bool ran = p.status != PointStatus::Error;
  const auto count = [](int64_t v) { return v == 0 ? std::string() : fmt::format("{}", v); };
  row +=
      fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{},{}", statusName(p.status),
                  ran ? fmt::format("{}", p.cycles) : "", ran ? exact(p.timeUs) : "",
                  ran ? exact(p.energyPj) : "", ran ? exact(p.edpPjUs) : "",
                  ran ? exact(p.utilization) : "", ran ? fmt::format("{}", p.dramBytes) : "",
                  count(p.multipliers), count(p.sramBytes), p.areaMm2 > 0 ? exact(p.areaMm2) : "",
                  field(p.verified), p.pareto ? 1 : 0, p.best ? 1 : 0, field(p.error));
  return row;
}

std::string toCsv(const SweepResult& result) {
  const SweepSpec& s = result.spec;
  std::string out = fmt::format("{}\n", kMagic);
  out += fmt::format("# model: {}\n# engine: {}\n# config: {}\n# config_fnv1a: {}\n", s.model,
                     s.engine, s.config, s.configDigest);
  for (const Param& p : s.params)
    out += fmt::format("# param: {}\n", paramText(p));
  out += fmt::format("# points: {}\n# objective: {}\n# pareto: {}\n# verify: {}\n",
                     Grid(s.params).size(), objectiveName(s.objective),
                     fmt::join(s.paretoAxes, ","), s.verify ? "yes" : "no");
  if (!result.shard.whole())
    out += fmt::format("# shard: {}\n", shardText(result.shard));
  out += "index";
  for (const Param& p : s.params)
    out.append(",").append(field(p.key));
  for (const std::string& c : resultColumns())
    out.append(",").append(c);
  out += "\n";
  for (const PointResult& p : result.points)
    out.append(csvRow(p)).append("\n");
  return out;
}

PointResult parseCsvRow(const std::string& line, size_t paramCount, const std::string& origin) {
  const std::vector<Record> records = parseRecords(line, 0, 1, origin);
  if (records.size() != 1)
    throw malformed(origin, 1, fmt::format("expected one row, found {}", records.size()));
  return rowFromFields(records[0].fields, paramCount, origin, 1);
}

SweepResult readCsv(const std::string& text, const std::string& origin) {
  SweepResult r;
  size_t pos = 0, line = 1;
  std::map<std::string, std::string> seen;
  std::optional<size_t> points;
  bool magic = false;
  while (pos < text.size() && text[pos] == '#') {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r')
      l.pop_back();
    if (!magic) {
      if (l != kMagic)
        throw malformed(origin, line, fmt::format("expected '{}' (not a sweep CSV?)", kMagic));
      magic = true;
    } else {
      const size_t colon = l.find(": ");
      if (l.rfind("# ", 0) != 0 || colon == std::string::npos)
        throw malformed(origin, line, fmt::format("expected '# KEY: VALUE', got '{}'", l));
      const std::string key = l.substr(2, colon - 2), value = l.substr(colon + 2);
      if (key != "param" && !seen.emplace(key, value).second)
        throw malformed(origin, line, fmt::format("'{}' is given twice", key));
      try {
        if (key == "model")
          r.spec.model = value;
        else if (key == "engine")
          r.spec.engine = value;
        else if (key == "config")
          r.spec.config = value;
        else if (key == "config_fnv1a")
          r.spec.configDigest = value;
        else if (key == "param")
          r.spec.params.push_back(parseParam(value));
        else if (key == "points")
          points = integer<size_t>(value, origin, line, "points");
        else if (key == "objective")
          r.spec.objective = parseObjective(value);
        else if (key == "pareto")
          r.spec.paretoAxes = parseParetoAxes(value);
        else if (key == "verify" && (value == "yes" || value == "no"))
          r.spec.verify = value == "yes";
        else if (key == "verify")
          throw malformed(origin, line, fmt::format("verify: expected yes or no, got '{}'", value));
        else if (key == "shard")
          r.shard = parseShard(value);
        else
          throw malformed(origin, line, fmt::format("unknown line '{}'", l));
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Config)
          throw;
        throw malformed(origin, line, e.reason());
      }
    }
    pos = end == text.size() ? end : end + 1;
    ++line;
  }
  if (!magic)
    throw malformed(origin, line, fmt::format("expected '{}' (not a sweep CSV?)", kMagic));
  for (const char* key :
       {"model", "engine", "config", "config_fnv1a", "points", "objective", "pareto", "verify"})
    if (seen.count(key) == 0)
      throw malformed(origin, line, fmt::format("the '# {}:' line is missing", key));
  const Grid grid = [&] {
    try {
      return Grid(r.spec.params);
    } catch (const Error& e) {
      throw malformed(origin, line, e.reason());
    }
  }();
  if (*points != grid.size())
    throw malformed(
        origin, line,
        fmt::format("'# points: {}' but the params make {} points", *points, grid.size()));
  std::vector<Record> records = parseRecords(text, pos, line, origin);
  std::vector<std::string> header = {"index"};
  for (const Param& p : r.spec.params)
    header.push_back(p.key);
  header.insert(header.end(), resultColumns().begin(), resultColumns().end());
  if (records.empty() || records[0].fields != header)
    throw malformed(origin, records.empty() ? line : records[0].line,
                    fmt::format("expected the header row '{}'", fmt::join(header, ",")));
  std::set<size_t> indices;
  for (size_t i = 1; i < records.size(); ++i) {
    PointResult p = rowFromFields(records[i].fields, r.spec.params.size(), origin, records[i].line);
    if (p.index >= grid.size())
      throw malformed(
          origin, records[i].line,
          fmt::format("point {} is outside the grid of {} points", p.index, grid.size()));
    if (!r.shard.contains(p.index))
      throw malformed(origin, records[i].line,
                      fmt::format("point {} is not in shard {}", p.index, shardText(r.shard)));
    if (p.values != grid.values(p.index))
      throw malformed(origin, records[i].line,
                      fmt::format("the values of point {} are not the grid's", p.index));
    if (!indices.insert(p.index).second)
      throw malformed(origin, records[i].line, fmt::format("point {} is given twice", p.index));
    r.points.push_back(std::move(p));
  }
  std::sort(r.points.begin(), r.points.end(),
            [](const PointResult& a, const PointResult& b) { return a.index < b.index; });
  return r;
}

SweepResult mergeShards(const std::vector<std::pair<std::string, SweepResult>>& shards) {
  if (shards.empty())
    throw Error(ErrorKind::Usage, {}, "sweep merge: no files to merge");
  const auto& [firstPath, first] = shards.front();
  const size_t count = first.shard.count;
  std::map<size_t, std::string> byShard; // K -> file
  for (const auto& [path, s] : shards) {
    if (!(s.spec == first.spec))
      throw Error(ErrorKind::Usage, ErrorContext{.file = path},
                  fmt::format("not a shard of the same sweep as {}: {}", firstPath,
                              specDifference(first.spec, s.spec)));
    if (s.shard.count != count)
      throw Error(ErrorKind::Usage, ErrorContext{.file = path},
                  fmt::format("shard {} of {} shards, but {} is shard {} of {}", shardText(s.shard),
                              s.shard.count, firstPath, shardText(first.shard), count));
    if (const auto [it, inserted] = byShard.emplace(s.shard.index, path); !inserted)
      throw Error(ErrorKind::Usage, ErrorContext{.file = path},
                  fmt::format("shard {} is also in {}", shardText(s.shard), it->second));
  }
  for (size_t k = 1; k <= count; ++k)
    if (byShard.count(k) == 0)
      throw Error(ErrorKind::Usage, {},
                  fmt::format("sweep merge: shard {}/{} is missing (given: {})", k, count, [&] {
                    std::vector<std::string> have;
                    for (const auto& [index, path] : byShard)
                      have.push_back(fmt::format("{}/{} in {}", index, count, path));
                    return fmt::format("{}", fmt::join(have, ", "));
                  }()));
  const Grid grid(first.spec.params);
  SweepResult merged{first.spec, Shard{}, {}};
  for (const auto& [path, s] : shards) {
    const std::vector<size_t> want = shardPoints(grid.size(), s.shard);
    if (s.points.size() != want.size()) {
      size_t missing = want.back();
      for (size_t i = 0; i < want.size(); ++i)
        if (i >= s.points.size() || s.points[i].index != want[i]) {
          missing = want[i];
          break;
        }
      throw Error(ErrorKind::Usage, ErrorContext{.file = path},
                  fmt::format("shard {} has {} of its {} points (point {} is missing)",
                              shardText(s.shard), s.points.size(), want.size(), missing));
    }
    merged.points.insert(merged.points.end(), s.points.begin(), s.points.end());
  }
  std::sort(merged.points.begin(), merged.points.end(),
            [](const PointResult& a, const PointResult& b) { return a.index < b.index; });
  rankPoints(merged.points, merged.spec.objective, merged.spec.paretoAxes);
  return merged;
}

} // namespace nnaccel::explore
