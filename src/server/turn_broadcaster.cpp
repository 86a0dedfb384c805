#include "server/turn_broadcaster.h"

#include <optional>
#include <utility>

#include "server/ws_frames.h"

namespace sigil::server {

TurnBroadcaster::TurnBroadcaster(Shared shared, std::string user, std::string conversation,
                                 std::string turn_id, std::function<void(const agent::TurnSummary&)> on_end)
    : shared_(std::move(shared)),
      user_(std::move(user)),
      conversation_(std::move(conversation)),
      turn_id_(std::move(turn_id)),
      announced_(!turn_id_.empty()),
      on_end_(std::move(on_end)) {}

void TurnBroadcaster::send(std::string frame) {
  shared_.hub->broadcast(user_, conversation_, std::make_shared<const std::string>(std::move(frame)));
}

void TurnBroadcaster::announce(const std::string& fallback_id) {
  if (announced_) return;
  announced_ = true;
  std::string text;
  if (shared_.store != nullptr) {
    auto last = shared_.store->recent_messages(store::Scope{user_, conversation_}, 1);
    if (last.ok() && !last->empty() && last->back().role == "user" &&
        (fallback_id.empty() || last->back().turn_id == fallback_id)) {
      turn_id_ = last->back().turn_id;
      text = last->back().text;
      // Agent::fire_task() stores "[scheduled task <id>] <message>"; the client shows the message.
      constexpr std::string_view prefix = "[scheduled task ";
      if (text.starts_with(prefix)) {
        const auto close = text.find("] ");
        if (close != std::string::npos) text.erase(0, close + 2);
      }
    }
  }
  if (turn_id_.empty()) turn_id_ = fallback_id;
  send(turn_frame(turn_id_, std::nullopt, true, text));
}

void TurnBroadcaster::on_text(std::string_view text) {
  if (text.empty()) return;
  announce({});
  send(text_frame(turn_id_, text));
}

void TurnBroadcaster::on_delivery(const exec::Delivery& delivery) {
  announce({});
  const bool media_op = delivery.op == exec::Delivery::Op::File || delivery.op == exec::Delivery::Op::Voice;
  if (!media_op) return send(delivery_frame(turn_id_, delivery, nullptr));
  // Nobody to show it to (a later connection only gets the text history): not worth reading the bytes.
  if (!shared_.hub->watched(user_, conversation_)) return;
  if (!delivery.payload)
    return send(delivery_frame(turn_id_, delivery, nullptr, "media: the delivery has no bytes"));
  auto stored = shared_.media->put(*delivery.payload, delivery.op == exec::Delivery::Op::Voice);
  if (!stored.ok()) return send(delivery_frame(turn_id_, delivery, nullptr, stored.error()));
  send(delivery_frame(turn_id_, delivery, &*stored));
}

void TurnBroadcaster::on_model_call(int n) {
  announce({});
  send(model_call_frame(turn_id_, n));
}

void TurnBroadcaster::on_silence(bool late) {
  announce({});
  send(silence_frame(turn_id_, late));
}

void TurnBroadcaster::on_turn_end(const agent::TurnSummary& summary) {
  announce(summary.turn_id);
  send(end_frame(summary, turn_id_.empty() ? summary.turn_id : turn_id_));
  if (on_end_) on_end_(summary);
}

}  // namespace sigil::server
