// HttpRequest::connect_address: the client connects to the given address and resolves nothing, while the
// Host header, SNI and the certificate check keep using the URL's name.
#include <gtest/gtest.h>

#include <future>

#include "sigil/net/http_client.h"
#include "sigil/net/http_fetch.h"
#include "support/fake_openai_server.h"
#include "support/trusted_identity.h"

namespace sigil::net {
namespace {

using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;
using sigil::testing::RecordedRequest;

FakeResponse text(std::string body) {
  FakeResponse r;
  r.body = std::move(body);
  r.content_type = "text/plain";
  return r;
}

HttpResult get(HttpClient& client, std::string url, std::string connect_address) {
  HttpRequest request;
  request.url = std::move(url);
  request.connect_address = std::move(connect_address);
  request.timeouts.connect = std::chrono::seconds(5);
  std::promise<HttpResult> done;
  auto result = done.get_future();
  fetch(client, std::move(request), 1 << 20, [&done](HttpResult r) { done.set_value(std::move(r)); });
  return result.get();
}

std::string header(const RecordedRequest& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return "";
}

TEST(PinnedAddress, ConnectsThereWithoutResolvingTheName) {
  FakeOpenAiServer server;
  server.enqueue(text("pinned"));
  HttpClient client(std::make_shared<IoThreads>());
  const std::string port = std::to_string(server.port());
  // "pinned.invalid" cannot resolve (RFC 6761): the answer can only come from the pinned address.
  HttpResult r = get(client, "http://pinned.invalid:" + port + "/page", "127.0.0.1");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.body, "pinned");
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(header(server.requests()[0], "host"), "pinned.invalid:" + port);
  EXPECT_EQ(server.requests()[0].target, "/page");

  HttpResult unpinned = get(client, "http://pinned.invalid:" + port + "/page", "");
  ASSERT_TRUE(unpinned.error);
  EXPECT_EQ(unpinned.error->kind, NetErrorKind::resolve_failed);
}

TEST(PinnedAddress, PooledConnectionsAreKeptApartByPin) {
  FakeOpenAiServer server;
  for (int i = 0; i < 3; ++i) {
    FakeResponse r = text("x");
    r.keep_alive = true;
    server.enqueue(r);
  }
  HttpClient client(std::make_shared<IoThreads>());
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  ASSERT_FALSE(get(client, url, "127.0.0.1").error);
  ASSERT_FALSE(get(client, url, "").error);  // no pin: not the pinned connection
  EXPECT_EQ(client.connections_opened(), 2u);
  ASSERT_FALSE(get(client, url, "127.0.0.1").error);  // the same pin: reused
  EXPECT_EQ(client.connections_opened(), 2u);
}

TEST(PinnedAddress, TlsStillVerifiesTheUrlsName) {
  sigil::testing::TrustedIdentity trusted("localhost");
  FakeOpenAiServer server(trusted.identity);
  server.enqueue(text("secure"));
  server.enqueue(text("never"));
  HttpClientConfig config;
  config.ca_file = trusted.ca_file;
  HttpClient client(std::make_shared<IoThreads>(), config);
  const std::string port = std::to_string(server.port());

  HttpResult ok = get(client, "https://localhost:" + port + "/", "127.0.0.1");
  ASSERT_FALSE(ok.error) << ok.error->message;
  EXPECT_EQ(ok.body, "secure");

  // Same address, another name: the certificate (for localhost) does not match it, so no request goes out.
  HttpResult wrong = get(client, "https://elsewhere.test:" + port + "/", "127.0.0.1");
  ASSERT_TRUE(wrong.error);
  EXPECT_EQ(wrong.error->kind, NetErrorKind::tls_verify_failed) << wrong.error->message;
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(PinnedAddress, ABadPinIsABadUrlNotAGuess) {
  HttpClient client(std::make_shared<IoThreads>());
  HttpResult r = get(client, "http://example.test/", "not-an-address");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, NetErrorKind::bad_url);
}

}  // namespace
}  // namespace sigil::net
