#include "sigil/net/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sigil::net {
namespace {

std::vector<SseEvent> parse_in_pieces(std::string_view stream, const std::vector<std::size_t>& cuts) {
  SseParser parser;
  std::vector<SseEvent> out;
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    parser.feed(stream.substr(from, cut - from), out);
    from = cut;
  }
  parser.feed(stream.substr(from), out);
  parser.finish();
  return out;
}

std::vector<SseEvent> parse_whole(std::string_view stream) { return parse_in_pieces(stream, {}); }

// The data of each event the whole stream makes, in order.
std::vector<std::string> data_of(std::string_view stream) {
  std::vector<std::string> data;
  for (const SseEvent& e : parse_whole(stream)) data.push_back(e.data);
  return data;
}

TEST(SseParser, OpenAiStyleEvents) {
  EXPECT_EQ(data_of("data: {\"a\":1}\n\ndata: [DONE]\n\n"),
            (std::vector<std::string>{"{\"a\":1}", "[DONE]"}));
}

TEST(SseParser, MultiLineDataJoinsWithNewline) {
  EXPECT_EQ(data_of("data: first\ndata: second\ndata:third\n\n"),
            (std::vector<std::string>{"first\nsecond\nthird"}));
}

TEST(SseParser, CommentsAndUnknownFieldsAreIgnored) {
  EXPECT_EQ(data_of(": keep-alive\nretry: 10\nfoo: bar\ndata: x\n\n: another\n\n"),
            (std::vector<std::string>{"x"}));
}

// MCP's Streamable HTTP resumes a dropped stream from the last id after the server's `retry:` delay; a
// priming event sets both with empty data.
TEST(SseParser, RetryAndTheLastIdOfAPrimingEventAreKept) {
  SseParser parser;
  std::vector<SseEvent> out;
  EXPECT_FALSE(parser.retry_ms().has_value());
  parser.feed("id: event-1\nretry: 500\ndata: \n\n", out);
  ASSERT_EQ(out.size(), 1u);  // an empty `data:` line still makes an event, with empty data
  EXPECT_EQ(out[0].data, "");
  EXPECT_EQ(parser.last_id(), "event-1");
  ASSERT_TRUE(parser.retry_ms().has_value());
  EXPECT_EQ(*parser.retry_ms(), 500u);
  parser.feed("retry: 5x\nretry:\nretry: -1\n\n", out);  // not all digits: ignored
  EXPECT_EQ(*parser.retry_ms(), 500u);
  parser.feed("retry: 99999999999\n\n", out);  // clamped to a day
  EXPECT_EQ(*parser.retry_ms(), SseParser::kMaxRetryMs);
}

TEST(SseParser, EventTypeAndIdAreKept) {
  auto events = parse_whole("event: ping\nid: 7\ndata: a\n\ndata: b\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "ping");
  EXPECT_EQ(events[0].id, "7");
  EXPECT_EQ(events[1].type, "");
  EXPECT_EQ(events[1].id, "7");  // the last event id persists
}

TEST(SseParser, CrLfAndLoneCrEndLines) {
  EXPECT_EQ(data_of("data: a\r\n\r\ndata: b\r\rdata: c\n\n"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(SseParser, OnlyOneLeadingSpaceIsDropped) {
  EXPECT_EQ(data_of("data:  two spaces\n\n"), (std::vector<std::string>{" two spaces"}));
}

TEST(SseParser, EmptyDataFieldStillDispatches) {
  EXPECT_EQ(data_of("data\n\ndata:\n\n\n\n"), (std::vector<std::string>{"", ""}));
}

TEST(SseParser, UnterminatedEventIsDroppedAtEnd) {
  EXPECT_EQ(data_of("data: complete\n\ndata: partial\n"), (std::vector<std::string>{"complete"}));
}

TEST(SseParser, LeadingBomIsDropped) {
  EXPECT_EQ(data_of("\xEF\xBB\xBF"
                    "data: x\n\n"),
            (std::vector<std::string>{"x"}));
}

TEST(SseParser, OverlongLineFails) {
  SseParser parser(16);
  std::vector<SseEvent> out;
  parser.feed("data: 0123456789", out);
  EXPECT_FALSE(parser.failed());
  parser.feed("0123456789", out);
  EXPECT_TRUE(parser.failed());
  parser.feed("\n\n", out);
  EXPECT_TRUE(out.empty());
}

TEST(SseParser, CountsBytes) {
  SseParser parser;
  std::vector<SseEvent> out;
  parser.feed("data: x\n", out);
  parser.feed("\n", out);
  EXPECT_EQ(parser.bytes_seen(), 9u);
}

// The property the client depends on: TCP may cut the stream anywhere.
TEST(SseParser, EveryCutGivesTheSameEvents) {
  const std::string stream =
      "\xEF\xBB\xBF: comment\r\n"
      "event: message\r\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"h\xC3\xA9llo\"}}]}\r\n\r\n"
      "data: line one\rdata: line two\r\r"
      "id: 42\n"
      "data:\n\n"
      "data: [DONE]\n\n";
  const auto expected = parse_whole(stream);
  ASSERT_EQ(expected.size(), 4u);
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    EXPECT_EQ(parse_in_pieces(stream, {i}), expected) << "cut at " << i;
    for (std::size_t j = i; j <= stream.size(); ++j) {
      ASSERT_EQ(parse_in_pieces(stream, {i, j}), expected) << "cuts at " << i << ", " << j;
    }
  }
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < stream.size(); ++i) every.push_back(i);
  EXPECT_EQ(parse_in_pieces(stream, every), expected);
}

}  // namespace
}  // namespace sigil::net
