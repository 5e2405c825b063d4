/// \file
/// User-facing errors and internal assertions.
///
/// nnaccel distinguishes two kinds of failure (after Halide's CompileError/InternalError):
///  - nnaccel::Error: the *input* is wrong (malformed model, unsupported op, impossible config,
///    out-of-range option). It carries a structured context (file, node, op, opset, key) so the
///    CLI can print exactly one line: `error: model.onnx: node 'conv3' (Conv, opset 13): reason`.
///    Library entry points throw it; the CLI catches it at the top and exits with status 1.
///  - NNACCEL_ASSERT: an invariant of nnaccel itself is broken. It prints an "internal error"
///    banner with the source location and aborts; it is never used to reject user input.
/// See docs/ErrorHandling.md for the rules and the message style (LLVM's: lower case, no final
/// period, expected-versus-found).
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace nnaccel {

/// What went wrong, in the broad sense used for the message prefix and for tests.
enum class ErrorKind {
  Model,       ///< the model file is malformed or inconsistent
  Unsupported, ///< a well-formed construct nnaccel does not implement
  Config,      ///< an architecture/config file is invalid
  Usage,       ///< a command-line option is out of range or inconsistent
  Io,          ///< a file could not be read or written
};

/// Where an error was found. Every field is optional; format() prints those that are set.
struct ErrorContext {
  std::string file;             ///< model/config/data file path
  std::string node;             ///< node name as written in the model
  std::string op;               ///< op type, e.g. "Conv"
  std::optional<int64_t> opset; ///< opset version of the node's domain
  std::string key;              ///< config key or attribute name
};

/// A user-facing error: bad input, never a bug in nnaccel.
class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, ErrorContext context, std::string reason);

  ErrorKind kind() const { return kind_; }
  const ErrorContext& context() const { return context_; }
  const std::string& reason() const { return reason_; }

  /// Returns a copy with any empty context fields filled from \p outer (outer layers such as
  /// the importer add the file name to errors raised deeper down).
  Error withContext(const ErrorContext& outer) const;

  /// The one-line message without the "error: " prefix, e.g.
  /// `model.onnx: node 'conv3' (Conv, opset 13): group=3 does not divide input channels=64`.
  static std::string format(const ErrorContext& context, const std::string& reason);

private:
  ErrorKind kind_;
  ErrorContext context_;
  std::string reason_;
};

namespace detail {
[[noreturn]] void assertionFailed(const char* expr, const char* file, int line,
                                  const std::string& message);

/// Collects the streamed message of a failing assertion; evaluated only on failure.
class AssertStream {
public:
  AssertStream(const char* expr, const char* file, int line)
      : expr_(expr), file_(file), line_(line) {}
  AssertStream(const AssertStream&) = delete;
  AssertStream& operator=(const AssertStream&) = delete;
  [[noreturn]] ~AssertStream() { assertionFailed(expr_, file_, line_, os_.str()); }
  template <typename T> AssertStream& operator<<(const T& v) {
    os_ << v;
    return *this;
  }

private:
  const char* expr_;
  const char* file_;
  int line_;
  std::ostringstream os_;
};
struct Voidify {
  void operator&(const AssertStream&) {}
};
} // namespace detail
} // namespace nnaccel

/// Internal invariant: `NNACCEL_ASSERT(x > 0) << "while tiling " << name;`
/// The streamed message is built only when the condition fails. Active in every build type.
#define NNACCEL_ASSERT(cond)                                                                       \
  (cond)                                                                                           \
      ? (void)0                                                                                    \
      : ::nnaccel::detail::Voidify() & ::nnaccel::detail::AssertStream(#cond, __FILE__, __LINE__)

/// Marks code that must be unreachable.
#define NNACCEL_UNREACHABLE(msg) NNACCEL_ASSERT(false) << (msg)
