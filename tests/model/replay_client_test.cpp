#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "model/recording_sink.h"
#include "sigil/model/replay.h"
#include "support/expect_each.h"

namespace sigil::model {
namespace {

using testing::RecordingSink;
using testing::TempFile;

ChatRequest ask(const std::string& user) {
  ChatRequest request;
  request.messages.push_back({"system", "you are a test", "", {}, {}});
  request.messages.push_back({"user", user, "", {}, {}});
  return request;
}

std::string run_one(ModelClient& client, const std::string& user) {
  auto sink = std::make_shared<RecordingSink>();
  client.start(ask(user), sink);
  EXPECT_TRUE(sink->wait());
  EXPECT_TRUE(sink->errors().empty());
  return sink->text();
}

TEST(ReplaySplit, TokensConcatenateToTheReply) {
  const std::string reply = "Hi <react emoji=\"👍\"/> and [[send_file path=\"a.txt\"]] — ünïcödé ok.\n\nBye  ";
  for (TokenSplit split : {TokenSplit::words, TokenSplit::awkward}) {
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      auto tokens = split_tokens(reply, split, seed);
      std::string joined;
      for (const auto& t : tokens) {
        ASSERT_FALSE(t.empty());
        // No token starts inside a UTF-8 sequence.
        ASSERT_NE(static_cast<unsigned char>(t[0]) & 0xC0, 0x80) << t;
        joined += t;
      }
      EXPECT_EQ(joined, reply);
    }
  }
}

TEST(ReplaySplit, WordsAndMarkup) {
  auto tokens = split_tokens("Hi <react x=\"y\"/>", TokenSplit::words, 0);
  std::vector<std::string> expected{"Hi", " <", "react", " x", "=", "\"", "y", "\"", "/", ">"};
  EXPECT_EQ(tokens, expected);
  // Awkward cuts make more, smaller tokens (at most 3 bytes unless a character is longer).
  auto awkward = split_tokens("Hi <react x=\"y\"/>", TokenSplit::awkward, 0);
  EXPECT_GT(awkward.size(), tokens.size());
  for (const auto& t : awkward) EXPECT_LE(t.size(), 3u);
}

TEST(ReplayFile, Errors) {
  TempFile bad("{\"reply\":\"ok\"}\n\n# comment\n{\"match\":1,\"reply\":\"x\"}\n");
  try {
    load_replay_file(bad.path());
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 4: \"match\" must be a string"), std::string::npos)
        << e.what();
  }
  TempFile missing("{\"finish\":\"stop\"}\n");
  EXPECT_THROW(load_replay_file(missing.path()), std::runtime_error);
  TempFile finish("{\"reply\":\"a\",\"finish\":\"done\"}\n");
  EXPECT_THROW(load_replay_file(finish.path()), std::runtime_error);
  TempFile empty("\n# nothing\n");
  EXPECT_THROW(make_replay_client({empty.path()}), std::runtime_error);
  EXPECT_THROW(make_replay_client({"/nonexistent/replies.jsonl"}), std::runtime_error);
}

TEST(ReplayClient, RoundRobinOverLinesWithoutMatch) {
  TempFile file(
      "{\"reply\":\"one\"}\n"
      "{\"match\":\"weather\",\"reply\":\"sunny\"}\n"
      "{\"reply\":\"two\"}\n");
  auto client = make_replay_client({file.path(), 0});
  test::expect_each([&](const std::string& text) { return run_one(*client, text); }, {
                                                                                         {"a", "one"},
                                                                                         {"b", "two"},
                                                                                         {"c", "one"},
                                                                                     });
  EXPECT_NE(client->describe().find("3 replies"), std::string::npos);
}

TEST(ReplayClient, FirstMatchingLineWins) {
  TempFile file(
      "{\"reply\":\"fallback\"}\n"
      "{\"match\":\"weather\",\"reply\":\"sunny\"}\n"
      "{\"match\":\"weather in Oslo\",\"reply\":\"rainy\"}\n"
      "{\"match\":\"Oslo\",\"reply\":\"fjords\"}\n");
  auto client = make_replay_client({file.path(), 0});
  test::expect_each([&](const std::string& text) { return run_one(*client, text); },
                    {
                        {"what is the weather in Oslo?", "sunny"},
                        {"visit Oslo", "fjords"},
                        {"hello", "fallback"},
                    });
  // Only the last user message counts.
  ChatRequest request = ask("weather");
  request.messages.push_back({"assistant", "sunny", "", {}, {}});
  request.messages.push_back({"user", "thanks", "", {}, {}});
  auto sink = std::make_shared<RecordingSink>();
  client->start(request, sink);
  ASSERT_TRUE(sink->wait());
  EXPECT_EQ(sink->text(), "fallback");
}

TEST(ReplayClient, AllLinesMatchThenRoundRobinOverAll) {
  TempFile file("{\"match\":\"x\",\"reply\":\"a\"}\n{\"match\":\"y\",\"reply\":\"b\"}\n");
  auto client = make_replay_client({file.path(), 0});
  EXPECT_EQ(run_one(*client, "zzz"), "a");
  EXPECT_EQ(run_one(*client, "zzz"), "b");
}

TEST(ReplayClient, FinishToolCallsAndErrors) {
  TempFile file(
      "{\"match\":\"cut\",\"reply\":\"Half a sen\",\"finish\":\"length\"}\n"
      "{\"match\":\"tool\",\"reply\":\"Let me check.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"calc\","
      "\"arguments\":{\"expr\":\"1+1\"}},{\"name\":\"time\",\"arguments\":\"{}\"}]}\n"
      "{\"match\":\"break\",\"reply\":\"partial\",\"error\":\"connection reset\"}\n");
  auto client = make_replay_client({file.path(), 0});

  auto cut = std::make_shared<RecordingSink>();
  client->start(ask("cut"), cut);
  ASSERT_TRUE(cut->wait());
  EXPECT_EQ(cut->outcome().finish, FinishReason::length);
  EXPECT_EQ(cut->text(), "Half a sen");

  auto tool = std::make_shared<RecordingSink>();
  client->start(ask("tool"), tool);
  ASSERT_TRUE(tool->wait());
  EXPECT_EQ(tool->outcome().finish, FinishReason::tool_calls);
  ASSERT_EQ(tool->calls().size(), 2u);
  EXPECT_EQ(tool->calls()[0].id, "c1");
  EXPECT_EQ(tool->calls()[0].arguments_json, "{\"expr\":\"1+1\"}");
  EXPECT_EQ(tool->calls()[1].name, "time");
  EXPECT_FALSE(tool->calls()[1].id.empty());

  auto broken = std::make_shared<RecordingSink>();
  client->start(ask("break"), broken);
  ASSERT_TRUE(broken->wait());
  EXPECT_EQ(broken->outcome().finish, FinishReason::error);
  EXPECT_EQ(broken->outcome().error, "connection reset");
  EXPECT_EQ(broken->text(), "partial");
}

TEST(ReplayClient, PlaysTokenByTokenAndCallsOverlap) {
  const std::string reply = "The quick brown fox <react emoji=\"🦊\"/> jumps over the lazy dog.";
  TempFile file("{\"reply\":\"The quick brown fox <react emoji=\\\"🦊\\\"/> jumps over the lazy dog.\"}\n");
  ReplayConfig config{file.path(), 400};
  config.split = TokenSplit::words;
  auto client = make_replay_client(config);
  auto a = std::make_shared<RecordingSink>();
  auto b = std::make_shared<RecordingSink>();
  client->start(ask("a"), a);
  client->start(ask("b"), b);
  ASSERT_TRUE(a->wait());
  ASSERT_TRUE(b->wait());
  auto expected = split_tokens(reply, TokenSplit::words, 0);
  EXPECT_EQ(a->deltas(), expected);
  EXPECT_EQ(b->deltas(), expected);
  EXPECT_EQ(a->outcome().finish, FinishReason::stop);
  EXPECT_EQ(a->outcome().attempts, 1);
  // Both ran on the one timer thread.
  ASSERT_EQ(a->threads().size(), 1u);
  EXPECT_EQ(a->threads(), b->threads());
  EXPECT_NE(a->threads()[0], std::this_thread::get_id());
}

// Records the global order of callbacks of many calls.
class OrderSink : public StreamSink {
 public:
  OrderSink(std::atomic<int>& open, std::atomic<int>& max_open_at_first_token, std::mutex& m,
            std::set<std::thread::id>& threads)
      : open_(open), max_(max_open_at_first_token), m_(m), threads_(threads) {}
  void on_text(std::string_view delta) override {
    note();
    if (tokens_++ == 0) {
      int now = open_.load();
      int seen = max_.load();
      while (now > seen && !max_.compare_exchange_weak(seen, now)) {
      }
    }
    text_ += delta;
  }
  void on_tool_call(const ToolCall&) override { note(); }
  void on_done(const Outcome& outcome) override {
    note();
    outcome_ = outcome;
    --open_;
    done_ = true;
  }
  int tokens_ = 0;
  std::string text_;
  Outcome outcome_;
  std::atomic<bool> done_{false};

 private:
  void note() {
    std::lock_guard lock(m_);
    threads_.insert(std::this_thread::get_id());
  }
  std::atomic<int>& open_;
  std::atomic<int>& max_;
  std::mutex& m_;
  std::set<std::thread::id>& threads_;
};

TEST(ReplayClient, TwoHundredConcurrentCallsOnOneTimerThread) {
  TempFile file("{\"reply\":\"one two three four five six seven eight nine ten\"}\n");
  ReplayConfig config{file.path(), 100};
  config.split = TokenSplit::words;
  config.jitter = 0.5;
  auto client = make_replay_client(config);
  std::atomic<int> open{0};
  std::atomic<int> max_open{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  std::vector<std::shared_ptr<OrderSink>> sinks;
  constexpr int kCalls = 200;
  open = kCalls;
  for (int i = 0; i < kCalls; ++i) {
    sinks.push_back(std::make_shared<OrderSink>(open, max_open, m, threads));
    client->start(ask("x"), sinks.back());
  }
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (open.load() > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(open.load(), 0);
  for (const auto& sink : sinks) {
    EXPECT_EQ(sink->tokens_, 10);
    EXPECT_EQ(sink->text_, "one two three four five six seven eight nine ten");
    EXPECT_EQ(sink->outcome_.finish, FinishReason::stop);
  }
  EXPECT_EQ(threads.size(), 1u);
  // The calls overlapped: most were still open when the later ones got their first token.
  EXPECT_GT(max_open.load(), kCalls / 2);
}

TEST(ReplayClient, CancelStopsTheCallPromptly) {
  TempFile file("{\"reply\":\"a b c d e f g h i j k l m n o p q r s t u v w x y z\"}\n");
  ReplayConfig config{file.path(), 20};
  config.split = TokenSplit::words;
  auto client = make_replay_client(config);
  auto sink = std::make_shared<RecordingSink>();
  auto call = client->start(ask("x"), sink);
  ASSERT_TRUE(sink->wait_for_text(1));
  call->cancel();
  call->cancel();  // twice is harmless
  ASSERT_TRUE(sink->wait(std::chrono::seconds(2)));
  EXPECT_EQ(sink->outcome().finish, FinishReason::cancelled);
  EXPECT_LT(sink->text().size(), 20u);
  EXPECT_TRUE(sink->errors().empty());
}

// Cancelling from inside a sink callback must not deadlock.
class CancelOnFirstText : public RecordingSink {
 public:
  std::shared_ptr<Call> call;
  std::mutex m;
  void on_text(std::string_view delta) override {
    RecordingSink::on_text(delta);
    std::lock_guard lock(m);
    if (call) call->cancel();
  }
};

TEST(ReplayClient, CancelFromInsideTheSink) {
  TempFile file("{\"reply\":\"a b c d e f g h\"}\n");
  auto client = make_replay_client({file.path(), 200});
  auto sink = std::make_shared<CancelOnFirstText>();
  {
    std::lock_guard lock(sink->m);
    sink->call = client->start(ask("x"), sink);
  }
  ASSERT_TRUE(sink->wait(std::chrono::seconds(5)));
  EXPECT_EQ(sink->outcome().finish, FinishReason::cancelled);
  std::lock_guard lock(sink->m);
  sink->call.reset();
}

TEST(ReplayClient, DestroyingTheClientEndsOpenCalls) {
  TempFile file("{\"reply\":\"a b c d e f g h i j k l m n o p\"}\n");
  auto client = make_replay_client({file.path(), 5});
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  std::vector<std::shared_ptr<Call>> calls;
  for (int i = 0; i < 10; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    calls.push_back(client->start(ask("x"), sinks.back()));
  }
  client.reset();
  for (const auto& sink : sinks) {
    EXPECT_TRUE(sink->done());
    EXPECT_EQ(sink->outcome().finish, FinishReason::cancelled);
  }
  for (const auto& call : calls) call->cancel();  // after the client is gone: harmless
}

}  // namespace
}  // namespace sigil::model
