// The SSE answer of POST /v1/conversations/{id}/messages without the socket: the events (text, delivery,
// model_call, silence, end) and the observer that turns an agent turn into them. The HTTP session is only
// an EventStream here, so this is tested without sockets (tests/server/sse_stream_test.cpp).
//
// What it promises:
// - sse_event(): "event: <name>\ndata: <json>\n\n"; the data is one line (boost::json never writes a raw
//   newline) and valid UTF-8.
// - `delivery` events are delivery_json() (server/delivery_json.h): a file or voice note is kept in the
//   media store and its event carries the URL to fetch it (an SSE line is no place for megabytes).
// - SseStreamObserver posts each event to its stream and tees the turn, as protocol frames, to the
//   conversation's WebSocket watchers (TurnBroadcaster). At on_turn_end it posts the `end` event (last:
//   the stream closes after it), lets go of the stream (the agent may keep the observer after the server
//   and its io_context are gone) and, last of all, closes the turn in the registry: stop() waits for that,
//   and may destroy the io_context right after.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "server/turn_broadcaster.h"
#include "server/turn_registry.h"
#include "sigil/agent/agent.h"
#include "sigil/exec/handler.h"

namespace sigil::server {

std::string sse_event(std::string_view event, const boost::json::value& data);

// Where an SSE observer's events go: a connection. Both calls come from any thread and must only queue.
class EventStream {
 public:
  virtual ~EventStream() = default;
  // `last`: the connection closes once this event is out.
  virtual void post_event(std::string event, bool last) = 0;
  // The turn has ended: a hang-up from now on must not cancel it.
  virtual void mark_turn_ended() = 0;
};

class SseStreamObserver final : public agent::TurnObserver {
 public:
  // `turns` must outlive the turn (the server waits for every turn it opened before it goes).
  SseStreamObserver(TurnRegistry& turns, TurnBroadcaster::Shared watchers,
                    std::shared_ptr<EventStream> stream, std::string turn_id, std::string user,
                    std::string conversation);

  void on_text(std::string_view text) override;
  void on_delivery(const exec::Delivery& delivery) override;
  void on_model_call(int n) override;
  void on_silence(bool late) override;
  void on_turn_end(const agent::TurnSummary& summary) override;

 private:
  void emit(std::string event, bool last);

  TurnRegistry& turns_;
  std::shared_ptr<MediaStore> media_;
  std::mutex mu_;
  std::shared_ptr<EventStream> stream_;  // null after on_turn_end
  std::string turn_id_;
  TurnBroadcaster watchers_;
};

}  // namespace sigil::server
