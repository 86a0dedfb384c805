// Discord's Gateway (v10, JSON) as one thread that keeps a session alive over net::WebSocketClient and hands
// each dispatch to a callback.
//
// What it promises:
// - start(): the gateway URL comes from GET /gateway/bot (asked again after a failure, with a growing
//   pause). On HELLO it IDENTIFYs with `intents` (GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT by
//   default), or RESUMEs when it has a session (session_id, the last handled seq, at resume_gateway_url).
// - Heartbeats: the first after heartbeat_interval × a random jitter in [0, 1), then every interval, each
//   with the last seq; a heartbeat whose ACK has not come when the next is due closes the connection and
//   resumes on a new one. An op 1 from Discord is answered at once.
// - Dispatches go to on_dispatch in the order of their seq, one at a time, on the gateway thread. The seq
//   is taken as handled only when on_dispatch returned true; false (the consumer could not record it)
//   closes the connection and resumes from the last handled seq, so Discord replays it. RESUME after a drop
//   therefore loses nothing; what it replays twice the consumer recognises by the message id.
// - op 7 RECONNECT and dropped connections (any close but the fatal ones) resume; op 9 INVALID_SESSION with
//   d=false (and close codes 4007, 4009) forgets the session and, after 1–5 s, IDENTIFYs afresh; with
//   d=true it resumes. Close codes 4004 (authentication failed), 4010–4014 (shard, version, intents) end
//   the gateway with last_error set: no retry can help.
// - on_session gets the session after READY, RESUMED and each handled dispatch, so a consumer can keep it
//   (a restarted process RESUMEs it and Discord replays what came while it was away).
// - stop() closes with code 4000 (the session stays resumable), joins the thread; idempotent.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "sigil/channels/discord/rest_api.h"
#include "sigil/net/websocket_client.h"

namespace sigil::channels::discord {

inline constexpr std::uint32_t kIntentGuildMessages = 1u << 9;
inline constexpr std::uint32_t kIntentDirectMessages = 1u << 12;
inline constexpr std::uint32_t kIntentMessageContent = 1u << 15;

struct GatewaySession {
  std::string session_id;
  std::int64_t seq = 0;
  std::string resume_url;
};

struct GatewayOptions {
  std::string token;
  std::uint32_t intents = kIntentGuildMessages | kIntentDirectMessages | kIntentMessageContent;
  GatewaySession resume;  // a session kept from before: RESUMEd first
  std::chrono::milliseconds max_backoff{30'000};
};

struct GatewayState {
  bool connected = false;  // READY or RESUMED on the current connection
  bool fatal = false;      // ended for good (last_error says why)
  std::string bot_id;      // from READY
  GatewaySession session;
  std::uint64_t connects = 0, identifies = 0, resumes = 0, invalid_sessions = 0, missed_acks = 0,
                dispatches = 0;
  std::string last_error;
};

class Gateway {
 public:
  using OnDispatch = std::function<bool(std::string_view type, const boost::json::object& data)>;
  using OnSession = std::function<void(const GatewaySession&)>;

  Gateway(RestApi& rest, net::WebSocketClient& ws, GatewayOptions options, OnDispatch on_dispatch,
          OnSession on_session = {});
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  void start();
  void stop();
  GatewayState state() const;

 private:
  struct Inbox;
  struct Link;
  enum class After : unsigned char { Continue, Resume, Identify, Fatal, Stop };

  void run(const std::stop_token& stop);
  After connection(const std::stop_token& stop, const std::string& url);
  After on_payload(const boost::json::object& payload, Link& link);
  void heartbeat(Link& link);
  std::string gateway_url(const std::stop_token& stop, bool& fatal);
  void set_error(std::string error);

  RestApi& rest_;
  net::WebSocketClient& ws_;
  GatewayOptions options_;
  OnDispatch on_dispatch_;
  OnSession on_session_;
  std::shared_ptr<Inbox> inbox_;  // shared with the connections' handlers, which may outlive a connection
  std::string url_;               // from GET /gateway/bot
  bool had_ready_ = false;        // the current connection got READY or RESUMED
  mutable std::mutex mu_;
  GatewayState state_;
  std::jthread thread_;
};

}  // namespace sigil::channels::discord
