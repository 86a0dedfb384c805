#include "sigil/channels/discord/gateway.h"

#include <boost/json/serialize.hpp>
#include <condition_variable>
#include <deque>
#include <random>
#include <utility>

#include "channels/pause.h"
#include "channels/ws_inbox.h"
#include "sigil/channels/json_fields.h"
#include "sigil/log/log.h"

namespace sigil::channels::discord {
namespace {

using Clock = std::chrono::steady_clock;

bool fatal_close(int code) { return code == 4004 || (code >= 4010 && code <= 4014); }

double random_unit() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen);
}

void log_info(std::string event, std::string key, std::string value) {
  if (log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, std::move(event), {}}.with(std::move(key), std::move(value)));
}

}  // namespace

// The connections' events, waited on by the session thread.
struct Gateway::Inbox : WsInbox {};

// One connection's state on the gateway thread.
struct Gateway::Link {
  std::shared_ptr<net::WebSocket> ws;
  std::chrono::milliseconds interval{0};
  Clock::time_point next_beat = Clock::time_point::max();
  bool awaiting_ack = false;
  bool ready = false;

  void send(const boost::json::object& payload) const { ws->send_text(boost::json::serialize(payload)); }
};

Gateway::Gateway(RestApi& rest, net::WebSocketClient& ws, GatewayOptions options, OnDispatch on_dispatch,
                 OnSession on_session)
    : rest_(rest),
      ws_(ws),
      options_(std::move(options)),
      on_dispatch_(std::move(on_dispatch)),
      on_session_(std::move(on_session)),
      inbox_(std::make_shared<Inbox>()) {
  state_.session = options_.resume;
}

Gateway::~Gateway() { stop(); }

void Gateway::start() {
  thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

void Gateway::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    inbox_->cv.notify_all();
    thread_.join();
  }
}

GatewayState Gateway::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

void Gateway::set_error(std::string error) {
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, "discord-gateway", {}}.with("error", error));
  std::lock_guard lock(mu_);
  state_.last_error = std::move(error);
}

std::string Gateway::gateway_url(const std::stop_token& stop, bool& fatal) {
  std::chrono::milliseconds pause{1000};
  while (!stop.stop_requested()) {
    RestRequest r;
    r.path = "/gateway/bot";
    const RestOutcome o = rest_.call(r);
    if (o.ok() && o.body.is_object()) {
      std::string url = string_at(o.body.as_object(), "url");
      if (!url.empty()) return url;
    }
    set_error("GET /gateway/bot: " + (o.ok() ? std::string("no url in the answer") : o.summary()));
    if (o.kind == RestOutcome::Kind::Refused && o.status == 401) {
      fatal = true;  // a wrong token stays wrong
      return {};
    }
    if (!pause_unless_stopped(stop, pause)) return {};
    pause = std::min(pause * 2, options_.max_backoff);
  }
  return {};
}

void Gateway::run(const std::stop_token& stop) {
  std::chrono::milliseconds backoff{500};
  while (!stop.stop_requested()) {
    GatewaySession session;
    {
      std::lock_guard lock(mu_);
      session = state_.session;
    }
    std::string url;
    if (!session.session_id.empty() && !session.resume_url.empty()) {
      url = session.resume_url;
    } else {
      if (url_.empty()) {
        bool fatal = false;
        url_ = gateway_url(stop, fatal);
        if (fatal) {
          std::lock_guard lock(mu_);
          state_.fatal = true;
          return;
        }
        if (url_.empty()) return;  // stopped
      }
      url = url_;
    }
    const After after = connection(stop, url);
    if (after == After::Stop) return;
    if (after == After::Fatal) {
      std::lock_guard lock(mu_);
      state_.fatal = true;
      return;
    }
    {
      std::lock_guard lock(mu_);
      state_.connected = false;
      if (after == After::Identify) state_.session = GatewaySession{};
    }
    // A connection that got as far as READY or RESUMED was good: the next one starts with a short pause.
    backoff = had_ready_ ? std::chrono::milliseconds(500) : std::min(backoff * 2, options_.max_backoff);
    if (after == After::Identify) {
      // Discord asks for a pause of 1 to 5 s before a fresh IDENTIFY.
      if (!pause_unless_stopped(stop,
                                std::chrono::milliseconds(1000 + static_cast<int>(random_unit() * 4000))))
        return;
    } else if (!pause_unless_stopped(stop, backoff)) {
      return;
    }
  }
}

Gateway::After Gateway::connection(const std::stop_token& stop, const std::string& url) {
  std::shared_ptr<net::WebSocketHandler> handler = next_connection(inbox_);
  Link link;
  had_ready_ = false;
  net::WebSocketOptions wo;
  wo.idle_timeout = std::chrono::seconds(90);
  link.ws =
      ws_.connect(url + (url.find('?') == std::string::npos ? "?" : "&") + "v=10&encoding=json", wo, handler);
  {
    std::lock_guard lock(mu_);
    ++state_.connects;
  }
  const auto leave = [&](After after) {
    // 4000, not 1000: a normal close would end the session, and it is to be resumed.
    link.ws->close(4000, after == After::Stop ? "stopping" : "reconnecting");
    std::lock_guard lock(mu_);
    state_.connected = false;
    return after;
  };
  while (true) {
    std::deque<Inbox::Event> batch;
    {
      std::unique_lock lock(inbox_->mu);
      const auto deadline = std::min(link.next_beat, Clock::now() + std::chrono::hours(1));
      inbox_->cv.wait_until(lock, stop, deadline, [&] { return !inbox_->events.empty(); });
      if (stop.stop_requested()) {
        lock.unlock();
        return leave(After::Stop);
      }
      batch.swap(inbox_->events);
    }
    for (Inbox::Event& e : batch) {
      if (e.kind == Inbox::Event::Kind::Open) continue;
      if (e.kind == Inbox::Event::Kind::Close) {
        {
          std::lock_guard lock(mu_);
          state_.connected = false;
        }
        const int code = e.closed.code;
        std::string why = "connection closed";
        if (code != 0)
          why += " with " + std::to_string(code) + (e.closed.reason.empty() ? "" : " " + e.closed.reason);
        if (e.closed.error) why += ": " + e.closed.error->message;
        set_error(why);
        if (fatal_close(code)) return After::Fatal;
        if (code == 4007 || code == 4009) return After::Identify;
        return After::Resume;
      }
      const auto payload = parse_object(e.data);
      if (!payload) continue;
      const After after = on_payload(*payload, link);
      if (after != After::Continue) return leave(after);
    }
    if (Clock::now() >= link.next_beat) {
      if (link.awaiting_ack) {
        {
          std::lock_guard lock(mu_);
          ++state_.missed_acks;
        }
        set_error("heartbeat not acknowledged: reconnecting");
        return leave(After::Resume);
      }
      heartbeat(link);
      link.next_beat = Clock::now() + link.interval;
    }
  }
}

void Gateway::heartbeat(Link& link) {
  std::int64_t seq = 0;
  {
    std::lock_guard lock(mu_);
    seq = state_.session.seq;
  }
  boost::json::object p{{"op", 1}};
  if (seq > 0)
    p["d"] = seq;
  else
    p["d"] = nullptr;
  link.send(p);
  link.awaiting_ack = true;
}

Gateway::After Gateway::on_payload(const boost::json::object& payload, Link& link) {
  const std::int64_t op = int_at(payload, "op");
  static const boost::json::object kEmpty;
  const auto* dv = payload.if_contains("d");
  const boost::json::object& d = dv != nullptr && dv->is_object() ? dv->as_object() : kEmpty;
  switch (op) {
    case 10: {  // HELLO
      link.interval = std::chrono::milliseconds(std::max<std::int64_t>(100, int_at(d, "heartbeat_interval")));
      link.next_beat = Clock::now() + std::chrono::milliseconds(
                                          static_cast<std::int64_t>(link.interval.count() * random_unit()));
      GatewaySession session;
      {
        std::lock_guard lock(mu_);
        session = state_.session;
      }
      if (!session.session_id.empty()) {
        link.send(
            {{"op", 6},
             {"d", {{"token", options_.token}, {"session_id", session.session_id}, {"seq", session.seq}}}});
        log_info("discord-resume", "seq", std::to_string(session.seq));
      } else {
        link.send({{"op", 2},
                   {"d",
                    {{"token", options_.token},
                     {"intents", options_.intents},
                     {"properties", {{"os", "linux"}, {"browser", "sigil"}, {"device", "sigil"}}}}}});
        std::lock_guard lock(mu_);
        ++state_.identifies;
      }
      return After::Continue;
    }
    case 11:  // HEARTBEAT ACK
      link.awaiting_ack = false;
      return After::Continue;
    case 1:  // Discord asks for a heartbeat now
      heartbeat(link);
      return After::Continue;
    case 7:  // RECONNECT
      log_info("discord-reconnect", "why", "op 7");
      return After::Resume;
    case 9: {  // INVALID SESSION
      const bool resumable = dv != nullptr && dv->is_bool() && dv->as_bool();
      {
        std::lock_guard lock(mu_);
        ++state_.invalid_sessions;
      }
      log_info("discord-invalid-session", "resumable", resumable ? "true" : "false");
      return resumable ? After::Resume : After::Identify;
    }
    case 0:
      break;
    default:
      return After::Continue;
  }
  const std::string type = string_at(payload, "t");
  const std::int64_t seq = int_at(payload, "s");
  GatewaySession session;
  if (type == "READY" || type == "RESUMED") {
    std::lock_guard lock(mu_);
    if (type == "READY") {
      state_.session.session_id = string_at(d, "session_id");
      state_.session.resume_url = string_at(d, "resume_gateway_url");
      if (const auto* user = d.if_contains("user"); user != nullptr && user->is_object())
        state_.bot_id = string_at(user->as_object(), "id");
    } else {
      ++state_.resumes;
    }
    state_.connected = true;
    state_.last_error.clear();
    had_ready_ = true;
    if (seq > state_.session.seq || type == "READY") state_.session.seq = seq;
    session = state_.session;
  } else {
    {
      std::lock_guard lock(mu_);
      ++state_.dispatches;
    }
    if (on_dispatch_ && !on_dispatch_(type, d)) {
      set_error("a " + type + " dispatch could not be recorded: resuming to have it again");
      return After::Resume;
    }
    std::lock_guard lock(mu_);
    if (seq > state_.session.seq) state_.session.seq = seq;
    session = state_.session;
  }
  if (on_session_) on_session_(session);
  return After::Continue;
}

}  // namespace sigil::channels::discord
