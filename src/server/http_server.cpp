// The only translation unit that includes Beast for the server (Beast compiles slowly).
#include "sigil/server/http_server.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "server/chat_completions.h"
#include "server/client_history.h"
#include "server/conversation_hub.h"
#include "server/frame_queue.h"
#include "server/media_store.h"
#include "server/mime_types.h"
#include "server/origin_policy.h"
#include "server/published_page.h"
#include "server/rate_limiter.h"
#include "server/turn_broadcaster.h"
#include "server/ws_frames.h"
#include "sigil/embed/files.h"
#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

constexpr std::string_view kWebCsp =
    "default-src 'self'; media-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";
// GET .../messages answers at most this much message text (newest first), however much is stored.
constexpr std::size_t kHistoryAnswerBytes = std::size_t{8} << 20;
// A client that has not sent a whole request by then is dropped, so idle sockets cannot pile up.
constexpr auto kRequestTimeout = 30s;

// The delivery as the web client sees it: every field that is set, never the payload bytes (a file is
// fetched separately, later; an SSE line is no place for megabytes).
json::object client_delivery_json(const exec::Delivery& d) {
  json::object o;
  o["op"] = exec::to_string(d.op);
  auto put = [&o](std::string_view key, const std::string& value) {
    if (!value.empty()) o[key] = value;
  };
  put("text", d.text);
  put("path", d.path);
  put("kind", d.kind);
  put("caption", d.caption);
  put("sha256", d.sha256);
  put("emoji", d.emoji);
  put("message", d.message);
  put("channel", d.channel);
  put("chat", d.chat);
  if (d.op == exec::Delivery::Op::Voice) o["duration_ms"] = d.duration_ms;
  return o;
}

// What goes out in a WebSocket text frame or an SSE line must be UTF-8 (a browser drops a WebSocket that
// sends anything else), but an upstream error message or a stored text may not be: each ill-formed unit
// becomes U+FFFD. The check is one pass; a repair is rare.
std::string valid_utf8(std::string text) {
  if (text::is_valid_utf8(text)) return text;
  std::string out;
  out.reserve(text.size() + 8);
  text::Utf8Sanitizer sanitizer;
  auto append = [&out](std::string_view piece) { out.append(piece); };
  sanitizer.feed(text, append);
  sanitizer.finish(append);
  return out;
}

// One SSE event; boost::json never writes a raw newline, so `data:` is always one line.
std::string sse_event(std::string_view event, const json::value& data) {
  std::string out = "event: ";
  out.append(event);
  out += "\ndata: ";
  out += valid_utf8(json::serialize(data));
  out += "\n\n";
  return out;
}

bool valid_conversation_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// Constant time in the token's content, so a remote client cannot find it byte by byte.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

struct Route {
  enum class Kind : unsigned char {
    Health,
    Metrics,
    Page,
    Messages,
    Settings,
    Completions,
    WebSocket,
    Media,
    Index,
    Asset,
    Unknown
  } kind = Kind::Unknown;
  std::string label;  // the metrics label: the template, so raw URLs never blow up the series count
  std::string param;  // slug, conversation id, media "<hash>/<name>" or asset path
};

Route route_of(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/healthz") return {Route::Kind::Health, "/healthz", {}};
  if (path == "/metrics") return {Route::Kind::Metrics, "/metrics", {}};
  if (path == "/v1/ws") return {Route::Kind::WebSocket, "/v1/ws", {}};
  if (path == "/v1/chat/completions") return {Route::Kind::Completions, "/v1/chat/completions", {}};
  if (path == "/" || path == "/index.html") return {Route::Kind::Index, "/", {}};
  constexpr std::string_view media = "/media/";
  if (path.starts_with(media))
    return {Route::Kind::Media, "/media/{sha256}", std::string(path.substr(media.size()))};
  constexpr std::string_view assets = "/assets/";
  if (path.starts_with(assets) && path.size() > assets.size()) {
    return {Route::Kind::Asset, "/assets/{file}", std::string(path.substr(assets.size()))};
  }
  constexpr std::string_view pages = "/pages/";
  if (path.starts_with(pages) && path.size() > pages.size() &&
      path.find('/', pages.size()) == std::string_view::npos) {
    return {Route::Kind::Page, "/pages/{slug}", std::string(path.substr(pages.size()))};
  }
  constexpr std::string_view conv = "/v1/conversations/";
  constexpr std::string_view messages = "/messages";
  if (path.starts_with(conv) && path.ends_with(messages) && path.size() > conv.size() + messages.size()) {
    std::string_view id = path.substr(conv.size(), path.size() - conv.size() - messages.size());
    if (id.find('/') == std::string_view::npos) {
      return {Route::Kind::Messages, "/v1/conversations/{id}/messages", std::string(id)};
    }
  }
  constexpr std::string_view settings = "/settings";
  if (path.starts_with(conv) && path.ends_with(settings) && path.size() > conv.size() + settings.size()) {
    std::string_view id = path.substr(conv.size(), path.size() - conv.size() - settings.size());
    if (id.find('/') == std::string_view::npos) {
      return {Route::Kind::Settings, "/v1/conversations/{id}/settings", std::string(id)};
    }
  }
  return {Route::Kind::Unknown, "other", {}};
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX and '+' decoded; nullopt for a broken escape.
std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      const int hi = hex_value(in[i + 1]);
      const int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (in[i] == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += in[i];
    }
  }
  return out;
}

// The query's parameters (the last one wins); nullopt when an escape is broken.
std::optional<std::map<std::string, std::string>> query_params(std::string_view target) {
  std::map<std::string, std::string> params;
  const auto q = target.find('?');
  if (q == std::string_view::npos) return params;
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true);
    auto value =
        percent_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!key || !value) return std::nullopt;
    params[*key] = std::move(*value);
  }
  return params;
}

// A file name fit for a quoted Content-Disposition filename: printable ASCII without quotes, backslashes
// or slashes (the UTF-8 original goes in filename*).
std::string ascii_file_name(std::string_view name) {
  std::string out;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    out += (c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '/') ? '_' : ch;
  }
  return out.empty() ? "file" : out;
}

// Asio opens and accepts sockets without SOCK_CLOEXEC: a child started meanwhile (espeak-ng, a named
// command) would inherit them. The launcher closes what it does not hand over, and this closes the rest.
void set_cloexec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

// The peer's address, for the per-address rate limit ("" when the socket has none any more).
std::string remote_address(const tcp::socket& socket) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  return ec ? std::string() : endpoint.address().to_string();
}

std::string_view header_value(const http::request<http::string_body>& req, http::field field) {
  auto it = req.find(field);
  return it == req.end() ? std::string_view() : std::string_view(it->value().data(), it->value().size());
}

// "application/json" with or without parameters (charset), any case.
bool is_json_content_type(std::string_view value) {
  return text::ascii::iequals(text::ascii::trim(value.substr(0, value.find(';'))), "application/json");
}

bool is_loopback(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

}  // namespace

namespace {

// Counts an open connection while it lives; moved from the HTTP session to the WebSocket session that
// takes its socket over.
class ConnectionSlot {
 public:
  ConnectionSlot() = default;
  explicit ConnectionSlot(std::atomic<std::size_t>* counter) : counter_(counter) {}
  ConnectionSlot(ConnectionSlot&& other) noexcept : counter_(std::exchange(other.counter_, nullptr)) {}
  ConnectionSlot& operator=(ConnectionSlot&&) = delete;
  ~ConnectionSlot() {
    if (counter_ != nullptr) --*counter_;
  }

 private:
  std::atomic<std::size_t>* counter_ = nullptr;
};

// What stop() closes: an HTTP or a WebSocket session.
class Closable {
 public:
  virtual ~Closable() = default;
  virtual void close_from_server() = 0;
};

}  // namespace

class HttpServer::Impl {
 public:
  class Session;
  class WsSession;
  class StreamObserver;

  Impl(agent::Agent& agent, store::Store& store, HttpServerOptions options)
      : agent_(agent),
        store_(store),
        options_(std::move(options)),
        hub_(std::make_shared<ConversationHub>()),
        media_(std::make_shared<MediaStore>(options_.media_dir)),
        limiter_(options_.messages_per_minute, options_.message_burst),
        address_limiter_(options_.messages_per_minute * options_.address_rate_factor,
                         static_cast<unsigned>(options_.message_burst * options_.address_rate_factor)),
        rng_(std::random_device{}()) {}

  ~Impl() { stop(); }

  unsigned short start();
  void stop();

  // ---- shared state the sessions use
  // Declared first, destroyed last: sessions still queued in the io_context when it is destroyed count
  // themselves out through these.
  std::atomic<std::size_t> connections_open_{0};
  std::atomic<std::size_t> ws_open_{0};
  std::atomic<std::uint64_t> rate_limited_{0};
  std::atomic<std::uint64_t> connections_refused_{0};
  std::atomic<std::uint64_t> refused_host_{0};
  std::atomic<std::uint64_t> refused_origin_{0};

  agent::Agent& agent_;
  store::Store& store_;
  const HttpServerOptions options_;
  const std::shared_ptr<ConversationHub> hub_;
  const std::shared_ptr<MediaStore> media_;
  RateLimiter limiter_;
  RateLimiter address_limiter_;         // keyed by the peer's address: a client cannot choose it
  std::optional<OriginPolicy> policy_;  // set by start(), once the port is bound

  TurnBroadcaster::Shared broadcast_target() { return {hub_, media_, &store_}; }

  void count_request(const std::string& label) {
    std::lock_guard lock(mu_);
    ++requests_[label];
  }

  // 0: allowed; else the seconds to wait (and the refusal is counted). Both the user's bucket and the peer
  // address's: rotating the client-chosen user id does not get past the second.
  double rate_check(const std::string& user, const std::string& address) {
    double wait = address.empty() ? 0 : address_limiter_.take(address);
    if (wait <= 0) wait = limiter_.take(user);
    if (wait > 0) ++rate_limited_;
    return wait;
  }

  std::string rate_message(double wait) const {
    return "rate limited: at most " + std::to_string(static_cast<long long>(options_.messages_per_minute)) +
           " messages a minute (burst " + std::to_string(options_.message_burst) + "); retry in " +
           std::to_string(static_cast<long long>(std::ceil(wait))) + " s";
  }

  std::string metrics_text() {
    std::string out;
    out +=
        "# HELP sigil_http_requests_total HTTP requests received, by route.\n"
        "# TYPE sigil_http_requests_total counter\n";
    {
      std::lock_guard lock(mu_);
      for (const auto& [label, count] : requests_) {
        out += "sigil_http_requests_total{path=\"" + label + "\"} " + std::to_string(count) + "\n";
      }
    }
    out +=
        "# HELP sigil_turns_total Turns started through the HTTP API.\n"
        "# TYPE sigil_turns_total counter\n"
        "sigil_turns_total " +
        std::to_string(turns_total_.load()) +
        "\n"
        "# HELP sigil_turns_active Turns the agent is running or holding.\n"
        "# TYPE sigil_turns_active gauge\n"
        "sigil_turns_active " +
        std::to_string(agent_.active_turns()) +
        "\n"
        "# HELP sigil_rate_limited_total Messages refused by the per-user rate limit.\n"
        "# TYPE sigil_rate_limited_total counter\n"
        "sigil_rate_limited_total " +
        std::to_string(rate_limited_.load()) +
        "\n"
        "# HELP sigil_connections_refused_total Connections refused with 503 beyond max_connections.\n"
        "# TYPE sigil_connections_refused_total counter\n"
        "sigil_connections_refused_total " +
        std::to_string(connections_refused_.load()) +
        "\n"
        "# HELP sigil_refused_host_total Requests refused with 421: the Host header named another host.\n"
        "# TYPE sigil_refused_host_total counter\n"
        "sigil_refused_host_total " +
        std::to_string(refused_host_.load()) +
        "\n"
        "# HELP sigil_refused_origin_total Requests refused with 403: a browser page of another origin.\n"
        "# TYPE sigil_refused_origin_total counter\n"
        "sigil_refused_origin_total " +
        std::to_string(refused_origin_.load()) +
        "\n"
        "# HELP sigil_connections_open Open connections (HTTP and WebSocket).\n"
        "# TYPE sigil_connections_open gauge\n"
        "sigil_connections_open " +
        std::to_string(connections_open_.load()) +
        "\n"
        "# HELP sigil_ws_connections_open Open WebSocket connections.\n"
        "# TYPE sigil_ws_connections_open gauge\n"
        "sigil_ws_connections_open " +
        std::to_string(ws_open_.load()) + "\n";
    return out;
  }

  // Ids are random, not a counter: the executor's exactly-once keys include the turn id, and a restarted
  // server must never reuse the results of an earlier process's turn.
  std::string new_turn_id() {
    std::lock_guard lock(mu_);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng_()));
    return "web-" + std::string(buf);
  }

  // False when the server is stopping: no new turns then.
  bool turn_opened(const std::string& turn_id, const std::string& user, const std::string& conversation) {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    open_turns_.emplace(turn_id, OpenTurn{user, conversation, false});
    ++turns_total_;
    return true;
  }
  // The turn's answer is complete and about to be sent; the turn closes a moment later (turn_closed).
  // A retry with the same Idempotency-Key that arrives in between is not "still running".
  void turn_answered(const std::string& turn_id) {
    std::lock_guard lock(mu_);
    auto [begin, end] = open_turns_.equal_range(turn_id);
    for (auto it = begin; it != end; ++it) {
      if (!it->second.answered) {
        it->second.answered = true;
        return;
      }
    }
  }
  // Whether a turn of this id runs and has not answered yet.
  bool turn_running(const std::string& turn_id) {
    std::lock_guard lock(mu_);
    auto [begin, end] = open_turns_.equal_range(turn_id);
    return std::any_of(begin, end, [](const auto& entry) { return !entry.second.answered; });
  }
  void turn_closed(const std::string& turn_id) {
    std::lock_guard lock(mu_);
    // One entry: an answered one first (a retry of the same id may already be running).
    auto [begin, end] = open_turns_.equal_range(turn_id);
    auto it = std::find_if(begin, end, [](const auto& entry) { return entry.second.answered; });
    if (it == end) it = begin;
    if (it != open_turns_.end() && it->first == turn_id) open_turns_.erase(it);
    turns_cv_.notify_all();
  }
  // A client may cancel only the turns of its own conversation.
  bool owns_turn(const std::string& turn_id, const std::string& user, const std::string& conversation) {
    std::lock_guard lock(mu_);
    auto it = open_turns_.find(turn_id);
    return it != open_turns_.end() && it->second.user == user && it->second.conversation == conversation;
  }

  // Registered for stop(). Expired entries are swept when the list has doubled since the last sweep, so
  // many connections cost amortised O(1) each.
  void track(const std::shared_ptr<Closable>& session) {
    std::lock_guard lock(mu_);
    if (sessions_.size() >= sweep_at_) {
      std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
      sweep_at_ = std::max<std::size_t>(64, sessions_.size() * 2);
    }
    sessions_.push_back(session);
  }

  // A turn started here: announced to the conversation's watchers, then run; its events go to them.
  void start_web_turn(const std::string& user, const std::string& conversation, const std::string& text,
                      const std::string& turn_id, const std::optional<std::string>& client_id,
                      std::shared_ptr<agent::TurnObserver> observer) {
    hub_->broadcast(user, conversation,
                    std::make_shared<const std::string>(turn_frame(turn_id, client_id, false, text)));
    agent::TurnInput input;
    input.user = user;
    input.conversation = conversation;
    input.text = text;
    input.turn_id = turn_id;
    agent_.start_turn(std::move(input), std::move(observer));
  }

 private:
  void do_accept();
  void refuse(tcp::socket socket);

  asio::io_context ioc_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::optional<tcp::acceptor> acceptor_;
  std::vector<std::thread> threads_;
  bool started_ = false;

  std::mutex mu_;
  std::condition_variable turns_cv_;
  bool stopping_ = false;
  struct OpenTurn {
    std::string user, conversation;
    bool answered = false;  // turn_answered(): its answer is out, it only has to close
  };
  // By id; an id repeats while an answered completion's retry (same Idempotency-Key) already runs.
  std::multimap<std::string, OpenTurn> open_turns_;
  std::vector<std::weak_ptr<Closable>> sessions_;
  std::size_t sweep_at_ = 64;
  std::map<std::string, std::uint64_t> requests_;
  std::atomic<std::uint64_t> turns_total_{0};
  std::mt19937_64 rng_;
};

// One WebSocket connection watching one (user, conversation). Frames go out through a queue, one write at
// a time; frames come in through read_some so that an oversized message is skipped (an error frame)
// without closing the connection or buffering it.
class HttpServer::Impl::WsSession final : public Watcher,
                                          public Closable,
                                          public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(Impl& server, beast::tcp_stream&& stream, ConnectionSlot slot, std::string user,
            std::string conversation, std::string address)
      : server_(server),
        ws_(std::move(stream)),
        slot_(std::move(slot)),
        user_(std::move(user)),
        conversation_(std::move(conversation)),
        address_(std::move(address)) {
    ++server_.ws_open_;
  }
  ~WsSession() override { --server_.ws_open_; }

  void run(http::request<http::string_body> req) {
    // The WebSocket keeps its own time-outs (idle pings); the HTTP stream's would cut it.
    beast::get_lowest_layer(ws_).expires_never();
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    // Message size is checked while reading (too large -> an error frame); this only bounds a frame.
    ws_.read_message_max(0);
    ws_.auto_fragment(false);
    // Kept until the handshake is done (Beast reads it while building the 101 answer).
    upgrade_.emplace(std::move(req));
    ws_.async_accept(*upgrade_, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
  }

  // From the hub, with its lock held: only queues. Frames wait in the inbox and one posted handler moves
  // all that came meanwhile to the write queue: a busy connection costs one post per burst, not per frame,
  // and the burst's text frames merge there.
  void send(std::shared_ptr<const std::string> frame) override {
    {
      std::lock_guard lock(inbox_mu_);
      inbox_.push_back(std::move(frame));
      if (inbox_.size() > 1) return;  // a drain is posted and has not run yet
    }
    asio::post(ws_.get_executor(), [self = shared_from_this()] { self->drain_inbox(); });
  }

  void close_from_server() override {
    asio::post(ws_.get_executor(), [self = shared_from_this()] { self->close(); });
  }

 private:
  void on_accept(beast::error_code ec) {
    upgrade_.reset();
    if (ec) return close();
    // Watch first, then read the history: a frame broadcast in between is posted behind this handler,
    // so hello still goes out first.
    server_.hub_->watch(user_, conversation_, shared_from_this());
    // A bounded page of history, whatever the conversation holds (the rest: GET .../messages).
    const HistoryWindow window{50, server_.options_.greeting_history_bytes,
                               server_.options_.greeting_message_bytes};
    auto history = client_history(server_.store_, user_, conversation_, window);
    if (!history.ok()) {
      enqueue(std::make_shared<const std::string>(
          error_frame("store: cannot read the history: " + history.error(), std::nullopt)));
      history = ClientHistory{};
    }
    auto say_mode = server_.agent_.say_mode(user_, conversation_);
    if (!say_mode.ok()) {
      enqueue(std::make_shared<const std::string>(
          error_frame("store: cannot read the say mode: " + say_mode.error(), std::nullopt)));
    }
    enqueue(std::make_shared<const std::string>(
        hello_frame(user_, conversation_, server_.options_.model_label, server_.options_.replay_model,
                    std::move(history->messages), history->more, say_mode.ok() && *say_mode)));
    do_read();
  }

  void drain_inbox() {
    std::vector<std::shared_ptr<const std::string>> frames;
    {
      std::lock_guard lock(inbox_mu_);
      frames.swap(inbox_);
    }
    for (auto& frame : frames) enqueue(std::move(frame));
  }

  // Text frames of a turn that pile up behind a write in flight go out merged (FrameQueue).
  void enqueue(std::shared_ptr<const std::string> frame) {
    if (closed_) return;
    if (!text::is_valid_utf8(*frame)) frame = std::make_shared<const std::string>(valid_utf8(*frame));
    queue_.push(std::move(frame));
    if (!queue_.writing()) write_next();
  }

  void write_next() {
    if (closed_ || queue_.empty()) return;
    ws_.text(true);
    ws_.async_write(asio::buffer(queue_.start_write()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                      self->queue_.finish_write();
                      if (ec) return self->close();
                      self->write_next();
                    });
  }

  void do_read() {
    if (closed_) return;
    ws_.async_read_some(buffer_, 16 * 1024, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    if (ec) return close();
    if (buffer_.size() > server_.options_.max_body) {
      too_large_ = true;
      buffer_.clear();
    }
    if (!ws_.is_message_done()) return do_read();
    if (too_large_) {
      too_large_ = false;
      enqueue(std::make_shared<const std::string>(
          error_frame("message too large: at most " + std::to_string(server_.options_.max_body) + " bytes",
                      std::nullopt)));
    } else {
      const auto data = buffer_.cdata();
      handle_message(std::string_view(static_cast<const char*>(data.data()), data.size()));
    }
    buffer_.clear();
    // An idle connection keeps a small buffer even after one large message.
    if (buffer_.capacity() > 16 * 1024) buffer_.shrink_to_fit();
    do_read();
  }

  void error(std::string message, const std::optional<std::string>& client_id = std::nullopt) {
    enqueue(std::make_shared<const std::string>(error_frame(message, client_id)));
  }

  void handle_message(std::string_view text) {
    boost::system::error_code ec;
    const json::value parsed = json::parse(text, ec);
    if (ec || !parsed.is_object()) return error("malformed frame: expected a JSON object with a \"type\"");
    const json::object& obj = parsed.as_object();
    const json::value* type = obj.if_contains("type");
    if (type == nullptr || !type->is_string()) return error("malformed frame: \"type\" must be a string");
    std::optional<std::string> client_id;
    if (const json::value* id = obj.if_contains("client_id"); id != nullptr && !id->is_null()) {
      if (!id->is_string()) return error("malformed frame: \"client_id\" must be a string");
      client_id = std::string(id->as_string());
    }
    if (type->as_string() == "message") {
      const json::value* body = obj.if_contains("text");
      if (body == nullptr || !body->is_string() || body->as_string().empty()) {
        return error("malformed frame: \"text\" must be a non-empty string", client_id);
      }
      if (const double wait = server_.rate_check(user_, address_); wait > 0)
        return error(server_.rate_message(wait), client_id);
      const std::string turn_id = server_.new_turn_id();
      if (!server_.turn_opened(turn_id, user_, conversation_)) return error("server is stopping", client_id);
      Impl* server = &server_;
      auto observer = std::make_shared<TurnBroadcaster>(
          server_.broadcast_target(), user_, conversation_, turn_id,
          [server, turn_id](const agent::TurnSummary&) { server->turn_closed(turn_id); });
      server_.start_web_turn(user_, conversation_, std::string(body->as_string()), turn_id, client_id,
                             std::move(observer));
      return;
    }
    if (type->as_string() == "settings") {
      const json::value* say = obj.if_contains("say_mode");
      if (say == nullptr || !say->is_bool())
        return error("malformed frame: \"say_mode\" must be true or false", client_id);
      if (auto set = server_.agent_.set_say_mode(user_, conversation_, say->as_bool()); !set)
        return error("store: cannot save the setting: " + set.error(), client_id);
      // Every page of the conversation (this one too) shows the new setting; the next turn uses it.
      server_.hub_->broadcast(user_, conversation_,
                              std::make_shared<const std::string>(settings_frame(say->as_bool(), client_id)));
      return;
    }
    if (type->as_string() == "cancel") {
      const json::value* turn = obj.if_contains("turn");
      if (turn == nullptr || !turn->is_string())
        return error("malformed frame: \"turn\" must be a string", client_id);
      const std::string id(turn->as_string());
      if (!server_.owns_turn(id, user_, conversation_) || !server_.agent_.cancel(id)) {
        return error("no running turn " + id + " in this conversation", client_id);
      }
      return;
    }
    error("unknown frame type \"" + std::string(type->as_string()) + "\"", client_id);
  }

  void close() {
    if (closed_) return;
    closed_ = true;  // the queue stays while a write is in flight: it points into the front frame
    server_.hub_->unwatch(user_, conversation_, this);
    beast::error_code ec;
    auto& socket = beast::get_lowest_layer(ws_).socket();
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }

  Impl& server_;
  websocket::stream<beast::tcp_stream> ws_;
  ConnectionSlot slot_;
  std::optional<http::request<http::string_body>> upgrade_;
  const std::string user_;
  const std::string conversation_;
  const std::string address_;
  beast::flat_buffer buffer_;
  std::mutex inbox_mu_;
  std::vector<std::shared_ptr<const std::string>> inbox_;  // from the hub, not yet on the strand
  FrameQueue queue_;
  bool closed_ = false;
  bool too_large_ = false;
};

// One connection: requests one after another (keep-alive), or one SSE stream after which it closes, or
// an upgrade to a WebSocket (which takes the socket over).
class HttpServer::Impl::Session : public Closable, public std::enable_shared_from_this<Session> {
 public:
  Session(Impl& server, tcp::socket socket, ConnectionSlot slot)
      : server_(server),
        address_(remote_address(socket)),
        stream_(std::move(socket)),
        slot_(std::move(slot)) {}

  void run() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->do_read(); });
  }

  // Posted by stop(): ends whatever the connection is doing.
  void close_from_server() override {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->close(); });
  }

  // From the observer, on any thread.
  void post_event(std::string event, bool last) {
    asio::post(stream_.get_executor(), [self = shared_from_this(), event = std::move(event), last]() mutable {
      self->enqueue(std::move(event), last);
    });
  }

 private:
  using Request = http::request<http::string_body>;
  using Response = http::response<http::string_body>;

  void do_read() {
    parser_.emplace();
    parser_->body_limit(server_.options_.max_body);
    stream_.expires_after(kRequestTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  bool authorized(const Request& req) const {
    const std::string& token = server_.options_.api_token;
    if (token.empty()) return true;
    auto it = req.find(http::field::authorization);
    if (it == req.end()) return false;
    const std::string_view value(it->value().data(), it->value().size());
    constexpr std::string_view bearer = "Bearer ";
    return value.starts_with(bearer) && same_secret(value.substr(bearer.size()), token);
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return close();
    if (ec == http::error::body_limit) {
      // The headers are there: a client without the token learns nothing but 401.
      const Request& req = parser_->get();
      const Route route = route_of(std::string_view(req.target().data(), req.target().size()));
      server_.count_request(route.label);
      if (!admitted(req, route, false)) return;
      if (!authorized(req)) return send_unauthorized(req.version(), false);
      return send(error_response(
                      req.version(), http::status::payload_too_large,
                      "request body is larger than " + std::to_string(server_.options_.max_body) + " bytes"),
                  false);
    }
    if (ec) return close();
    handle(parser_->release());
  }

  Response error_response(unsigned version, http::status status, const std::string& message) {
    Response res{status, version};
    res.set(http::field::content_type, "application/json");
    res.body() = json::serialize(json::object{{"error", message}});
    return res;
  }

  Response text_response(unsigned version, http::status status, std::string body,
                         std::string_view type = "text/plain; charset=utf-8") {
    Response res{status, version};
    res.set(http::field::content_type, type);
    res.body() = std::move(body);
    return res;
  }

  void send_unauthorized(unsigned version, bool keep_alive) {
    Response res = error_response(version, http::status::unauthorized, "missing or wrong bearer token");
    res.set(http::field::www_authenticate, "Bearer");
    send(std::move(res), keep_alive);
  }

  // Routes that need no token: health, the embedded page (public, no data in it), media (the 256-bit hash
  // is the capability), published pages (the unguessable slug is) and the WebSocket (which checks its own,
  // from the query or the header).
  static bool public_route(Route::Kind kind) {
    return kind == Route::Kind::Health || kind == Route::Kind::Media || kind == Route::Kind::Index ||
           kind == Route::Kind::Asset || kind == Route::Kind::WebSocket || kind == Route::Kind::Page;
  }

  // Routes any site may read (they carry nothing of a conversation's but what their URL is the capability
  // for): a foreign Origin is no reason to refuse them.
  static bool cross_origin_readable(Route::Kind kind) {
    return kind == Route::Kind::Health || kind == Route::Kind::Media || kind == Route::Kind::Index ||
           kind == Route::Kind::Asset || kind == Route::Kind::Page;
  }

  // Routes whose body is JSON: a browser sends text/plain cross-site without asking first, never JSON.
  static bool json_body_route(Route::Kind kind, http::verb method) {
    return (kind == Route::Kind::Messages && method == http::verb::post) ||
           (kind == Route::Kind::Settings && method == http::verb::put) ||
           (kind == Route::Kind::Completions && method == http::verb::post);
  }

  // The Host, Origin and Content-Type checks (docs/security.md); false after answering the refusal.
  bool admitted(const Request& req, const Route& route, bool keep) {
    const unsigned version = req.version();
    const OriginPolicy& policy = *server_.policy_;
    const std::string_view host = header_value(req, http::field::host);
    if (route.kind != Route::Kind::Health && !policy.host_allowed(host)) {
      ++server_.refused_host_;
      send(error_response(version, http::status::misdirected_request,
                          "this gateway does not answer to the host name in the Host header; add it to "
                          "[server] allowed_hosts if it is one of its names"),
           keep);
      return false;
    }
    const auto origin = req.find(http::field::origin);
    if (origin != req.end() && !cross_origin_readable(route.kind) &&
        !policy.origin_allowed(std::string_view(origin->value().data(), origin->value().size()), host)) {
      ++server_.refused_origin_;
      send(error_response(version, http::status::forbidden,
                          "cross-origin request refused: this page's origin may not use the gateway; add it "
                          "to [server] allowed_origins to allow it"),
           keep);
      return false;
    }
    if (json_body_route(route.kind, req.method()) &&
        !is_json_content_type(header_value(req, http::field::content_type))) {
      constexpr std::string_view why = "Content-Type must be application/json";
      Response res = error_response(version, http::status::unsupported_media_type, std::string(why));
      if (route.kind == Route::Kind::Completions)
        res.body() = completions::error_body(
            {415, std::string(why), "invalid_request_error", {}, "unsupported_media_type"});
      send(std::move(res), keep);
      return false;
    }
    return true;
  }

  void handle(Request req) {
    const Route route = route_of(std::string_view(req.target().data(), req.target().size()));
    server_.count_request(route.label);
    const unsigned version = req.version();
    const bool keep = req.keep_alive();
    if (!admitted(req, route, keep)) return;
    if (!public_route(route.kind) && !authorized(req)) return send_unauthorized(version, keep);

    const bool get = req.method() == http::verb::get;
    const bool post = req.method() == http::verb::post;
    auto not_allowed = [&](std::string_view allow) {
      Response res = error_response(version, http::status::method_not_allowed,
                                    "method not allowed; use " + std::string(allow));
      res.set(http::field::allow, allow);
      send(std::move(res), keep);
    };
    switch (route.kind) {
      case Route::Kind::Health:
        if (!get) return not_allowed("GET");
        return send(text_response(version, http::status::ok, "ok"), keep);
      case Route::Kind::Metrics:
        if (!get) return not_allowed("GET");
        return send(text_response(version, http::status::ok, server_.metrics_text(),
                                  "text/plain; version=0.0.4; charset=utf-8"),
                    keep);
      case Route::Kind::Page:
        if (!get) return not_allowed("GET");
        return serve_page(version, keep, route.param);
      case Route::Kind::Messages:
        if (get) return serve_history(version, keep, route.param, req.target());
        if (!post) return not_allowed("GET, POST");
        return start_turn(version, keep, route.param, req.body());
      case Route::Kind::Settings:
        if (get) return serve_settings(version, keep, route.param, req.target(), nullptr);
        if (req.method() != http::verb::put) return not_allowed("GET, PUT");
        return serve_settings(version, keep, route.param, req.target(), &req.body());
      case Route::Kind::Completions:
        if (!post) return not_allowed("POST");
        return start_completion(req);
      case Route::Kind::WebSocket:
        if (!get) return not_allowed("GET");
        return upgrade(std::move(req));
      case Route::Kind::Media:
        if (!get) return not_allowed("GET");
        return serve_media(version, keep, route.param);
      case Route::Kind::Index:
        if (!get) return not_allowed("GET");
        return serve_asset(version, keep, "index.html");
      case Route::Kind::Asset:
        if (!get) return not_allowed("GET");
        return serve_asset(version, keep, route.param);
      case Route::Kind::Unknown:
        break;
    }
    send(error_response(version, http::status::not_found, "no such endpoint"), keep);
  }

  void serve_page(unsigned version, bool keep, const std::string& slug) {
    auto page = server_.store_.get_page(slug);
    if (!page.ok()) {
      return send(error_response(version, http::status::internal_server_error, "store: " + page.error()),
                  keep);
    }
    if (!page->has_value()) {
      return send(text_response(version, http::status::not_found, "no such page"), keep);
    }
    const store::Page& p = **page;
    Response res =
        text_response(version, http::status::ok, published_page_html(p.html), "text/html; charset=utf-8");
    res.set("Content-Security-Policy", published_page_csp(p.csp_allows_scripts));
    res.set("X-Content-Type-Options", "nosniff");
    // A page is unguessable but public: never cached by shared proxies beyond its owner's control.
    res.set(http::field::cache_control, "no-store");
    send(std::move(res), keep);
  }

  // user from the query ("web" by default); nullopt after answering 400.
  std::optional<std::string> query_user(unsigned version, bool keep,
                                        const std::map<std::string, std::string>& q) {
    auto it = q.find("user");
    std::string user = it == q.end() ? "web" : it->second;
    if (!valid_conversation_id(user)) {
      send(error_response(version, http::status::bad_request, "user must be 1 to 128 of A-Z a-z 0-9 . _ -"),
           keep);
      return std::nullopt;
    }
    return user;
  }

  // The user of a /v1/conversations/{id}/... request (from its query), after checking the query and the
  // conversation id; nullopt when the request was answered with an error.
  std::optional<std::string> conversation_user(unsigned version, bool keep, const std::string& conversation,
                                               beast::string_view target) {
    auto q = query_params(std::string_view(target.data(), target.size()));
    if (!q) {
      send(error_response(version, http::status::bad_request, "malformed query string"), keep);
      return std::nullopt;
    }
    if (!valid_conversation_id(conversation)) {
      send(error_response(version, http::status::bad_request,
                          "conversation id must be 1 to 128 of A-Z a-z 0-9 . _ -"),
           keep);
      return std::nullopt;
    }
    return query_user(version, keep, *q);
  }

  void serve_history(unsigned version, bool keep, const std::string& conversation,
                     beast::string_view target) {
    auto user = conversation_user(version, keep, conversation, target);
    if (!user) return;
    // ?limit=N (1..500, default 50); the answer stays within kHistoryAnswerBytes of text whatever is stored.
    HistoryWindow window{50, kHistoryAnswerBytes, 0};
    const auto q = query_params(std::string_view(target.data(), target.size()));
    if (auto it = q->find("limit"); it != q->end()) {
      const std::string& v = it->second;
      const bool digits = !v.empty() && v.size() <= 3 &&
                          std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
      const int n = digits ? std::stoi(v) : 0;
      if (n < 1 || n > 500)
        return send(error_response(version, http::status::bad_request, "limit must be 1 to 500"), keep);
      window.limit = static_cast<std::size_t>(n);
    }
    auto history = client_history(server_.store_, *user, conversation, window);
    if (!history.ok()) {
      return send(error_response(version, http::status::internal_server_error, "store: " + history.error()),
                  keep);
    }
    Response res = text_response(version, http::status::ok,
                                 valid_utf8(json::serialize(json::object{
                                     {"messages", std::move(history->messages)}, {"more", history->more}})),
                                 "application/json");
    res.set(http::field::cache_control, "no-store");
    send(std::move(res), keep);
  }

  // GET (body null) or PUT {"say_mode": bool} of a conversation's settings; a change is also sent to
  // every page watching the conversation (a "settings" frame).
  void serve_settings(unsigned version, bool keep, const std::string& conversation, beast::string_view target,
                      const std::string* body) {
    auto user = conversation_user(version, keep, conversation, target);
    if (!user) return;
    if (body != nullptr) {
      boost::system::error_code ec;
      const json::value parsed = json::parse(*body, ec);
      const json::value* say =
          !ec && parsed.is_object() ? parsed.as_object().if_contains("say_mode") : nullptr;
      if (say == nullptr || !say->is_bool() || parsed.as_object().size() != 1) {
        return send(error_response(version, http::status::bad_request,
                                   "expected a JSON object {\"say_mode\": true or false}"),
                    keep);
      }
      if (auto set = server_.agent_.set_say_mode(*user, conversation, say->as_bool()); !set) {
        return send(error_response(version, http::status::internal_server_error, "store: " + set.error()),
                    keep);
      }
      server_.hub_->broadcast(
          *user, conversation,
          std::make_shared<const std::string>(settings_frame(say->as_bool(), std::nullopt)));
    }
    auto say_mode = server_.agent_.say_mode(*user, conversation);
    if (!say_mode) {
      return send(error_response(version, http::status::internal_server_error, "store: " + say_mode.error()),
                  keep);
    }
    Response res = text_response(version, http::status::ok,
                                 json::serialize(json::object{{"say_mode", *say_mode}}), "application/json");
    res.set(http::field::cache_control, "no-store");
    send(std::move(res), keep);
  }

  void upgrade(Request req) {
    const unsigned version = req.version();
    const std::string_view target(req.target().data(), req.target().size());
    auto q = query_params(target);
    if (!q) return send(error_response(version, http::status::bad_request, "malformed query string"), false);
    auto conv = q->find("conversation");
    if (conv == q->end() || !valid_conversation_id(conv->second)) {
      return send(error_response(version, http::status::bad_request,
                                 "conversation must be given, 1 to 128 of A-Z a-z 0-9 . _ -"),
                  false);
    }
    auto user = query_user(version, false, *q);
    if (!user) return;
    const std::string& token = server_.options_.api_token;
    if (!token.empty() && !authorized(req)) {
      auto t = q->find("access_token");
      if (t == q->end() || !same_secret(t->second, token)) return send_unauthorized(version, false);
    }
    if (!websocket::is_upgrade(req)) {
      Response res = error_response(version, http::status::upgrade_required, "this endpoint is a WebSocket");
      res.set(http::field::upgrade, "websocket");
      return send(std::move(res), false);
    }
    closed_ = true;  // the socket is the WebSocket's now; this session does nothing more
    auto ws = std::make_shared<WsSession>(server_, std::move(stream_), std::move(slot_), std::move(*user),
                                          conv->second, address_);
    server_.track(ws);
    ws->run(std::move(req));
  }

  void serve_media(unsigned version, bool keep, const std::string& param) {
    const auto slash = param.find('/');
    const std::string hash = param.substr(0, slash);
    if (!MediaStore::valid_hash(hash)) {
      return send(error_response(version, http::status::bad_request, "a media URL is /media/<sha256>/<name>"),
                  keep);
    }
    std::string url_name;
    if (slash != std::string::npos) {
      auto decoded = percent_decode(std::string_view(param).substr(slash + 1), false);
      if (!decoded || decoded->find('/') != std::string::npos) {
        return send(error_response(version, http::status::not_found, "no such media"), keep);
      }
      url_name = std::move(*decoded);
    }
    auto found = server_.media_->find(hash, url_name);
    if (!found) return send(error_response(version, http::status::not_found, "no such media"), keep);
    const std::string name = !found->info.name.empty() ? found->info.name
                             : url_name.empty()        ? hash
                                                       : url_name;
    std::string mime = found->info.mime.empty() ? std::string(mime_for_name(name)) : found->info.mime;
    auto set_headers = [&](auto& res) {
      res.set(http::field::content_type, mime);
      res.set("X-Content-Type-Options", "nosniff");
      res.set("Content-Security-Policy", "sandbox");
      res.set(http::field::content_disposition,
              std::string(found->info.inline_disposition ? "inline" : "attachment") + "; filename=\"" +
                  ascii_file_name(name) + "\"; filename*=UTF-8''" + percent_encode(name));
      // Content-addressed: the bytes behind a hash never change.
      res.set(http::field::cache_control, "private, max-age=31536000, immutable");
      res.keep_alive(keep);
    };
    if (found->bytes) {
      Response res{http::status::ok, version};
      set_headers(res);
      res.body() = *found->bytes;
      return send(std::move(res), keep);
    }
    http::file_body::value_type body;
    beast::error_code ec;
    body.open(found->file.c_str(), beast::file_mode::scan, ec);
    if (ec) return send(error_response(version, http::status::not_found, "no such media"), keep);
    auto res = std::make_shared<http::response<http::file_body>>(http::status::ok, version);
    res->body() = std::move(body);
    set_headers(*res);
    res->prepare_payload();
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code wec, std::size_t) {
      if (wec) return self->close();
      if (res->need_eof()) return self->shutdown_send();
      self->do_read();
    });
  }

  void serve_asset(unsigned version, bool keep, const std::string& path) {
    // web/ may keep its assets at the top or under web/assets/: both are served as /assets/<file>.
    const embed::File* file = embed::find(embed::web_assets(), path);
    if (file == nullptr && path != "index.html") file = embed::find(embed::web_assets(), "assets/" + path);
    if (file == nullptr) {
      return send(
          text_response(version, http::status::not_found,
                        path == "index.html" ? "the web page is not built into this binary (web/ was empty)"
                                             : "no such file"),
          keep);
    }
    Response res =
        text_response(version, http::status::ok, std::string(file->data), mime_for_name(file->path));
    res.set(http::field::cache_control, "no-cache");
    res.set("Content-Security-Policy", kWebCsp);
    res.set("X-Content-Type-Options", "nosniff");
    res.set("Referrer-Policy", "no-referrer");
    send(std::move(res), keep);
  }

  void start_turn(unsigned version, bool keep, const std::string& conversation, const std::string& body);
  void start_completion(const Request& req);

  void send(Response res, bool keep_alive) {
    res_ = std::move(res);
    res_.keep_alive(keep_alive);
    res_.prepare_payload();
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      if (self->res_.need_eof()) return self->shutdown_send();
      self->do_read();
    });
  }

  void shutdown_send() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  void close() {
    if (closed_) return;
    closed_ = true;  // the queue stays: a write in flight still points into its front
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  // ---- the SSE stream
  void enqueue(std::string event, bool last) {
    if (closed_) return;
    queue_.push_back(std::move(event));
    if (last) ending_ = true;
    if (!writing_) write_next();
  }

  void write_next() {
    if (closed_) return;
    if (queue_.empty()) {
      // Everything went out: close now rather than wait for the client, which may never hang up.
      if (ending_) close();
      return;
    }
    writing_ = true;
    asio::async_write(stream_.socket(), asio::buffer(queue_.front()),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        self->writing_ = false;
                        if (ec) return self->client_gone();
                        self->queue_.pop_front();
                        self->write_next();
                      });
  }

  // An SSE client sends nothing; a read that completes with an error means it hung up.
  void watch_client() {
    stream_.socket().async_read_some(asio::buffer(sink_),
                                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                       if (!ec) return self->watch_client();
                                       self->client_gone();
                                     });
  }

  void client_gone() {
    if (!closed_ && !turn_id_.empty() && !turn_ended_) server_.agent_.cancel(turn_id_);
    close();
  }

 public:
  void mark_turn_ended() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->turn_ended_ = true; });
  }

 private:
  Impl& server_;
  const std::string address_;
  beast::tcp_stream stream_;
  ConnectionSlot slot_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response res_;
  bool closed_ = false;

  std::deque<std::string> queue_;
  bool writing_ = false;
  bool ending_ = false;
  bool turn_ended_ = false;
  std::string turn_id_;
  std::array<char, 512> sink_{};
};

// Turns agent callbacks into SSE events on the session's strand, and tees them (as protocol frames) to the
// conversation's WebSocket watchers. It lets go of the session at on_turn_end: the agent may keep the
// observer after the server (and its io_context) is gone.
class HttpServer::Impl::StreamObserver final : public agent::TurnObserver {
 public:
  StreamObserver(Impl& server, std::shared_ptr<Session> session, std::string turn_id, std::string user,
                 std::string conversation)
      : server_(server),
        session_(std::move(session)),
        turn_id_(std::move(turn_id)),
        watchers_(server.broadcast_target(), std::move(user), std::move(conversation), turn_id_) {}

  void on_text(std::string_view text) override {
    if (text.empty()) return;
    watchers_.on_text(text);
    emit(sse_event("text", json::object{{"text", text}}), false);
  }
  void on_delivery(const exec::Delivery& delivery) override {
    watchers_.on_delivery(delivery);
    emit(sse_event("delivery", client_delivery_json(delivery)), false);
  }
  void on_model_call(int n) override {
    watchers_.on_model_call(n);
    emit(sse_event("model_call", json::object{{"call", n}}), false);
  }
  void on_silence(bool late) override {
    watchers_.on_silence(late);
    emit(sse_event("silence", json::object{{"late", late}}), false);
  }
  void on_turn_end(const agent::TurnSummary& summary) override {
    watchers_.on_turn_end(summary);
    json::array diagnostics;
    for (const auto& d : summary.diagnostics) diagnostics.emplace_back(d);
    json::object end{{"turn_id", summary.turn_id},
                     {"status", agent::to_string(summary.status)},
                     {"diagnostics", std::move(diagnostics)}};
    std::shared_ptr<Session> session;
    {
      std::lock_guard lock(mu_);
      session = std::move(session_);
    }
    if (session) {
      session->mark_turn_ended();
      session->post_event(sse_event("end", end), true);
      session.reset();  // the posted handlers own it now
    }
    server_.turn_closed(turn_id_);  // last: stop() may destroy the io_context right after this
  }

 private:
  void emit(std::string event, bool last) {
    std::lock_guard lock(mu_);
    if (session_) session_->post_event(std::move(event), last);
  }

  Impl& server_;
  std::mutex mu_;
  std::shared_ptr<Session> session_;
  std::string turn_id_;
  TurnBroadcaster watchers_;
};

void HttpServer::Impl::Session::start_turn(unsigned version, bool keep, const std::string& conversation,
                                           const std::string& body) {
  if (!valid_conversation_id(conversation)) {
    return send(error_response(version, http::status::bad_request,
                               "conversation id must be 1 to 128 of A-Z a-z 0-9 . _ -"),
                keep);
  }
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) {
    return send(error_response(version, http::status::bad_request,
                               "body must be a JSON object like {\"text\":\"hello\",\"user\":\"web\"}"),
                keep);
  }
  const json::object& obj = parsed.as_object();
  const json::value* text = obj.if_contains("text");
  if (!text || !text->is_string() || text->as_string().empty()) {
    return send(error_response(version, http::status::bad_request, "\"text\" must be a non-empty string"),
                keep);
  }
  std::string user = "web";
  if (const json::value* u = obj.if_contains("user")) {
    if (!u->is_string() || u->as_string().empty()) {
      return send(error_response(version, http::status::bad_request,
                                 "\"user\" must be a non-empty string when given"),
                  keep);
    }
    user = std::string(u->as_string());
  }
  if (const double wait = server_.rate_check(user, address_); wait > 0) {
    Response res = error_response(version, http::status::too_many_requests, server_.rate_message(wait));
    res.set(http::field::retry_after, std::to_string(static_cast<long long>(std::ceil(wait))));
    return send(std::move(res), keep);
  }

  turn_id_ = server_.new_turn_id();
  if (!server_.turn_opened(turn_id_, user, conversation)) {
    turn_id_.clear();
    return send(error_response(version, http::status::service_unavailable, "server is stopping"), false);
  }
  // The header goes out as raw bytes: the body is an open-ended stream delimited by the close.
  stream_.expires_never();
  queue_.push_back(
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: text/event-stream; charset=utf-8\r\n"
      "Cache-Control: no-cache\r\n"
      "X-Content-Type-Options: nosniff\r\n"
      "Connection: close\r\n\r\n");
  write_next();
  watch_client();
  auto observer = std::make_shared<StreamObserver>(server_, shared_from_this(), turn_id_, user, conversation);
  server_.start_web_turn(user, conversation, std::string(text->as_string()), turn_id_, std::nullopt,
                         std::move(observer));
}

// POST /v1/chat/completions: the OpenAI protocol lives in chat_completions.cpp; here it gets the session's
// write queue (stream) or one response (non-stream), and the same hang-up watch as the SSE endpoint.
void HttpServer::Impl::Session::start_completion(const Request& req) {
  const unsigned version = req.version();
  auto reply = [this, version](int status, std::string body, bool keep) {
    Response res{static_cast<http::status>(status), version};
    res.set(http::field::content_type, "application/json");
    res.body() = std::move(body);
    send(std::move(res), keep);
  };
  completions::ParseResult parsed = completions::parse_request(req.body());
  if (parsed.error)
    return reply(parsed.error->status, completions::error_body(*parsed.error), req.keep_alive());
  auto header = [&req](std::string_view name) {
    auto it = req.find(name);
    return it == req.end() ? std::string() : std::string(it->value().data(), it->value().size());
  };
  completions::TargetResult target = completions::resolve_target(
      *parsed.request, {header("X-Sigil-User"), header("X-Sigil-Conversation"), header("Idempotency-Key")});
  if (target.error)
    return reply(target.error->status, completions::error_body(*target.error), req.keep_alive());
  const completions::TurnTarget& t = *target.target;
  if (const double wait = server_.rate_check(t.user, address_); wait > 0) {
    Response res{http::status::too_many_requests, version};
    res.set(http::field::content_type, "application/json");
    res.set(http::field::retry_after, std::to_string(static_cast<long long>(std::ceil(wait))));
    res.body() = completions::error_body(
        {429, server_.rate_message(wait), "rate_limit_error", {}, "rate_limit_exceeded"});
    return send(std::move(res), req.keep_alive());
  }
  if (server_.turn_running(t.turn_id)) {
    return reply(409,
                 completions::error_body(
                     {409,
                      "a request with this Idempotency-Key is still running; retry when it has ended",
                      "invalid_request_error",
                      {},
                      "idempotency_key_in_use"}),
                 req.keep_alive());
  }
  if (!server_.turn_opened(t.turn_id, t.user, t.conversation)) {
    return reply(503, completions::error_body({503, "server is stopping", "server_error", {}, {}}), false);
  }
  turn_id_ = t.turn_id;
  stream_.expires_never();
  watch_client();  // also for a non-stream answer: a client that hangs up cancels the turn
  completions::CompletionObserver::Callbacks callbacks;
  callbacks.write = [self = shared_from_this(), server = &server_, id = t.turn_id](std::string bytes,
                                                                                   bool last) {
    if (last) {
      server->turn_answered(id);
      self->mark_turn_ended();
    }
    self->post_event(std::move(bytes), last);
  };
  callbacks.respond = [self = shared_from_this(), version, server = &server_, id = t.turn_id](
                          int status, std::string body) {
    server->turn_answered(id);
    self->mark_turn_ended();
    asio::post(self->stream_.get_executor(), [self, version, status, body = std::move(body)]() mutable {
      if (self->closed_) return;
      Response res{static_cast<http::status>(status), version};
      res.set(http::field::content_type, "application/json");
      // The model client already retried; a client's retry would run the turn's directives again.
      if (status >= 500) res.set("X-Should-Retry", "false");
      res.body() = std::move(body);
      self->send(std::move(res), false);
    });
  };
  callbacks.ended = [server = &server_, id = t.turn_id] { server->turn_closed(id); };
  auto observer = std::make_shared<completions::CompletionObserver>(
      *parsed.request, t.turn_id, static_cast<std::int64_t>(std::time(nullptr)), std::move(callbacks));
  server_.agent_.start_turn(completions::turn_input(*parsed.request, t), std::move(observer));
}

// Beyond max_connections: a fixed 503, then the socket closes. Nothing is read.
void HttpServer::Impl::refuse(tcp::socket socket) {
  ++connections_refused_;
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
      "Connection: close\r\nContent-Length: 43\r\n\r\n{\"error\":\"too many connections; try later\"}";
  auto s = std::make_shared<tcp::socket>(std::move(socket));
  asio::async_write(*s, asio::buffer(kBusy.data(), kBusy.size()), [s](beast::error_code, std::size_t) {
    beast::error_code ec;
    s->shutdown(tcp::socket::shutdown_send, ec);
    s->close(ec);
  });
}

void HttpServer::Impl::do_accept() {
  acceptor_->async_accept(asio::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_->is_open()) return;
    if (!ec) {
      set_cloexec(socket.native_handle());
      const std::size_t limit = options_.max_connections;
      if (limit != 0 && connections_open_.load() >= limit) {
        refuse(std::move(socket));
      } else {
        ++connections_open_;
        auto session =
            std::make_shared<Session>(*this, std::move(socket), ConnectionSlot(&connections_open_));
        track(session);
        session->run();
      }
    }
    do_accept();
  });
}

unsigned short HttpServer::Impl::start() {
  if (started_) return acceptor_->local_endpoint().port();
  const std::string& host = options_.host;
  if (!is_loopback(host) && options_.api_token.empty()) {
    throw HttpServerError("http server: refusing to listen on non-loopback host \"" + host +
                          "\" without an api_token; set an api_token or bind 127.0.0.1");
  }
  boost::system::error_code ec;
  const auto address =
      host == "localhost" ? asio::ip::make_address("127.0.0.1") : asio::ip::make_address(host, ec);
  if (ec) throw HttpServerError("http server: host \"" + host + "\" is not an IP address");
  const tcp::endpoint endpoint{address, options_.port};
  // On its own strand: with several io threads, stop()'s close must not race the accept handler.
  tcp::acceptor acceptor(asio::make_strand(ioc_));
  auto fail = [&](std::string_view what) {
    throw HttpServerError("http server: cannot " + std::string(what) + " " + host + ":" +
                          std::to_string(options_.port) + ": " + ec.message());
  };
  acceptor.open(endpoint.protocol(), ec);
  if (ec) fail("open a socket for");
  set_cloexec(acceptor.native_handle());
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) fail("set reuse_address on");
  acceptor.bind(endpoint, ec);
  if (ec) fail("bind");
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) fail("listen on");
  acceptor_.emplace(std::move(acceptor));
  const unsigned short port = acceptor_->local_endpoint().port();
  policy_.emplace(
      OriginPolicyConfig{host, port, options_.public_url, options_.allowed_origins, options_.allowed_hosts});
  started_ = true;
  work_.emplace(ioc_.get_executor());
  do_accept();
  const unsigned threads = std::max(1u, options_.threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { ioc_.run(); });
  return port;
}

void HttpServer::Impl::stop() {
  std::vector<std::string> turns;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (const auto& [id, key] : open_turns_) turns.push_back(id);
  }
  if (!started_) {
    hub_->close();
    return;
  }
  // Closed (and waited for) before the sessions are collected, so none is accepted after that.
  std::promise<void> closed;
  asio::post(acceptor_->get_executor(), [this, &closed] {
    beast::error_code ec;
    acceptor_->close(ec);
    closed.set_value();
  });
  closed.get_future().wait();
  // The turns end (cancelled) before the io threads stop, so their last events still find a strand.
  // Cancel again while waiting: a turn queued behind another, or one just being started, may not have
  // been cancellable the first time.
  for (;;) {
    for (const auto& id : turns) agent_.cancel(id);
    std::unique_lock lock(mu_);
    if (turns_cv_.wait_for(lock, 100ms, [this] { return open_turns_.empty(); })) break;
    turns.clear();
    for (const auto& [id, key] : open_turns_) turns.push_back(id);
  }
  // From here on no frame is posted to a connection (turns the server did not start, such as scheduled
  // ones, may still be running in the agent).
  hub_->close();
  std::vector<std::shared_ptr<Closable>> live;
  {
    std::lock_guard lock(mu_);
    for (const auto& w : sessions_) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
    sessions_.clear();
  }
  for (const auto& s : live) s->close_from_server();
  live.clear();
  work_.reset();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

HttpServer::HttpServer(agent::Agent& agent, store::Store& store, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(agent, store, std::move(options))) {}

HttpServer::~HttpServer() = default;

unsigned short HttpServer::start() { return impl_->start(); }

void HttpServer::stop() { impl_->stop(); }

std::shared_ptr<agent::TurnObserver> HttpServer::conversation_observer(std::string user,
                                                                       std::string conversation) {
  return std::make_shared<TurnBroadcaster>(impl_->broadcast_target(), std::move(user),
                                           std::move(conversation), std::string());
}

}  // namespace sigil::server
