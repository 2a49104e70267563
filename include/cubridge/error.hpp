// The one error family of cubridge's C++ API: every exception cubridge throws is a cubridge::Error and
// also the std:: exception its callers catch today (std::invalid_argument, std::runtime_error, ...), so
// `catch (const cubridge::Error&)` takes them all and no existing `catch` changes meaning.
// Implements: issue 27 item 4 (Python's twin: cubridge.Error). Layer-free: any layer may include it.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace cubridge {

/// The base every cubridge exception also derives from (beside its std:: base, which carries the message).
class Error {
 public:
  virtual ~Error() = default;
  /// The message: the std:: base's what().
  const char* error_text() const noexcept {
    const auto* e = dynamic_cast<const std::exception*>(this);
    return e != nullptr ? e->what() : "cubridge error";
  }
};

/// A value the caller passed breaks a rule; the message names the value and what would be accepted.
class InvalidArgument : public std::invalid_argument, public Error {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Something failed while running (a tool, a file, a resource); the message names what and why.
class RuntimeError : public std::runtime_error, public Error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cubridge
