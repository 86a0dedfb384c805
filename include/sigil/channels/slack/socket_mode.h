// Slack's Socket Mode as one thread that keeps a WebSocket to Slack open over net::WebSocketClient and hands
// each Events API payload to a callback, acking its envelope only after the callback recorded it.
//
// What it promises:
// - start(): the WebSocket URL comes from apps.connections.open, called with the app-level token (`xapp-`:
//   the WebApi given is made with it); each URL is used once. A refusal no retry can help (invalid_auth,
//   not_authed, not_allowed_token_type, account_inactive, token_revoked) ends the session with `fatal` and
//   last_error set; other failures are tried again after a growing pause.
// - `hello` marks the connection connected. An `events_api` envelope's payload (an event_callback: event_id,
//   event, ...) goes to on_event with its retry_attempt, one at a time on the session's thread; the envelope
//   is acked (`{"envelope_id": …}`) only when on_event returned true. False (the consumer could not record
//   it) leaves it unacked, so Slack sends it again: a crash before recording loses nothing, and what comes
//   twice (a redelivery after a late ack, the same message as `message` and `app_mention`) the consumer
//   recognises by event_id or the message's channel and ts. Envelopes of other types (slash commands,
//   interactivity) are acked at once and counted as `ignored`: sigil's app does not subscribe to them.
// - `disconnect` (refresh_requested, warning, …) and dropped connections reconnect with a new
//   apps.connections.open; what Slack sent on the old connection and we did not ack, it sends again.
// - stop() closes the connection (1000), joins the thread; idempotent.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sigil/channels/slack/web_api.h"
#include "sigil/net/websocket_client.h"

namespace sigil::channels::slack {

struct SocketModeOptions {
  std::chrono::milliseconds max_backoff{30'000};
};

struct SocketModeState {
  bool connected = false;  // `hello` came on the current connection
  bool fatal = false;      // ended for good (last_error says why)
  std::uint64_t connects = 0, envelopes = 0, acks = 0, unrecorded = 0, redeliveries = 0, disconnects = 0,
                ignored = 0;
  std::string last_error;
};

class SocketMode {
 public:
  // The Events API payload and the envelope's retry_attempt; true once the event is recorded.
  using OnEvent = std::function<bool(const boost::json::object& payload, int retry_attempt)>;

  SocketMode(WebApi& app_api, net::WebSocketClient& ws, SocketModeOptions options, OnEvent on_event);
  ~SocketMode();
  SocketMode(const SocketMode&) = delete;
  SocketMode& operator=(const SocketMode&) = delete;

  void start();
  void stop();
  SocketModeState state() const;

 private:
  struct Inbox;
  enum class After : unsigned char { Reconnect, Stop };

  void run(const std::stop_token& stop);
  After connection(const std::stop_token& stop, const std::string& url);
  // Handles one message from Slack; true when Slack asked for a new connection (`disconnect`).
  bool on_message(const std::string& data, net::WebSocket& ws);
  std::string open_url(const std::stop_token& stop, bool& fatal);
  void set_error(std::string error);

  WebApi& api_;
  net::WebSocketClient& ws_;
  SocketModeOptions options_;
  OnEvent on_event_;
  std::shared_ptr<Inbox> inbox_;  // shared with the connections' handlers, which may outlive a connection
  mutable std::mutex mu_;
  SocketModeState state_;
  std::jthread thread_;
};

}  // namespace sigil::channels::slack
