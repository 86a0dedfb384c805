// A list of small trivially copyable items whose first few live inside its owner.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include "sigil/parse/unset_slots.h"

namespace sigil::parse {

// Up to N items live inside the object, so an owner made fresh for one reply (the open-tag scanner of a
// fresh parser) allocates nothing for its first short lists; the (N+1)th item moves the list to the heap,
// once, where it then stays (clear() keeps the storage). Contiguous either way: items() is one span.
template <class T, std::size_t N>
class InlineList {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  void clear() noexcept {
    size_ = 0;
    heap_.clear();
  }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  std::span<const T> items() const noexcept { return {data(), size_}; }
  void push_back(const T& item) {
    if (!spilled_ && size_ < N) [[likely]] {
      inline_[size_++] = item;
      return;
    }
    push_back_heap(item);
  }

 private:
  // Out of line: the inline push_back stays small enough to be inlined where it is called.
  [[gnu::noinline]] void push_back_heap(const T& item) {
    if (!spilled_) {
      heap_.assign(inline_.data(), inline_.data() + size_);
      spilled_ = true;
    }
    heap_.push_back(item);
    ++size_;
  }
  T* data() noexcept { return spilled_ ? heap_.data() : inline_.data(); }
  const T* data() const noexcept { return spilled_ ? heap_.data() : inline_.data(); }

  UnsetSlots<T, N> inline_;  // [0, size_) set until spilled
  std::vector<T> heap_;      // the items once spilled
  std::size_t size_ = 0;
  bool spilled_ = false;
};

}  // namespace sigil::parse
