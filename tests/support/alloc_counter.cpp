// The global operator new and delete of the test binary: malloc and free, counted per thread (the count is
// thread-local, so other threads' allocations never show up in a test's figure). Every replaceable form that
// allocates plain storage is replaced, and every matching delete frees with free(), so under AddressSanitizer
// allocations and deallocations still pair (malloc/free). The aligned forms are left to the runtime.
#include "alloc_counter.h"

#include <cstdlib>
#include <new>

namespace {

thread_local std::uint64_t g_allocations = 0;

void* counted(std::size_t size) {
  ++g_allocations;
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* counted_nothrow(std::size_t size) noexcept {
  ++g_allocations;
  return std::malloc(size == 0 ? 1 : size);
}

}  // namespace

namespace sigil::testing {
std::uint64_t allocations_on_this_thread() { return g_allocations; }
}  // namespace sigil::testing

void* operator new(std::size_t size) { return counted(size); }
void* operator new[](std::size_t size) { return counted(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_nothrow(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_nothrow(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
