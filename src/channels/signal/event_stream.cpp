#include "sigil/channels/signal/event_stream.h"

#include <boost/json/parse.hpp>
#include <utility>
#include <vector>

#include "sigil/log/log.h"
#include "sigil/net/blocking_fetch.h"
#include "sigil/net/sse_parser.h"
#include "sigil/net/url.h"

namespace sigil::channels::signal {

// What the io thread's handler and the stream's thread share.
struct EventStream::Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  std::deque<net::SseEvent> events;  // parsed, not yet handed on
  bool ended = false;                // the current stream's on_end came
  int status = 0;
  std::string end_error;
  std::chrono::steady_clock::time_point last_bytes;
  EventStreamStats stats;
  net::BlockingFetches checks;
};

namespace {

using Clock = std::chrono::steady_clock;

class StreamHandler final : public net::HttpHandler {
 public:
  explicit StreamHandler(std::shared_ptr<EventStream::Shared> shared) : shared_(std::move(shared)) {}

  void on_head(const net::HttpResponseHead& head) override {
    std::lock_guard lock(shared_->mu);
    shared_->status = head.status;
    shared_->last_bytes = Clock::now();
    if (head.status == 200) {
      ++shared_->stats.connects;
      shared_->stats.connected = true;
    }
  }
  void on_body(std::string_view chunk) override {
    std::vector<net::SseEvent> out;
    parser_.feed(chunk, out);
    std::lock_guard lock(shared_->mu);
    shared_->last_bytes = Clock::now();  // a keep-alive comment counts: the stream is alive
    for (auto& e : out) shared_->events.push_back(std::move(e));
    if (!out.empty()) shared_->cv.notify_all();
  }
  void on_end(const std::optional<net::NetError>& error) override {
    std::lock_guard lock(shared_->mu);
    shared_->ended = true;
    shared_->stats.connected = false;
    shared_->end_error =
        error ? error->message : (parser_.failed() ? "unreadable event stream" : "stream ended");
    shared_->cv.notify_all();
  }

 private:
  std::shared_ptr<EventStream::Shared> shared_;
  net::SseParser parser_;
};

}  // namespace

EventStream::EventStream(net::HttpClient& client, std::string base_url, OnReceive on_receive,
                         EventStreamOptions options)
    : client_(client),
      base_url_(net::without_trailing_slashes(base_url)),
      on_receive_(std::move(on_receive)),
      options_(options),
      shared_(std::make_shared<Shared>()) {}

EventStream::~EventStream() { stop(); }

void EventStream::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void EventStream::stop() {
  {
    std::lock_guard lock(shared_->mu);
    shared_->stopping = true;
    shared_->cv.notify_all();
  }
  shared_->checks.cancel_all();
  if (thread_.joinable()) thread_.join();
}

EventStreamStats EventStream::stats() const {
  std::lock_guard lock(shared_->mu);
  return shared_->stats;
}

bool EventStream::check_daemon() {
  net::HttpRequest req;
  req.method = "GET";
  req.url = base_url_ + "/api/v1/check";
  req.timeouts.first_byte = std::chrono::seconds(5);
  req.timeouts.idle = std::chrono::seconds(5);
  const net::HttpResult r = shared_->checks.fetch(client_, std::move(req), 4096);
  const bool up = !r.error && r.head.status == 200;
  if (!up) {
    std::lock_guard lock(shared_->mu);
    ++shared_->stats.daemon_down;
    shared_->stats.last_error = "signal-cli does not answer " + base_url_ + "/api/v1/check";
  }
  return up;
}

void EventStream::run() {
  for (bool first = true;; first = false) {
    {
      std::unique_lock lock(shared_->mu);
      if (!first) shared_->cv.wait_for(lock, options_.reconnect_pause, [&] { return shared_->stopping; });
      if (shared_->stopping) return;
      shared_->ended = false;
      shared_->status = 0;
      shared_->last_bytes = Clock::now();
    }
    if (!check_daemon()) continue;
    net::HttpRequest req;
    req.method = "GET";
    req.url = base_url_ + "/api/v1/events";
    req.headers.push_back({"Accept", "text/event-stream"});
    req.timeouts.first_byte = std::chrono::seconds(15);
    // The net client's own idle limit only backs up the silence check below.
    req.timeouts.idle = options_.silence_limit * 2;
    const auto call = client_.start(std::move(req), std::make_shared<StreamHandler>(shared_));
    bool silent = false;
    for (;;) {
      std::deque<net::SseEvent> batch;
      {
        std::unique_lock lock(shared_->mu);
        shared_->cv.wait_for(lock, std::chrono::milliseconds(200),
                             [&] { return shared_->stopping || shared_->ended || !shared_->events.empty(); });
        batch.swap(shared_->events);
        if (batch.empty()) {
          if (shared_->stopping || shared_->ended) break;
          if (Clock::now() - shared_->last_bytes > options_.silence_limit) {
            silent = true;
            break;
          }
        }
      }
      bool stop_now = false;
      for (const net::SseEvent& e : batch) {
        boost::system::error_code ec;
        const boost::json::value v =
            e.type == "receive" ? boost::json::parse(e.data, ec) : boost::json::value();
        const bool readable = e.type == "receive" && !ec && v.is_object();
        {
          std::lock_guard lock(shared_->mu);
          if (shared_->stopping) {
            stop_now = true;
            break;
          }
          ++(readable ? shared_->stats.events : shared_->stats.unreadable);
        }
        if (readable) on_receive_(v.as_object());
      }
      if (stop_now) break;
    }
    call->cancel();
    std::unique_lock lock(shared_->mu);
    // Wait for the handler's end so the next stream starts with no events of this one still to come.
    shared_->cv.wait_for(lock, std::chrono::seconds(5), [&] { return shared_->ended; });
    shared_->stats.connected = false;
    if (shared_->stopping) return;
    if (silent) {
      ++shared_->stats.silent_restarts;
      shared_->stats.last_error = "no event or keep-alive for " +
                                  std::to_string(options_.silence_limit.count()) + " ms: stream opened again";
    } else {
      ++shared_->stats.drops;
      shared_->stats.last_error = shared_->status != 0 && shared_->status != 200
                                      ? "HTTP " + std::to_string(shared_->status)
                                      : shared_->end_error;
    }
    const std::string why = shared_->stats.last_error;
    lock.unlock();
    if (log::enabled(log::Level::warn))
      log::write(log::Record{log::Level::warn, "signal-events-reconnect", {}}.with("reason", why));
  }
}

}  // namespace sigil::channels::signal
