// What the listener (http_server.cpp) and its sessions (http_session.cpp, websocket_session.cpp) share: the
// agent, the store, the options, the conversation hub and media store, the rate limits, the origin policy,
// the counters, the open turns and the open connections. Plain C++ (no Beast): the "shared state" of the
// Boost.Beast examples.
//
// What it promises:
// - It outlives every session and every turn the server started: the server's Impl declares it before its
//   io_context (sessions still queued in the io_context when that is destroyed count themselves out through
//   `metrics`), and stop() waits for `turns` to empty before the io threads end.
// - `policy` is set by start() before the first connection is accepted, and never changes after.
// - Thread-safe where sessions on several io threads meet: the members are.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "server/conversation_hub.h"
#include "server/media_store.h"
#include "server/origin_policy.h"
#include "server/rate_limiter.h"
#include "server/server_metrics.h"
#include "server/session_list.h"
#include "server/turn_broadcaster.h"
#include "server/turn_registry.h"
#include "sigil/agent/agent.h"
#include "sigil/server/http_server.h"
#include "sigil/store/store.h"

namespace sigil::server {

class FrameTick;

class ServerState {
 public:
  ServerState(agent::Agent& agent, store::Store& store, HttpServerOptions options);

  ServerMetrics metrics;  // first: destroyed last (see above)
  agent::Agent& agent;
  store::Store& store;
  const HttpServerOptions options;
  const std::int64_t started_unix;  // when the server was made (Unix seconds): /v1/models' "created"
  const std::shared_ptr<ConversationHub> hub;
  const std::shared_ptr<MediaStore> media;
  TurnRegistry turns;
  SessionList sessions;
  std::optional<OriginPolicy> policy;
  // Set by start() when HttpServerOptions::frame_tick is not 0, before the first connection (frame_tick.h).
  std::shared_ptr<FrameTick> frame_tick;

  TurnBroadcaster::Shared broadcast_target() { return {hub, media, &store}; }

  // 0: allowed; else the seconds to wait (and the refusal is counted). Both the user's bucket and the peer
  // address's ("" = none): rotating the client-chosen user id does not get past the second.
  double rate_check(const std::string& user, const std::string& address);
  std::string rate_message(double wait) const;

  std::string metrics_text();

  // A turn started here: announced to the conversation's watchers ("turn" frame), then run; its events go
  // to `observer`. The turn must have been opened in `turns`, under an id from turns.new_id() (fresh: the
  // agent does not look for an earlier run of it).
  void start_web_turn(const std::string& user, const std::string& conversation, const std::string& text,
                      const std::string& turn_id, const std::optional<std::string>& client_id,
                      std::shared_ptr<agent::TurnObserver> observer);

 private:
  RateLimiter limiter_;
  RateLimiter address_limiter_;  // keyed by the peer's address: a client cannot choose it
};

}  // namespace sigil::server
