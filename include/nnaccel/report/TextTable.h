/// \file
/// Plain-text tables with aligned columns, and the number and type formatting of the reports
/// (every command and engine study formats counts, values and tensor types through these).
///
/// `nnaccel info` prints 150-row layer tables and `nnaccel zoo list` a model list; both go
/// through TextTable so their columns line up the same way (widths from the content, two spaces
/// between columns, numbers right-aligned, trailing blanks trimmed).
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::report {

class TextTable {
public:
  enum class Align { Left, Right };
  struct Column {
    std::string header;
    Align align;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  /// Adds a row with one cell per column (missing trailing cells are blank).
  void addRow(std::vector<std::string> cells);
  /// Adds a horizontal rule (dashes across every column).
  void addRule();
  /// The table: header line, rule, then the rows, each line ending in '\n'.
  std::string render() const;

private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_; ///< an empty row is a rule
};

/// "f32 1x3x224x224": a tensor type as every command prints it.
std::string typeText(DType dtype, const Dims& shape);
/// A printed tensor value or metric: 6 significant digits ("0.0815304", "-3.79419").
std::string numberText(double value);
/// 1234567 -> "1,234,567".
std::string groupThousands(int64_t value);
/// 1814083072 -> "1.81G", 11689512 -> "11.7M", 950 -> "950" (three significant digits).
std::string humanCount(int64_t value);

} // namespace nnaccel::report
