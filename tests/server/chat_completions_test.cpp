// POST /v1/chat/completions: the request checks and response shapes on their own, then the endpoint over a
// real loopback socket with the replay model, the real parser, executor, built-in actions and SQLite store.
#include "server/chat_completions.h"

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
#include <string>
#include <thread>
#include <vector>

#include "server/gateway_fixture.h"
#include "sigil/actions/builtin_handlers.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/replay.h"
#include "sigil/server/http_server.h"
#include "store/store_test_support.h"
#include "support/raw_http.h"

namespace sigil::server {
namespace {

namespace json = boost::json;
using namespace completions;

// ---- the request on its own

ApiError parse_error(const std::string& body) {
  ParseResult r = parse_request(body);
  EXPECT_FALSE(r.request.has_value()) << body;
  return r.error.value_or(ApiError{0, "no error", "", "", ""});
}

TEST(ChatCompletionsRequest, AcceptsAnOpenAiTextChat) {
  ParseResult r = parse_request(R"({
    "model": "gpt-4o-mini",
    "messages": [
      {"role": "developer", "content": "Be brief."},
      {"role": "user", "name": "ann", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}]},
      {"role": "assistant", "content": "Hello."},
      {"role": "user", "content": "Weather?"}
    ],
    "stream": true, "stream_options": {"include_usage": true},
    "max_completion_tokens": 200, "temperature": 0.5, "user": "ann", "n": 1,
    "top_p": 0.9, "tool_choice": "none", "stop": null, "response_format": {"type": "text"}
  })");
  ASSERT_TRUE(r.request.has_value()) << (r.error ? r.error->message : "");
  const ChatRequest& q = *r.request;
  EXPECT_EQ(q.model, "gpt-4o-mini");
  ASSERT_EQ(q.messages.size(), 4u);
  EXPECT_EQ(q.messages[0].role, "system");
  EXPECT_EQ(q.messages[0].content, "Be brief.");
  EXPECT_EQ(q.messages[1].role, "user");
  EXPECT_EQ(q.messages[1].content, "Hi\nthere");
  EXPECT_EQ(q.messages[2].role, "assistant");
  EXPECT_EQ(q.messages[3].content, "Weather?");
  EXPECT_TRUE(q.stream);
  EXPECT_TRUE(q.include_usage);
  EXPECT_EQ(q.max_tokens, 200);
  EXPECT_EQ(q.temperature, 0.5);
  EXPECT_EQ(q.user, "ann");

  ParseResult plain =
      parse_request(R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":7})");
  ASSERT_TRUE(plain.request.has_value());
  EXPECT_FALSE(plain.request->stream);
  EXPECT_EQ(plain.request->max_tokens, 7);
  EXPECT_FALSE(plain.request->temperature.has_value());
}

TEST(ChatCompletionsRequest, RefusesWhatSigilCannotHonourNamingTheParameter) {
  const std::string m = R"("model":"m","messages":[{"role":"user","content":"x"}])";
  struct Case {
    std::string body, param, code;
  };
  const std::vector<Case> cases = {
      {"{" + m + R"(,"tools":[{"type":"function","function":{"name":"f"}}]})", "tools",
       "unsupported_parameter"},
      {"{" + m + R"(,"functions":[{"name":"f"}]})", "functions", "unsupported_parameter"},
      {"{" + m + R"(,"tool_choice":"auto"})", "tool_choice", "unsupported_parameter"},
      {"{" + m + R"(,"n":2})", "n", "unsupported_value"},
      {"{" + m + R"(,"stop":["\n"]})", "stop", "unsupported_parameter"},
      {"{" + m + R"(,"logprobs":true})", "logprobs", "unsupported_parameter"},
      {"{" + m + R"(,"response_format":{"type":"json_object"}})", "response_format", "unsupported_parameter"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]})",
       "messages[0].content[0].type", "unsupported_value"},
      {R"({"model":"m","messages":[{"role":"tool","tool_call_id":"c1","content":"x"}]})", "messages[0].role",
       "unsupported_value"},
      {R"({"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1"}]}]})",
       "messages[0].tool_calls", "unsupported_parameter"},
  };
  for (const Case& c : cases) {
    const ApiError e = parse_error(c.body);
    EXPECT_EQ(e.status, 400) << c.body;
    EXPECT_EQ(e.type, "invalid_request_error") << c.body;
    EXPECT_EQ(e.param, c.param) << c.body;
    EXPECT_EQ(e.code, c.code) << c.body;
    EXPECT_FALSE(e.message.empty());
  }
  EXPECT_NE(parse_error("{" + m + R"(,"tools":[]})").message.find("sigil runs its own actions"),
            std::string::npos);
}

TEST(ChatCompletionsRequest, RefusesMalformedRequests) {
  struct Case {
    std::string body, param;
  };
  const std::vector<Case> cases = {
      {"not json", ""},
      {"[1]", ""},
      {R"({"messages":[{"role":"user","content":"x"}]})", "model"},
      {R"({"model":5,"messages":[{"role":"user","content":"x"}]})", "model"},
      {R"({"model":"m"})", "messages"},
      {R"({"model":"m","messages":[]})", "messages"},
      {R"({"model":"m","messages":"hi"})", "messages"},
      {R"({"model":"m","messages":[{"content":"x"}]})", "messages[0].role"},
      {R"({"model":"m","messages":[{"role":"wizard","content":"x"}]})", "messages[0].role"},
      {R"({"model":"m","messages":[{"role":"user"}]})", "messages[0].content"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"text"}]}]})",
       "messages[0].content[0].text"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"stream":"yes"})", "stream"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":true}})",
       "stream_options"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":3})", "temperature"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":0})", "max_tokens"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":5,"max_completion_tokens":6})",
       "max_completion_tokens"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"user":7})", "user"},
  };
  for (const Case& c : cases) {
    const ApiError e = parse_error(c.body);
    EXPECT_EQ(e.status, 400) << c.body;
    EXPECT_EQ(e.param, c.param) << c.body << ": " << e.message;
  }
}

TEST(ChatCompletionsRequest, ErrorsHaveOpenAisShape) {
  const json::value v = json::parse(error_body(ApiError{400, "bad", "invalid_request_error", "n", ""}));
  const json::object& e = v.at("error").as_object();
  EXPECT_EQ(e.at("message"), "bad");
  EXPECT_EQ(e.at("type"), "invalid_request_error");
  EXPECT_EQ(e.at("param"), "n");
  EXPECT_TRUE(e.at("code").is_null());
}

TEST(ChatCompletionsRequest, TargetComesFromBodyHeadersAndIdempotencyKey) {
  ChatRequest q;
  TargetResult t = resolve_target(q, {});
  ASSERT_TRUE(t.target.has_value());
  EXPECT_EQ(t.target->user, "openai");
  EXPECT_EQ(t.target->conversation, "completions");
  EXPECT_FALSE(t.target->idempotent);
  EXPECT_NE(t.target->turn_id, resolve_target(q, {}).target->turn_id);  // random

  t = resolve_target(q, {"ann", "c-1", "retry-42"});
  ASSERT_TRUE(t.target.has_value());
  EXPECT_EQ(t.target->user, "ann");
  EXPECT_EQ(t.target->conversation, "c-1");
  EXPECT_TRUE(t.target->idempotent);
  // The same key in the same place is the same turn; another user's same key is not.
  EXPECT_EQ(t.target->turn_id, resolve_target(q, {"ann", "c-1", "retry-42"}).target->turn_id);
  EXPECT_NE(t.target->turn_id, resolve_target(q, {"bob", "c-1", "retry-42"}).target->turn_id);
  EXPECT_NE(t.target->turn_id, resolve_target(q, {"ann", "c-2", "retry-42"}).target->turn_id);

  q.user = "ann";
  EXPECT_EQ(resolve_target(q, {}).target->user, "ann");
  EXPECT_EQ(resolve_target(q, {"ann", "", ""}).target->user, "ann");
  EXPECT_EQ(resolve_target(q, {"bob", "", ""}).error->param, "user");
  EXPECT_TRUE(resolve_target(q, {"", "bad id", ""}).error.has_value());
  EXPECT_TRUE(resolve_target(q, {"", "", std::string("k\x01", 2)}).error.has_value());
  q.user = "line\nbreak";
  EXPECT_TRUE(resolve_target(q, {}).error.has_value());
}

TEST(ChatCompletionsRequest, TurnInputIsStatelessWithTheOverrides) {
  ParseResult r = parse_request(
      R"({"model":"gpt-x","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"max_tokens":9,"temperature":0})");
  ASSERT_TRUE(r.request.has_value());
  const agent::TurnInput in = turn_input(*r.request, TurnTarget{"ann", "c1", "oai-1", false});
  EXPECT_EQ(in.user, "ann");
  EXPECT_EQ(in.conversation, "c1");
  EXPECT_EQ(in.turn_id, "oai-1");
  ASSERT_TRUE(in.messages.has_value());
  ASSERT_EQ(in.messages->size(), 2u);
  EXPECT_EQ((*in.messages)[1].content, "u");
  EXPECT_EQ(in.model, "gpt-x");
  EXPECT_EQ(in.max_tokens, 9);
  EXPECT_EQ(in.temperature, 0.0);
}

// ---- the endpoint over loopback

using sigil::test_http::connect_and_send;
using sigil::test_http::HttpReply;
using sigil::test_http::read_until;

// Sends the request and reads until the server closes (every answer of this endpoint closes).
HttpReply http_call(unsigned short port, const std::string& request) {
  return sigil::test_http::http_exchange(port, request, 60);
}

std::string post(const std::string& body, const std::string& extra_headers = "") {
  return "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
         "Content-Type: application/json\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n" + body;
}

std::string chat(const std::string& text, bool stream = false) {
  json::object o{{"model", "test-model"},
                 {"messages", json::array{json::object{{"role", "system"}, {"content", "You are terse."}},
                                          json::object{{"role", "user"}, {"content", text}}}}};
  if (stream) o["stream"] = true;
  return json::serialize(o);
}

// The `data:` payloads of an SSE body, in order.
std::vector<std::string> data_lines(const std::string& body) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < body.size()) {
    auto end = body.find('\n', pos);
    if (end == std::string::npos) end = body.size();
    const std::string line = body.substr(pos, end - pos);
    if (line.rfind("data: ", 0) == 0) out.push_back(line.substr(6));
    pos = end + 1;
  }
  return out;
}

constexpr const char* kHello = "<react emoji=\"thumbsup\"/>Hello there, <b>friend</b>. [REMEMBER:likes tea]";
constexpr const char* kHelloClean = "Hello there, <b>friend</b>.";

class ChatCompletionsTest : public testing::GatewayFixture {
 protected:
  ChatCompletionsTest() {
    load_handlers();
    // Lines are picked by a word of the request's last user message; the one line without "match" answers
    // the second model call of a turn (its last user message is the results of the first).
    use_model({
        json::object{{"match", "zqhello"}, {"reply", kHello}},
        json::object{{"match", "zqschedule"},
                     {"reply", "Noted. <scheduleTask delay=\"2h\">Water the plants</scheduleTask>"}},
        json::object{{"match", "zqfail"}, {"reply", ""}, {"error", "upstream exploded"}},
        json::object{{"match", "zqpartial"}, {"reply", "Half an ans"}, {"error", "connection reset"}},
        json::object{{"match", "zqlength"}, {"reply", "The answer is cut"}, {"finish", "length"}},
        json::object{{"match", "zqcut"}, {"reply", "Cut short <voice>never spo"}, {"finish", "length"}},
        json::object{{"match", "zqsearch"}, {"reply", "Let me look. [SEARCH_EPISODIC:tea]"}},
        json::object{{"reply", "Nothing found."}},
    });
  }

  void use_model(const std::vector<json::object>& lines, double tokens_per_second = 0) {
    server_.reset();
    std::vector<std::string> serialized;
    for (const auto& line : lines) serialized.push_back(json::serialize(line));
    use_replay(serialized, tokens_per_second,
               tokens_per_second > 0 ? model::TokenSplit::words : model::TokenSplit::awkward, 3);
  }

  unsigned short start() {
    server_ = std::make_unique<HttpServer>(*agent_, *store_, HttpServerOptions{});
    return server_->start();
  }

  std::size_t task_count(const std::string& user, const std::string& conversation) {
    auto tasks = store_->list_tasks({user, conversation, store::MemoryScope::per_user});
    EXPECT_TRUE(tasks.ok());
    return tasks.ok() ? tasks->size() : 0;
  }
};

const json::object* find_result(const json::object& report, std::string_view action) {
  for (const auto& call : report.at("calls").as_array()) {
    for (const auto& r : call.at("results").as_array()) {
      if (r.at("action").as_string() == action) return &r.as_object();
    }
  }
  return nullptr;
}

TEST_F(ChatCompletionsTest, NonStreamAnswersWithCleanTextAndTheTurnReport) {
  const unsigned short port = start();
  HttpReply r = http_call(port, post(chat("zqhello")));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"], "application/json");
  const json::value v = json::parse(r.body);
  EXPECT_EQ(v.at("object"), "chat.completion");
  EXPECT_EQ(std::string(v.at("id").as_string()).rfind("chatcmpl-oai-", 0), 0u);
  EXPECT_EQ(v.at("model"), "test-model");
  EXPECT_GT(v.at("created").as_int64(), 1'600'000'000);
  EXPECT_TRUE(v.at("usage").is_null());
  const json::object& choice = v.at("choices").as_array().at(0).as_object();
  EXPECT_EQ(choice.at("index"), 0);
  EXPECT_EQ(choice.at("finish_reason"), "stop");
  EXPECT_EQ(choice.at("message").at("role"), "assistant");
  EXPECT_EQ(choice.at("message").at("content"), kHelloClean);

  const json::object& report = v.at("sigil").as_object();
  EXPECT_EQ(report.at("status"), "ok");
  EXPECT_EQ("chatcmpl-" + std::string(report.at("turn_id").as_string()), v.at("id").as_string());
  const json::array& calls = report.at("calls").as_array();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].at("finish"), "stop");
  bool reaction = false;
  for (const auto& d : calls[0].at("deliveries").as_array()) {
    if (d.at("op") == "reaction") reaction = d.at("emoji") == "\xF0\x9F\x91\x8D";
    EXPECT_FALSE(d.as_object().contains("payload"));
  }
  EXPECT_TRUE(reaction) << r.body;
  const json::object* remember = find_result(report, "remember");
  ASSERT_NE(remember, nullptr) << r.body;
  EXPECT_EQ(remember->at("status"), "ok");

  // The directive ran for the default user: the fact is stored.
  auto facts = store_->list_facts({"openai", "completions", store::MemoryScope::per_user});
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->size(), 1u);
}

TEST_F(ChatCompletionsTest, StreamSendsChunksDeliveriesReportAndDone) {
  const unsigned short port = start();
  HttpReply r =
      http_call(port, post(chat("zqhello", true), "X-Sigil-User: ann\r\nX-Sigil-Conversation: c7\r\n"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"].rfind("text/event-stream", 0), 0u);
  const auto lines = data_lines(r.body);
  ASSERT_GE(lines.size(), 5u) << r.body;
  EXPECT_EQ(lines.back(), "[DONE]");

  std::string content;
  std::string id;
  int reaction_at = -1;
  int first_content_at = -1;
  int finish_at = -1;
  int report_at = -1;
  for (int i = 0; i + 1 < static_cast<int>(lines.size()); ++i) {
    const json::value c = json::parse(lines[i]);
    EXPECT_EQ(c.at("object"), "chat.completion.chunk") << lines[i];
    if (id.empty()) id = std::string(c.at("id").as_string());
    EXPECT_EQ(c.at("id").as_string(), id);
    EXPECT_EQ(c.at("model"), "test-model");
    const json::array& choices = c.at("choices").as_array();
    if (i == 0) {
      ASSERT_EQ(choices.size(), 1u);
      EXPECT_EQ(choices[0].at("delta").at("role"), "assistant");
      continue;
    }
    if (choices.empty()) {
      const json::object& ext = c.at("sigil").as_object();
      if (const auto* d = ext.if_contains("delivery")) {
        if (d->at("op") == "reaction" && reaction_at < 0) reaction_at = i;
      } else {
        report_at = i;
        EXPECT_EQ(ext.at("status"), "ok");
        EXPECT_NE(find_result(ext, "remember"), nullptr);
      }
      continue;
    }
    const json::object& delta = choices[0].at("delta").as_object();
    if (const auto* text = delta.if_contains("content")) {
      content += text->as_string();
      if (first_content_at < 0) first_content_at = i;
    }
    if (!choices[0].at("finish_reason").is_null()) {
      EXPECT_EQ(choices[0].at("finish_reason"), "stop");
      finish_at = i;
    }
  }
  EXPECT_EQ(content, kHelloClean);
  EXPECT_EQ(id.rfind("chatcmpl-oai-", 0), 0u);
  ASSERT_GE(reaction_at, 0) << r.body;
  EXPECT_LT(reaction_at, first_content_at);  // reply order: the reaction came first
  EXPECT_GT(finish_at, first_content_at);
  EXPECT_EQ(report_at, finish_at + 1);
  EXPECT_EQ(report_at, static_cast<int>(lines.size()) - 2);

  auto facts = store_->list_facts({"ann", "c7", store::MemoryScope::per_user});
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->size(), 1u);
}

TEST_F(ChatCompletionsTest, IncludeUsageIsAcceptedAndUsageIsNull) {
  const unsigned short port = start();
  HttpReply r = http_call(port, post(R"({"model":"m","stream":true,"stream_options":{"include_usage":true},)"
                                     R"("messages":[{"role":"user","content":"zqhello"}]})"));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto lines = data_lines(r.body);
  ASSERT_GE(lines.size(), 2u);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const json::value c = json::parse(lines[i]);
    ASSERT_TRUE(c.as_object().contains("usage")) << lines[i];
    EXPECT_TRUE(c.at("usage").is_null());
  }
}

TEST_F(ChatCompletionsTest, IdempotencyKeyRunsTheDirectivesOnce) {
  const unsigned short port = start();
  const std::string key = "Idempotency-Key: order-17\r\n";
  HttpReply first = http_call(port, post(chat("zqschedule"), key));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(task_count("openai", "completions"), 1u);
  const json::value a = json::parse(first.body);
  EXPECT_EQ(find_result(a.at("sigil").as_object(), "scheduleTask")->at("status"), "ok");

  // The retry (stream or not) gets the same completion id and runs nothing again.
  HttpReply again = http_call(port, post(chat("zqschedule"), key));
  ASSERT_EQ(again.status, 200) << again.body;
  const json::value b = json::parse(again.body);
  EXPECT_EQ(b.at("id"), a.at("id"));
  EXPECT_EQ(find_result(b.at("sigil").as_object(), "scheduleTask")->at("status"), "duplicate");
  EXPECT_EQ(b.at("choices").at(0).at("message").at("content"), "Noted.");
  HttpReply streamed = http_call(port, post(chat("zqschedule", true), key));
  ASSERT_EQ(streamed.status, 200);
  EXPECT_NE(streamed.body.find("\"duplicate\""), std::string::npos) << streamed.body;
  EXPECT_EQ(task_count("openai", "completions"), 1u);

  // Without a key each request is a new turn.
  EXPECT_EQ(http_call(port, post(chat("zqschedule"))).status, 200);
  EXPECT_EQ(http_call(port, post(chat("zqschedule"))).status, 200);
  EXPECT_EQ(task_count("openai", "completions"), 3u);
}

TEST_F(ChatCompletionsTest, TextOfEveryModelCallIsJoinedWithABlankLine) {
  const unsigned short port = start();
  HttpReply r = http_call(port, post(chat("zqsearch")));
  ASSERT_EQ(r.status, 200) << r.body;
  const json::value v = json::parse(r.body);
  EXPECT_EQ(v.at("choices").at(0).at("message").at("content"), "Let me look.\n\nNothing found.");
  EXPECT_EQ(v.at("sigil").at("calls").as_array().size(), 2u);

  HttpReply s = http_call(port, post(chat("zqsearch", true)));
  std::string content;
  for (const std::string& line : data_lines(s.body)) {
    if (line == "[DONE]") continue;
    const json::value c = json::parse(line);
    const json::array& choices = c.at("choices").as_array();
    if (!choices.empty()) {
      if (const auto* t = choices[0].at("delta").as_object().if_contains("content"))
        content += t->as_string();
    }
  }
  EXPECT_EQ(content, "Let me look.\n\nNothing found.");
}

TEST_F(ChatCompletionsTest, LengthFinishIsReportedAndTheCutDirectiveNotRun) {
  const unsigned short port = start();
  HttpReply r = http_call(port, post(chat("zqlength")));
  ASSERT_EQ(r.status, 200) << r.body;
  const json::value v = json::parse(r.body);
  EXPECT_EQ(v.at("choices").at(0).at("finish_reason"), "length");
  EXPECT_EQ(v.at("choices").at(0).at("message").at("content"), "The answer is cut");

  // A directive left open by the cut is refused, not run; the refusal goes back to the model, whose second
  // reply ends the turn.
  HttpReply c = http_call(port, post(chat("zqcut")));
  ASSERT_EQ(c.status, 200) << c.body;
  const json::value w = json::parse(c.body);
  const std::string content(w.at("choices").at(0).at("message").at("content").as_string());
  EXPECT_EQ(content, "Cut short\n\nNothing found.");
  const json::array& calls = w.at("sigil").at("calls").as_array();
  ASSERT_EQ(calls.size(), 2u) << c.body;
  EXPECT_EQ(calls[0].at("finish"), "length");
  const json::object* voice = find_result(w.at("sigil").as_object(), "voice");
  ASSERT_NE(voice, nullptr) << c.body;
  EXPECT_EQ(voice->at("status"), "refused");
  for (const auto& d : calls[0].at("deliveries").as_array()) EXPECT_NE(d.at("op"), "voice");
}

TEST_F(ChatCompletionsTest, BadRequestsGetOpenAiErrors) {
  const unsigned short port = start();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"model":"m","messages":[{"role":"user","content":"zqhello"}],"tools":[{"type":"function","function":{"name":"f"}}]})",
       "tools"},
      {R"({"model":"m","messages":[{"role":"user","content":"zqhello"}],"n":3})", "n"},
      {"{", ""},
  };
  for (const auto& [body, param] : cases) {
    HttpReply r = http_call(port, post(body));
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.headers["content-type"], "application/json");
    const json::value v = json::parse(r.body);
    const json::object& e = v.at("error").as_object();
    EXPECT_EQ(e.at("type"), "invalid_request_error");
    EXPECT_EQ(e.at("param"), param.empty() ? json::value(nullptr) : json::value(param)) << r.body;
  }
  HttpReply conv = http_call(port, post(chat("zqhello"), "X-Sigil-Conversation: no/slash\r\n"));
  EXPECT_EQ(conv.status, 400);
  HttpReply get =
      http_call(port, "GET /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(agent_->active_turns(), 0u);
}

TEST_F(ChatCompletionsTest, ModelErrorBeforeAnyTextIs502StreamOrNot) {
  const unsigned short port = start();
  for (bool stream : {false, true}) {
    HttpReply r = http_call(port, post(chat("zqfail", stream)));
    EXPECT_EQ(r.status, 502) << r.body;
    EXPECT_EQ(r.headers["content-type"], "application/json");
    const json::value v = json::parse(r.body);
    EXPECT_EQ(v.at("error").at("type"), "server_error");
    EXPECT_EQ(v.at("error").at("code"), "model_error");
    EXPECT_NE(std::string(v.at("error").at("message").as_string()).find("upstream exploded"),
              std::string::npos);
    EXPECT_EQ(v.at("sigil").at("status"), "model-error");
  }
}

TEST_F(ChatCompletionsTest, ModelErrorMidStreamEndsWithAnErrorEvent) {
  const unsigned short port = start();
  HttpReply r = http_call(port, post(chat("zqpartial", true)));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto lines = data_lines(r.body);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(r.body.find("[DONE]"), std::string::npos) << r.body;
  const json::value last = json::parse(lines.back());
  EXPECT_EQ(last.at("error").at("code"), "model_error");
  EXPECT_NE(std::string(last.at("error").at("message").as_string()).find("connection reset"),
            std::string::npos);
  std::string content;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const json::value c = json::parse(lines[i]);
    const json::array& choices = c.at("choices").as_array();
    if (!choices.empty()) {
      if (const auto* t = choices[0].at("delta").as_object().if_contains("content"))
        content += t->as_string();
    }
  }
  EXPECT_EQ(content, "Half an ans");

  // Without streaming the answer would be incomplete: 502, with what ran in the extension.
  HttpReply n = http_call(port, post(chat("zqpartial")));
  EXPECT_EQ(n.status, 502) << n.body;
  EXPECT_EQ(json::parse(n.body).at("error").at("code"), "model_error");
}

TEST_F(ChatCompletionsTest, ClientHangingUpCancelsTheTurn) {
  std::string slow;
  for (int i = 0; i < 400; ++i) slow += "word ";
  use_model({json::object{{"reply", slow}}}, 20);
  const unsigned short port = start();
  for (bool stream : {true, false}) {
    const int fd = connect_and_send(port, post(chat("hi", stream)));
    ASSERT_GE(fd, 0);
    if (stream) {
      std::string raw;
      EXPECT_TRUE(read_until(fd, raw, "word"));
    } else {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (agent_->active_turns() == 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    EXPECT_EQ(agent_->active_turns(), 1u);
    ::close(fd);
    // The reply would take ~20 s; the hang-up cancels it.
    EXPECT_TRUE(idle_within(std::chrono::seconds(10))) << (stream ? "stream" : "non-stream");
  }
}

TEST_F(ChatCompletionsTest, ObserverReleasesItsCallbacksBeforeEnded) {
  // The server's `ended` may free everything: write and respond (which hold the connection) go first.
  ChatRequest q;
  q.model = "m";
  auto held = std::make_shared<int>(0);
  std::weak_ptr<int> weak = held;
  bool released_before_end = false;
  int responses = 0;
  CompletionObserver::Callbacks cb;
  cb.write = [held](std::string, bool) {};
  cb.respond = [held, &responses](int status, std::string body) {
    ++responses;
    EXPECT_EQ(status, 200);
    EXPECT_EQ(json::parse(body).at("choices").at(0).at("message").at("content"), "hi");
  };
  cb.ended = [&] { released_before_end = weak.expired(); };
  held.reset();
  CompletionObserver observer(q, "t1", 1, std::move(cb));
  observer.on_model_call(1);
  observer.on_text("hi");
  agent::TurnSummary summary;
  summary.turn_id = "t1";
  summary.calls.emplace_back();
  observer.on_turn_end(summary);
  EXPECT_EQ(responses, 1);
  EXPECT_TRUE(released_before_end);
}

}  // namespace
}  // namespace sigil::server

namespace sigil::server {
namespace {

TEST(ChatCompletionsObserver, SilentCallLeavesNoTextAndTheStreamSaysSo) {
  agent::TurnSummary summary;
  summary.calls.emplace_back();
  ChatRequest q;
  q.model = "m";
  std::string body;
  CompletionObserver::Callbacks plain;
  plain.respond = [&body](int, std::string b) { body = std::move(b); };
  CompletionObserver a(q, "t1", 1, std::move(plain));
  a.on_model_call(1);
  a.on_text("Kept.");
  a.on_model_call(2);
  a.on_text("\n\nDropped");
  a.on_silence(true);
  a.on_turn_end(summary);
  EXPECT_EQ(json::parse(body).at("choices").at(0).at("message").at("content"), "Kept.");

  q.stream = true;
  std::string streamed;
  CompletionObserver::Callbacks cb;
  cb.write = [&streamed](std::string bytes, bool) { streamed += bytes; };
  CompletionObserver b(q, "t2", 1, std::move(cb));
  b.on_model_call(1);
  b.on_text("Soon gone");
  b.on_silence(true);
  b.on_turn_end(summary);
  EXPECT_NE(streamed.find(R"("sigil":{"silence":{"late":true}})"), std::string::npos) << streamed;
  EXPECT_NE(streamed.find("data: [DONE]"), std::string::npos);
}

}  // namespace
}  // namespace sigil::server
