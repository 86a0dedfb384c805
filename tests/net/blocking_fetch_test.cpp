// StoppableCalls::download: the whole body or a typed failure. Callers tell a file that is too large from
// every other failure by the flag, so the flag is what is checked here, beside the message.
#include "sigil/net/blocking_fetch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "sigil/net/io_threads.h"
#include "support/fake_openai_server.h"

namespace sigil::net {
namespace {

using namespace std::chrono_literals;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;

FakeResponse body_of(std::string body) {
  FakeResponse response;
  response.content_type = "application/octet-stream";
  response.body = std::move(body);
  return response;
}

HttpRequest get(const FakeOpenAiServer& server) {
  HttpRequest request;
  request.url = server.base_url() + "/file";
  request.timeouts.connect = 5s;
  request.timeouts.first_byte = 5s;
  request.timeouts.idle = 5s;
  return request;
}

TEST(StoppableCallsDownload, TellsATooLargeFileFromOtherFailures) {
  FakeOpenAiServer server;
  server.enqueue(body_of("0123456789"));
  server.enqueue(body_of(std::string(11, 'x')));
  server.enqueue(FakeResponse::error(404, "no such file"));
  HttpClient client(std::make_shared<IoThreads>(1));
  StoppableCalls calls;

  auto whole = calls.download(client, get(server), 10);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(*whole, "0123456789");

  auto large = calls.download(client, get(server), 10);
  ASSERT_FALSE(large);
  EXPECT_TRUE(large.error().too_large);
  EXPECT_EQ(large.error().message, "larger than 10 bytes");

  auto missing = calls.download(client, get(server), 1000);  // room for the error's JSON body
  ASSERT_FALSE(missing);
  EXPECT_FALSE(missing.error().too_large);
  EXPECT_EQ(missing.error().message, "HTTP 404");

  EXPECT_EQ(calls.stats().calls, 3u);
  EXPECT_EQ(calls.stats().failures, 2u);
  EXPECT_EQ(calls.stats().last_error, "download: HTTP 404");
}

}  // namespace
}  // namespace sigil::net
