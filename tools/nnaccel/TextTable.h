/// \file
/// Plain-text tables with aligned columns and number formatting for the CLI's reports.
///
/// `nnaccel info` prints 150-row layer tables and `nnaccel zoo list` a model list; both go
/// through TextTable so their columns line up the same way (widths from the content, two spaces
/// between columns, numbers right-aligned, trailing blanks trimmed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::cli {

class TextTable {
public:
  enum class Align { Left, Right };

  /// Adds a column; columns must all be added before the first row.
  void addColumn(std::string header, Align align);
  /// Adds a row with one cell per column (missing trailing cells are blank).
  void addRow(std::vector<std::string> cells);
  /// Adds a horizontal rule (dashes across every column).
  void addRule();
  /// The table: header line, rule, then the rows, each line ending in '\n'.
  std::string render() const;

private:
  struct Column {
    std::string header;
    Align align;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_; ///< an empty row is a rule
};

/// 1234567 -> "1,234,567".
std::string groupThousands(int64_t value);
/// 1814083072 -> "1.81G", 11689512 -> "11.7M", 950 -> "950" (three significant digits).
std::string humanCount(int64_t value);

} // namespace nnaccel::cli
