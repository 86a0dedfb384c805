#include "model/openai/chat_protocol.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "support/expect_each.h"

namespace sigil::model::openai {
namespace {

TEST(ChatProtocol, RequestBody) {
  ChatRequest request;
  request.messages.push_back({"system", "be brief", "", {}, {}});
  request.messages.push_back({"user", "hi", "", {}, {}});
  request.messages.push_back({"assistant", "", "", {ToolCall{"call_1", "calc", "{\"x\":1}"}}, {}});
  request.messages.push_back({"tool", "2", "call_1", {}, {}});
  request.max_tokens = 100;
  request.temperature = 0.5;
  request.tools = std::make_shared<const boost::json::array>(
      boost::json::array{boost::json::object{{"type", "function"}}});
  auto body = make_request_body(request, "gpt-test");
  EXPECT_EQ(body.at("model"), "gpt-test");
  EXPECT_EQ(body.at("stream"), true);
  EXPECT_EQ(body.at("max_tokens"), 100);
  EXPECT_EQ(body.at("temperature"), 0.5);
  EXPECT_EQ(body.at("tools").as_array().size(), 1u);
  const auto& messages = body.at("messages").as_array();
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_TRUE(messages[2].at("content").is_null());
  EXPECT_EQ(messages[2].at("tool_calls").at(0).at("function").at("arguments"), "{\"x\":1}");
  EXPECT_EQ(messages[3].at("tool_call_id"), "call_1");

  request.model = "other";
  request.tools.reset();
  auto second = make_request_body(request, "gpt-test");
  EXPECT_EQ(second.at("model"), "other");
  EXPECT_FALSE(second.contains("tools"));
}

TEST(ChatProtocol, PicturesAreVisionContentPartsAfterTheText) {
  ChatRequest request;
  request.messages.push_back({"user", "[1] viewImage: ok", "", {}, {"data:image/png;base64,AAAA"}});
  const auto body = make_request_body(request, "gpt-test");
  EXPECT_EQ(boost::json::serialize(body.at("messages").at(0).at("content")),
            R"([{"type":"text","text":"[1] viewImage: ok"},)"
            R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}])");
}

TEST(ChatProtocol, ApiErrorMessage) {
  test::expect_each(api_error_message,
                    {
                        {R"({"error":{"message":"Rate limit\nreached","type":"x"}})", "Rate limit reached"},
                        {R"({"error":"nope"})", "nope"},
                        {"<html>bad gateway</html>", "<html>bad gateway</html>"},
                        {"", "empty body"},
                    });
}

TEST(ChatProtocol, DecodesTextFinishAndDone) {
  ChunkDecoder decoder;
  auto a = decoder.decode(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]})");
  EXPECT_EQ(a.text, "Hel");
  EXPECT_FALSE(a.finish);
  auto b = decoder.decode(R"({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]})");
  EXPECT_EQ(b.text, "");
  EXPECT_EQ(b.finish, FinishReason::length);
  auto usage = decoder.decode(R"({"choices":[],"usage":{"total_tokens":3}})");
  EXPECT_TRUE(usage.error.empty());
  EXPECT_TRUE(decoder.decode("[DONE]").done);
}

TEST(ChatProtocol, AssemblesToolCallFragmentsByIndex) {
  ChunkDecoder decoder;
  decoder.decode(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c0","type":"function","function":{"name":"get_weather","arguments":""}}]}}]})");
  decoder.decode(
      R"({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"c1","type":"function","function":{"name":"calc","arguments":"{\"e\":"}}]}}]})");
  decoder.decode(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\""}}]}}]})");
  decoder.decode(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":\"Oslo\"}"}}]}}]})");
  decoder.decode(
      R"({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"1+1\"}"}}]}}]})");
  auto end = decoder.decode(R"({"choices":[{"delta":{},"finish_reason":"tool_calls"}]})");
  EXPECT_EQ(end.finish, FinishReason::tool_calls);
  auto calls = decoder.take_tool_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].id, "c0");
  EXPECT_EQ(calls[0].name, "get_weather");
  EXPECT_EQ(calls[0].arguments_json, R"({"city":"Oslo"})");
  EXPECT_EQ(calls[1].name, "calc");
  EXPECT_EQ(calls[1].arguments_json, R"({"e":"1+1"})");
  EXPECT_FALSE(decoder.has_tool_calls());
}

TEST(ChatProtocol, ErrorsInTheStream) {
  ChunkDecoder decoder;
  auto bad = decoder.decode("{not json");
  EXPECT_NE(bad.error.find("not a JSON object"), std::string::npos);
  auto api = decoder.decode(R"({"error":{"message":"overloaded"}})");
  EXPECT_EQ(api.error, "model stream reported an error: overloaded");
}

TEST(ChatProtocol, FinishReasons) {
  test::expect_each<std::string, FinishReason>(map_finish_reason,
                                               {{"stop", FinishReason::stop},
                                                {"length", FinishReason::length},
                                                {"tool_calls", FinishReason::tool_calls},
                                                {"function_call", FinishReason::tool_calls},
                                                {"content_filter", FinishReason::content_filter},
                                                {"eos", FinishReason::stop}});
}

}  // namespace
}  // namespace sigil::model::openai
