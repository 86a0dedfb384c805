// FrameQueue: a WebSocket connection's write queue merges waiting text pieces of the same message, typed
// (channels::web::TextPiece), and serialises each frame once when its write starts.
#include "server/frame_queue.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "../support/alloc_counter.h"
#include "server/ws_frames.h"

namespace sigil::server {
namespace {

namespace json = boost::json;
using channels::web::TextPiece;
using channels::web::WebFrame;

channels::web::SharedFrame frame(WebFrame f) { return std::make_shared<const WebFrame>(std::move(f)); }

// A piece of message m1 of `turn`, and its JSON text as a page receives it.
TextPiece piece(const std::string& turn, const std::string& text, bool replace = false) {
  return TextPiece{turn, "m1", text, replace};
}
std::string text_of(const std::string& turn, const std::string& text, bool replace = false) {
  return channels::web::serialize(piece(turn, text, replace));
}

// Pushes `f` and starts writing it: a frame in flight is never merged into, and what is pushed next waits.
void push_in_flight(FrameQueue& queue, WebFrame f) {
  queue.push(frame(std::move(f)));
  (void)queue.start_write();
}

// Pushes each frame, in order.
void push_all(FrameQueue& queue, std::vector<WebFrame> frames) {
  for (WebFrame& f : frames) queue.push(frame(std::move(f)));
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

TEST(FrameQueueTest, TextPiecesAreSerialisedAsTheProtocolSays) {
  EXPECT_EQ(text_of("t1", "hi"), R"({"type":"text","turn":"t1","message":"m1","text":"hi"})");
  EXPECT_EQ(text_of("t1", "hi", true),
            R"({"type":"text","turn":"t1","message":"m1","text":"hi","replace":true})");
}

TEST(FrameQueueTest, KeepingUpSendsEveryFrameAsPushed) {
  FrameQueue queue;
  for (const char* text : {"a", "b", "c"}) {
    queue.push(frame(piece("t1", text)));
    EXPECT_EQ(queue.start_write(), text_of("t1", text));
    queue.finish_write();
  }
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.merged(), 0u);
}

TEST(FrameQueueTest, WaitingTextPiecesOfAMessageMergeInOrder) {
  FrameQueue queue;
  queue.push(frame(piece("t1", "Hello")));
  EXPECT_EQ(queue.start_write(), text_of("t1", "Hello"));  // in flight: never merged into
  queue.push(frame(piece("t1", ", ")));
  queue.push(frame(piece("t1", "wor")));
  queue.push(frame(piece("t1", "ld \"quoted\" \xC3\xA9")));
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.merged(), 2u);
  queue.finish_write();
  EXPECT_EQ(drain(queue), std::vector<std::string>{text_of("t1", ", world \"quoted\" \xC3\xA9")});
}

TEST(FrameQueueTest, AReplacingPieceReplacesWhatWaits) {
  FrameQueue queue;
  push_in_flight(queue, model_call_frame("t1", 1));
  push_all(queue, {piece("t1", "draft"), piece("t1", " more"),
                   piece("t1", "Final", true),  // the message's whole text now
                   piece("t1", " words"),       // added to the replaced text
                   piece("t1", "Again", true)});
  EXPECT_EQ(queue.merged(), 4u);
  EXPECT_EQ(drain(queue),
            (std::vector<std::string>{text_of("t1", "Again", true)}));  // drain() ends the write
  push_in_flight(queue, model_call_frame("t1", 2));
  push_all(queue, {piece("t1", "X", true), piece("t1", "Y")});
  EXPECT_EQ(drain(queue), (std::vector<std::string>{text_of("t1", "XY", true)}));
}

TEST(FrameQueueTest, NeverMergesAcrossAnotherFrame) {
  FrameQueue queue;
  push_in_flight(queue, model_call_frame("t1", 1));
  push_all(queue, {piece("t1", "a"), piece("t1", "b"), silence_frame("t1", true), piece("t1", "c"),
                   piece("t1", "d"), model_call_frame("t1", 2), piece("t1", "e")});
  EXPECT_EQ(drain(queue),
            (std::vector<std::string>{text_of("t1", "ab"), json::serialize(silence_frame("t1", true)),
                                      text_of("t1", "cd"), json::serialize(model_call_frame("t1", 2)),
                                      text_of("t1", "e")}));
}

TEST(FrameQueueTest, DifferentTurnsOrMessagesDoNotMerge) {
  FrameQueue queue;
  push_in_flight(queue, piece("t0", "x"));
  push_all(queue, {piece("t1", "a"), piece("t2", "b"), TextPiece{"t2", "m2", "c", false},
                   TextPiece{"t2", "m3", "d", false}, TextPiece{"t2", "m3", "e", false}});
  EXPECT_EQ(queue.merged(), 1u);
  EXPECT_EQ(drain(queue),
            (std::vector<std::string>{text_of("t1", "a"), text_of("t2", "b"),
                                      R"({"type":"text","turn":"t2","message":"m2","text":"c"})",
                                      R"({"type":"text","turn":"t2","message":"m3","text":"de"})"}));
}

TEST(FrameQueueTest, OtherFramesAreNeverMerged) {
  FrameQueue queue;
  push_in_flight(queue, json::object{});
  // A JSON object that looks like a text frame is still not a text piece: only typed pieces merge.
  const json::object look_alike{{"type", "text"}, {"turn", "t1"}, {"message", "m1"}, {"text", "hi"}};
  queue.push(frame(look_alike));
  queue.push(frame(look_alike));
  queue.push(frame(piece("t1", "a")));
  queue.push(frame(look_alike));
  EXPECT_EQ(queue.merged(), 0u);
  EXPECT_EQ(drain(queue).size(), 4u);
}

TEST(FrameQueueTest, MergedTextStaysUnderTheCap) {
  FrameQueue queue(4);
  push_in_flight(queue, piece("t1", "x"));
  for (const char* text : {"ab", "cd", "e", "fghij", "k"}) queue.push(frame(piece("t1", text)));
  EXPECT_EQ(drain(queue), (std::vector<std::string>{text_of("t1", "abcd"), text_of("t1", "e"),
                                                    text_of("t1", "fghij"), text_of("t1", "k")}));
}

TEST(FrameQueueTest, AFrameStaysValidWhileWrittenAndTheNextOneWaits) {
  FrameQueue queue;
  queue.push(frame(piece("t1", "a")));
  queue.push(frame(piece("t1", "b")));  // not writing yet: the tail waits, so they merge
  EXPECT_EQ(queue.size(), 1u);
  const std::string& writing = queue.start_write();
  for (int i = 0; i < 100; ++i) queue.push(frame(piece("t1", "c")));
  EXPECT_EQ(writing, text_of("t1", "ab"));
  EXPECT_EQ(queue.size(), 2u);
  const auto rest = drain(queue);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(json::parse(rest[0]).at("text").as_string(), std::string(100, 'c'));
}

TEST(FrameQueueTest, WhatIsWrittenIsValidUtf8) {
  FrameQueue queue;
  queue.push(frame(piece("t1", "bad \xC3")));
  queue.push(frame(piece("t1", "\xA9 joined")));  // merged first: the halves make one valid character
  queue.push(frame(json::object{{"type", "delivery"}, {"name", "x\xFF.txt"}}));
  const auto written = drain(queue);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(json::parse(written[0]).at("text").as_string(), "bad \xC3\xA9 joined");
  EXPECT_EQ(json::parse(written[1]).at("name").as_string(), "x\xEF\xBF\xBD.txt");
}

// The pieces of one message written one after another share their head ({"type":"text","turn":…,
// "message":…,"text":): it is rendered once, and each piece still reads exactly as serialize() makes it.
// Another message, another turn, any other frame between, or a piece repaired to valid UTF-8 renders the
// head again, and what follows is still right.
TEST(FrameQueueTest, APiecesHeadIsRenderedOncePerMessage) {
  FrameQueue queue;
  auto write = [&queue](WebFrame f) {
    queue.push(frame(std::move(f)));
    std::string text = queue.start_write();
    queue.finish_write();
    return text;
  };
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(write(piece("t1", "w" + std::to_string(i))), text_of("t1", "w" + std::to_string(i)));
  EXPECT_EQ(queue.heads_rendered(), 1u);
  EXPECT_EQ(write(piece("t1", "all", true)), text_of("t1", "all", true));
  EXPECT_EQ(write(piece("t1", " \"q\"\n")), text_of("t1", " \"q\"\n"));
  EXPECT_EQ(queue.heads_rendered(), 1u);

  EXPECT_EQ(write(TextPiece{"t1", "m2", "next", false}),
            channels::web::serialize(TextPiece{"t1", "m2", "next", false}));
  EXPECT_EQ(queue.heads_rendered(), 2u);
  EXPECT_EQ(write(piece("t2", "turn")), text_of("t2", "turn"));
  EXPECT_EQ(queue.heads_rendered(), 3u);
  const json::object other{{"type", "end"}, {"turn", "t2"}};
  EXPECT_EQ(write(other), json::serialize(other));
  EXPECT_EQ(write(piece("t2", "after")), text_of("t2", "after"));
  EXPECT_EQ(queue.heads_rendered(), 4u);

  // An invalid byte in the text is repaired in the whole frame; the next piece is whole again.
  EXPECT_EQ(json::parse(write(piece("t2", "bad \xFF"))).at("text").as_string(), "bad \xEF\xBF\xBD");
  EXPECT_EQ(write(piece("t2", "good")), text_of("t2", "good"));
  EXPECT_EQ(queue.heads_rendered(), 5u);
  // A head with an invalid byte (a turn id is the server's own, but a message id need not be) is repaired.
  const TextPiece odd{"t3", "m\xFF", "x", false};
  EXPECT_EQ(json::parse(write(odd)).at("message").as_string(), "m\xEF\xBF\xBD");
  EXPECT_EQ(json::parse(write(odd)).at("text").as_string(), "x");
  EXPECT_EQ(write(piece("t3", "y")), text_of("t3", "y"));
}

TEST(FrameQueueTest, ASharedFrameIsNotChangedByAMerge) {
  // The hub hands one frame to every watcher: merging on one connection must not change it for another.
  FrameQueue one, other;
  auto shared = frame(piece("t1", "a"));
  one.push(shared);
  other.push(shared);
  one.push(frame(piece("t1", "b")));
  EXPECT_EQ(drain(one), std::vector<std::string>{text_of("t1", "ab")});
  EXPECT_EQ(drain(other), std::vector<std::string>{text_of("t1", "a")});
}

// One frame is written at a time, so every frame is rendered into the same buffer: once it has grown to a
// token's frame, rendering the next ones (merged or not) allocates nothing. A frame larger than the
// buffer the queue keeps is rendered, and the buffer let go after its write.
TEST(FrameQueueTest, RenderingAFrameReusesTheQueuesBuffer) {
  FrameQueue queue;
  std::vector<channels::web::SharedFrame> frames;
  for (int i = 0; i < 100; ++i) frames.push_back(frame(piece("t1", "token " + std::to_string(100 + i))));
  auto write = [&queue] {
    const testing::AllocationCount count;
    const std::string& text = queue.start_write();
    const std::uint64_t allocations = count.count();
    EXPECT_NE(text.find(R"("type":"text")"), std::string::npos);
    queue.finish_write();
    return allocations;
  };
  queue.push(frames[0]);
  EXPECT_GE(write(), 1u);  // the first frame grows the buffer
  std::uint64_t allocations = 0;
  for (int i = 1; i < 100; ++i) {
    queue.push(frames[i]);
    allocations += write();
  }
  EXPECT_EQ(allocations, 0u);
  push_in_flight(queue, piece("t1", "x"));
  queue.push(frame(piece("t1", "y")));
  queue.push(frame(piece("t1", "z")));  // merged into the waiting y
  queue.finish_write();
  EXPECT_EQ(write(), 0u);
  queue.push(frame(piece("t1", std::string(FrameQueue::kKeptRenderBytes, 'b'))));
  EXPECT_GE(write(), 1u);
  queue.push(frames[0]);
  EXPECT_GE(write(), 1u);  // the large buffer was let go: grown again
}

}  // namespace
}  // namespace sigil::server
