// The conversation endpoints' checks and answers, without sockets (server/conversation_routes.h).
#include "server/conversation_routes.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <memory>
#include <string>
#include <variant>

#include "sigil/actions/builtin_handlers.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/replay.h"
#include "store/store_test_support.h"

namespace sigil::server {
namespace {

using store::testing::kT0;

template <class T>
PlainResponse refusal(const OrRefusal<T>& result) {
  const auto* r = std::get_if<PlainResponse>(&result);
  return r != nullptr ? *r : PlainResponse{0, "", R"({"error":"not refused"})", {}};
}

// A watcher of a conversation that keeps every frame the hub sends it, serialized.
struct Recorder final : Watcher {
  std::vector<std::string> frames;
  void send(channels::web::SharedFrame frame) override { frames.push_back(channels::web::serialize(*frame)); }
};

std::string error_of(const PlainResponse& res) {
  return std::string(boost::json::parse(res.body).as_object().at("error").as_string());
}

TEST(ConversationRoutesTest, QueryChecksComeInOrder) {
  auto ok = conversation_query("c1", "/v1/conversations/c1/messages?user=alice&limit=3");
  ASSERT_TRUE(std::holds_alternative<ConversationQuery>(ok));
  EXPECT_EQ(std::get<ConversationQuery>(ok).user, "alice");
  EXPECT_EQ(std::get<ConversationQuery>(ok).query.at("limit"), "3");
  EXPECT_EQ(std::get<ConversationQuery>(conversation_query("c1", "/x")).user, "web");

  const PlainResponse broken = refusal(conversation_query("bad/id", "/x?user=%zz"));
  EXPECT_EQ(broken.status, 400);
  EXPECT_EQ(error_of(broken), "malformed query string");  // the query first
  EXPECT_EQ(error_of(refusal(conversation_query("bad id", "/x?user=bad user"))),
            "conversation id must be 1 to 128 of A-Z a-z 0-9 . _ -");
  EXPECT_EQ(error_of(refusal(conversation_query("c1", "/x?user=a%2Fb"))),
            "user must be 1 to 128 of A-Z a-z 0-9 . _ -");
}

TEST(ConversationRoutesTest, WebSocketQuery) {
  auto ok = websocket_query("/v1/ws?conversation=c1&user=u1&access_token=t%2Bk");
  ASSERT_TRUE(std::holds_alternative<WebSocketQuery>(ok));
  const auto& q = std::get<WebSocketQuery>(ok);
  EXPECT_EQ(q.conversation, "c1");
  EXPECT_EQ(q.user, "u1");
  EXPECT_EQ(q.access_token, "t+k");
  EXPECT_FALSE(std::get<WebSocketQuery>(websocket_query("/v1/ws?conversation=c")).access_token.has_value());
  EXPECT_EQ(std::get<WebSocketQuery>(websocket_query("/v1/ws?conversation=c")).user, "web");

  EXPECT_EQ(error_of(refusal(websocket_query("/v1/ws?conversation=%"))), "malformed query string");
  EXPECT_EQ(error_of(refusal(websocket_query("/v1/ws?user=u"))),
            "conversation must be given, 1 to 128 of A-Z a-z 0-9 . _ -");
  EXPECT_EQ(error_of(refusal(websocket_query("/v1/ws?conversation=a/b"))),
            "conversation must be given, 1 to 128 of A-Z a-z 0-9 . _ -");
  EXPECT_EQ(error_of(refusal(websocket_query("/v1/ws?conversation=c&user="))),
            "user must be 1 to 128 of A-Z a-z 0-9 . _ -");
}

TEST(ConversationRoutesTest, MessagePostBody) {
  auto ok = message_post("c1", R"({"text":"hello","user":"any user name"})");
  ASSERT_TRUE(std::holds_alternative<MessagePost>(ok));
  EXPECT_EQ(std::get<MessagePost>(ok).text, "hello");
  EXPECT_EQ(std::get<MessagePost>(ok).user, "any user name");  // the body's user is not an id (as before)
  EXPECT_EQ(std::get<MessagePost>(message_post("c1", R"({"text":"hi"})")).user, "web");

  EXPECT_EQ(error_of(refusal(message_post("c 1", R"({"text":"hi"})"))),
            "conversation id must be 1 to 128 of A-Z a-z 0-9 . _ -");
  EXPECT_EQ(error_of(refusal(message_post("c1", "[]"))),
            "body must be a JSON object like {\"text\":\"hello\",\"user\":\"web\"}");
  EXPECT_EQ(error_of(refusal(message_post("c1", R"({"text":""})"))), "\"text\" must be a non-empty string");
  EXPECT_EQ(error_of(refusal(message_post("c1", R"({"text":"hi","user":""})"))),
            "\"user\" must be a non-empty string when given");
}

class ConversationRoutesStoreTest : public ::testing::Test {
 protected:
  ConversationRoutesStoreTest() { store_ = store::testing::open_or_fail(dir_.file("sigil.db")); }

  void say(const std::string& role, const std::string& text, const std::string& turn) {
    ASSERT_TRUE(store_->append_message(store::Scope{"web", "c1"}, role, text, turn, kT0).ok());
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
};

TEST_F(ConversationRoutesStoreTest, HistoryAnswersTheClientsViewWithinTheLimit) {
  say("user", "one", "t1");
  say("assistant", "reply one", "t1");
  say("user", "two", "t2");
  PlainResponse res = history_response(*store_, "c1", "/v1/conversations/c1/messages");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.content_type, "application/json");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  auto body = boost::json::parse(res.body).as_object();
  EXPECT_EQ(body.at("messages").as_array().size(), 3u);
  EXPECT_FALSE(body.at("more").as_bool());

  res = history_response(*store_, "c1", "/v1/conversations/c1/messages?limit=1");
  body = boost::json::parse(res.body).as_object();
  ASSERT_EQ(body.at("messages").as_array().size(), 1u);
  EXPECT_EQ(body.at("messages").as_array()[0].as_object().at("text").as_string(), "two");

  for (const char* limit : {"0", "501", "abc", "1000", "-1", ""}) {
    res = history_response(*store_, "c1", std::string("/x?limit=") + limit);
    EXPECT_EQ(res.status, 400) << limit;
    EXPECT_EQ(error_of(res), "limit must be 1 to 500") << limit;
  }
  EXPECT_EQ(history_response(*store_, "c/1", "/x").status, 400);
}

TEST_F(ConversationRoutesStoreTest, SettingsReadAndWriteTheSayModeAndTellTheWatchers) {
  const auto registry = catalog::Registry::builtin();
  auto handlers = actions::builtin_handlers(actions::BuiltinConfig{});
  ASSERT_TRUE(handlers.ok());
  const std::string path = dir_.file("replay.jsonl");
  std::ofstream(path) << boost::json::serialize(boost::json::object{{"reply", "hi"}}) << '\n';
  model::ReplayConfig config;
  config.path = path;
  auto client = model::make_replay_client(config);
  agent::Agent agent(registry, *handlers, *store_, *client, agent::AgentConfig{});
  ConversationHub hub;
  auto watcher = std::make_shared<Recorder>();
  hub.watch("web", "c1", watcher);

  PlainResponse res = settings_response(agent, *store_, hub, "c1", "/x", nullptr);
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, R"({"say_mode":false,"title":""})");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");

  const std::string on = R"({"say_mode":true})";
  res = settings_response(agent, *store_, hub, "c1", "/x", &on);
  EXPECT_EQ(res.body, R"({"say_mode":true,"title":""})");
  ASSERT_EQ(watcher->frames.size(), 1u);
  EXPECT_NE(watcher->frames[0].find("\"settings\""), std::string::npos);
  EXPECT_EQ(settings_response(agent, *store_, hub, "c1", "/x", nullptr).body,
            R"({"say_mode":true,"title":""})");

  for (const std::string bad : {"", "[]", "{}", R"({"say_mode":1})", R"({"say_mode":true,"x":1})"}) {
    res = settings_response(agent, *store_, hub, "c1", "/x", &bad);
    EXPECT_EQ(res.status, 400) << bad;
    EXPECT_EQ(error_of(res), "expected a JSON object with \"say_mode\" (true or false) and/or \"title\"")
        << bad;
  }
  EXPECT_EQ(watcher->frames.size(), 1u);

  // The title: trimmed, blank clears it, one line, bounded; a title alone tells no page (no settings frame).
  const std::string titled = R"({"title":"  Trip to Rome  "})";
  EXPECT_EQ(settings_response(agent, *store_, hub, "c1", "/x", &titled).body,
            R"({"say_mode":true,"title":"Trip to Rome"})");
  EXPECT_EQ(watcher->frames.size(), 1u);
  const std::string both = R"({"title":"","say_mode":false})";
  EXPECT_EQ(settings_response(agent, *store_, hub, "c1", "/x", &both).body,
            R"({"say_mode":false,"title":""})");
  EXPECT_EQ(watcher->frames.size(), 2u);
  const std::string long_title =
      boost::json::serialize(boost::json::object{{"title", std::string(201, 'x')}});
  res = settings_response(agent, *store_, hub, "c1", "/x", &long_title);
  EXPECT_EQ(res.status, 400);
  EXPECT_EQ(error_of(res), "\"title\" must be at most 200 bytes");
  for (const std::string bad : {R"({"title":"a\nb"})", R"({"title":7})"}) {
    res = settings_response(agent, *store_, hub, "c1", "/x", &bad);
    EXPECT_EQ(res.status, 400) << bad;
  }
  EXPECT_EQ(settings_response(agent, *store_, hub, "c1", "/x", nullptr).body,
            R"({"say_mode":false,"title":""})");
}

TEST_F(ConversationRoutesStoreTest, TheListAndDeleteOfConversations) {
  const store::TimePoint t0 = store::Clock::now();
  ASSERT_TRUE(store_->append_message({"web", "old"}, "user", "First question. More.", "t1", t0).ok());
  ASSERT_TRUE(
      store_->append_message({"web", "new"}, "user", "Second", "t2", t0 + std::chrono::seconds(1)).ok());
  ASSERT_TRUE(store_->append_message({"ann", "hers"}, "user", "Ann's", "t3", t0).ok());
  ASSERT_TRUE(store_->set_setting({"web", "old"}, "title", "Old one", t0).ok());

  PlainResponse res = conversations_response(*store_, "/v1/conversations");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  auto list = boost::json::parse(res.body).at("conversations").as_array();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].at("id").as_string(), "new");
  EXPECT_EQ(list[1].at("id").as_string(), "old");
  EXPECT_EQ(list[1].at("title").as_string(), "Old one");
  EXPECT_EQ(list[1].at("preview").as_string(), "First question.");
  EXPECT_EQ(list[1].at("messages").as_int64(), 1);
  EXPECT_EQ(list[0].at("updated_at_ms").as_int64() - list[1].at("updated_at_ms").as_int64(), 1000);
  res = conversations_response(*store_, "/v1/conversations?user=ann&limit=1");
  EXPECT_EQ(boost::json::parse(res.body).at("conversations").as_array().size(), 1u);
  EXPECT_EQ(error_of(conversations_response(*store_, "/v1/conversations?limit=0")), "limit must be 1 to 500");
  EXPECT_EQ(conversations_response(*store_, "/v1/conversations?user=a/b").status, 400);

  ConversationHub hub;
  TurnRegistry turns;
  auto watcher = std::make_shared<Recorder>();
  hub.watch("web", "old", watcher);
  ASSERT_TRUE(turns.open("turn-1", "web", "old"));
  res = delete_response(*store_, hub, turns, "old", "/v1/conversations/old");
  EXPECT_EQ(res.status, 409);  // a running turn would write into it again
  turns.answered("turn-1");
  res = delete_response(*store_, hub, turns, "old", "/v1/conversations/old");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, R"({"deleted":"old"})");
  ASSERT_EQ(watcher->frames.size(), 1u);
  EXPECT_EQ(watcher->frames[0], R"({"type":"deleted"})");
  EXPECT_EQ(delete_response(*store_, hub, turns, "old", "/x").status, 404);
  EXPECT_EQ(delete_response(*store_, hub, turns, "hers", "/x").status, 404);  // another user's: not found
  EXPECT_EQ(delete_response(*store_, hub, turns, "hers", "/x?user=ann").status, 200);
  EXPECT_EQ(delete_response(*store_, hub, turns, "a b", "/x").status, 400);
  list = boost::json::parse(conversations_response(*store_, "/v1/conversations").body)
             .at("conversations")
             .as_array();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].at("id").as_string(), "new");
}

}  // namespace
}  // namespace sigil::server
