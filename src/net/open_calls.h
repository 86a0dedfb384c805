// The calls a client has open (HTTP requests, WebSocket sessions), so that its destructor can end each one
// and wait for the last. net/ internal: shared by HttpClient and WebSocketClient.
//
// What it promises: add() lists a call and counts it open; ended() counts it over (the call's last use of
// the client: after it the client may be gone). The list holds weak pointers, so a listed call is never kept
// alive by it, and add() drops the expired ones. take_all() hands the list to the destructor, which cancels
// what is still alive and then wait_all_ended() returns once every call added has ended.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace sigil::net::detail {

template <class Call>
class OpenCalls {
 public:
  void add(const std::shared_ptr<Call>& call) {
    std::lock_guard lock(mu_);
    std::erase_if(open_, [](const std::weak_ptr<Call>& w) { return w.expired(); });
    open_.push_back(call);
    ++count_;
  }
  void ended() {
    {
      std::lock_guard lock(mu_);
      --count_;
    }
    all_ended_.notify_all();
  }
  std::vector<std::weak_ptr<Call>> take_all() {
    std::lock_guard lock(mu_);
    return std::exchange(open_, {});
  }
  void wait_all_ended() {
    std::unique_lock lock(mu_);
    all_ended_.wait(lock, [this] { return count_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable all_ended_;
  std::vector<std::weak_ptr<Call>> open_;
  std::size_t count_ = 0;  // added and not ended: more than open_ holds once a call's last owner let go
};

}  // namespace sigil::net::detail
