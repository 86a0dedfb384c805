// The return type of the built-in action back-ends: a value, or an error with a code and a message.
//
// Deliberately minimal (no monadic helpers, no exceptions) so it can later be unified with the store's
// Result without touching callers much: ok(), error(), value(), operator*, operator->.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

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
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>);

 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error)
      : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  // Precondition: ok() (resp. !ok()); std::get checks it and throws bad_variant_access otherwise.
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT(google-explicit-constructor)

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_{ErrorCode::io, {}};
  bool failed_ = false;
};

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
