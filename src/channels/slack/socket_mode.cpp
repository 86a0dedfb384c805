#include "sigil/channels/slack/socket_mode.h"

#include <boost/json/serialize.hpp>
#include <condition_variable>
#include <deque>
#include <utility>

#include "channels/pause.h"
#include "channels/ws_inbox.h"
#include "sigil/channels/json_fields.h"
#include "sigil/log/log.h"

namespace sigil::channels::slack {
namespace {

// apps.connections.open's refusals that no retry can help: the app-level token is wrong or gone.
bool fatal_refusal(const std::string& error) {
  return error == "invalid_auth" || error == "not_authed" || error == "not_allowed_token_type" ||
         error == "account_inactive" || error == "token_revoked" || error == "missing_scope";
}

void log_info(std::string event, std::string key, std::string value) {
  if (log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, std::move(event), {}}.with(std::move(key), std::move(value)));
}

}  // namespace

// The connections' events, waited on by the session thread.
struct SocketMode::Inbox : WsInbox {};

SocketMode::SocketMode(WebApi& app_api, net::WebSocketClient& ws, SocketModeOptions options, OnEvent on_event)
    : api_(app_api),
      ws_(ws),
      options_(options),
      on_event_(std::move(on_event)),
      inbox_(std::make_shared<Inbox>()) {}

SocketMode::~SocketMode() { stop(); }

void SocketMode::start() {
  thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

void SocketMode::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    inbox_->cv.notify_all();
    thread_.join();
  }
}

SocketModeState SocketMode::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

void SocketMode::set_error(std::string error) {
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, "slack-socket-mode", {}}.with("error", error));
  std::lock_guard lock(mu_);
  state_.last_error = std::move(error);
}

std::string SocketMode::open_url(const std::stop_token& stop, bool& fatal) {
  std::chrono::milliseconds pause{1000};
  while (!stop.stop_requested()) {
    const ApiOutcome o = api_.call("apps.connections.open", {}, true);
    if (o.ok()) {
      std::string url = string_at(o.body, "url");
      if (!url.empty()) return url;
    }
    set_error("apps.connections.open: " + (o.ok() ? std::string("no url in the answer") : o.summary()));
    if (o.kind == ApiOutcome::Kind::Refused && fatal_refusal(o.error)) {
      fatal = true;
      return {};
    }
    if (!pause_unless_stopped(stop, pause)) return {};
    pause = std::min(pause * 2, options_.max_backoff);
  }
  return {};
}

void SocketMode::run(const std::stop_token& stop) {
  std::chrono::milliseconds backoff{250};
  while (!stop.stop_requested()) {
    bool fatal = false;
    const std::string url = open_url(stop, fatal);
    if (fatal) {
      std::lock_guard lock(mu_);
      state_.fatal = true;
      return;
    }
    if (url.empty()) return;  // stopped
    bool had_hello = false;
    const After after = connection(stop, url);
    {
      std::lock_guard lock(mu_);
      had_hello = state_.connected;
      state_.connected = false;
    }
    if (after == After::Stop) return;
    // A connection that got as far as `hello` was good: the next one starts at once after a short pause.
    backoff = had_hello ? std::chrono::milliseconds(250) : std::min(backoff * 2, options_.max_backoff);
    if (!pause_unless_stopped(stop, backoff)) return;
  }
}

SocketMode::After SocketMode::connection(const std::stop_token& stop, const std::string& url) {
  std::shared_ptr<net::WebSocketHandler> handler = next_connection(inbox_);
  net::WebSocketOptions wo;
  // Slack pings every few seconds; a minute without any frame is a dead connection.
  wo.idle_timeout = std::chrono::seconds(60);
  std::shared_ptr<net::WebSocket> ws = ws_.connect(url, wo, handler);
  {
    std::lock_guard lock(mu_);
    ++state_.connects;
  }
  while (true) {
    std::deque<Inbox::Event> batch;
    {
      std::unique_lock lock(inbox_->mu);
      inbox_->cv.wait(lock, stop, [&] { return !inbox_->events.empty(); });
      if (stop.stop_requested()) {
        lock.unlock();
        ws->close(1000, "stopping");
        return After::Stop;
      }
      batch.swap(inbox_->events);
    }
    for (Inbox::Event& e : batch) {
      if (e.kind == Inbox::Event::Kind::Open) continue;
      if (e.kind == Inbox::Event::Kind::Close) {
        std::string why = "connection closed";
        if (e.closed.code != 0)
          why += " with " + std::to_string(e.closed.code) +
                 (e.closed.reason.empty() ? "" : " " + e.closed.reason);
        if (e.closed.error) why += ": " + e.closed.error->message;
        set_error(why);
        return After::Reconnect;
      }
      if (on_message(e.data, *ws)) {
        // Slack asked for a new connection: this one is closed, and what it did not get acked comes again.
        ws->close(1000, "reconnecting");
        return After::Reconnect;
      }
    }
  }
}

bool SocketMode::on_message(const std::string& data, net::WebSocket& ws) {
  const auto message = parse_object(data);
  if (!message) return false;
  const std::string type = string_at(*message, "type");
  const std::string envelope = string_at(*message, "envelope_id");
  if (type == "hello") {
    std::lock_guard lock(mu_);
    state_.connected = true;
    state_.last_error.clear();
    return false;
  }
  if (type == "disconnect") {
    log_info("slack-disconnect", "reason", string_at(*message, "reason"));
    std::lock_guard lock(mu_);
    ++state_.disconnects;
    return true;
  }
  if (envelope.empty()) return false;
  const auto ack = [&] {
    ws.send_text(boost::json::serialize(boost::json::object{{"envelope_id", envelope}}));
    std::lock_guard lock(mu_);
    ++state_.acks;
  };
  if (type != "events_api") {
    {
      std::lock_guard lock(mu_);
      ++state_.ignored;
    }
    log_info("slack-envelope-ignored", "type", type);
    ack();
    return false;
  }
  const auto* payload = message->if_contains("payload");
  const int attempt = static_cast<int>(int_at(*message, "retry_attempt"));
  {
    std::lock_guard lock(mu_);
    ++state_.envelopes;
    if (attempt > 0) ++state_.redeliveries;
  }
  if (payload == nullptr || !payload->is_object()) {
    ack();  // nothing to record: holding it back would only have it sent again
    return false;
  }
  if (on_event_ && !on_event_(payload->as_object(), attempt)) {
    // Not recorded: no ack, so Slack sends it again.
    set_error("an event could not be recorded: left unacked for Slack to send again");
    std::lock_guard lock(mu_);
    ++state_.unrecorded;
    return false;
  }
  ack();
  return false;
}

}  // namespace sigil::channels::slack
