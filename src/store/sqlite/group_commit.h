// Leader/follower group commit: writes that wait at the same time share one transaction. Used by the
// exactly-once log (once_log.cpp, one fsync per batch) and the conversation history (messages.cpp, one WAL
// commit per batch: the row, its indexes, FTS5's segment and the commit's WAL frames written once for
// every append of the batch).
//
// What it promises: commit() returns only once run() has handled every op it was given (each op's outcome
// is in the op), so a caller whose run() commits before returning has its own write committed when
// commit() returns, exactly as if it had committed alone. The first waiting thread leads: it takes every op
// queued by then and calls run(batch) without the queue's lock; ops queued meanwhile wait for the next
// leader, one of their own threads. No thread is started, and no op waits for a timer: a lone write is
// written at once.
//
// When run() throws (the store's runs return Status: only bad_alloc or a bug can throw), the exception
// fails every op of the batch it was running, and only those: each op is marked done with the exception
// in its `thrown`, the leader role is given up and the waiters woken, and commit() rethrows it in every
// thread whose ops were in that batch (the leader and its followers), as if each had run alone and thrown.
// Ops queued meanwhile go out in the next batch, led by one of their threads; later commits work as before.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <vector>

namespace sigil::store::sqlite {

// Op: any type with a `bool done` member, false when queued, and a `std::exception_ptr thrown` member, null
// when queued; GroupCommit sets them (under its lock) once the op's batch has run, `thrown` to what run()
// threw if it threw.
template <class Op>
class GroupCommit {
 public:
  template <class Run>
  void commit(std::span<Op* const> ops, Run&& run) {
    std::unique_lock lock(mu_);
    pending_.insert(pending_.end(), ops.begin(), ops.end());
    const auto all_done = [&ops] {
      return std::all_of(ops.begin(), ops.end(), [](Op* o) { return o->done; });
    };
    while (!all_done()) {
      if (leader_) {
        cv_.wait(lock);
        continue;
      }
      leader_ = true;
      batch_.swap(pending_);
      ++batches_;
      lock.unlock();
      std::exception_ptr thrown;  // caught, not left to unwind: the role must be given up and the batch woken
      try {
        run(static_cast<const std::vector<Op*>&>(batch_));
      } catch (...) {
        thrown = std::current_exception();
      }
      lock.lock();
      for (Op* o : batch_) {
        o->done = true;
        o->thrown = thrown;
      }
      batch_.clear();  // keeps its capacity for the next leader
      leader_ = false;
      cv_.notify_all();
    }
    for (Op* o : ops)  // every op of one commit() goes out in one batch: one exception at most
      if (o->thrown) std::rethrow_exception(o->thrown);
  }

  // Ops waiting for a leader now (a test waits for a known number before letting a batch go).
  std::size_t queued() const {
    std::lock_guard lock(mu_);
    return pending_.size();
  }
  // Batches run so far.
  std::uint64_t batches() const {
    std::lock_guard lock(mu_);
    return batches_;
  }

 private:
  mutable std::mutex mu_;  // never held while run() works
  std::condition_variable cv_;
  std::vector<Op*> pending_;
  std::vector<Op*> batch_;  // the leader's; only the leader touches it between its swap and its clear
  bool leader_ = false;
  std::uint64_t batches_ = 0;
};

}  // namespace sigil::store::sqlite
