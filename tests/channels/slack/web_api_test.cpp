// Slack's Web API client (channels/slack/web_api.h) against the Slack fake (tests/fakes/slack.mjs) as a real
// process: calls, Slack's errors, 429 and 5xx, a time-out after the send, the three-step upload, downloads.
#include "sigil/channels/slack/web_api.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <chrono>

#include "channels/slack/slack_fake.h"

namespace sigil::channels::slack {
namespace {

using testing::kBotToken;
using testing::kDm;
using testing::kGeneral;
using testing::kRandom;

class SlackWebApiTest : public testing::SlackFakeTest {
 protected:
  std::unique_ptr<WebApi> api(ApiOptions options = {}, std::string token = kBotToken) {
    options.retry_pause = std::chrono::milliseconds(20);
    return std::make_unique<WebApi>(*http, fake.api(), std::move(token), options);
  }
  // The journal's API calls of `method`, in order.
  std::vector<boost::json::object> calls(const std::string& method) {
    std::vector<boost::json::object> out;
    for (const auto& e : fake.journal("api"))
      if (e.at("method").as_string() == method) out.push_back(e.as_object());
    return out;
  }
  void fault(const std::string& json) { fake.admin("POST", "/_fake/faults", json); }
};

TEST_F(SlackWebApiTest, PostsInAThreadAndReacts) {
  const std::string ts = fake.user_message("hello");
  auto a = api();
  const ApiOutcome posted = a->post_message(kDm, "*hi* there", ts);
  ASSERT_TRUE(posted.ok()) << posted.summary();
  const auto messages = fake.messages(kDm);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].at("text").as_string(), "*hi* there");
  EXPECT_EQ(messages[1].at("thread_ts").as_string(), ts);
  EXPECT_EQ(messages[1].at("ts").as_string(), posted.body.at("ts").as_string());
  EXPECT_EQ(calls("chat.postMessage").at(0).at("token_kind").as_string(), "bot");

  EXPECT_TRUE(a->add_reaction(kDm, ts, "eyes").ok());
  // Again: Slack says already_reacted, and the reaction is there: Ok.
  EXPECT_TRUE(a->add_reaction(kDm, ts, "eyes").ok());
  const ApiOutcome bad = a->add_reaction(kDm, ts, "not_an_emoji_name");
  EXPECT_EQ(bad.kind, CallEnd::Refused);
  EXPECT_EQ(bad.error, "invalid_name");
  EXPECT_EQ(fake.messages(kDm)[0].at("reactions").as_array().size(), 1u);
}

TEST_F(SlackWebApiTest, SlacksErrorsAreRefusedWithTheirCode) {
  auto a = api();
  EXPECT_EQ(a->post_message("C0NOSUCH001", "x", "").error, "channel_not_found");
  const ApiOutcome outside = a->post_message(kRandom, "x", "");
  EXPECT_EQ(outside.kind, CallEnd::Refused);
  EXPECT_EQ(outside.error, "not_in_channel");
  EXPECT_EQ(outside.summary(), "not_in_channel");
  EXPECT_EQ(api({}, "xoxb-wrong")->call("auth.test", {}, true).error, "invalid_auth");
  const ApiOutcome unknown = a->call("chat.noSuchMethod", {}, true);
  EXPECT_EQ(unknown.kind, CallEnd::Refused);
  EXPECT_EQ(unknown.summary(), "HTTP 404 unknown_method");
  // The token is in no outcome or stats.
  EXPECT_EQ(a->stats().last_error.find(kBotToken), std::string::npos);
}

TEST_F(SlackWebApiTest, A429IsWaitedOutAndSentOnce) {
  fault(R"({"match":"chat.postMessage","kind":"rate_limit","retry_after":1})");
  auto a = api();
  const auto t0 = std::chrono::steady_clock::now();
  const ApiOutcome o = a->post_message(kGeneral, "after the wait", "");
  ASSERT_TRUE(o.ok()) << o.summary();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(950));
  EXPECT_EQ(o.retries, 1);
  const auto posts = calls("chat.postMessage");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_EQ(posts[0].at("status").as_int64(), 429);
  EXPECT_EQ(fake.messages(kGeneral).size(), 1u);
}

TEST_F(SlackWebApiTest, ATimeOutAfterTheSendIsUnknownAndNeverRepeated) {
  fault(R"({"match":"chat.postMessage","kind":"timeout"})");
  ApiOptions options;
  options.request_timeout = std::chrono::milliseconds(300);
  auto a = api(options);
  const ApiOutcome o = a->post_message(kGeneral, "in doubt", "");
  EXPECT_EQ(o.kind, CallEnd::Unknown) << o.summary();
  EXPECT_EQ(calls("chat.postMessage").size(), 1u);
  EXPECT_EQ(fake.messages(kGeneral).size(), 1u);  // it went through: shown once, never twice
}

TEST_F(SlackWebApiTest, A5xxOnARepeatableCallIsMadeAgain) {
  const std::string ts = fake.user_message("react");
  fault(R"({"match":"reactions.add","kind":"status","status":503})");
  auto a = api();
  const ApiOutcome o = a->add_reaction(kDm, ts, "thumbsup");
  ASSERT_TRUE(o.ok()) << o.summary();
  EXPECT_EQ(o.retries, 1);
  // A 5xx on a post is Unknown, and not repeated.
  fault(R"({"match":"chat.postMessage","kind":"status","status":502})");
  EXPECT_EQ(a->post_message(kGeneral, "x", "").kind, CallEnd::Unknown);
  EXPECT_EQ(calls("chat.postMessage").size(), 1u);
}

TEST_F(SlackWebApiTest, TheThreeStepUploadIntoAThread) {
  const std::string ts = fake.user_message("the report please");
  auto a = api();
  const std::string bytes = "%PDF-1.4\nreport\n%%EOF\n";
  const ApiOutcome o = a->upload_file(kDm, ts, {"report.pdf", "The report", bytes}, "here it is");
  ASSERT_TRUE(o.ok()) << o.summary();
  const auto messages = fake.messages(kDm);
  ASSERT_EQ(messages.size(), 2u);
  const auto& shared = messages[1].as_object();
  EXPECT_EQ(shared.at("text").as_string(), "here it is");
  EXPECT_EQ(shared.at("thread_ts").as_string(), ts);
  const auto& file = shared.at("files").as_array().at(0).as_object();
  EXPECT_EQ(file.at("name").as_string(), "report.pdf");
  EXPECT_EQ(file.at("title").as_string(), "The report");
  EXPECT_EQ(file.at("mimetype").as_string(), "application/pdf");
  EXPECT_EQ(file.at("size").as_int64(), static_cast<std::int64_t>(bytes.size()));
  const auto uploads = fake.journal("upload");
  ASSERT_EQ(uploads.size(), 1u);
  EXPECT_FALSE(uploads[0].as_object().contains("length_mismatch"));
  // The bytes as Slack keeps them, through the file's url_private.
  auto got = a->download(std::string(file.at("url_private").as_string()), 1 << 20);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got.value(), bytes);
}

TEST_F(SlackWebApiTest, AFailedUploadStartsAgainWithANewUrl) {
  fault(R"({"match":"upload","kind":"drop"})");
  auto a = api();
  const ApiOutcome o = a->upload_file(kGeneral, "", {"a.txt", "", "abc"}, "");
  ASSERT_TRUE(o.ok()) << o.summary();
  EXPECT_EQ(calls("files.getUploadURLExternal").size(), 2u);
  EXPECT_EQ(calls("files.completeUploadExternal").size(), 1u);
  EXPECT_EQ(fake.messages(kGeneral).size(), 1u);
}

TEST_F(SlackWebApiTest, DownloadsOnlyFromSlackAndNeverAWebPage) {
  auto a = api();
  EXPECT_EQ(a->download("https://example.com/file.txt", 1024).error().message, "not a Slack file URL");
  const auto v =
      fake.admin("POST", "/_fake/messages",
                 R"({"channel":"D0ALICEDM01","text":"","files":[{"name":"n.txt","data_base64":"aGk="}]})");
  const std::string url(v.at("message").at("files").at(0).at("url_private").as_string());
  auto got = a->download(url, 1024);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got.value(), "hi");
  // Without a token Slack accepts, its answer is its sign-in page (after a redirect): never taken for the
  // file.
  EXPECT_FALSE(api({}, "xoxb-wrong")->download(url, 1024).ok());
}

TEST_F(SlackWebApiTest, ThePerChannelPaceHoldsPostsBack) {
  fake.admin("POST", "/_fake/config", R"({"post_rate":{"per_second":2,"burst":1}})");
  ApiOptions options;
  // A little slower than the fake allows, so network jitter never makes two posts look closer than they were.
  options.posts_per_second = 1.6;
  options.post_burst = 1;
  auto a = api(options);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(a->post_message(kGeneral, "n" + std::to_string(i), "").ok());
  for (const auto& c : calls("chat.postMessage")) EXPECT_EQ(c.at("status").as_int64(), 200);
  EXPECT_GE(a->stats().paced, 2u);
}

}  // namespace
}  // namespace sigil::channels::slack
