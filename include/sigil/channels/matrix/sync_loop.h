// Matrix's /sync long poll as one thread that hands each batch's timeline messages to a callback and keeps
// the batch's `next_batch` token only after the callback recorded them.
//
// What it promises:
// - start(): whoami (the bot's user id, which must be the configured one when one is given) and the bot's
//   display name, then /sync from the token load_since() gives. No token (a first start): an initial sync
//   whose timelines are history, not answered (only its invites are); its next_batch is kept.
// - Each batch: the messages of every joined room's timeline (read_event(), with the room's joined member
//   count) go to on_events in the order they happened; save_since(next_batch) is called only after
//   on_events returned true. False (the consumer could not record them) keeps the old token and syncs from
//   it again after a pause: a crash before recording re-reads the batch, and the consumer's dedupe by
//   event_id makes a batch read twice harmless.
// - A `limited` timeline (more events than the filter's limit came since the last sync): the gap is filled
//   from /messages backwards from its prev_batch, page by page, until an event `seen` knows (recorded
//   before), the start of the room, or 20 pages; those events go first. A gap loses nothing the homeserver
//   still has.
// - Invites: joined (POST /join) when invite_allowed() says the inviter may (allowed_users); others are
//   logged ("matrix-invite-ignored") and left pending.
// - Errors: M_UNKNOWN_TOKEN or M_MISSING_TOKEN (the token is wrong) end the loop with `fatal`; others are
//   tried again after a growing pause (at most max_backoff). A dropped long poll is a read: made again.
// - stop() cancels the long poll, joins the thread; idempotent.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sigil/channels/matrix/client_api.h"
#include "sigil/channels/matrix/inbound.h"

namespace sigil::channels::matrix {

struct SyncOptions {
  std::chrono::milliseconds poll_timeout{30'000};  // the long poll's `timeout`
  std::chrono::milliseconds max_backoff{30'000};
  int timeline_limit = 50;  // the filter's room.timeline.limit
  std::string user_id;      // the configured bot user ("": whoever the token is)
  AdmitPolicy policy;       // its allowed_users decide invites
};

struct SyncState {
  bool connected = false;  // the last /sync answered
  bool fatal = false;      // ended for good (last_error says why)
  std::uint64_t syncs = 0, batches = 0, events = 0, gaps = 0, gap_events = 0, unrecorded = 0, joins = 0,
                failures = 0;
  std::string last_error;
  std::string since;  // the token the next sync starts from
};

class SyncLoop {
 public:
  struct Callbacks {
    std::function<bool(const std::vector<InboundEvent>&)> on_events;  // true once all are recorded
    std::function<bool(const std::string& event_id)> seen;            // recorded before
    std::function<std::string()> load_since;                          // "" when none was kept
    std::function<bool(const std::string& token)> save_since;         // true once kept durably
  };

  // `api` is the loop's own (stop() stops it), made with the bot's access token.
  SyncLoop(ClientApi& api, SyncOptions options, Callbacks callbacks);
  ~SyncLoop();
  SyncLoop(const SyncLoop&) = delete;
  SyncLoop& operator=(const SyncLoop&) = delete;

  void start();
  void stop();
  SyncState state() const;
  // The bot's user id and display name, once whoami answered ("" before).
  std::string bot_user() const;
  std::string bot_name() const;

 private:
  void run(const std::stop_token& stop);
  bool identify();
  // One /sync from since_; false when it failed (the loop pauses).
  bool sync_once(bool initial);
  std::vector<InboundEvent> gap(const std::string& room, const std::string& prev_batch);
  int members(const std::string& room);
  void invites(const boost::json::object& invite);
  void fail(const ApiOutcome& o, std::string_view what);

  ClientApi& api_;
  SyncOptions options_;
  Callbacks cb_;
  std::string filter_;
  std::map<std::string, int> members_;  // room → joined members (loop thread only)
  mutable std::mutex mu_;
  SyncState state_;
  std::string bot_user_, bot_name_;
  std::jthread thread_;
};

}  // namespace sigil::channels::matrix
