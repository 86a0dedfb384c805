#include "server/sse_stream.h"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

#include "server/delivery_json.h"
#include "server/valid_utf8.h"

namespace sigil::server {

namespace json = boost::json;

std::string sse_event(std::string_view event, const json::value& data) {
  std::string out = "event: ";
  out.append(event);
  out += "\ndata: ";
  out += valid_utf8(json::serialize(data));
  out += "\n\n";
  return out;
}

SseStreamObserver::SseStreamObserver(TurnRegistry& turns, TurnBroadcaster::Shared watchers,
                                     std::shared_ptr<EventStream> stream, std::string turn_id,
                                     std::string user, std::string conversation)
    : turns_(turns),
      media_(watchers.media),
      stream_(std::move(stream)),
      turn_id_(std::move(turn_id)),
      watchers_(std::move(watchers), std::move(user), std::move(conversation), turn_id_) {}

void SseStreamObserver::on_text(std::string_view text) {
  if (text.empty()) return;
  watchers_.on_text(text);
  emit(sse_event("text", json::object{{"text", text}}), false);
}

void SseStreamObserver::on_delivery(const exec::Delivery& delivery) {
  watchers_.on_delivery(delivery);
  emit(sse_event("delivery", delivery_json(delivery, media_.get())), false);
}

void SseStreamObserver::on_model_call(int n) {
  watchers_.on_model_call(n);
  emit(sse_event("model_call", json::object{{"call", n}}), false);
}

void SseStreamObserver::on_silence(bool late) {
  watchers_.on_silence(late);
  emit(sse_event("silence", json::object{{"late", late}}), false);
}

void SseStreamObserver::on_turn_end(const agent::TurnSummary& summary) {
  watchers_.on_turn_end(summary);
  json::array diagnostics;
  for (const auto& d : summary.diagnostics) diagnostics.emplace_back(d);
  json::object end{{"turn_id", summary.turn_id},
                   {"status", agent::to_string(summary.status)},
                   {"diagnostics", std::move(diagnostics)}};
  std::shared_ptr<EventStream> stream;
  {
    std::lock_guard lock(mu_);
    stream = std::move(stream_);
  }
  if (stream) {
    stream->mark_turn_ended();
    stream->post_event(sse_event("end", end), true);
    stream.reset();  // the posted handlers own the connection now
  }
  turns_.closed(turn_id_);  // last: stop() may destroy the io_context right after this
}

void SseStreamObserver::emit(std::string event, bool last) {
  std::lock_guard lock(mu_);
  if (stream_) stream_->post_event(std::move(event), last);
}

}  // namespace sigil::server
