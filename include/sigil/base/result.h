// Result<T, E>: a value or an error, the one vocabulary every layer returns its expected failures in (g++ 12
// has no std::expected; the names follow it so the switch is a rename: has_value(), value(), error()).
//
// What it promises:
// - A Result holds exactly one of a T or an E. Expected failures (I/O, a refused argument, a peer's error)
//   are returned, never thrown. Reading value() of a failed Result throws std::bad_variant_access (a
//   programming error); error() of a successful one is a default E (an empty message).
// - E is the layer's error: a message (std::string: the store, the media store) or a struct with a code
//   (actions::Error). Any E works that is default-constructible.
// - Failure<E> says "this is the error" where the types alone cannot (T and E the same, as in
//   Result<std::string, std::string>); when they differ, an E converts to a Result directly.
// - Result<void, E> (Status<E>) is success or an error.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace sigil {

// The error of a Result, marked as such (std::unexpected's role).
template <class E>
struct Failure {
  E error;
};
template <class E>
Failure(E) -> Failure<E>;

template <class T, class E = std::string>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cvref_t<T>, Failure<E>>, "a Result of a Failure is ambiguous");

 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Failure<E> failure)                                         // NOLINT(google-explicit-constructor)
      : v_(std::in_place_index<1>, std::move(failure.error)) {}
  // An E is an error when it cannot be taken for the value.
  template <class U = E, std::enable_if_t<!std::is_same_v<U, T> && !std::is_convertible_v<U, T>, int> = 0>
  Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const noexcept { return v_.index() == 0; }
  bool ok() const noexcept { return has_value(); }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const& noexcept {
    const E* e = std::get_if<1>(&v_);
    return e != nullptr ? *e : none();
  }
  E error() && {
    E* e = std::get_if<1>(&v_);
    return e != nullptr ? std::move(*e) : E{};
  }

 private:
  static const E& none() {
    static const E kNone{};
    return kNone;
  }
  std::variant<T, E> v_;
};

template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(Failure<E> failure) : error_(std::move(failure.error)), failed_(true) {}  // NOLINT
  Result(E error) : error_(std::move(error)), failed_(true) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const noexcept { return !failed_; }
  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return !failed_; }
  const E& error() const& noexcept { return error_; }
  E error() && { return std::move(error_); }

 private:
  E error_{};
  bool failed_ = false;
};

template <class E = std::string>
using Status = Result<void, E>;

}  // namespace sigil
