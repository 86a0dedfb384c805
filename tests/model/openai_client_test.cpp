#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <set>

#include "model/recording_sink.h"
#include "sigil/model/openai.h"
#include "support/fake_openai_server.h"

namespace sigil::model {
namespace {

using namespace std::chrono_literals;
using namespace sigil::testing;
using testing::RecordingSink;
using testing::TempFile;
namespace json = boost::json;

ChatRequest ask(const std::string& user) {
  ChatRequest request;
  request.messages.push_back({"user", user, "", {}, {}});
  return request;
}

OpenAiConfig config_for(const FakeOpenAiServer& server) { return openai_config_for(server); }

std::shared_ptr<RecordingSink> run(ModelClient& client, ChatRequest request = ask("hi")) {
  auto sink = std::make_shared<RecordingSink>();
  client.start(std::move(request), sink);
  EXPECT_TRUE(sink->wait());
  EXPECT_TRUE(sink->errors().empty());
  return sink;
}

// run() on a client of this server, made for the one call.
std::shared_ptr<RecordingSink> run_on(const FakeOpenAiServer& server) {
  auto client = make_openai_client(config_for(server));
  return run(*client);
}

TEST(OpenAiClient, StreamsTextAndSendsTheRequest) {
  FakeOpenAiServer server;
  auto response = FakeResponse::text_stream({"Hel", "lo, ", "wörld", "!"});
  response.piece_size = 7;  // cuts through `data:` lines, JSON and the multi-byte ö
  server.enqueue(response);
  auto client = make_openai_client(config_for(server));
  ChatRequest request = ask("say hello");
  request.max_tokens = 50;
  auto sink = run(*client, request);
  EXPECT_EQ(sink->text(), "Hello, wörld!");
  EXPECT_EQ(sink->outcome().finish, FinishReason::stop);
  EXPECT_EQ(sink->outcome().attempts, 1);
  EXPECT_TRUE(sink->outcome().error.empty());

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/v1/chat/completions");
  EXPECT_EQ(requests[0].authorization, "Bearer sk-test");
  EXPECT_EQ(requests[0].json.at("model"), "fake-model");
  EXPECT_EQ(requests[0].json.at("stream"), true);
  EXPECT_EQ(requests[0].json.at("max_tokens"), 50);
  EXPECT_EQ(requests[0].json.at("messages").at(0).at("content"), "say hello");
  EXPECT_EQ(client->describe().find("sk-test"), std::string::npos);
}

TEST(OpenAiClient, EveryByteInItsOwnWrite) {
  FakeOpenAiServer server;
  auto response = FakeResponse::text_stream({"a", "b <react/>", " c"});
  response.piece_size = 1;
  response.chunked = false;  // Content-Length this time
  server.enqueue(response);
  auto sink = run_on(server);
  EXPECT_EQ(sink->text(), "ab <react/> c");
  EXPECT_EQ(sink->outcome().finish, FinishReason::stop);
}

TEST(OpenAiClient, ToolCallsAssembledFromFragments) {
  FakeOpenAiServer server;
  auto fragment = [](int index, const json::object& function, const char* id = nullptr) {
    json::object call{{"index", index}, {"function", function}};
    if (id != nullptr) {
      call["id"] = id;
      call["type"] = "function";
    }
    return openai_chunk(json::object{{"tool_calls", json::array{call}}});
  };
  auto response = FakeResponse::sse({
      openai_chunk(json::object{{"role", "assistant"}, {"content", nullptr}}),
      fragment(0, {{"name", "calculate"}, {"arguments", ""}}, "call_a"),
      fragment(0, {{"arguments", "{\"expr"}}),
      fragment(1, {{"name", "get_time"}, {"arguments", "{}"}}, "call_b"),
      fragment(0, {{"arguments", "\":\"2*21\"}"}}),
      openai_chunk(json::object{}, std::string("tool_calls")),
  });
  response.piece_size = 13;
  server.enqueue(response);
  auto sink = run_on(server);
  EXPECT_EQ(sink->outcome().finish, FinishReason::tool_calls);
  ASSERT_EQ(sink->calls().size(), 2u);
  EXPECT_EQ(sink->calls()[0].id, "call_a");
  EXPECT_EQ(sink->calls()[0].name, "calculate");
  EXPECT_EQ(sink->calls()[0].arguments_json, "{\"expr\":\"2*21\"}");
  EXPECT_EQ(sink->calls()[1].name, "get_time");
  EXPECT_EQ(sink->text(), "");
}

TEST(OpenAiClient, FinishReasonLength) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream({"cut sh"}, "length"));
  auto sink = run_on(server);
  EXPECT_EQ(sink->text(), "cut sh");
  EXPECT_EQ(sink->outcome().finish, FinishReason::length);
}

TEST(OpenAiClient, RateLimitedThenSuccessHonoursRetryAfter) {
  FakeOpenAiServer server;
  auto first = FakeResponse::error(429, "Rate limit reached");
  first.headers.push_back({"Retry-After", "0"});
  auto second = FakeResponse::error(429, "Rate limit reached");
  second.headers.push_back({"Retry-After", "1"});
  server.enqueue(first);
  server.enqueue(second);
  server.enqueue(FakeResponse::text_stream({"finally"}));
  auto client = make_openai_client(config_for(server));
  auto started = std::chrono::steady_clock::now();
  auto sink = run(*client);
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(sink->text(), "finally");
  EXPECT_EQ(sink->outcome().finish, FinishReason::stop);
  EXPECT_EQ(sink->outcome().attempts, 3);
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_GE(took, 900ms);  // Retry-After: 1 was waited for, not the 50 ms backoff cap
}

TEST(OpenAiClient, ServerErrorsUntilRetriesRunOut) {
  FakeOpenAiServer server;
  for (int i = 0; i < 4; ++i) server.enqueue(FakeResponse::error(500, "The server had an error"));
  auto config = config_for(server);
  config.max_retries = 2;
  auto client = make_openai_client(config);
  auto sink = run(*client);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().attempts, 3);
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(sink->outcome().error,
            "model: HTTP 500 from 127.0.0.1: The server had an error (after 3 attempts)");
}

TEST(OpenAiClient, ClientErrorsAreNotRetried) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::error(401, "Incorrect API key provided"));
  server.enqueue(FakeResponse::text_stream({"never"}));
  auto sink = run_on(server);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().error, "model: HTTP 401 from 127.0.0.1: Incorrect API key provided");
  EXPECT_EQ(sink->outcome().attempts, 1);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClient, BreakAfterTextIsAnErrorWithoutRetry) {
  FakeOpenAiServer server;
  auto response = FakeResponse::text_stream({"Hello ", "there, ", "this never ends"});
  // Cut inside the third text chunk: the first two were delivered.
  response.close_after_bytes = response.body.find("this never");
  server.enqueue(response);
  server.enqueue(FakeResponse::text_stream({"Hello there, duplicated"}));
  auto sink = run_on(server);
  EXPECT_EQ(sink->text(), "Hello there, ");
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().error.rfind("model stream broke after 13 bytes: ", 0), 0u)
      << sink->outcome().error;
  EXPECT_EQ(sink->outcome().attempts, 1);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClient, BreakBeforeAnyTextIsRetried) {
  FakeOpenAiServer server;
  auto broken = FakeResponse::text_stream({"lost"});
  broken.close_after_bytes = 20;  // inside the role-only first chunk
  server.enqueue(broken);
  server.enqueue(FakeResponse::text_stream({"second try"}));
  auto sink = run_on(server);
  EXPECT_EQ(sink->text(), "second try");
  EXPECT_EQ(sink->outcome().finish, FinishReason::stop);
  EXPECT_EQ(sink->outcome().attempts, 2);
}

TEST(OpenAiClient, FirstByteTimeOut) {
  FakeOpenAiServer server;
  auto slow = FakeResponse::text_stream({"late"});
  slow.delay_before_headers = 3s;
  server.enqueue(slow);
  auto config = config_for(server);
  config.first_byte_timeout = 200ms;
  auto client = make_openai_client(config);
  auto started = std::chrono::steady_clock::now();
  auto sink = run(*client);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().error, "model: no response from 127.0.0.1:" + std::to_string(server.port()) +
                                       " within 200ms (first-byte time-out)");
  EXPECT_EQ(sink->outcome().attempts, 1);
}

TEST(OpenAiClient, IdleTimeOutAfterText) {
  FakeOpenAiServer server;
  auto response = FakeResponse::text_stream({"tick ", "tock"});
  response.in_pieces(response.body.find("tock"), 3s);
  server.enqueue(response);
  auto config = config_for(server);
  config.idle_timeout = 200ms;
  auto client = make_openai_client(config);
  auto sink = run(*client);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_NE(sink->outcome().error.find("model stream broke after 5 bytes: no data for 200ms (idle time-out)"),
            std::string::npos)
      << sink->outcome().error;
}

TEST(OpenAiClient, CancelMidStream) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::text_stream(std::vector<std::string>(50, "word ")).in_pieces(64, 100ms));
  auto client = make_openai_client(config_for(server));
  auto sink = std::make_shared<RecordingSink>();
  auto call = client->start(ask("x"), sink);
  ASSERT_TRUE(sink->wait_for_text(5));
  auto cancelled_at = std::chrono::steady_clock::now();
  call->cancel();
  ASSERT_TRUE(sink->wait(2s));
  EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, 1s);
  EXPECT_EQ(sink->outcome().finish, FinishReason::cancelled);
  EXPECT_LT(sink->text().size(), 250u);
  EXPECT_TRUE(sink->errors().empty());
  call->cancel();  // after the end: harmless
}

TEST(OpenAiClient, CancelDuringBackoff) {
  FakeOpenAiServer server;
  auto limited = FakeResponse::error(429, "slow down");
  limited.headers.push_back({"Retry-After", "10"});
  server.enqueue(limited);
  auto client = make_openai_client(config_for(server));
  auto sink = std::make_shared<RecordingSink>();
  auto call = client->start(ask("x"), sink);
  auto until = std::chrono::steady_clock::now() + 5s;
  while (server.request_count() == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(50ms);
  call->cancel();
  ASSERT_TRUE(sink->wait(2s));
  EXPECT_EQ(sink->outcome().finish, FinishReason::cancelled);
}

TEST(OpenAiClient, ConnectionRefusedIsRetriedThenReported) {
  unsigned short port = 0;
  {
    FakeOpenAiServer closed;  // take a free port, then free it again
    port = closed.port();
  }
  OpenAiConfig config;
  config.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  config.max_retries = 1;
  config.backoff_base = 10ms;
  auto client = make_openai_client(config);
  auto sink = run(*client);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().attempts, 2);
  EXPECT_EQ(
      sink->outcome().error.rfind("model: cannot connect to 127.0.0.1:" + std::to_string(port) + ": ", 0), 0u)
      << sink->outcome().error;
}

TEST(OpenAiClient, StreamWithoutFinishOrDoneIsAnError) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::sse({openai_chunk(json::object{{"content", "half"}})}, false));
  auto sink = run_on(server);
  EXPECT_EQ(sink->text(), "half");
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().error, "model stream ended without a finish_reason or [DONE] after 4 bytes");
}

TEST(OpenAiClient, ErrorEventInsideTheStream) {
  FakeOpenAiServer server;
  server.enqueue(FakeResponse::sse(
      {openai_chunk(json::object{{"content", "a"}}), R"({"error":{"message":"The model is overloaded"}})"}));
  auto sink = run_on(server);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().error, "model: model stream reported an error: The model is overloaded");
}

TEST(OpenAiClient, ManyConcurrentCallsOnOneIoThread) {
  FakeOpenAiServer server;
  constexpr int kCalls = 40;
  for (int i = 0; i < kCalls; ++i) {
    server.enqueue(FakeResponse::text_stream({"one ", "two ", "three"}).in_pieces(40, 20ms));
  }
  auto client = make_openai_client(config_for(server));
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  for (int i = 0; i < kCalls; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    client->start(ask("x"), sinks.back());
  }
  std::set<std::thread::id> threads;
  for (auto& sink : sinks) {
    ASSERT_TRUE(sink->wait());
    EXPECT_EQ(sink->text(), "one two three");
    for (auto id : sink->threads()) threads.insert(id);
  }
  EXPECT_EQ(threads.size(), 1u);
}

TEST(OpenAiClient, DestroyingTheClientCancelsOpenCalls) {
  FakeOpenAiServer server;
  auto slow = FakeResponse::text_stream({"late"});
  slow.delay_before_headers = 5s;
  server.enqueue(slow);
  auto client = make_openai_client(config_for(server));
  auto sink = std::make_shared<RecordingSink>();
  auto call = client->start(ask("x"), sink);
  std::this_thread::sleep_for(50ms);
  client.reset();
  EXPECT_TRUE(sink->done());
  EXPECT_EQ(sink->outcome().finish, FinishReason::cancelled);
  call->cancel();
}

TEST(OpenAiClient, BadConfigurationThrows) {
  auto with_url = [](std::string url) {
    OpenAiConfig config;
    config.base_url = std::move(url);
    return config;
  };
  EXPECT_THROW(make_openai_client(with_url("ftp://example.com")), std::invalid_argument);
  EXPECT_THROW(make_openai_client(with_url("http://")), std::invalid_argument);
  EXPECT_THROW(make_openai_client(with_url("http://host:99999/v1")), std::invalid_argument);
  try {
    (void)make_openai_client(with_url("https://user:pw@host/v1"));
    ADD_FAILURE() << "a url with credentials was accepted";
  } catch (const std::invalid_argument& e) {
    // Names the setting a user writes and where the key goes instead.
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("model: url: ", 0), 0u) << what;
    EXPECT_NE(what.find("[model] key or SIGIL_MODEL_KEY"), std::string::npos) << what;
    EXPECT_EQ(what.find("pw"), std::string::npos) << what;
  }
  EXPECT_THROW(make_openai_client(with_url("http://host/v1?x=1")), std::invalid_argument);
  EXPECT_NO_THROW(make_openai_client(with_url("http://[::1]:8080/")));
  OpenAiConfig missing_ca;
  missing_ca.ca_file = "/nonexistent/ca.pem";
  EXPECT_THROW(make_openai_client(missing_ca), std::invalid_argument);
}

TEST(OpenAiClient, TlsWithTrustedCertificate) {
  auto identity = sigil::testing::make_self_signed_identity();
  FakeOpenAiServer server(identity);
  server.enqueue(FakeResponse::text_stream({"secure ", "hello"}));
  TempFile ca(identity.cert_pem, ".pem");
  auto config = config_for(server);
  config.ca_file = ca.path();
  auto client = make_openai_client(config);
  auto sink = run(*client);
  EXPECT_EQ(sink->text(), "secure hello");
  EXPECT_EQ(sink->outcome().finish, FinishReason::stop);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClient, TlsWithUntrustedCertificateFailsClearly) {
  auto identity = sigil::testing::make_self_signed_identity();
  FakeOpenAiServer server(identity);
  server.enqueue(FakeResponse::text_stream({"must not arrive"}));
  auto client = make_openai_client(config_for(server));  // the system trust store
  auto sink = run(*client);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_EQ(sink->outcome().error, "model: TLS handshake with localhost:" + std::to_string(server.port()) +
                                       " failed: certificate verify failed (self-signed certificate)");
  EXPECT_EQ(sink->outcome().attempts, 1);
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(OpenAiClient, TlsWithWrongHostNameFails) {
  auto identity = sigil::testing::make_self_signed_identity("not-this-host.example");
  FakeOpenAiServer server(identity);
  TempFile ca(identity.cert_pem, ".pem");
  auto config = config_for(server);
  config.ca_file = ca.path();
  // The certificate names not-this-host.example (and 127.0.0.1), we connect to "localhost".
  auto client = make_openai_client(config);
  auto sink = run(*client);
  EXPECT_EQ(sink->outcome().finish, FinishReason::error);
  EXPECT_NE(sink->outcome().error.find("certificate verify failed (hostname mismatch)"), std::string::npos)
      << sink->outcome().error;
}

}  // namespace
}  // namespace sigil::model
