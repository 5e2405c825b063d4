/// \file
/// The report files a command writes besides its table, shared by `simulate`, `compare` and
/// `sweep`: --report (JSON), --csv, --html and --screenshot (a PNG of the HTML report rendered
/// by headless Chromium). Each option is checked for writability before the run starts, so a
/// long run never ends in "cannot write". "-" names standard output for any one of them.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <initializer_list>
#include <string>

namespace nnaccel::cli {

class ReportOutput {
public:
  /// Adds --html (whose help says the page holds \p htmlContents) and --screenshot, and --csv
  /// when \p withCsv, to \p app.
  void configure(CLI::App& app, const std::string& htmlContents, bool withCsv = true);
  /// Checks the options go together and the files can be written (Error otherwise), together
  /// with the command's other output files \p others (claimOutputs).
  void check(const CLI::App& app, std::initializer_list<const std::string*> others = {}) const;
  bool wantsHtml() const { return !htmlPath_.empty(); }
  bool wantsCsv() const { return !csvPath_.empty(); }
  /// Writes \p text to the --csv file and says so.
  void writeCsv(const std::string& text) const;
  /// Writes \p html to the --html file, and with --screenshot renders it to a PNG next to it.
  void writeHtml(const std::string& html) const;

private:
  std::string htmlPath_, csvPath_;
  bool screenshot_ = false;
};

/// Whether an output path is "-", standard output (`--report -`).
bool isStdout(const std::string& path);

/// Checks a command's output files \p paths (empty ones are not given): at most one may be "-"
/// (a usage error naming \p app otherwise), the others must be writable. When one is "-", the
/// command's human-readable text moves to standard error (humanOut), so that standard output
/// holds the file alone and can be piped (`--report - | jq`).
void claimOutputs(const CLI::App& app, std::initializer_list<const std::string*> paths);

/// Where a command prints its tables and "wrote" lines: standard output, or standard error once
/// an output file took standard output (claimOutputs).
std::FILE* humanOut();

/// Writes \p text to \p path, or to standard output for "-" (Error naming the file when it
/// cannot), and when \p announce prints "wrote PATH" to humanOut().
void writeTextFile(const std::string& path, const std::string& text, bool announce = true);

/// The file:// URL of \p path (made absolute, every byte but unreserved ones and '/'
/// percent-encoded).
std::string fileUrl(const std::string& path);

/// Renders the HTML file \p htmlPath in headless Chromium into \p pngPath at \p width x
/// \p height pixels. The browser is $NNACCEL_CHROMIUM, else `chromium` or `chromium-browser`
/// on the PATH; Error (Io) when none is found or it fails.
void screenshotHtml(const std::string& htmlPath, const std::string& pngPath, int width, int height);

} // namespace nnaccel::cli
