// Implementation of nnaccel::Error formatting and the internal-assertion failure path.
#include "nnaccel/support/Error.h"

#include <cstdio>
#include <cstdlib>

namespace nnaccel {

Error::Error(ErrorKind kind, ErrorContext context, std::string reason)
    : std::runtime_error(format(context, reason)), kind_(kind), context_(std::move(context)),
      reason_(std::move(reason)) {}

Error Error::withContext(const ErrorContext& outer) const {
  ErrorContext merged = context_;
  if (merged.file.empty()) {
    merged.file = outer.file;
  }
  if (merged.node.empty()) {
    merged.node = outer.node;
  }
  if (merged.op.empty()) {
    merged.op = outer.op;
  }
  if (!merged.opset) {
    merged.opset = outer.opset;
  }
  if (merged.key.empty()) {
    merged.key = outer.key;
  }
  return Error(kind_, merged, reason_);
}

std::string Error::format(const ErrorContext& c, const std::string& reason) {
  std::string out;
  if (!c.file.empty()) {
    out += c.file + ": ";
  }
  if (!c.node.empty() || !c.op.empty()) {
    out += "node '" + c.node + "'";
    if (!c.op.empty()) {
      out += " (" + c.op;
      if (c.opset) {
        out += ", opset " + std::to_string(*c.opset);
      }
      out += ")";
    }
    out += ": ";
  }
  if (!c.key.empty()) {
    out += "'" + c.key + "': ";
  }
  out += reason;
  // One line, always: a reason with embedded newlines would break the CLI contract.
  for (char& ch : out) {
    if (ch == '\n' || ch == '\r') {
      ch = ' ';
    }
  }
  return out;
}

namespace detail {
void assertionFailed(const char* expr, const char* file, int line, const std::string& message) {
  std::fprintf(stderr,
               "nnaccel: internal error (please report): %s:%d: assertion '%s' failed%s%s\n", file,
               line, expr, message.empty() ? "" : ": ", message.c_str());
  std::fflush(stderr);
  std::abort();
}
} // namespace detail
} // namespace nnaccel
