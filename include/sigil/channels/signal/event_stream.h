// The receive side of a Signal bot: signal-cli's Server-Sent Events stream (GET /api/v1/events) read without
// end on a thread of its own, kept alive, and every received message handed on in order.
//
// What it promises:
// - Each `event:receive` event's data (signal-cli's `{"envelope":…,"account":…}`) is parsed and handed to
//   on_receive, one at a time, in the order signal-cli wrote them, on the stream's thread (never an io
//   thread). Events of other types and data that is not a JSON object are counted (`unreadable`), not
//   handed on.
// - Liveness: signal-cli writes a keep-alive comment every 15 s. A stream that brings nothing, not even a
//   keep-alive, for `silence_limit` (default 40 s) is taken for dead (the peers' top Signal bug: the stream
//   dies silently while sends still work): it is cancelled and opened again, counted as `silent_restarts`
//   and logged. A stream that ends or fails is opened again after `reconnect_pause`, counted as `drops`.
//   Before each new stream GET /api/v1/check says whether signal-cli runs at all (`daemon_down` counts the
//   times it did not).
// - What cannot be promised here: signal-cli acknowledges a message to Signal before it writes it to the
//   stream. A message written into a stream that is already dead is lost, and with signal-cli's default
//   receive mode (on-start) so is every message that arrives while no stream is open. Run signal-cli with
//   `--receive-mode on-connection`: it then receives only while a stream is open, and what arrives between
//   streams waits on Signal's server (docs/channels/signal.md).
// - stop() ends the stream and joins the thread; on_receive is not called after stop() returns.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sigil/net/http_client.h"

namespace sigil::channels::signal {

struct EventStreamOptions {
  std::chrono::milliseconds silence_limit{40'000};
  std::chrono::milliseconds reconnect_pause{1'000};
};

struct EventStreamStats {
  std::uint64_t connects = 0;         // streams opened (a 200 answer)
  std::uint64_t drops = 0;            // streams that ended or failed
  std::uint64_t silent_restarts = 0;  // streams given up for silence
  std::uint64_t daemon_down = 0;      // checks signal-cli did not answer
  std::uint64_t events = 0;           // receive events handed on
  std::uint64_t unreadable = 0;       // events not handed on
  bool connected = false;
  std::string last_error;
};

class EventStream {
 public:
  using OnReceive = std::function<void(const boost::json::object& event)>;

  // `base_url`: signal-cli's address ("http://127.0.0.1:8080").
  EventStream(net::HttpClient& client, std::string base_url, OnReceive on_receive,
              EventStreamOptions options = {});
  ~EventStream();
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  void start();
  void stop();
  EventStreamStats stats() const;

  struct Shared;

 private:
  void run();
  bool check_daemon();

  net::HttpClient& client_;
  const std::string base_url_;
  OnReceive on_receive_;
  EventStreamOptions options_;
  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace sigil::channels::signal
