#include "sigil/channels/matrix/sync_loop.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <utility>

#include "sigil/channels/json_fields.h"
#include "sigil/log/log.h"
#include "sigil/net/url.h"

namespace sigil::channels::matrix {
namespace {

constexpr int kGapPages = 20;
constexpr int kGapPage = 100;

const boost::json::object* object_in(const boost::json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

const boost::json::array* array_in(const boost::json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  return v != nullptr && v->is_array() ? &v->as_array() : nullptr;
}

// The bot's own join to the room: what came before it is the room's history, not said to the bot.
bool own_join(const boost::json::object& e, const std::string& bot) {
  if (string_at(e, "type") != "m.room.member" || string_at(e, "state_key") != bot) return false;
  const auto* c = object_in(e, "content");
  return c != nullptr && string_at(*c, "membership") == "join";
}

bool is_member_event(const boost::json::value& v) {
  return v.is_object() && string_at(v.as_object(), "type") == "m.room.member";
}

}  // namespace

SyncLoop::SyncLoop(ClientApi& api, SyncOptions options, Callbacks callbacks)
    : api_(api), options_(std::move(options)), cb_(std::move(callbacks)) {
  filter_ = boost::json::serialize(boost::json::object{
      {"room", boost::json::object{{"timeline", boost::json::object{{"limit", options_.timeline_limit}}}}},
      {"presence", boost::json::object{{"types", boost::json::array{}}}}});
}

SyncLoop::~SyncLoop() { stop(); }

void SyncLoop::start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    state_.since = cb_.load_since ? cb_.load_since() : std::string();
  }
  thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

void SyncLoop::stop() {
  api_.stop();
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

SyncState SyncLoop::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

std::string SyncLoop::bot_user() const {
  std::lock_guard lock(mu_);
  return bot_user_;
}

std::string SyncLoop::bot_name() const {
  std::lock_guard lock(mu_);
  return bot_name_;
}

void SyncLoop::fail(const ApiOutcome& o, std::string_view what) {
  std::lock_guard lock(mu_);
  state_.connected = false;
  ++state_.failures;
  state_.last_error = std::string(what) + ": " + o.summary();
  if (o.errcode == "M_UNKNOWN_TOKEN" || o.errcode == "M_MISSING_TOKEN") state_.fatal = true;
}

bool SyncLoop::identify() {
  const ApiOutcome who = api_.call("GET", "/_matrix/client/v3/account/whoami", "", true);
  if (!who.ok()) {
    fail(who, "whoami");
    return false;
  }
  const std::string user = string_at(who.body, "user_id");
  if (!options_.user_id.empty() && user != options_.user_id) {
    std::lock_guard lock(mu_);
    state_.fatal = true;
    state_.last_error = "the access token is " + user + "'s, not " + options_.user_id + "'s";
    return false;
  }
  const ApiOutcome profile = api_.call("GET", "/_matrix/client/v3/profile/" + path_segment(user), "", true);
  std::lock_guard lock(mu_);
  bot_user_ = user;
  options_.policy.bot_user = user;
  if (profile.ok()) bot_name_ = string_at(profile.body, "displayname");
  return true;
}

void SyncLoop::run(const std::stop_token& stop) {
  std::chrono::milliseconds backoff{500};
  bool known = false;
  while (!stop.stop_requested()) {
    if (!known) known = identify();
    bool initial = false;
    {
      std::lock_guard lock(mu_);
      if (state_.fatal) break;
      initial = state_.since.empty();
    }
    if (known && sync_once(initial)) {
      backoff = std::chrono::milliseconds(500);
      continue;
    }
    if (state().fatal || api_.stopped()) break;
    if (!api_.pause_for(backoff)) break;
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
  std::lock_guard lock(mu_);
  state_.connected = false;
}

int SyncLoop::members(const std::string& room) {
  if (const auto it = members_.find(room); it != members_.end()) return it->second;
  const ApiOutcome o =
      api_.call("GET", "/_matrix/client/v3/rooms/" + path_segment(room) + "/joined_members", "", true);
  if (!o.ok()) return 0;  // unknown: the room is not taken for a DM this time
  const auto* joined = object_in(o.body, "joined");
  const int n = joined == nullptr ? 0 : static_cast<int>(joined->size());
  members_[room] = n;
  return n;
}

std::vector<InboundEvent> SyncLoop::gap(const std::string& room, const std::string& prev_batch) {
  std::vector<InboundEvent> out;  // newest first while paging
  std::string from = prev_batch;
  const std::string bot = bot_user();
  bool done = false;
  for (int page = 0; page < kGapPages && !done && !from.empty(); ++page) {
    const ApiOutcome o = api_.call("GET",
                                   "/_matrix/client/v3/rooms/" + path_segment(room) +
                                       "/messages?dir=b&limit=" + std::to_string(kGapPage) +
                                       "&from=" + net::percent_encode(from),
                                   "", true);
    if (!o.ok()) {
      fail(o, "messages");
      break;
    }
    const auto* chunk = array_in(o.body, "chunk");
    if (chunk == nullptr || chunk->empty()) break;
    for (const auto& v : *chunk) {
      if (!v.is_object()) continue;
      const auto& e = v.as_object();
      if (own_join(e, bot)) {
        done = true;
        break;
      }
      auto m = read_event(room, e);
      if (!m) continue;
      if (cb_.seen && m->sender != bot && cb_.seen(m->event_id)) {
        done = true;
        break;
      }
      out.push_back(std::move(*m));
    }
    from = string_at(o.body, "end");
  }
  std::reverse(out.begin(), out.end());
  return out;
}

void SyncLoop::invites(const boost::json::object& invite) {
  const std::string bot = bot_user();
  for (const auto& [room, v] : invite) {
    if (!v.is_object()) continue;
    std::string inviter;
    if (const auto* st = object_in(v.as_object(), "invite_state"))
      if (const auto* events = array_in(*st, "events"))
        for (const auto& ev : *events)
          if (ev.is_object() && string_at(ev.as_object(), "type") == "m.room.member" &&
              string_at(ev.as_object(), "state_key") == bot)
            inviter = string_at(ev.as_object(), "sender");
    const std::string room_id(room);
    if (!invite_allowed(inviter, options_.policy)) {
      if (log::enabled(log::Level::info))
        log::write(log::Record{log::Level::info, "matrix-invite-ignored", {}}
                       .with("room", room_id)
                       .with("from", inviter)
                       .with("why", "inviter not in allowed_users"));
      continue;
    }
    const ApiOutcome o =
        api_.call("POST", "/_matrix/client/v3/rooms/" + path_segment(room_id) + "/join", "{}", true);
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "matrix-invite", {}}
                     .with("room", room_id)
                     .with("from", inviter)
                     .with("joined", o.ok() ? "yes" : o.summary()));
    if (o.ok()) {
      std::lock_guard lock(mu_);
      ++state_.joins;
    }
  }
}

bool SyncLoop::sync_once(bool initial) {
  std::string since;
  {
    std::lock_guard lock(mu_);
    since = state_.since;
  }
  std::string path = "/_matrix/client/v3/sync?filter=" + net::percent_encode(filter_);
  if (!initial) {
    path +=
        "&since=" + net::percent_encode(since) + "&timeout=" + std::to_string(options_.poll_timeout.count());
  }
  const ApiOutcome o = api_.call("GET", path, "", true, options_.poll_timeout + std::chrono::seconds(15));
  {
    std::lock_guard lock(mu_);
    ++state_.syncs;
  }
  if (!o.ok()) {
    fail(o, "sync");
    return false;
  }
  const std::string next = string_at(o.body, "next_batch");
  const std::string bot = bot_user();
  std::vector<InboundEvent> batch;
  std::uint64_t gaps = 0, gap_events = 0;
  if (const auto* rooms = object_in(o.body, "rooms")) {
    if (const auto* join = object_in(*rooms, "join")) {
      for (const auto& [room_key, rv] : *join) {
        if (!rv.is_object()) continue;
        const std::string room(room_key);
        const auto& r = rv.as_object();
        const auto* timeline = object_in(r, "timeline");
        const auto* events = timeline == nullptr ? nullptr : array_in(*timeline, "events");
        const auto* state = object_in(r, "state");
        const auto* state_events = state == nullptr ? nullptr : array_in(*state, "events");
        if ((state_events != nullptr &&
             std::any_of(state_events->begin(), state_events->end(), is_member_event)) ||
            (events != nullptr && std::any_of(events->begin(), events->end(), is_member_event)))
          members_.erase(room);                      // membership changed: counted again when needed
        if (initial || events == nullptr) continue;  // an initial sync's timelines are history
        std::vector<InboundEvent> room_events;
        bool joined_here = false;
        for (const auto& v : *events) {
          if (!v.is_object()) continue;
          if (own_join(v.as_object(), bot)) {
            room_events.clear();  // before the bot joined: history
            joined_here = true;
            continue;
          }
          if (auto m = read_event(room, v.as_object())) room_events.push_back(std::move(*m));
        }
        if (!joined_here && bool_at(*timeline, "limited")) {
          std::vector<InboundEvent> missed = gap(room, string_at(*timeline, "prev_batch"));
          ++gaps;
          gap_events += missed.size();
          missed.insert(missed.end(), std::make_move_iterator(room_events.begin()),
                        std::make_move_iterator(room_events.end()));
          room_events = std::move(missed);
        }
        if (room_events.empty()) continue;
        const int n = members(room);
        for (InboundEvent& m : room_events) {
          m.room_members = n;
          batch.push_back(std::move(m));
        }
      }
    }
    if (const auto* invite = object_in(*rooms, "invite")) invites(*invite);
  }
  // Across rooms, in the order they happened.
  std::stable_sort(batch.begin(), batch.end(),
                   [](const InboundEvent& a, const InboundEvent& b) { return a.ts < b.ts; });
  if (!batch.empty() && cb_.on_events && !cb_.on_events(batch)) {
    std::lock_guard lock(mu_);
    ++state_.unrecorded;
    state_.last_error = "the batch's events could not be recorded";
    return false;  // the same token again: the batch comes again
  }
  const bool kept = next.empty() || !cb_.save_since || cb_.save_since(next);
  std::lock_guard lock(mu_);
  state_.connected = true;
  ++state_.batches;
  state_.events += batch.size();
  state_.gaps += gaps;
  state_.gap_events += gap_events;
  if (!next.empty()) state_.since = next;  // kept in memory even when not on disk: a restart re-reads
  if (!kept) state_.last_error = "the sync token could not be kept";
  return true;
}

}  // namespace sigil::channels::matrix
