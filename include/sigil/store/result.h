// Result<T>: a value or an error message, for every Store call (g++ 12 has no std::expected).
//
// Store calls never throw for expected failures (I/O, constraint, a bad argument): they return an Error.
// Reading value() of a failed Result is a programming error and throws std::bad_variant_access.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace sigil::store {

struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cvref_t<T>, Error>, "Result<Error> is ambiguous");

 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit on purpose
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The error message; empty when ok().
  const std::string& error() const noexcept {
    static const std::string kNone;
    const Error* e = std::get_if<1>(&v_);
    return e ? e->message : kNone;
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error.message)), failed_(true) {}  // NOLINT

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  const std::string& error() const noexcept { return error_; }

 private:
  std::string error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace sigil::store
