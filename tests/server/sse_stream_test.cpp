// The SSE answer of POST .../messages without a socket (server/sse_stream.h).
#include "server/sse_stream.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "server/conversation_hub.h"
#include "server/media_store.h"
#include "sigil/text/utf8.h"

namespace sigil::server {
namespace {

struct RecordingStream final : EventStream {
  struct Event {
    std::string bytes;
    bool last;
  };
  std::vector<Event> events;
  int ended_marks = 0;
  void post_event(std::string event, bool last) override { events.push_back({std::move(event), last}); }
  void mark_turn_ended() override { ++ended_marks; }
};

struct RecordingWatcher final : Watcher {
  std::vector<std::string> frames;
  void send(channels::web::SharedFrame frame) override { frames.push_back(channels::web::serialize(*frame)); }
};

TEST(SseStreamTest, EventsAreOneLineOfValidUtf8) {
  EXPECT_EQ(sse_event("text", boost::json::object{{"text", "a\nb"}}),
            "event: text\ndata: {\"text\":\"a\\nb\"}\n\n");
  const std::string repaired = sse_event("text", boost::json::object{{"text", "bad \xC3 byte"}});
  EXPECT_TRUE(text::is_valid_utf8(repaired));
  EXPECT_NE(repaired.find("\xEF\xBF\xBD"), std::string::npos);
}

TEST(SseStreamTest, ObserverStreamsTheTurnTeesItAndLetsGoAtTheEnd) {
  TurnRegistry turns;
  ASSERT_TRUE(turns.open("t1", "u", "c"));
  auto hub = std::make_shared<ConversationHub>();
  auto watcher = std::make_shared<RecordingWatcher>();
  hub->watch("u", "c", watcher);
  auto stream = std::make_shared<RecordingStream>();
  SseStreamObserver observer(turns, TurnBroadcaster::Shared{hub, std::make_shared<MediaStore>(""), nullptr},
                             stream, "t1", "u", "c");
  observer.on_model_call(1);
  observer.on_text("");  // nothing
  observer.on_text("Hello");
  agent::TurnSummary summary;
  summary.turn_id = "t1";
  summary.diagnostics = {"loop-limit: two calls"};
  observer.on_turn_end(summary);
  observer.on_text("late");  // after the end: dropped

  ASSERT_EQ(stream->events.size(), 3u);
  EXPECT_EQ(stream->events[0].bytes, "event: model_call\ndata: {\"call\":1}\n\n");
  EXPECT_EQ(stream->events[1].bytes, "event: text\ndata: {\"text\":\"Hello\"}\n\n");
  EXPECT_FALSE(stream->events[1].last);
  EXPECT_EQ(stream->events[2].bytes,
            "event: end\ndata: {\"turn_id\":\"t1\",\"status\":\"ok\",\"diagnostics\":[\"loop-limit: two "
            "calls\"]}\n\n");
  EXPECT_TRUE(stream->events[2].last);
  EXPECT_EQ(stream->ended_marks, 1);
  EXPECT_EQ(stream.use_count(), 1);  // the observer let go of the connection
  EXPECT_FALSE(turns.running("t1"));
  EXPECT_TRUE(turns.wait_closed(std::chrono::milliseconds(0)));

  bool saw_end_frame = false;
  for (const auto& frame : watcher->frames)
    saw_end_frame = saw_end_frame || frame.find("\"type\":\"end\"") != std::string::npos;
  EXPECT_TRUE(saw_end_frame);
}

}  // namespace
}  // namespace sigil::server
