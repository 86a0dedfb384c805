// A StreamSink for the model tests: records everything, lets the test wait for on_done.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sigil/model/client.h"
#include "support/locked_copy.h"

namespace sigil::model::testing {

class RecordingSink : public StreamSink {
 public:
  void on_text(std::string_view delta) override {
    std::lock_guard lock(mutex_);
    note_thread();
    text_.append(delta);
    deltas_.emplace_back(delta);
    if (done_) errors_.push_back("text after on_done");
  }
  void on_tool_call(const ToolCall& call) override {
    std::lock_guard lock(mutex_);
    note_thread();
    calls_.push_back(call);
    if (done_) errors_.push_back("tool call after on_done");
  }
  void on_done(const Outcome& outcome) override {
    {
      std::lock_guard lock(mutex_);
      note_thread();
      if (done_) errors_.push_back("on_done twice");
      done_ = true;
      outcome_ = outcome;
    }
    cv_.notify_all();
  }

  // False if on_done did not come in time.
  bool wait(std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [&] { return done_; });
  }
  // Waits until at least `bytes` of text arrived.
  bool wait_for_text(std::size_t bytes, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      {
        std::lock_guard lock(mutex_);
        if (text_.size() >= bytes || done_) return text_.size() >= bytes;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }

  std::string text() const { return test::locked_copy(mutex_, text_); }
  std::vector<std::string> deltas() const { return test::locked_copy(mutex_, deltas_); }
  std::vector<ToolCall> calls() const { return test::locked_copy(mutex_, calls_); }
  Outcome outcome() const { return test::locked_copy(mutex_, outcome_); }
  bool done() const { return test::locked_copy(mutex_, done_); }
  std::vector<std::string> errors() const { return test::locked_copy(mutex_, errors_); }
  std::vector<std::thread::id> threads() const { return test::locked_copy(mutex_, threads_); }

 private:
  void note_thread() {
    auto id = std::this_thread::get_id();
    if (threads_.empty() || threads_.back() != id) threads_.push_back(id);
  }

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::string text_;
  std::vector<std::string> deltas_;
  std::vector<ToolCall> calls_;
  Outcome outcome_;
  bool done_ = false;
  std::vector<std::string> errors_;
  std::vector<std::thread::id> threads_;
};

// A temporary file, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& content, const std::string& suffix = ".jsonl");
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace sigil::model::testing
