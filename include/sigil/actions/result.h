// The built-in action back-ends' results: sigil::Result (base/result.h) whose error has a code and a
// message.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "sigil/base/result.h"

namespace sigil::actions {

enum class ErrorCode {
  invalid_argument,   // malformed input: empty, NUL byte, too long, '..', bad option
  outside_root,       // the path names something outside every allowed folder
  symlink,            // a symbolic link on the path (refused, inside or out)
  not_found,          // no such file
  not_regular,        // a directory, FIFO, device or socket
  too_large,          // over the size limit
  permission_denied,  // the OS or the operator said no
  changed,            // the file on disk is no longer the one that was opened
  timeout,            // a time limit ran out
  tool_missing,       // an external program is not installed
  tool_failed,        // an external program failed or wrote something unusable
  io,                 // any other system error
};

struct Error {
  ErrorCode code;
  std::string message;
};

template <class T>
using Result = sigil::Result<T, Error>;

inline Error make_error(ErrorCode code, std::string message) { return Error{code, std::move(message)}; }

inline std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument:
      return "invalid_argument";
    case ErrorCode::outside_root:
      return "outside_root";
    case ErrorCode::symlink:
      return "symlink";
    case ErrorCode::not_found:
      return "not_found";
    case ErrorCode::not_regular:
      return "not_regular";
    case ErrorCode::too_large:
      return "too_large";
    case ErrorCode::permission_denied:
      return "permission_denied";
    case ErrorCode::changed:
      return "changed";
    case ErrorCode::timeout:
      return "timeout";
    case ErrorCode::tool_missing:
      return "tool_missing";
    case ErrorCode::tool_failed:
      return "tool_failed";
    case ErrorCode::io:
      return "io";
  }
  return "unknown";
}

}  // namespace sigil::actions
