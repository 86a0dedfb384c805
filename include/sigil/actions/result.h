// The built-in action back-ends' results: sigil::Result (base/result.h) whose error has a code and a
// message.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "sigil/base/result.h"
#include "sigil/text/enum_names.h"

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

inline constexpr text::EnumNames<ErrorCode::io> kErrorCodeNames{
    {"invalid_argument", "outside_root", "symlink", "not_found", "not_regular", "too_large",
     "permission_denied", "changed", "timeout", "tool_missing", "tool_failed", "io"},
    "unknown"};

constexpr std::string_view to_string(ErrorCode code) noexcept { return kErrorCodeNames.name(code); }

}  // namespace sigil::actions
