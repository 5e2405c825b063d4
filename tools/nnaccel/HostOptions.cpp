/// \file
/// HostOptions (HostOptions.h).
#include "HostOptions.h"

#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nnaccel::cli {

void HostOptions::configure(CLI::App& app) {
  app.add_option("--host", settings_,
                 fmt::format("set a field of the host model that charges host-fallback layers, "
                             "KEY=VALUE, repeatable; keys: {} (docs/HostModel.md)",
                             fmt::join(engines::hostModelKeys(), ", ")))
      ->type_name("KEY=VALUE");
}

engines::HostModel HostOptions::model() const {
  engines::HostModel m;
  for (const std::string& s : settings_) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(ErrorKind::Usage, ErrorContext{.key = "--host"},
                  fmt::format("expected KEY=VALUE, got '{}'", s));
    engines::setHostModelKey(m, s.substr(0, eq), s.substr(eq + 1));
  }
  return m;
}

} // namespace nnaccel::cli
