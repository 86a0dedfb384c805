// Test support: counts calls of the global operator new on the calling thread, for tests that assert a path
// allocates nothing (or a stated number of times). The test binary replaces the global operator new and
// delete (alloc_counter.cpp) with malloc and free plus a thread-local count.
#pragma once

#include <cstdint>

namespace sigil::testing {

// Calls of any global operator new on this thread since the program started.
std::uint64_t allocations_on_this_thread();

// The allocations made on this thread while it lives.
class AllocationCount {
 public:
  AllocationCount() : start_(allocations_on_this_thread()) {}
  std::uint64_t count() const { return allocations_on_this_thread() - start_; }

 private:
  std::uint64_t start_;
};

}  // namespace sigil::testing
