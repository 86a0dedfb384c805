// FrameQueue: a WebSocket connection's write queue merges waiting text frames of the same turn.
#include "server/frame_queue.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "server/ws_frames.h"

namespace sigil::server {
namespace {

namespace json = boost::json;

std::shared_ptr<const std::string> frame(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

// Writes everything still queued, one frame after another.
std::vector<std::string> drain(FrameQueue& queue) {
  std::vector<std::string> out;
  if (queue.writing()) queue.finish_write();
  while (!queue.empty()) {
    out.push_back(queue.start_write());
    queue.finish_write();
  }
  return out;
}

TEST(FrameQueueTest, KeepingUpSendsEveryFrameAsPushed) {
  FrameQueue queue;
  for (const char* text : {"a", "b", "c"}) {
    queue.push(frame(text_frame("t1", text)));
    EXPECT_EQ(queue.start_write(), text_frame("t1", text));
    queue.finish_write();
  }
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.merged(), 0u);
}

TEST(FrameQueueTest, WaitingTextFramesOfATurnMergeInOrder) {
  FrameQueue queue;
  queue.push(frame(text_frame("t1", "Hello")));
  EXPECT_EQ(queue.start_write(), text_frame("t1", "Hello"));  // in flight: never merged into
  queue.push(frame(text_frame("t1", ", ")));
  queue.push(frame(text_frame("t1", "wor")));
  queue.push(frame(text_frame("t1", "ld \"quoted\" \xC3\xA9")));
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.merged(), 2u);
  queue.finish_write();
  EXPECT_EQ(drain(queue), std::vector<std::string>{text_frame("t1", ", world \"quoted\" \xC3\xA9")});
}

TEST(FrameQueueTest, NeverMergesAcrossAnotherFrame) {
  FrameQueue queue;
  queue.push(frame(model_call_frame("t1", 1)));
  (void)queue.start_write();
  queue.push(frame(text_frame("t1", "a")));
  queue.push(frame(text_frame("t1", "b")));
  queue.push(frame(silence_frame("t1", true)));
  queue.push(frame(text_frame("t1", "c")));
  queue.push(frame(text_frame("t1", "d")));
  queue.push(frame(model_call_frame("t1", 2)));
  queue.push(frame(text_frame("t1", "e")));
  EXPECT_EQ(drain(queue), (std::vector<std::string>{text_frame("t1", "ab"), silence_frame("t1", true),
                                                    text_frame("t1", "cd"), model_call_frame("t1", 2),
                                                    text_frame("t1", "e")}));
}

TEST(FrameQueueTest, DifferentTurnsOrFieldsDoNotMerge) {
  FrameQueue queue;
  queue.push(frame(text_frame("t0", "x")));
  (void)queue.start_write();
  queue.push(frame(text_frame("t1", "a")));
  queue.push(frame(text_frame("t2", "b")));
  // A text frame with one more field (e.g. a message id the protocol may add) is another key...
  queue.push(frame(R"({"type":"text","turn":"t2","message":"m1","text":"c"})"));
  queue.push(frame(R"({"type":"text","turn":"t2","message":"m2","text":"d"})"));
  // ...and equal fields in another order are the same key; the first frame's layout is kept.
  queue.push(frame(R"({"message":"m2","text":"e","turn":"t2","type":"text"})"));
  EXPECT_EQ(queue.merged(), 1u);
  EXPECT_EQ(drain(queue),
            (std::vector<std::string>{text_frame("t1", "a"), text_frame("t2", "b"),
                                      R"({"type":"text","turn":"t2","message":"m1","text":"c"})",
                                      R"({"type":"text","turn":"t2","message":"m2","text":"de"})"}));
}

TEST(FrameQueueTest, OtherFramesAreNeverMergedOrParsedAsText) {
  FrameQueue queue;
  queue.push(frame("{}"));
  (void)queue.start_write();
  const std::string delivery = R"({"type":"delivery","turn":"t1","op":"text","text":"hi"})";
  queue.push(frame(delivery));
  queue.push(frame(delivery));
  queue.push(frame(R"({"type":"text","turn":"t1","text":1})"));  // text is not a string
  queue.push(frame(R"({"type":"text","turn":"t1","text":2})"));
  queue.push(frame(R"({"type":"text","turn":"t1"})"));  // no text
  queue.push(frame(R"({"type":"text","turn":"t1"})"));
  queue.push(frame(R"(not json "type":"text")"));
  queue.push(frame(R"(not json "type":"text")"));
  EXPECT_EQ(queue.merged(), 0u);
  EXPECT_EQ(drain(queue).size(), 8u);
}

TEST(FrameQueueTest, MergedTextStaysUnderTheCap) {
  FrameQueue queue(4);
  queue.push(frame(text_frame("t1", "x")));
  (void)queue.start_write();
  for (const char* text : {"ab", "cd", "e", "fghij", "k"}) queue.push(frame(text_frame("t1", text)));
  EXPECT_EQ(drain(queue), (std::vector<std::string>{text_frame("t1", "abcd"), text_frame("t1", "e"),
                                                    text_frame("t1", "fghij"), text_frame("t1", "k")}));
}

TEST(FrameQueueTest, AFrameStaysValidWhileWrittenAndTheNextOneWaits) {
  FrameQueue queue;
  queue.push(frame(text_frame("t1", "a")));
  queue.push(frame(text_frame("t1", "b")));  // not writing yet: the tail waits, so they merge
  EXPECT_EQ(queue.size(), 1u);
  const std::string& writing = queue.start_write();
  for (int i = 0; i < 100; ++i) queue.push(frame(text_frame("t1", "c")));
  EXPECT_EQ(writing, text_frame("t1", "ab"));
  EXPECT_EQ(queue.size(), 2u);
  const auto rest = drain(queue);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(json::parse(rest[0]).at("text").as_string(), std::string(100, 'c'));
}

}  // namespace
}  // namespace sigil::server
