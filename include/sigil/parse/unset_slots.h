// Fixed storage for a few small items that is always written before it is read.
#pragma once

#include <cstddef>
#include <new>
#include <span>
#include <type_traits>

namespace sigil::parse {

// N slots of T whose bytes are left as they are when the owner is made: a slot is for its owner to write
// before reading it (an owner keeps a count of the slots in use and reads only those). Made fresh with a
// parser for every reply, value-initialised arrays of these (the deferred arguments, the open-tag scanner's
// attributes) cost the construction about 140 instructions of zeroing that bought nothing. T must be an
// implicit-lifetime, trivially copyable type (an aggregate of views and integers): its objects begin in the
// byte array when written, and a copy of the owner copies the bytes, set or not, as they are.
template <class T, std::size_t N>
class UnsetSlots {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  static constexpr std::size_t size() noexcept { return N; }
  T* data() noexcept { return std::launder(reinterpret_cast<T*>(bytes_)); }
  const T* data() const noexcept { return std::launder(reinterpret_cast<const T*>(bytes_)); }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  std::span<T, N> span() noexcept { return std::span<T, N>(data(), N); }

 private:
  alignas(T) std::byte bytes_[N * sizeof(T)];
};

}  // namespace sigil::parse
