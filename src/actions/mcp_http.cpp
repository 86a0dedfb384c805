#include "sigil/actions/mcp_http.h"

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>

#include "sigil/net/sse_parser.h"
#include "sigil/text/ascii.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

// The client keeps its own time-outs (and cancels by notification): the HTTP layer only must not give up
// on a long SSE stream first.
constexpr std::chrono::hours kLongWait{24};
// A JSON answer larger than this is not one we can use.
constexpr std::size_t kMaxJsonBody = 16u << 20;
constexpr int kTransportError = -32000;

// What the transport and its in-flight requests share: requests may outlive a close() by a moment.
struct Shared {
  std::mutex mu;
  McpTransport::Events events;
  std::uint64_t generation = 0;  // bumped by open() and close(): answers of an older one are dropped
  bool open = false;
  std::string session;
  bool initialized = false;  // the first answer arrived: MCP-Protocol-Version goes on later requests
  std::map<std::uint64_t, std::shared_ptr<net::HttpCall>> calls;
  std::uint64_t next_call = 0;
  std::recursive_mutex deliver_mu;  // held while an event is delivered; close() waits on it

  void deliver_message(std::uint64_t gen, std::string_view message) {
    std::lock_guard delivering(deliver_mu);
    {
      std::lock_guard lock(mu);
      if (!open || gen != generation) return;
    }
    events.on_message(message);
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

class PostHandler final : public net::HttpHandler {
 public:
  PostHandler(std::shared_ptr<Shared> shared, std::uint64_t gen, std::uint64_t call, json::value id,
              bool had_session)
      : shared_(std::move(shared)), gen_(gen), call_(call), id_(std::move(id)), had_session_(had_session) {}

  void on_head(const net::HttpResponseHead& head) override {
    status_ = head.status;
    if (const std::string* type = head.find("Content-Type"))
      sse_ = text::ascii::iequals(std::string_view(*type).substr(0, 17), "text/event-stream");
    std::lock_guard lock(shared_->mu);
    if (gen_ != shared_->generation) return;
    if (const std::string* session = head.find("Mcp-Session-Id");
        session != nullptr && shared_->session.empty())
      shared_->session = *session;
    if (status_ < 400) shared_->initialized = true;
  }

  void on_body(std::string_view chunk) override {
    if (!sse_ || status_ >= 300) {
      if (body_.size() + chunk.size() <= kMaxJsonBody) body_.append(chunk);
      return;
    }
    std::vector<net::SseEvent> events;
    parser_.feed(chunk, events);
    for (const net::SseEvent& e : events) {
      if (e.data.empty()) continue;  // a priming event (an id for resumption) carries no message
      answered_ = answered_ || !id_.is_null();
      shared_->deliver_message(gen_, e.data);
    }
  }

  void on_end(const std::optional<net::NetError>& error) override {
    {
      std::lock_guard lock(shared_->mu);
      shared_->calls.erase(call_);
    }
    if (status_ == 404 && had_session_) {
      shared_->deliver_closed(gen_, "the server ended the session (HTTP 404)");
      return;
    }
    if (status_ >= 200 && status_ < 300 && !sse_ && !body_.empty()) {
      shared_->deliver_message(gen_, body_);
      return;
    }
    if (id_.is_null() || (answered_ && !error)) return;  // a notification, or a stream that answered
    std::string why = status_ >= 300 ? "HTTP " + std::to_string(status_) + error_detail(body_)
                      : error        ? error->message
                                     : std::string("no answer in the response");
    if (sse_ && status_ < 300)
      why = "the event stream ended without an answer" + (error ? ": " + error->message : std::string());
    json::object reply{
        {"jsonrpc", "2.0"}, {"id", id_}, {"error", {{"code", kTransportError}, {"message", why}}}};
    shared_->deliver_message(gen_, json::serialize(reply));
  }

 private:
  std::shared_ptr<Shared> shared_;
  std::uint64_t gen_, call_;
  json::value id_;  // null for a notification or an answer of ours
  bool had_session_;
  int status_ = 0;
  bool sse_ = false;
  bool answered_ = false;
  std::string body_;
  net::SseParser parser_;
};

class HttpTransport final : public McpTransport {
 public:
  HttpTransport(McpHttpOptions options, std::shared_ptr<net::HttpClient> http)
      : options_(std::move(options)), http_(std::move(http)), shared_(std::make_shared<Shared>()) {}
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
    return {};
  }

  Result<void> send(std::string_view message) override {
    json::value id = nullptr;
    {
      boost::system::error_code ec;
      json::value parsed = json::parse(message, ec);
      // Only requests (a method and an id) wait for an answer that a failed POST must stand in for.
      if (!ec && parsed.is_object() && parsed.get_object().contains("method")) {
        if (const auto* i = parsed.get_object().if_contains("id")) id = *i;
      }
    }
    net::HttpRequest request;
    request.method = "POST";
    request.url = options_.url;
    request.body = std::string(message);
    request.timeouts.first_byte = kLongWait;
    request.timeouts.idle = kLongWait;
    request.resend_on_stale_connection = false;  // a tool call must not run twice
    request.headers = {{"Content-Type", "application/json"},
                       {"Accept", "application/json, text/event-stream"}};
    for (const auto& [name, value] : options_.headers) request.headers.push_back({name, value});
    std::shared_ptr<PostHandler> handler;
    std::uint64_t call = 0;
    {
      std::lock_guard lock(shared_->mu);
      if (!shared_->open) return make_error(ErrorCode::tool_failed, "the server is not connected");
      if (!shared_->session.empty()) request.headers.push_back({"Mcp-Session-Id", shared_->session});
      if (shared_->initialized)
        request.headers.push_back({"MCP-Protocol-Version", std::string(kMcpProtocolVersion)});
      call = shared_->next_call++;
      handler = std::make_shared<PostHandler>(shared_, shared_->generation, call, std::move(id),
                                              !shared_->session.empty());
    }
    auto handle = http_->start(std::move(request), handler);
    std::lock_guard lock(shared_->mu);
    shared_->calls.emplace(call, std::move(handle));  // on_end may have erased nothing yet: harmless
    return {};
  }

  void close() override {
    std::map<std::uint64_t, std::shared_ptr<net::HttpCall>> calls;
    std::string session;
    {
      std::lock_guard lock(shared_->mu);
      if (!shared_->open && shared_->calls.empty()) return;
      shared_->open = false;
      ++shared_->generation;
      calls.swap(shared_->calls);
      session = std::exchange(shared_->session, {});
    }
    for (auto& [id, c] : calls) {
      if (c) c->cancel();
    }
    // Wait for an event being delivered now; later ones see the new generation and are dropped.
    { std::lock_guard delivering(shared_->deliver_mu); }
    if (!session.empty()) {
      // The spec asks a client that is done with a session to end it; nobody waits for the answer.
      net::HttpRequest request;
      request.method = "DELETE";
      request.url = options_.url;
      request.headers = {{"Mcp-Session-Id", session},
                         {"MCP-Protocol-Version", std::string(kMcpProtocolVersion)}};
      for (const auto& [name, value] : options_.headers) request.headers.push_back({name, value});
      (void)http_->start(std::move(request), std::make_shared<Ignore>());
    }
  }

 private:
  struct Ignore final : net::HttpHandler {
    void on_head(const net::HttpResponseHead&) override {}
    void on_body(std::string_view) override {}
    void on_end(const std::optional<net::NetError>&) override {}
  };

  McpHttpOptions options_;
  std::shared_ptr<net::HttpClient> http_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace

std::unique_ptr<McpTransport> make_mcp_http_transport(McpHttpOptions options,
                                                      std::shared_ptr<net::HttpClient> http) {
  return std::make_unique<HttpTransport>(std::move(options), std::move(http));
}

}  // namespace sigil::actions
