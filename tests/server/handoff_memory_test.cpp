// HandoffMemory (src/server/handoff_memory.h): a connection's posts from another thread to its strand
// reuse the connection's memory instead of the heap.
#include "server/handoff_memory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <optional>
#include <thread>

#include "../support/alloc_counter.h"

namespace sigil::server {
namespace {

namespace asio = boost::asio;

// An io thread serving one strand; post() hands it a handler from the test's thread (as the model's
// thread hands a connection its drain) and waits until it ran and the strand is idle, so one hand-off is
// outstanding at a time.
class StrandFromAnotherThread : public ::testing::Test {
 protected:
  void SetUp() override {
    io_ = std::thread([this] { ioc_.run(); });
  }
  void TearDown() override {
    work_.reset();
    io_.join();
  }

  // Posts `n` hand-offs one after the other; returns the allocations the posting thread made.
  template <class Post>
  std::uint64_t allocations_for(int n, Post&& post) {
    const testing::AllocationCount count;
    for (int i = 0; i < n; ++i) {
      const int before = ran_.load();
      // The count goes up from a handler the strand's handler posts to the io_context: on the one io
      // thread it runs only after the strand has finished and is idle again, so the next post finds it
      // idle too (counting inside the strand's handler let the next post race the strand's end).
      post([this] {
        asio::post(ioc_, [this] {
          ran_.fetch_add(1);
          ran_.notify_one();
        });
      });
      ran_.wait(before);
    }
    return count.count();
  }

  asio::io_context ioc_;
  asio::strand<asio::io_context::executor_type> strand_ = asio::make_strand(ioc_);
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{ioc_.get_executor()};
  std::thread io_;
  std::atomic<int> ran_{0};
};

// Both operations asio makes for the post (the strand's, and the one that schedules the idle strand) come
// from the memory, and nothing else is allocated on the posting thread. (asio's own handler memory comes
// from aligned_alloc, which the operator-new count does not see: reused() is what shows it was not used.)
TEST_F(StrandFromAnotherThread, APostBoundToTheMemoryTakesBothOperationsFromIt) {
  HandoffMemory memory;
  const std::uint64_t allocations = allocations_for(100, [&](auto handler) {
    asio::post(strand_, asio::bind_allocator(memory.allocator(), std::move(handler)));
  });
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(memory.reused(), 200u);
  EXPECT_EQ(memory.spilled(), 0u);
  EXPECT_EQ(ran_.load(), 100);
}

// While the strand runs another handler, a post is queued behind it: one operation, and the strand is
// scheduled by the io thread itself. Two posts at once still fit the two slots or go to the heap.
TEST_F(StrandFromAnotherThread, APostBehindARunningHandlerTakesOneSlot) {
  HandoffMemory memory;
  std::atomic<bool> release{false};
  std::atomic<bool> running{false};
  asio::post(strand_, [&] {
    running = true;
    running.notify_one();
    release.wait(false);
  });
  running.wait(false);
  asio::post(strand_, asio::bind_allocator(memory.allocator(), [this] {
               ran_.fetch_add(1);
               ran_.notify_one();
             }));
  EXPECT_EQ(memory.reused(), 1u);
  release = true;
  release.notify_one();
  ran_.wait(0);
  EXPECT_EQ(memory.spilled(), 0u);
}

TEST(HandoffMemory, TwoSlotsThenTheHeap) {
  HandoffMemory memory;
  void* a = memory.allocate(64, alignof(std::max_align_t));
  void* b = memory.allocate(HandoffMemory::kSlotBytes, 8);
  void* c = memory.allocate(16, 8);  // both slots taken
  EXPECT_EQ(memory.reused(), 2u);
  EXPECT_EQ(memory.spilled(), 1u);
  EXPECT_NE(a, b);
  EXPECT_NE(c, a);
  EXPECT_NE(c, b);
  memory.deallocate(c, 8);
  memory.deallocate(a, alignof(std::max_align_t));
  void* again = memory.allocate(32, 8);  // a's slot is free again
  EXPECT_EQ(again, a);
  EXPECT_EQ(memory.reused(), 3u);
  memory.deallocate(again, 8);
  memory.deallocate(b, 8);
}

TEST(HandoffMemory, WhatDoesNotFitASlotGoesToTheHeap) {
  HandoffMemory memory;
  void* big = memory.allocate(HandoffMemory::kSlotBytes + 1, 8);
  void* over_aligned = memory.allocate(16, 2 * alignof(std::max_align_t));
  EXPECT_EQ(memory.reused(), 0u);
  EXPECT_EQ(memory.spilled(), 2u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(over_aligned) % (2 * alignof(std::max_align_t)), 0u);
  memory.deallocate(big, 8);
  memory.deallocate(over_aligned, 2 * alignof(std::max_align_t));
  // Both slots are still free.
  void* a = memory.allocate(8, 8);
  void* b = memory.allocate(8, 8);
  EXPECT_EQ(memory.reused(), 2u);
  memory.deallocate(a, 8);
  memory.deallocate(b, 8);
}

}  // namespace
}  // namespace sigil::server
