// Memory for a connection's hand-offs from other threads (the model thread's post of a drain to the
// connection's strand), reused from one hand-off to the next.
//
// Why: asio recycles a handler's memory only on its own io threads; a post from a model thread allocates
// the strand's operation and, when the strand was idle, the operation that schedules the strand, both freed
// on the io thread. That was two mallocs per delivered token. A connection has at most one drain posted at
// a time, so two fixed slots cover it: bind HandoffMemory::allocator() to the posted handler (asio uses the
// handler's allocator for both operations).
//
// What it promises:
// - allocate() hands out a free slot when the request fits one (kSlotBytes, max_align_t alignment), else
//   heap memory; deallocate() takes either back. Both are thread-safe (a slot is taken on one thread and
//   given back on another) and lock-free.
// - The memory must outlive every handler bound to it: the connection that owns it is kept alive by the
//   handlers themselves (asio frees a handler's memory before its handler object is destroyed).
// - reused() and spilled() count the hand-offs served by a slot and by the heap (for tests).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <new>

namespace sigil::server {

class HandoffMemory {
 public:
  static constexpr std::size_t kSlots = 2;
  static constexpr std::size_t kSlotBytes = 192;

  HandoffMemory() = default;
  HandoffMemory(const HandoffMemory&) = delete;
  HandoffMemory& operator=(const HandoffMemory&) = delete;

  void* allocate(std::size_t bytes, std::size_t align) {
    if (bytes <= kSlotBytes && align <= alignof(std::max_align_t)) {
      for (std::size_t i = 0; i < kSlots; ++i) {
        if (!slots_[i].busy.exchange(true, std::memory_order_acquire)) {
          reused_.fetch_add(1, std::memory_order_relaxed);
          return slots_[i].bytes;
        }
      }
    }
    spilled_.fetch_add(1, std::memory_order_relaxed);
    return ::operator new (bytes, std::align_val_t{align});
  }

  void deallocate(void* p, std::size_t align) noexcept {
    for (auto& slot : slots_) {
      if (p == slot.bytes) return slot.busy.store(false, std::memory_order_release);
    }
    ::operator delete (p, std::align_val_t{align});
  }

  std::size_t reused() const { return reused_.load(std::memory_order_relaxed); }
  std::size_t spilled() const { return spilled_.load(std::memory_order_relaxed); }

  // A standard allocator over this memory, for asio::bind_allocator.
  template <class T>
  struct Allocator {
    using value_type = T;
    HandoffMemory* memory;

    explicit Allocator(HandoffMemory& m) noexcept : memory(&m) {}
    template <class U>
    Allocator(const Allocator<U>& other) noexcept : memory(other.memory) {}  // NOLINT: rebinding converts

    T* allocate(std::size_t n) { return static_cast<T*>(memory->allocate(n * sizeof(T), alignof(T))); }
    void deallocate(T* p, std::size_t) noexcept { memory->deallocate(p, alignof(T)); }

    template <class U>
    bool operator==(const Allocator<U>& other) const noexcept {
      return memory == other.memory;
    }
  };

  Allocator<void> allocator() { return Allocator<void>(*this); }

 private:
  struct Slot {
    alignas(std::max_align_t) unsigned char bytes[kSlotBytes];
    std::atomic<bool> busy{false};
  };
  std::array<Slot, kSlots> slots_;
  std::atomic<std::size_t> reused_{0};
  std::atomic<std::size_t> spilled_{0};
};

}  // namespace sigil::server
