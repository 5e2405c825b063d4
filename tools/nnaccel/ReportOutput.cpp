/// \file
/// --html / --csv / --screenshot for the commands that report (ReportOutput.h), and the headless
/// Chromium call behind --screenshot (spawned directly, no shell).
#include "ReportOutput.h"

#include "Command.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace nnaccel::cli {

namespace fs = std::filesystem;

void claimOutputs(const CLI::App& app, const std::vector<const std::string*>& paths);

void ReportOutput::configure(CLI::App& app, const std::string& htmlContents, bool withCsv) {
  app.add_option("--html", htmlPath_,
                 fmt::format("also write a self-contained HTML report ({}) to this file (- for "
                             "standard output)",
                             htmlContents));
  if (withCsv)
    app.add_option("--csv", csvPath_,
                   "also write the per-layer report as CSV (docs/report-schema.md) to this file (- "
                   "for standard output)");
  app.add_flag("--screenshot", screenshot_,
               "with --html: also render the report in headless Chromium to a PNG next to it");
}

void ReportOutput::check(const CLI::App& app,
                         std::initializer_list<const std::string*> others) const {
  if (screenshot_ && htmlPath_.empty())
    throw usageError(app, "--screenshot renders the HTML report; give --html FILE too");
  if (screenshot_ && isStdout(htmlPath_))
    throw usageError(app, "--screenshot renders the HTML report from a file; give --html FILE, "
                          "not -");
  std::vector<const std::string*> paths{&htmlPath_, &csvPath_};
  paths.insert(paths.end(), others.begin(), others.end());
  claimOutputs(app, paths);
}

namespace {
std::FILE* humanStream = stdout;
} // namespace

bool isStdout(const std::string& path) {
  return path == "-";
}

void claimOutputs(const CLI::App& app, std::initializer_list<const std::string*> paths) {
  claimOutputs(app, std::vector<const std::string*>(paths));
}

void claimOutputs(const CLI::App& app, const std::vector<const std::string*>& paths) {
  int toStdout = 0;
  for (const std::string* p : paths) {
    if (isStdout(*p))
      ++toStdout;
    else if (!p->empty())
      driver::checkWritable(*p);
  }
  if (toStdout > 1)
    throw usageError(app, "only one output can be '-' (standard output)");
  if (toStdout == 1)
    humanStream = stderr;
}

std::FILE* humanOut() {
  return humanStream;
}

void writeTextFile(const std::string& path, const std::string& text, bool announce) {
  if (isStdout(path)) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (std::ferror(stdout))
      throw Error(ErrorKind::Io, ErrorContext{.file = "<stdout>"}, "cannot write");
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    throw Error(ErrorKind::Io, ErrorContext{.file = path}, "cannot write the file");
  if (announce)
    fmt::print(humanOut(), "wrote {}\n", path);
}

void ReportOutput::writeCsv(const std::string& text) const {
  writeTextFile(csvPath_, text);
}

void ReportOutput::writeHtml(const std::string& html) const {
  writeTextFile(htmlPath_, html);
  if (!screenshot_)
    return;
  // Tall enough for every chart: about 440 px per figure plus the tables and config.
  size_t count = 0;
  for (size_t at = html.find("<figure"); at != std::string::npos; at = html.find("<figure", at + 1))
    ++count;
  const int height = static_cast<int>(std::min<size_t>(16000, 900 + 440 * count));
  const std::string png = fs::path(htmlPath_).replace_extension(".png").string();
  screenshotHtml(htmlPath_, png, 1400, height);
  fmt::print("wrote {}\n", png);
}

namespace {

/// The Chromium binary: $NNACCEL_CHROMIUM, else the first of the usual names on the PATH.
std::string findChromium() {
  if (const char* env = std::getenv("NNACCEL_CHROMIUM"); env != nullptr && *env != '\0')
    return env;
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    size_t start = 0;
    while (start <= dirs.size()) {
      const size_t end = std::min(dirs.find(':', start), dirs.size());
      const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
      std::error_code ec;
      if (!candidate.parent_path().empty() && fs::exists(candidate, ec))
        return candidate.string();
      start = end + 1;
    }
  }
  throw Error(ErrorKind::Io, {},
              "--screenshot needs Chromium: install Debian's chromium package or set "
              "NNACCEL_CHROMIUM to a Chromium binary");
}

} // namespace

std::string fileUrl(const std::string& path) {
  // RFC 3986: keep unreserved characters and '/', percent-encode every other byte ('#', '?',
  // '%', spaces and non-ASCII would otherwise change what the browser opens).
  const std::string absolute = fs::absolute(path).lexically_normal().string();
  std::string url = "file://";
  for (unsigned char ch : absolute) {
    if (std::isalnum(ch) != 0 || ch == '/' || ch == '-' || ch == '.' || ch == '_' || ch == '~')
      url += static_cast<char>(ch);
    else
      url += fmt::format("%{:02X}", ch);
  }
  return url;
}

void screenshotHtml(const std::string& htmlPath, const std::string& pngPath, int width,
                    int height) {
  const std::string browser = findChromium();
  const fs::path profile =
      fs::temp_directory_path() / fmt::format("nnaccel-chromium-{}", static_cast<long>(getpid()));
  const std::string url = fileUrl(htmlPath);
  // The flags keep a headless run off the network and out of the user's profile.
  std::vector<std::string> args = {browser,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--hide-scrollbars",
                                   "--user-data-dir=" + profile.string(),
                                   "--screenshot=" + fs::absolute(pngPath).string(),
                                   fmt::format("--window-size={},{}", width, height),
                                   url};
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Chromium's own chatter (GPU, dbus) is not nnaccel's output.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  // A PNG left from an earlier run must not pass for this one.
  std::error_code removeError;
  fs::remove(pngPath, removeError);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, browser.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw Error(ErrorKind::Io, ErrorContext{.file = browser},
                fmt::format("cannot start the browser: {}", std::strerror(spawned)));
  int status = 0;
  waitpid(pid, &status, 0);
  std::error_code ec;
  fs::remove_all(profile, ec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(pngPath, ec))
    throw Error(ErrorKind::Io, ErrorContext{.file = pngPath},
                fmt::format("headless Chromium ({}) did not write the screenshot", browser));
}

} // namespace nnaccel::cli
