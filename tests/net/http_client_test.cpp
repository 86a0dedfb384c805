#include "sigil/net/http_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "sigil/net/http_fetch.h"
#include "support/client_sockets.h"
#include "support/fake_openai_server.h"
#include "support/locked_copy.h"
#include "support/trusted_identity.h"

namespace sigil::net {
namespace {

using namespace std::chrono_literals;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;
using Clock = std::chrono::steady_clock;

// Records what the client reports and checks the order promised in http_client.h.
class RecordingHandler : public HttpHandler {
 public:
  void on_head(const HttpResponseHead& head) override {
    std::lock_guard lock(mutex_);
    if (heads_ != 0 || ended_) problems_.push_back("on_head out of order");
    ++heads_;
    head_ = head;
  }
  void on_body(std::string_view chunk) override {
    {
      std::lock_guard lock(mutex_);
      if (heads_ != 1 || ended_) problems_.push_back("on_body out of order");
      if (chunks_.empty()) first_body_at_ = Clock::now();
      chunks_.emplace_back(chunk);
    }
    if (on_chunk) on_chunk(chunk);
  }
  void on_end(const std::optional<NetError>& error) override {
    {
      std::lock_guard lock(mutex_);
      if (ended_) problems_.push_back("on_end twice");
      ended_ = true;
      error_ = error;
      ended_at_ = Clock::now();
    }
    cv_.notify_all();
  }

  bool wait(std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [this] { return ended_; });
  }
  bool ended() { return test::locked_copy(mutex_, ended_); }
  std::string body() {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const auto& c : chunks_) out += c;
    return out;
  }
  std::size_t chunk_count() {
    std::lock_guard lock(mutex_);
    return chunks_.size();
  }
  std::optional<NetError> error() { return test::locked_copy(mutex_, error_); }
  HttpResponseHead head() { return test::locked_copy(mutex_, head_); }
  std::vector<std::string> problems() { return test::locked_copy(mutex_, problems_); }
  Clock::duration first_body_to_end() {
    std::lock_guard lock(mutex_);
    return ended_at_ - first_body_at_;
  }

  std::function<void(std::string_view)> on_chunk;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int heads_ = 0;
  bool ended_ = false;
  HttpResponseHead head_;
  std::vector<std::string> chunks_;
  std::optional<NetError> error_;
  std::vector<std::string> problems_;
  Clock::time_point first_body_at_{}, ended_at_{};
};

HttpRequest get(const std::string& url) {
  HttpRequest request;
  request.url = url;
  request.timeouts.connect = 5s;
  request.timeouts.first_byte = 5s;
  request.timeouts.idle = 5s;
  return request;
}

std::string url_of(const FakeOpenAiServer& server, const std::string& path = "/x") {
  std::string base = server.base_url();  // ".../v1"
  return base.substr(0, base.size() - 3) + path;
}

std::shared_ptr<RecordingHandler> run(HttpClient& client, HttpRequest request) {
  auto handler = std::make_shared<RecordingHandler>();
  client.start(std::move(request), handler);
  EXPECT_TRUE(handler->wait());
  EXPECT_TRUE(handler->problems().empty());
  return handler;
}

FakeResponse plain_body(std::string body, bool keep_alive) {
  FakeResponse response;
  response.content_type = "text/plain";
  response.body = std::move(body);
  response.keep_alive = keep_alive;
  return response;
}

TEST(HttpClient, StreamsTheBodyAsItArrives) {
  FakeOpenAiServer server;
  auto response = FakeResponse::sse({"one", "two", "three", "four"});
  response.in_pieces(11, 40ms);
  response.headers.push_back({"X-Request-Id", "abc"});
  server.enqueue(response);
  HttpClient client(std::make_shared<IoThreads>());
  HttpRequest request = get(url_of(server, "/stream?q=1"));
  request.method = "POST";
  request.body = "{\"a\":1}";
  request.headers.push_back({"Authorization", "Bearer k"});
  auto handler = run(client, request);
  EXPECT_FALSE(handler->error()) << handler->error()->message;
  EXPECT_EQ(handler->head().status, 200);
  ASSERT_NE(handler->head().find("content-type"), nullptr);
  EXPECT_EQ(*handler->head().find("Content-Type"), "text/event-stream");
  EXPECT_EQ(*handler->head().find("x-request-id"), "abc");
  EXPECT_EQ(handler->body(), response.body);  // chunked framing removed
  EXPECT_GT(handler->chunk_count(), 3u);
  EXPECT_GT(handler->first_body_to_end(), 150ms);  // the first piece was handed over long before the end
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/stream?q=1");
  EXPECT_EQ(requests[0].authorization, "Bearer k");
  EXPECT_EQ(requests[0].body, "{\"a\":1}");
}

TEST(HttpClient, KeepAliveReusesOneConnection) {
  FakeOpenAiServer server;
  for (int i = 0; i < 3; ++i) server.enqueue(plain_body("body " + std::to_string(i), true));
  HttpClient client(std::make_shared<IoThreads>());
  for (int i = 0; i < 3; ++i) {
    auto handler = run(client, get(url_of(server)));
    EXPECT_FALSE(handler->error());
    EXPECT_EQ(handler->body(), "body " + std::to_string(i));
  }
  EXPECT_EQ(client.connections_opened(), 1u);
  EXPECT_EQ(server.connection_count(), 1u);
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(client.idle_connections(), 1u);
}

TEST(HttpClient, ConnectionCloseIsNotPooled) {
  FakeOpenAiServer server;
  server.enqueue(plain_body("a", false));
  server.enqueue(plain_body("b", false));
  HttpClient client(std::make_shared<IoThreads>());
  EXPECT_EQ(run(client, get(url_of(server)))->body(), "a");
  EXPECT_EQ(run(client, get(url_of(server)))->body(), "b");
  EXPECT_EQ(client.connections_opened(), 2u);
  EXPECT_EQ(client.idle_connections(), 0u);
}

TEST(HttpClient, PooledConnectionTheServerClosedIsNotReused) {
  FakeOpenAiServer server;
  auto first = plain_body("a", true);
  first.close_quietly = true;  // promises keep-alive, then closes anyway
  server.enqueue(first);
  server.enqueue(plain_body("b", true));
  HttpClient client(std::make_shared<IoThreads>());
  EXPECT_EQ(run(client, get(url_of(server)))->body(), "a");
  std::this_thread::sleep_for(50ms);  // let the server's close arrive
  auto second = run(client, get(url_of(server)));
  EXPECT_FALSE(second->error()) << second->error()->message;
  EXPECT_EQ(second->body(), "b");
  EXPECT_EQ(client.connections_opened(), 2u);
  EXPECT_EQ(server.request_count(), 2u);  // the closed connection was seen as closed, never written to
}

TEST(HttpClient, ReusedConnectionDroppedBeforeTheResponseIsRetriedOnce) {
  FakeOpenAiServer server;
  server.enqueue(plain_body("a", true));
  FakeResponse drop;
  drop.drop_connection = true;  // reads the second request, then closes without a word
  server.enqueue(drop);
  server.enqueue(plain_body("b", true));
  HttpClient client(std::make_shared<IoThreads>());
  EXPECT_EQ(run(client, get(url_of(server)))->body(), "a");
  auto second = run(client, get(url_of(server)));
  EXPECT_FALSE(second->error()) << second->error()->message;
  EXPECT_EQ(second->body(), "b");
  EXPECT_EQ(client.connections_opened(), 2u);
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(HttpClient, ARequestThatMustNotRepeatIsNotResentOnADroppedReusedConnection) {
  // The server may have acted on it before dropping the connection (a chat message sent): the caller gets
  // lost_before_response (an unknown outcome) and the request went out once.
  FakeOpenAiServer server;
  server.enqueue(plain_body("a", true));
  FakeResponse drop;
  drop.drop_connection = true;
  server.enqueue(drop);
  server.enqueue(plain_body("b", true));
  HttpClient client(std::make_shared<IoThreads>());
  EXPECT_EQ(run(client, get(url_of(server)))->body(), "a");
  HttpRequest once = get(url_of(server));
  once.resend_on_stale_connection = false;
  auto second = run(client, once);
  ASSERT_TRUE(second->error());
  EXPECT_EQ(second->error()->kind, NetErrorKind::lost_before_response);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(HttpClient, FreshConnectionDroppedBeforeTheResponseIsAnError) {
  FakeOpenAiServer server;
  FakeResponse drop;
  drop.drop_connection = true;
  server.enqueue(drop);
  HttpClient client(std::make_shared<IoThreads>());
  auto handler = run(client, get(url_of(server)));
  ASSERT_TRUE(handler->error());
  EXPECT_EQ(handler->error()->kind, NetErrorKind::lost_before_response);
  EXPECT_EQ(handler->error()->message.rfind(
                "connection to 127.0.0.1:" + std::to_string(server.port()) + " lost before a response: ", 0),
            0u)
      << handler->error()->message;
  EXPECT_EQ(server.request_count(), 1u);
}

void expect_close_on_exec(unsigned short port, const char* when) {
  std::vector<int> fds = sigil::testing::client_sockets_to(port);
  EXPECT_FALSE(fds.empty()) << when << ": no client socket found";
  for (int fd : fds) {
    int flags = ::fcntl(fd, F_GETFD);
    EXPECT_TRUE(flags >= 0 && (flags & FD_CLOEXEC) != 0) << when << ": fd " << fd << " is inheritable";
  }
}

void check_sockets_close_on_exec(FakeOpenAiServer& server, HttpClientConfig config) {
  auto slow = plain_body("late", true);
  slow.delay_before_headers = 400ms;
  server.enqueue(slow);
  HttpClient client(std::make_shared<IoThreads>(), config);
  auto handler = std::make_shared<RecordingHandler>();
  HttpRequest request = get(url_of(server));
  client.start(request, handler);
  auto until = Clock::now() + 5s;
  while (server.request_count() == 0 && Clock::now() < until) std::this_thread::sleep_for(5ms);
  expect_close_on_exec(server.port(), "during the request");
  ASSERT_TRUE(handler->wait());
  EXPECT_FALSE(handler->error()) << handler->error()->message;
  EXPECT_EQ(client.idle_connections(), 1u);
  expect_close_on_exec(server.port(), "in the keep-alive pool");
}

TEST(HttpClient, SocketsAreCloseOnExec) {
  FakeOpenAiServer server;
  check_sockets_close_on_exec(server, {});
}

TEST(HttpClient, TlsSocketsAreCloseOnExecAndReused) {
  sigil::testing::TrustedIdentity trusted;
  FakeOpenAiServer server(trusted.identity);
  HttpClientConfig config;
  config.ca_file = trusted.ca_file;
  check_sockets_close_on_exec(server, config);

  server.enqueue(plain_body("a", true));
  server.enqueue(plain_body("b", true));
  HttpClient client(std::make_shared<IoThreads>(), config);
  EXPECT_EQ(run(client, get(url_of(server)))->body(), "a");
  EXPECT_EQ(run(client, get(url_of(server)))->body(), "b");
  EXPECT_EQ(client.connections_opened(), 1u);
}

TEST(HttpClient, UntrustedCertificateIsRefused) {
  auto identity = sigil::testing::make_self_signed_identity();
  FakeOpenAiServer server(identity);
  server.enqueue(plain_body("never", false));
  HttpClient client(std::make_shared<IoThreads>());  // the system trust store
  auto handler = run(client, get(url_of(server)));
  ASSERT_TRUE(handler->error());
  EXPECT_EQ(handler->error()->kind, NetErrorKind::tls_verify_failed);
  EXPECT_EQ(handler->error()->detail, "certificate verify failed (self-signed certificate)");
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(HttpClient, TimeOutsSayWhichPhase) {
  FakeOpenAiServer server;
  auto slow_head = plain_body("x", false);
  slow_head.delay_before_headers = 3s;
  server.enqueue(slow_head);
  auto slow_body = FakeResponse::sse({"a", "b"});
  slow_body.in_pieces(8, 3s);
  server.enqueue(slow_body);
  auto slow_again = plain_body("x", false);
  slow_again.delay_before_headers = 3s;
  server.enqueue(slow_again);
  HttpClient client(std::make_shared<IoThreads>());

  HttpRequest request = get(url_of(server));
  request.timeouts.first_byte = 150ms;
  auto started = Clock::now();
  auto first = run(client, request);
  EXPECT_LT(Clock::now() - started, 2s);
  ASSERT_TRUE(first->error());
  EXPECT_EQ(first->error()->kind, NetErrorKind::first_byte_timeout);
  EXPECT_EQ(first->error()->detail, "no response within 150ms (first-byte time-out)");

  request = get(url_of(server));
  request.timeouts.idle = 150ms;
  auto second = run(client, request);
  ASSERT_TRUE(second->error());
  EXPECT_EQ(second->error()->kind, NetErrorKind::idle_timeout);
  EXPECT_EQ(second->error()->detail, "no data for 150ms (idle time-out)");
  EXPECT_EQ(second->body(), "data: a\n");  // what came before the silence was delivered

  request = get(url_of(server));
  request.timeouts.deadline = Clock::now() + 150ms;  // shorter than the 5 s first-byte limit
  auto third = run(client, request);
  ASSERT_TRUE(third->error());
  EXPECT_EQ(third->error()->kind, NetErrorKind::deadline);
}

TEST(HttpClient, CancelFromInsideTheHandlerStopsTheStream) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::sse(std::vector<std::string>(50, "tick")).in_pieces(12, 50ms));
  HttpClient client(std::make_shared<IoThreads>());
  auto handler = std::make_shared<RecordingHandler>();
  std::shared_ptr<HttpCall> call;
  std::mutex call_mutex;
  handler->on_chunk = [&](std::string_view) {
    std::lock_guard lock(call_mutex);
    if (call) call->cancel();
  };
  {
    std::lock_guard lock(call_mutex);
    call = client.start(get(url_of(server)), handler);
  }
  ASSERT_TRUE(handler->wait(3s));
  ASSERT_TRUE(handler->error());
  EXPECT_EQ(handler->error()->kind, NetErrorKind::cancelled);
  EXPECT_LT(handler->chunk_count(), 3u);
  call->cancel();  // after the end: harmless
}

TEST(HttpClient, DestroyingTheClientEndsOpenRequests) {
  FakeOpenAiServer server;
  auto slow = plain_body("late", false);
  slow.delay_before_headers = 5s;
  server.enqueue(slow);
  auto client = std::make_unique<HttpClient>(std::make_shared<IoThreads>());
  auto handler = std::make_shared<RecordingHandler>();
  client->start(get(url_of(server)), handler);
  std::this_thread::sleep_for(50ms);
  auto started = Clock::now();
  client.reset();
  EXPECT_LT(Clock::now() - started, 2s);
  ASSERT_TRUE(handler->ended());
  ASSERT_TRUE(handler->error());
  EXPECT_EQ(handler->error()->kind, NetErrorKind::cancelled);
}

TEST(HttpClient, RequestsThatCannotBeSentSafelyNeverLeave) {
  FakeOpenAiServer server;
  HttpClient client(std::make_shared<IoThreads>());
  auto bad_url = run(client, get("http://host:99999/"));
  ASSERT_TRUE(bad_url->error());
  EXPECT_EQ(bad_url->error()->kind, NetErrorKind::bad_url);
  EXPECT_EQ(run(client, get("wss://example.com/"))->error()->kind, NetErrorKind::bad_url);
  HttpRequest injected = get(url_of(server));
  injected.headers.push_back({"X-Note", "a\r\nX-Injected: 1"});
  auto refused = run(client, injected);
  ASSERT_TRUE(refused->error());
  EXPECT_EQ(refused->error()->kind, NetErrorKind::bad_request);
  EXPECT_EQ(server.connection_count(), 0u);
}

TEST(HttpClient, ConnectionRefused) {
  unsigned short port = 0;
  {
    FakeOpenAiServer closed;
    port = closed.port();
  }
  HttpClient client(std::make_shared<IoThreads>());
  auto handler = run(client, get("http://127.0.0.1:" + std::to_string(port) + "/"));
  ASSERT_TRUE(handler->error());
  EXPECT_EQ(handler->error()->kind, NetErrorKind::connect_failed);
  EXPECT_EQ(handler->error()->message,
            "cannot connect to 127.0.0.1:" + std::to_string(port) + ": " + handler->error()->detail);
}

TEST(HttpFetch, CollectsTheBodyUpToItsLimit) {
  FakeOpenAiServer server;
  server.enqueue(plain_body("{\"ok\":true}", true));
  server.enqueue(plain_body(std::string(100'000, 'x'), true));
  HttpClient client(std::make_shared<IoThreads>());
  auto fetch_sync = [&](std::size_t max_body) {
    std::promise<HttpResult> promise;
    auto future = promise.get_future();
    fetch(client, get(url_of(server)), max_body,
          [&](HttpResult result) { promise.set_value(std::move(result)); });
    EXPECT_EQ(future.wait_for(10s), std::future_status::ready);
    return future.get();
  };
  HttpResult small = fetch_sync(1024);
  EXPECT_FALSE(small.error);
  EXPECT_EQ(small.head.status, 200);
  EXPECT_EQ(small.body, "{\"ok\":true}");
  EXPECT_FALSE(small.truncated);
  HttpResult big = fetch_sync(10);
  EXPECT_FALSE(big.error) << big.error->message;
  EXPECT_TRUE(big.truncated);
  EXPECT_EQ(big.body, std::string(10, 'x'));
}

}  // namespace
}  // namespace sigil::net
