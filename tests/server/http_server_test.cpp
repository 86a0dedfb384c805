#include "sigil/server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/gateway_fixture.h"
#include "sigil/actions/builtin_handlers.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/replay.h"
#include "sigil/text/utf8.h"
#include "store/store_test_support.h"
#include "support/raw_http.h"

namespace sigil::server {
namespace {

using namespace sigil::test_http;

std::string get(const std::string& path, const std::string& extra_headers = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + extra_headers + "\r\n";
}

std::string post(const std::string& path, const std::string& body, const std::string& extra_headers = "") {
  return "POST " + path +
         " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n" + body;
}

struct SseEvent {
  std::string event;
  std::string data;
};

std::vector<SseEvent> parse_sse(const std::string& body) {
  std::vector<SseEvent> events;
  std::size_t pos = 0;
  while (pos < body.size()) {
    auto end = body.find("\n\n", pos);
    if (end == std::string::npos) end = body.size();
    SseEvent e;
    std::size_t line_start = pos;
    while (line_start < end) {
      auto line_end = body.find('\n', line_start);
      if (line_end == std::string::npos || line_end > end) line_end = end;
      const std::string line = body.substr(line_start, line_end - line_start);
      if (line.rfind("event: ", 0) == 0) e.event = line.substr(7);
      if (line.rfind("data: ", 0) == 0) e.data = line.substr(6);
      line_start = line_end + 1;
    }
    if (!e.event.empty()) events.push_back(std::move(e));
    pos = end + 2;
  }
  return events;
}

constexpr const char* kReply = "<react emoji=\"thumbsup\"/>Hello <b>there</b> [REMEMBER:likes tea]";

class HttpServerTest : public testing::GatewayFixture {
 protected:
  HttpServerTest() {
    load_handlers();
    use_replay({boost::json::serialize(boost::json::object{{"reply", kReply}})}, 0,
               model::TokenSplit::awkward, 2);
  }

  // A reply that takes about 20 s to stream, for tests that end a stream half-way.
  void use_slow_model() {
    std::string reply;
    for (int i = 0; i < 400; ++i) reply += "word ";
    use_replay({boost::json::serialize(boost::json::object{{"reply", reply}})}, 20, model::TokenSplit::words,
               2);
  }

  unsigned short start(HttpServerOptions options = {}) {
    server_ = std::make_unique<HttpServer>(*agent_, *store_, std::move(options));
    return server_->start();
  }

  // The server on the slow model, and a message whose SSE stream has begun (its first text event read into
  // `raw`); the open socket, or -1.
  int open_slow_stream(std::string& raw) {
    use_slow_model();
    const unsigned short port = start();
    const int fd = connect_and_send(port, post("/v1/conversations/c1/messages", R"({"text":"hi"})"));
    if (fd < 0) return fd;
    EXPECT_TRUE(read_until(fd, raw, "event: text"));
    return fd;
  }
};

TEST_F(HttpServerTest, HealthzSaysOk) {
  const unsigned short port = start();
  ASSERT_NE(port, 0);
  HttpReply r = http_exchange(port, get("/healthz"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
}

TEST_F(HttpServerTest, UnknownPathIs404AndWrongMethodIs405) {
  const unsigned short port = start();
  EXPECT_EQ(http_exchange(port, get("/nope")).status, 404);
  HttpReply r = http_exchange(port, post("/healthz", "{}"));
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.headers["allow"], "GET, HEAD");
}

// HEAD: GET's status and headers (its Content-Length included), no body; on a file too.
TEST_F(HttpServerTest, HeadAnswersLikeGetWithoutABody) {
  const unsigned short port = start();
  const auto head = [](const std::string& path) {
    return "HEAD " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  };
  for (const std::string path : {"/", "/healthz", "/v1/models", "/pages/unknown-slug"}) {
    HttpReply g = http_exchange(port, get(path));
    HttpReply h = http_exchange(port, head(path));
    EXPECT_EQ(h.status, g.status) << path;
    EXPECT_EQ(h.headers.at("content-length"), std::to_string(g.body.size())) << path;
    EXPECT_EQ(h.headers["content-type"], g.headers["content-type"]) << path;
    EXPECT_TRUE(h.body.empty()) << path << ": " << h.body;
  }
  EXPECT_EQ(http_exchange(port, head("/v1/ws")).status, 405);
}

// What the official clients' models.list() asks: one model, the gateway's agent.
TEST_F(HttpServerTest, ModelsListsTheAgent) {
  const unsigned short port = start();
  HttpReply r = http_exchange(port, get("/v1/models"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "application/json");
  EXPECT_NE(r.body.find(R"("id":"sigil")"), std::string::npos) << r.body;
  EXPECT_EQ(http_exchange(port, get("/v1/models/sigil")).status, 200);
  EXPECT_EQ(http_exchange(port, get("/v1/models/gpt-4o")).status, 404);
}

TEST_F(HttpServerTest, MetricsAreInPrometheusTextFormat) {
  const unsigned short port = start();
  http_exchange(port, get("/healthz"));
  http_exchange(port, get("/pages/unknown-slug"));
  HttpReply r = http_exchange(port, get("/metrics"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"].rfind("text/plain", 0), 0u);
  EXPECT_NE(r.body.find("# HELP sigil_http_requests_total "), std::string::npos);
  EXPECT_NE(r.body.find("# TYPE sigil_http_requests_total counter\n"), std::string::npos);
  EXPECT_NE(r.body.find("sigil_http_requests_total{path=\"/healthz\"} 1\n"), std::string::npos);
  // The route template, never the raw slug.
  EXPECT_NE(r.body.find("sigil_http_requests_total{path=\"/pages/{slug}\"} 1\n"), std::string::npos);
  EXPECT_EQ(r.body.find("unknown-slug"), std::string::npos);
  EXPECT_NE(r.body.find("# TYPE sigil_turns_total counter\nsigil_turns_total 0\n"), std::string::npos);
  EXPECT_NE(r.body.find("# TYPE sigil_turns_active gauge\nsigil_turns_active 0\n"), std::string::npos);
  EXPECT_EQ(r.body.back(), '\n');
}

TEST_F(HttpServerTest, PagesAreServedWithTheirCspAndUnknownSlugsAre404) {
  const auto now = store::Clock::now();
  auto plain = store_->put_page({"u1", "c1"}, "Plan", "<h1>Plan</h1>", false, now);
  auto scripted = store_->put_page({"u1", "c1"}, "Clock", "<script>1</script>", true, now);
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(scripted.ok());
  const unsigned short port = start();

  HttpReply r = http_exchange(port, get("/pages/" + plain->slug));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "<h1>Plan</h1>");
  EXPECT_EQ(r.headers["content-type"], "text/html; charset=utf-8");
  // Sandboxed (an opaque origin of its own), no forms, framing, <base> or plugins (docs/security.md).
  EXPECT_EQ(
      r.headers["content-security-policy"],
      "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; script-src 'none'; "
      "form-action 'none'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'");
  EXPECT_EQ(r.headers["x-content-type-options"], "nosniff");

  HttpReply s = http_exchange(port, get("/pages/" + scripted->slug));
  EXPECT_EQ(s.status, 200);
  // Scripts allowed, still without allow-same-origin: they never run as the gateway's origin.
  EXPECT_EQ(s.headers["content-security-policy"],
            "sandbox allow-scripts; default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; "
            "script-src 'unsafe-inline'; connect-src 'none'; form-action 'none'; frame-ancestors 'none'; "
            "base-uri 'none'; object-src 'none'");

  EXPECT_EQ(http_exchange(port, get("/pages/no-such-page-0123")).status, 404);
}

TEST_F(HttpServerTest, MessageStreamsCleanTextDeliveriesAndEnd) {
  const unsigned short port = start();
  HttpReply r = http_exchange(port, post("/v1/conversations/c1/messages", R"({"text":"hi","user":"u1"})"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"].rfind("text/event-stream", 0), 0u);

  const auto events = parse_sse(r.body);
  ASSERT_FALSE(events.empty()) << r.body;
  std::string text;
  int first_text = -1;
  int reaction = -1;
  int model_call = -1;
  for (int i = 0; i < static_cast<int>(events.size()); ++i) {
    const auto data = boost::json::parse(events[i].data);
    if (events[i].event == "text") {
      text += data.at("text").as_string();
      if (first_text < 0) first_text = i;
    } else if (events[i].event == "delivery") {
      if (data.at("op") == "reaction" && reaction < 0) reaction = i;
      EXPECT_FALSE(data.as_object().contains("payload"));
    } else if (events[i].event == "model_call" && model_call < 0) {
      model_call = i;
    }
  }
  EXPECT_NE(text.find("Hello <b>there</b>"), std::string::npos) << text;
  EXPECT_EQ(text.find("<react"), std::string::npos) << text;
  EXPECT_EQ(text.find("[REMEMBER"), std::string::npos) << text;
  ASSERT_GE(reaction, 0) << r.body;
  ASSERT_GE(first_text, 0) << r.body;
  EXPECT_LT(reaction, first_text);
  EXPECT_EQ(model_call, 0);
  EXPECT_EQ(boost::json::parse(events[reaction].data).at("emoji"), "\xF0\x9F\x91\x8D");

  const SseEvent& end = events.back();
  EXPECT_EQ(end.event, "end");
  const auto end_data = boost::json::parse(end.data);
  EXPECT_TRUE(end_data.at("status").is_string());
  EXPECT_TRUE(end_data.at("diagnostics").is_array());
  EXPECT_EQ(std::string(end_data.at("turn_id").as_string()).rfind("web-", 0), 0u);

  agent_->wait_idle();
  HttpReply m = http_exchange(port, get("/metrics"));
  EXPECT_NE(m.body.find("sigil_turns_total 1\n"), std::string::npos) << m.body;
}

TEST_F(HttpServerTest, BadBodiesAre400WithAJsonError) {
  const unsigned short port = start();
  for (const std::string body : {"not json", "[1]", R"({"user":"u1"})", R"({"text":5})", R"({"text":""})",
                                 R"({"text":"hi","user":7})"}) {
    HttpReply r = http_exchange(port, post("/v1/conversations/c1/messages", body));
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.headers["content-type"], "application/json") << body;
    EXPECT_TRUE(boost::json::parse(r.body).at("error").is_string()) << r.body;
  }
  EXPECT_EQ(http_exchange(port, post("/v1/conversations/bad%20id/messages", R"({"text":"hi"})")).status, 400);
}

TEST_F(HttpServerTest, BodiesOverMaxBodyAre413) {
  HttpServerOptions options;
  options.max_body = 64;
  const unsigned short port = start(options);
  // Only the head is sent: the server answers from the Content-Length without reading the body.
  HttpReply r = http_exchange(port,
                              "POST /v1/conversations/c1/messages HTTP/1.1\r\nHost: localhost\r\n"
                              "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n");
  EXPECT_EQ(r.status, 413);
  EXPECT_TRUE(boost::json::parse(r.body).at("error").is_string()) << r.body;
}

TEST_F(HttpServerTest, ApiTokenIsRequiredExceptForHealthz) {
  HttpServerOptions options;
  options.api_token = "s3cret";
  const unsigned short port = start(options);
  EXPECT_EQ(http_exchange(port, get("/healthz")).status, 200);
  HttpReply no = http_exchange(port, get("/metrics"));
  EXPECT_EQ(no.status, 401);
  EXPECT_EQ(no.headers["www-authenticate"], "Bearer");
  EXPECT_EQ(http_exchange(port, get("/metrics", "Authorization: Bearer wrong!\r\n")).status, 401);
  EXPECT_EQ(http_exchange(port, get("/metrics", "Authorization: Bearer s3cret\r\n")).status, 200);
  EXPECT_EQ(http_exchange(port, get("/v1/models")).status, 401);
  EXPECT_EQ(http_exchange(port, get("/v1/models", "Authorization: Bearer s3cret\r\n")).status, 200);
  // A published page's unguessable URL is its capability (a browser following a link sends no token).
  EXPECT_EQ(http_exchange(port, get("/pages/x")).status, 404);
  EXPECT_EQ(http_exchange(port, post("/v1/conversations/c1/messages", R"({"text":"hi"})")).status, 401);
  EXPECT_EQ(http_exchange(port, post("/v1/conversations/c1/messages", R"({"text":"hi"})",
                                     "Authorization: Bearer s3cret\r\n"))
                .status,
            200);
}

TEST_F(HttpServerTest, NonLoopbackHostWithoutTokenIsRefused) {
  HttpServerOptions options;
  options.host = "0.0.0.0";
  HttpServer server(*agent_, *store_, options);
  try {
    server.start();
    ADD_FAILURE() << "bound 0.0.0.0 without a token";
  } catch (const HttpServerError& e) {
    EXPECT_NE(std::string(e.what()).find("api_token"), std::string::npos) << e.what();
  }
  HttpServerOptions bad;
  bad.host = "not-an-address";
  bad.api_token = "t";
  HttpServer other(*agent_, *store_, bad);
  EXPECT_THROW(other.start(), HttpServerError);
}

TEST_F(HttpServerTest, StopIsIdempotentAndLeavesNoTurnOpen) {
  // A stopped server must not leave the agent calling into it: stop() returns with no turn open.
  const unsigned short port = start();
  EXPECT_EQ(http_exchange(port, get("/healthz")).status, 200);
  server_->stop();
  server_->stop();  // idempotent
  EXPECT_EQ(agent_->active_turns(), 0u);
}

TEST_F(HttpServerTest, ClientHangingUpCancelsItsTurn) {
  std::string raw;
  const int fd = open_slow_stream(raw);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(agent_->active_turns(), 1u);
  ::close(fd);
  // The reply would take ~20 s; the hang-up cancels it.
  EXPECT_TRUE(idle_within(std::chrono::seconds(5)));
}

TEST_F(HttpServerTest, StopEndsAnOpenStreamAndItsTurn) {
  std::string raw;
  const int fd = open_slow_stream(raw);
  ASSERT_GE(fd, 0);
  const auto before = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
  // stop() returns once the turn's last callback into the server (on_turn_end) is done; the agent drops
  // the turn from its count just after that callback returns.
  EXPECT_TRUE(idle_within(std::chrono::seconds(5)));
  // The stream closes; its end event went out if the strand still ran, which is not promised.
  EXPECT_FALSE(read_until(fd, raw, "never sent"));
  ::close(fd);
}

// ---- who may call (issue: loopback is no trust boundary; docs/security.md "Origins and host names")

std::string ws_upgrade(const std::string& headers) {
  return "GET /v1/ws?conversation=c1&user=web HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
         "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
         headers + "\r\n";
}

// The status of a WebSocket upgrade: 101 is read as soon as it arrives (the socket then stays open).
int upgrade_status(unsigned short port, const std::string& headers) {
  const int fd = connect_and_send(port, ws_upgrade(headers));
  if (fd < 0) return 0;
  std::string raw;
  read_until(fd, raw, "\r\n\r\n");
  ::close(fd);
  return raw.size() >= 12 ? std::stoi(raw.substr(9, 3)) : 0;
}

std::string request(const std::string& method, const std::string& path, const std::string& headers,
                    const std::string& body = "") {
  return method + " " + path + " HTTP/1.1\r\nConnection: close\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

long long turns_total(unsigned short port) {
  const HttpReply r = http_exchange(port, get("/metrics"));
  const std::string key = "\nsigil_turns_total ";
  const auto at = r.body.find(key);
  return at == std::string::npos ? -1 : std::stoll(r.body.substr(at + key.size()));
}

TEST_F(HttpServerTest, AWebSocketFromAnotherSiteIsRefused) {
  const unsigned short port = start();
  const std::string self = "127.0.0.1:" + std::to_string(port);
  const std::string host = "Host: " + self + "\r\n";
  EXPECT_EQ(upgrade_status(port, host + "Origin: http://evil.example\r\n"), 403);
  EXPECT_EQ(upgrade_status(port, host + "Origin: http://127.0.0.2:" + std::to_string(port) + "\r\n"), 403);
  EXPECT_EQ(upgrade_status(port, host + "Origin: null\r\n"), 403);
  // The gateway's own page, by address or by localhost, and a client that is no browser (no Origin).
  EXPECT_EQ(upgrade_status(port, host + "Origin: http://" + self + "\r\n"), 101);
  EXPECT_EQ(upgrade_status(port, "Host: localhost:" + std::to_string(port) +
                                     "\r\nOrigin: http://localhost:" + std::to_string(port) + "\r\n"),
            101);
  EXPECT_EQ(upgrade_status(port, host), 101);
}

TEST_F(HttpServerTest, ARequestNamingAnotherHostIsRefused) {
  const unsigned short port = start();
  const std::string history = "/v1/conversations/c1/messages?user=web";
  // DNS rebinding: a page on evil.example, rebound to 127.0.0.1, is same-origin with itself.
  HttpReply r =
      http_exchange(port, request("GET", history, "Host: evil.example:" + std::to_string(port) + "\r\n"));
  EXPECT_EQ(r.status, 421);
  EXPECT_NE(r.body.find("allowed_hosts"), std::string::npos) << r.body;
  EXPECT_EQ(upgrade_status(port, "Host: evil.example\r\n"), 421);
  EXPECT_EQ(
      http_exchange(port, request("GET", history, "Host: evil.example\r\nOrigin: http://evil.example\r\n"))
          .status,
      421);
  for (const std::string& host :
       std::vector<std::string>{"localhost", "127.0.0.1:" + std::to_string(port), "LOCALHOST.", "[::1]:1"})
    EXPECT_EQ(http_exchange(port, request("GET", history, "Host: " + host + "\r\n")).status, 200) << host;
  // Health checks come from anywhere a probe runs.
  EXPECT_EQ(http_exchange(port, request("GET", "/healthz", "Host: probe.internal\r\n")).status, 200);
}

TEST_F(HttpServerTest, ACrossSitePostStartsNoTurn) {
  const unsigned short port = start();
  const std::string host = "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  const std::string body = R"({"text":"hi"})";
  const std::string path = "/v1/conversations/c9/messages";
  // A simple request (text/plain, no preflight) from another site, and the same as JSON.
  EXPECT_EQ(
      http_exchange(port, request("POST", path,
                                  host + "Origin: http://evil.example\r\nContent-Type: text/plain\r\n", body))
          .status,
      403);
  EXPECT_EQ(
      http_exchange(port,
                    request("POST", path,
                            host + "Origin: http://evil.example\r\nContent-Type: application/json\r\n", body))
          .status,
      403);
  // Without Origin, JSON endpoints still take JSON only.
  EXPECT_EQ(http_exchange(port, request("POST", path, host + "Content-Type: text/plain\r\n", body)).status,
            415);
  EXPECT_EQ(http_exchange(port, request("POST", path, host, body)).status, 415);
  EXPECT_EQ(http_exchange(port, request("PUT", "/v1/conversations/c9/settings",
                                        host + "Content-Type: application/x-www-form-urlencoded\r\n",
                                        R"({"say_mode":true})"))
                .status,
            415);
  HttpReply completions = http_exchange(
      port, request("POST", "/v1/chat/completions", host + "Content-Type: text/plain\r\n", "{}"));
  EXPECT_EQ(completions.status, 415);
  EXPECT_NE(completions.body.find("\"type\":\"invalid_request_error\""), std::string::npos)
      << completions.body;
  EXPECT_EQ(turns_total(port), 0);
  EXPECT_TRUE(idle_within(std::chrono::seconds(5)));
  EXPECT_TRUE(store_->recent_messages({"web", "c9"}, 10)->empty());

  // The gateway's own page, and a client without Origin, start turns.
  EXPECT_EQ(http_exchange(port, request("POST", path,
                                        host + "Origin: http://127.0.0.1:" + std::to_string(port) +
                                            "\r\nContent-Type: application/json; charset=utf-8\r\n",
                                        body))
                .status,
            200);
  EXPECT_EQ(
      http_exchange(port, request("POST", path, host + "Content-Type: Application/JSON\r\n", body)).status,
      200);
  EXPECT_EQ(turns_total(port), 2);
}

TEST_F(HttpServerTest, PublicUrlAllowedOriginsAndHostsAreHonoured) {
  HttpServerOptions options;
  options.public_url = "https://chat.example.com/base";
  options.allowed_origins = {"https://tools.example.com"};
  options.allowed_hosts = {"sigil.lan"};
  const unsigned short port = start(options);
  const std::string history = "/v1/conversations/c1/messages?user=web";
  auto status = [&](const std::string& headers) {
    return http_exchange(port, request("GET", history, headers)).status;
  };
  EXPECT_EQ(status("Host: chat.example.com\r\nOrigin: https://chat.example.com\r\n"), 200);
  EXPECT_EQ(status("Host: chat.example.com\r\nOrigin: https://chat.example.com:443\r\n"), 200);
  EXPECT_EQ(status("Host: chat.example.com\r\nOrigin: https://tools.example.com\r\n"), 200);
  EXPECT_EQ(status("Host: chat.example.com\r\nOrigin: https://chat.example.net\r\n"), 403);
  EXPECT_EQ(status("Host: sigil.lan:8080\r\nOrigin: http://sigil.lan:8080\r\n"), 200);  // same origin
  EXPECT_EQ(status("Host: sigil.lan:8080\r\nOrigin: http://sigil.lan:9090\r\n"), 403);
  EXPECT_EQ(status("Host: other.lan\r\n"), 421);
  EXPECT_EQ(upgrade_status(port, "Host: chat.example.com\r\nOrigin: https://tools.example.com\r\n"), 101);
}

TEST_F(HttpServerTest, PublishedPagesAndMediaStayReadableByAnyOrigin) {
  const auto page = store_->put_page({"u1", "c1"}, "Plan", "<h1>Plan</h1>", false, store::Clock::now());
  ASSERT_TRUE(page.ok());
  const unsigned short port = start();
  const HttpReply r = http_exchange(
      port, request("GET", "/pages/" + page->slug, "Host: localhost\r\nOrigin: http://evil.example\r\n"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "<h1>Plan</h1>");
  EXPECT_EQ(
      http_exchange(port, request("GET", "/", "Host: localhost\r\nOrigin: http://evil.example\r\n")).status,
      200);
}

TEST_F(HttpServerTest, RotatingTheUserIdDoesNotGetPastTheRateLimit) {
  HttpServerOptions options;
  options.messages_per_minute = 1;
  options.message_burst = 1;
  options.address_rate_factor = 4;  // this address: a burst of 4
  const unsigned short port = start(options);
  int accepted = 0;
  int limited = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string body = R"({"text":"hi","user":"u)" + std::to_string(i) + R"("})";
    const int status = http_exchange(port, post("/v1/conversations/c1/messages", body)).status;
    accepted += status == 200;
    limited += status == 429;
  }
  EXPECT_EQ(accepted, 4);
  EXPECT_EQ(limited, 4);
}

TEST_F(HttpServerTest, InvalidUtf8NeverLeavesTheServer) {
  ASSERT_TRUE(
      store_->append_message({"web", "c1"}, "user", "bad \xff\xfe bytes \xe2\x82", "t1", store::Clock::now())
          .ok());
  const unsigned short port = start();
  const HttpReply r = http_exchange(port, get("/v1/conversations/c1/messages?user=web"));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(text::is_valid_utf8(r.body)) << r.body;
  EXPECT_NE(r.body.find("bad \xEF\xBF\xBD"), std::string::npos) << r.body;
}

// A webhook (a chat platform's, HttpServerOptions::webhooks): its handler gets the secret header and the body
// and its answer is sent; no bearer token, Host or Origin check applies (the platform's secret is its
// authentication); other methods are 405. /healthz with `health` set is JSON with the channels in it.
TEST_F(HttpServerTest, WebhooksAndTheChannelsInHealthz) {
  HttpServerOptions options;
  options.api_token = "s3cret";
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> seen;
  options.webhooks.push_back({"/hooks/tg", "X-Telegram-Bot-Api-Secret-Token",
                              [&](std::string_view secret, std::string_view body) -> WebhookAnswer {
                                std::lock_guard lock(mu);
                                seen.emplace_back(secret, body);
                                if (secret.empty()) return {401, "no secret"};
                                return {};
                              }});
  options.health = [] { return std::string(R"({"telegram":{"state":"webhook"}})"); };
  const unsigned short port = start(options);
  HttpReply r = http_exchange(
      port, post("/hooks/tg?x=1", R"({"update_id":1})", "X-Telegram-Bot-Api-Secret-Token: abc\r\n"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = http_exchange(port, post("/hooks/tg", "{}"));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(http_exchange(port, get("/hooks/tg")).status, 405);
  {
    std::lock_guard lock(mu);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0], (std::pair<std::string, std::string>{"abc", R"({"update_id":1})"}));
    EXPECT_EQ(seen[1].first, "");
  }
  r = http_exchange(port, get("/healthz"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"status":"ok","channels":{"telegram":{"state":"webhook"}}})");
  EXPECT_EQ(r.headers["content-type"], "application/json");
  // Other paths still need the token.
  EXPECT_EQ(http_exchange(port, post("/hooks/other", "{}")).status, 401);
}

}  // namespace
}  // namespace sigil::server
