#include "sigil/actions/mcp_http.h"

#include <boost/json.hpp>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include "sigil/actions/mcp_oauth.h"
#include "sigil/log/log.h"
#include "sigil/net/sse_parser.h"
#include "sigil/text/ascii.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

// The client keeps its own time-outs (and cancels by notification): the HTTP layer only must not give up
// on a long SSE stream first.
constexpr std::chrono::hours kLongWait{24};
// How long send() waits for the server to take a notification (its POST's answer) before it goes on.
constexpr std::chrono::seconds kNotificationWait{10};
// A JSON answer larger than this is not one we can use.
constexpr std::size_t kMaxJsonBody = 16u << 20;
constexpr int kTransportError = -32000;
// The wait before reconnecting a stream when the server named none with `retry:`.
constexpr std::uint64_t kDefaultRetryMs = 1000;
// A server may close a stream any number of times (SSE polling), but reconnections in a row that bring
// no message at all mean it is not coming: give up after this many.
constexpr int kMaxFruitlessReconnects = 5;

// The three kinds of SSE stream a session has.
enum class StreamKind {
  post,    // the answer to one POST: a JSON body or an SSE stream
  resume,  // a GET with Last-Event-ID that goes on with a POST's SSE stream after it broke off
  listen,  // the standalone GET stream for messages the server sends outside any request
};

// What the transport and its streams share: a stream may outlive a close() by a moment.
struct Shared {
  McpHttpOptions options;
  net::HttpClient* http = nullptr;  // the transport's; used only under deliver_mu at the current generation

  std::mutex mu;
  McpTransport::Events events;
  std::uint64_t generation = 0;  // bumped by open() and close(): streams of an older one are dropped
  bool open = false;
  std::string session;
  bool initialized = false;  // the first answer arrived: MCP-Protocol-Version goes on later requests
  std::string protocol_version{kMcpProtocolVersion};  // the one the server chose in its initialize answer
  std::map<std::uint64_t, std::shared_ptr<net::HttpCall>> calls;
  std::uint64_t next_call = 0;
  std::recursive_mutex deliver_mu;  // held while an event is delivered or a stream started; close() waits

  bool current(std::uint64_t gen) {
    std::lock_guard lock(mu);
    return open && gen == generation;
  }
  void deliver_message(std::uint64_t gen, std::string_view message) {
    std::lock_guard delivering(deliver_mu);
    if (!current(gen)) return;
    events.on_message(message);
  }
  // The JSON-RPC error that stands in for the answer to request `id` when the transport could not get it.
  void deliver_error(std::uint64_t gen, const json::value& id, std::string_view why) {
    json::object reply{
        {"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", kTransportError}, {"message", why}}}};
    deliver_message(gen, json::serialize(reply));
  }
  void deliver_closed(std::uint64_t gen, std::string reason) {
    std::lock_guard delivering(deliver_mu);
    {
      std::lock_guard lock(mu);
      if (!open || gen != generation) return;
      open = false;
    }
    events.on_closed(std::move(reason));
  }
  // The headers every request of the session carries; mu held.
  net::Headers session_headers() const {
    net::Headers h;
    for (const auto& [name, value] : options.headers) h.push_back({name, value});
    if (options.oauth) {
      if (std::string token = options.oauth->authorization(); !token.empty())
        h.push_back({"Authorization", token});
    }
    if (!session.empty()) h.push_back({"Mcp-Session-Id", session});
    if (initialized) h.push_back({"MCP-Protocol-Version", protocol_version});
    return h;
  }
};

// ": MESSAGE" from a JSON-RPC error body (servers explain a refused request that way), else "".
std::string error_detail(const std::string& body) {
  boost::system::error_code ec;
  const json::value v = json::parse(body, ec);
  const auto* o = ec ? nullptr : v.if_object();
  const auto* e = o != nullptr ? o->if_contains("error") : nullptr;
  const auto* m = e != nullptr && e->is_object() ? e->get_object().if_contains("message") : nullptr;
  return m != nullptr && m->is_string() ? ": " + std::string(m->get_string()) : std::string();
}

// Where a stream is, to go on with it: which answer it still owes, the id to resume from, the wait.
struct StreamState {
  StreamKind kind = StreamKind::post;
  std::string method;             // of the POSTed message ("" for a GET)
  json::value awaited = nullptr;  // the id of the request whose answer the stream owes; null: none
  std::string last_event_id;
  std::uint64_t retry_ms = kDefaultRetryMs;
  int fruitless = 0;  // reconnections in a row that brought no message
  // A POST's message and the Authorization it carried, to send it again once OAuth got a token.
  std::string body;
  std::string authorization;
  bool authorized_retry = false;  // this is that second sending: a refusal now is final
  // Set when the POST's answer has come (or it failed): send() of a notification waits for it.
  std::shared_ptr<std::promise<void>> taken;
};

void start_stream(const std::shared_ptr<Shared>& shared, std::uint64_t gen, StreamState state);
void start_post(const std::shared_ptr<Shared>& shared, std::uint64_t gen, StreamState state);
// Gets a token (on a thread of its own: the flow blocks on HTTP) and sends the refused POST again.
void authorize_and_resend(const std::shared_ptr<Shared>& shared, std::uint64_t gen, StreamState state,
                          std::string challenge);

class StreamHandler final : public net::HttpHandler {
 public:
  StreamHandler(std::shared_ptr<Shared> shared, std::uint64_t gen, std::uint64_t call, StreamState state,
                bool had_session)
      : shared_(std::move(shared)),
        gen_(gen),
        call_(call),
        state_(std::move(state)),
        had_session_(had_session) {}

  void on_head(const net::HttpResponseHead& head) override {
    status_ = head.status;
    if (const std::string* challenge = head.find("WWW-Authenticate")) challenge_ = *challenge;
    if (const std::string* type = head.find("Content-Type"))
      sse_ = text::ascii::iequals(std::string_view(*type).substr(0, 17), "text/event-stream");
    std::lock_guard lock(shared_->mu);
    if (gen_ != shared_->generation) return;
    if (const std::string* session = head.find("Mcp-Session-Id");
        session != nullptr && shared_->session.empty() && state_.kind == StreamKind::post)
      shared_->session = *session;
    if (status_ < 400 && state_.kind == StreamKind::post) shared_->initialized = true;
  }

  void on_body(std::string_view chunk) override {
    if (!sse_ || status_ >= 300) {
      if (body_.size() + chunk.size() <= kMaxJsonBody) body_.append(chunk);
      return;
    }
    std::vector<net::SseEvent> events;
    parser_.feed(chunk, events);
    if (!parser_.last_id().empty()) state_.last_event_id = parser_.last_id();
    if (auto retry = parser_.retry_ms()) state_.retry_ms = *retry;
    for (const net::SseEvent& e : events) {
      if (e.data.empty()) continue;  // a priming event (an id to resume from) carries no message
      brought_message_ = true;
      note_answer(e.data);
      shared_->deliver_message(gen_, e.data);
    }
    // A resumed stream has done its work once the answer came; the server may keep it open.
    if (answered_ && state_.kind == StreamKind::resume) cancel_self();
  }

  void on_end(const std::optional<net::NetError>& error) override {
    {
      std::lock_guard lock(shared_->mu);
      shared_->calls.erase(call_);
    }
    if (auto taken = std::exchange(state_.taken, nullptr)) taken->set_value();
    // (A GET stream's 404 may only mean the server routes no GET: the next POST tells a lost session.)
    if (status_ == 404 && had_session_ && state_.kind != StreamKind::listen) {
      shared_->deliver_closed(gen_, "the server ended the session (HTTP 404)");
      return;
    }
    if (state_.kind == StreamKind::post && status_ >= 200 && status_ < 300 && !sse_ && !body_.empty()) {
      note_answer(body_);
      shared_->deliver_message(gen_, body_);
      return;
    }
    if (state_.kind == StreamKind::post && state_.method == "notifications/initialized" && status_ >= 200 &&
        status_ < 300) {
      // The session is set up: open the stream for what the server sends outside our requests.
      StreamState listen;
      listen.kind = StreamKind::listen;
      start_stream(shared_, gen_, std::move(listen));
      return;
    }
    if (state_.kind == StreamKind::listen) {
      end_listen(error);
      return;
    }
    if (state_.kind == StreamKind::post && shared_->options.oauth && !state_.authorized_retry &&
        (status_ == 401 ||
         (status_ == 403 && bearer_challenge_param(challenge_, "error") == "insufficient_scope"))) {
      authorize_and_resend(shared_, gen_, std::move(state_), challenge_);
      return;
    }
    if (state_.awaited.is_null() || answered_) return;  // a notification, or a stream that answered
    const bool stream_broke = sse_ && status_ >= 200 && status_ < 300;
    if (stream_broke && !state_.last_event_id.empty()) {
      // The server closed the stream (or the connection broke) before the answer, and named an event id
      // to go on from: resume with a GET after the wait it asked for.
      state_.fruitless = brought_message_ ? 0 : state_.fruitless + 1;
      if (state_.fruitless <= kMaxFruitlessReconnects) {
        reconnect(StreamKind::resume);
        return;
      }
    }
    std::string why = status_ >= 300 ? "HTTP " + std::to_string(status_) + error_detail(body_)
                      : error        ? error->message
                                     : std::string("no answer in the response");
    if (status_ == 401 || status_ == 403) why += authorization_hint();
    if (state_.kind == StreamKind::resume && !stream_broke)
      why = "resuming the event stream after it broke off failed: " + why;
    if (stream_broke) {
      why = "the event stream ended without an answer" + (error ? ": " + error->message : std::string());
      if (!state_.last_event_id.empty())
        why += " (resumed " + std::to_string(kMaxFruitlessReconnects) + " times in a row with nothing new)";
      else if (state_.kind == StreamKind::post)
        why += " (the server gave no event id to resume from)";
    }
    shared_->deliver_error(gen_, state_.awaited, why);
  }

 private:
  // Marks the stream answered when `message` is the answer it owes; keeps the protocol version the
  // server chose from the initialize answer.
  void note_answer(std::string_view message) {
    if (state_.awaited.is_null()) return;
    boost::system::error_code ec;
    const json::value v = json::parse(message, ec);
    const auto* o = ec ? nullptr : v.if_object();
    if (o == nullptr || o->contains("method")) return;
    const auto* id = o->if_contains("id");
    if (id == nullptr || *id != state_.awaited) return;
    answered_ = true;
    if (state_.method != "initialize") return;
    const auto* result = o->if_contains("result");
    const auto* version = result != nullptr && result->is_object()
                              ? result->get_object().if_contains("protocolVersion")
                              : nullptr;
    if (version != nullptr && version->is_string() && !version->get_string().empty()) {
      std::lock_guard lock(shared_->mu);
      if (gen_ == shared_->generation) shared_->protocol_version = version->get_string();
    }
  }

  // Say what the server asked for and what can be configured.
  std::string authorization_hint() const {
    std::string hint = status_ == 401 ? " (the server wants authorization" : " (the token was refused";
    if (!challenge_.empty()) hint += "; it asks: WWW-Authenticate: " + challenge_.substr(0, 300);
    if (shared_->options.oauth) return hint + "; the token OAuth got was refused too)";
    return hint + "; give a token with headers = { Authorization = \"Bearer …\" }, or configure oauth)";
  }

  void cancel_self() {
    std::shared_ptr<net::HttpCall> call;
    {
      std::lock_guard lock(shared_->mu);
      if (auto it = shared_->calls.find(call_); it != shared_->calls.end()) call = it->second;
    }
    if (call) call->cancel();
  }

  void end_listen(const std::optional<net::NetError>& error) {
    if (status_ >= 300) {
      // The GET stream is optional (405 says "not offered"; some servers route no GET at all): this server
      // sends everything on the answers to our POSTs.
      if (log::enabled(log::Level::info))
        log::write(log::Record{log::Level::info,
                               "mcp-no-get-stream",
                               {{"url", shared_->options.url}, {"status", std::to_string(status_)}}});
      return;
    }
    const bool fruitful = sse_ && status_ >= 200 && status_ < 300 && !error && brought_event();
    state_.fruitless = fruitful ? 0 : state_.fruitless + 1;
    if (state_.fruitless > kMaxFruitlessReconnects) {
      if (log::enabled(log::Level::warn)) {
        const std::string why = error ? error->message : std::string("closed with no event, again and again");
        log::write(log::Record{
            log::Level::warn, "mcp-get-stream-gone", {{"url", shared_->options.url}, {"why", why}}});
      }
      return;
    }
    reconnect(StreamKind::listen);
  }

  // Any event at all, a priming one included: the server is there and the stream works (SSE polling).
  bool brought_event() const { return brought_message_ || !parser_.last_id().empty(); }

  void reconnect(StreamKind kind) {
    StreamState next = state_;
    next.kind = kind;
    next.method.clear();
    std::lock_guard delivering(shared_->deliver_mu);
    if (!shared_->current(gen_)) return;
    shared_->http->io().after(std::chrono::milliseconds(state_.retry_ms),
                              [shared = shared_, gen = gen_, next = std::move(next)](bool fired) mutable {
                                if (fired) start_stream(shared, gen, std::move(next));
                              });
  }

  std::shared_ptr<Shared> shared_;
  std::uint64_t gen_, call_;
  StreamState state_;
  bool had_session_;
  int status_ = 0;
  bool sse_ = false;
  bool answered_ = false;
  bool brought_message_ = false;
  std::string body_;
  std::string challenge_;  // WWW-Authenticate of a refusal
  net::SseParser parser_;
};

// Starts `request` as a call of the session, its answer read by a StreamHandler, unless the session was
// closed meanwhile. Every call carries the session's headers; `add_headers(headers, state)` adds the
// call's own while mu is held, so they see the session as the call starts.
template <class AddHeaders>
void start_call(const std::shared_ptr<Shared>& shared, std::uint64_t gen, net::HttpRequest request,
                StreamState state, AddHeaders add_headers) {
  std::lock_guard delivering(shared->deliver_mu);  // close() waits for this: shared->http stays valid
  request.url = shared->options.url;
  request.timeouts.first_byte = kLongWait;
  request.timeouts.idle = kLongWait;
  std::shared_ptr<StreamHandler> handler;
  std::uint64_t call = 0;
  {
    std::lock_guard lock(shared->mu);
    if (!shared->open || gen != shared->generation) return;
    request.headers = shared->session_headers();
    add_headers(request.headers, state);
    call = shared->next_call++;
    handler = std::make_shared<StreamHandler>(shared, gen, call, std::move(state), !shared->session.empty());
  }
  auto handle = shared->http->start(std::move(request), handler);
  std::lock_guard lock(shared->mu);
  if (gen == shared->generation) shared->calls.emplace(call, std::move(handle));
}

// A GET stream (resume or listen) of the session, unless it was closed meanwhile.
void start_stream(const std::shared_ptr<Shared>& shared, std::uint64_t gen, StreamState state) {
  net::HttpRequest request;
  request.method = "GET";
  start_call(shared, gen, std::move(request), std::move(state), [](net::Headers& headers, StreamState& s) {
    headers.push_back({"Accept", "text/event-stream"});
    if (!s.last_event_id.empty()) headers.push_back({"Last-Event-ID", s.last_event_id});
  });
}

void start_post(const std::shared_ptr<Shared>& shared, std::uint64_t gen, StreamState state) {
  net::HttpRequest request;
  request.method = "POST";
  request.body = state.body;
  request.resend_on_stale_connection = false;  // a tool call must not run twice
  start_call(shared, gen, std::move(request), std::move(state), [](net::Headers& headers, StreamState& s) {
    headers.push_back({"Content-Type", "application/json"});
    headers.push_back({"Accept", "application/json, text/event-stream"});
    // The token this POST carries: the one OAuth is asked to replace when the server refuses it.
    s.authorization.clear();
    if (const std::string* a = net::find_header(headers, "Authorization")) s.authorization = *a;
  });
}

void authorize_and_resend(const std::shared_ptr<Shared>& shared, std::uint64_t gen, StreamState state,
                          std::string challenge) {
  std::thread([shared, gen, state = std::move(state), challenge = std::move(challenge)]() mutable {
    auto got = shared->options.oauth->authorize(challenge, state.authorization);
    if (!shared->current(gen)) return;
    if (got) {
      state.authorized_retry = true;
      start_post(shared, gen, std::move(state));
      return;
    }
    if (state.awaited.is_null()) return;
    shared->deliver_error(gen, state.awaited, got.error().message);
  }).detach();
}

class HttpTransport final : public McpTransport {
 public:
  HttpTransport(McpHttpOptions options, std::shared_ptr<net::HttpClient> http)
      : http_(std::move(http)), shared_(std::make_shared<Shared>()) {
    shared_->options = std::move(options);
    shared_->http = http_.get();
  }
  ~HttpTransport() override { close(); }
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  Result<void> open(Events events) override {
    close();
    std::lock_guard delivering(shared_->deliver_mu);
    std::lock_guard lock(shared_->mu);
    shared_->events = std::move(events);
    ++shared_->generation;
    shared_->open = true;
    shared_->session.clear();
    shared_->initialized = false;
    shared_->protocol_version = std::string(kMcpProtocolVersion);
    return {};
  }

  Result<void> send(std::string_view message) override {
    StreamState state;
    {
      boost::system::error_code ec;
      json::value parsed = json::parse(message, ec);
      // Only requests (a method and an id) wait for an answer that a failed POST must stand in for.
      if (!ec && parsed.is_object()) {
        const json::object& o = parsed.get_object();
        if (const auto* m = o.if_contains("method"); m != nullptr && m->is_string()) {
          state.method = m->get_string();
          if (const auto* i = o.if_contains("id")) state.awaited = *i;
        }
      }
    }
    state.body = std::string(message);
    // A notification is sent once the server took it, as the official SDK's client does: each POST has a
    // connection of its own, so the tools/list after notifications/initialized could overtake it and find
    // the tools a server registers only once it is initialized missing. (Answers to the server's requests
    // are sent from the thread streams are read on: they never wait.)
    std::future<void> taken;
    if (!state.method.empty() && state.awaited.is_null()) {
      state.taken = std::make_shared<std::promise<void>>();
      taken = state.taken->get_future();
    }
    std::uint64_t gen = 0;
    {
      std::lock_guard lock(shared_->mu);
      if (!shared_->open) return make_error(ErrorCode::tool_failed, "the server is not connected");
      gen = shared_->generation;
    }
    start_post(shared_, gen, std::move(state));
    if (taken.valid()) taken.wait_for(kNotificationWait);
    return {};
  }

  void close() override {
    std::map<std::uint64_t, std::shared_ptr<net::HttpCall>> calls;
    std::string session;
    net::Headers headers;
    {
      std::lock_guard lock(shared_->mu);
      if (!shared_->open && shared_->calls.empty()) return;
      headers = shared_->session_headers();
      shared_->open = false;
      ++shared_->generation;
      calls.swap(shared_->calls);
      session = std::exchange(shared_->session, {});
    }
    for (auto& [id, c] : calls) {
      if (c) c->cancel();
    }
    // Wait for an event being delivered or a stream being started now; later ones see the new generation
    // and are dropped.
    { std::lock_guard delivering(shared_->deliver_mu); }
    if (!session.empty()) {
      // The spec asks a client that is done with a session to end it; nobody waits for the answer.
      net::HttpRequest request;
      request.method = "DELETE";
      request.url = shared_->options.url;
      request.headers = std::move(headers);
      (void)http_->start(std::move(request), std::make_shared<Ignore>());
    }
  }

 private:
  struct Ignore final : net::HttpHandler {
    void on_head(const net::HttpResponseHead&) override {}
    void on_body(std::string_view) override {}
    void on_end(const std::optional<net::NetError>&) override {}
  };

  std::shared_ptr<net::HttpClient> http_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace

std::unique_ptr<McpTransport> make_mcp_http_transport(McpHttpOptions options,
                                                      std::shared_ptr<net::HttpClient> http) {
  return std::make_unique<HttpTransport>(std::move(options), std::move(http));
}

}  // namespace sigil::actions
