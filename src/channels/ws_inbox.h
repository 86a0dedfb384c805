// Where a channel's WebSocket connection leaves its events for the channel's session thread (Discord's
// gateway, Slack's Socket Mode): the handler runs on the I/O thread and only queues; the session thread
// waits on `cv` and handles the events in order. Each connection gets a generation, so what an old
// connection's handler still pushes after a reconnect is dropped rather than mistaken for the new one's.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "sigil/net/websocket_client.h"

namespace sigil::channels {

struct WsInbox {
  struct Event {
    std::uint64_t generation = 0;
    enum class Kind : unsigned char { Open, Message, Close } kind = Kind::Open;
    std::string data;
    net::WebSocketClosed closed;
  };
  std::mutex mu;
  std::condition_variable_any cv;
  std::deque<Event> events;
  std::uint64_t generation = 0;  // the current connection's; events of older ones are dropped

  void push(Event e) {
    {
      std::lock_guard lock(mu);
      if (e.generation != generation) return;
      events.push_back(std::move(e));
    }
    cv.notify_all();
  }
};

// Starts a new connection's generation on `inbox` (dropping what the older ones left) and returns the
// handler to connect with. The handler holds the inbox weakly: it may outlive the channel that owns it.
inline std::shared_ptr<net::WebSocketHandler> next_connection(const std::shared_ptr<WsInbox>& inbox) {
  class Handler final : public net::WebSocketHandler {
   public:
    Handler(std::weak_ptr<WsInbox> inbox, std::uint64_t generation)
        : inbox_(std::move(inbox)), generation_(generation) {}
    void on_open() override { push(WsInbox::Event::Kind::Open, {}, {}); }
    void on_message(std::string_view data, bool /*binary*/) override {
      push(WsInbox::Event::Kind::Message, std::string(data), {});
    }
    void on_close(const net::WebSocketClosed& closed) override {
      push(WsInbox::Event::Kind::Close, {}, closed);
    }

   private:
    void push(WsInbox::Event::Kind kind, std::string data, net::WebSocketClosed closed) const {
      if (auto inbox = inbox_.lock())
        inbox->push(WsInbox::Event{generation_, kind, std::move(data), std::move(closed)});
    }
    std::weak_ptr<WsInbox> inbox_;
    std::uint64_t generation_;
  };
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(inbox->mu);
    generation = ++inbox->generation;
    inbox->events.clear();
  }
  return std::make_shared<Handler>(inbox, generation);
}

}  // namespace sigil::channels
