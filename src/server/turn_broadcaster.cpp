#include "server/turn_broadcaster.h"

#include <boost/json/serialize.hpp>
#include <optional>
#include <utility>

#include "server/ws_frames.h"

namespace sigil::server {

TurnBroadcaster::TurnBroadcaster(Shared shared, std::string user, std::string conversation,
                                 std::string turn_id, std::function<void(const agent::TurnSummary&)> on_end)
    : detail::WebChannelMember{channels::web::WebChannel(transport(), turn_id)},
      agent::ChannelObserver(web, outbox_options()),
      shared_(std::move(shared)),
      user_(std::move(user)),
      conversation_(std::move(conversation)),
      turn_id_(std::move(turn_id)),
      announced_(!turn_id_.empty()),
      on_end_(std::move(on_end)) {}

// Called while the bases are built: the lambdas only keep `this`; they run after construction.
channels::web::WebTransport TurnBroadcaster::transport() {
  channels::web::WebTransport t;
  t.send = [this](channels::web::WebFrame frame) { send(std::move(frame)); };
  t.publish = [this](const deliver::OutgoingFile& file, bool voice, channels::web::PublishedMedia& out,
                     std::string& error) {
    // Kept even when nobody watches: the history shows it again after a reload (GET /media/... serves it).
    if (!file.payload) {
      error = "media: the delivery has no bytes";
      return false;
    }
    auto stored = shared_.media->put(*file.payload, voice);
    if (!stored.ok()) {
      error = stored.error();
      return false;
    }
    out.url = media_url(*stored);
    out.name = stored->name;
    out.mime = stored->mime;
    out.sha256 = stored->sha256;
    out.size = stored->size;
    return true;
  };
  t.keep = [this](const boost::json::object& delivery) {
    if (shared_.store == nullptr || turn_id_.empty()) return;
    // A delivery that cannot be kept is only missing after a reload; the turn goes on.
    (void)shared_.store->append_delivery(store::Scope{user_, conversation_}, turn_id_,
                                         boost::json::serialize(delivery), store::Clock::now());
  };
  return t;
}

deliver::ChatOutboxOptions TurnBroadcaster::outbox_options() {
  deliver::ChatOutboxOptions o;
  o.reply_to = std::string(channels::web::WebChannel::kTurnMessage);
  o.other_chat = [this](const exec::Delivery& d) { return web.relayed(d); };
  return o;
}

void TurnBroadcaster::send(channels::web::WebFrame frame) {
  shared_.hub->broadcast(user_, conversation_,
                         std::make_shared<const channels::web::WebFrame>(std::move(frame)));
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
      text = last->back().text;  // the task's message (its id is Message::task_id, not a text prefix)
    }
  }
  if (turn_id_.empty()) turn_id_ = fallback_id;
  web.set_turn(turn_id_);
  send(turn_frame(turn_id_, std::nullopt, true, text));
}

void TurnBroadcaster::on_text(std::string_view text) {
  if (text.empty()) return;
  announce({});
  ChannelObserver::on_text(text);
}

void TurnBroadcaster::on_delivery(const exec::Delivery& delivery) {
  announce({});
  ChannelObserver::on_delivery(delivery);
}

void TurnBroadcaster::on_model_call(int n) {
  announce({});
  send(model_call_frame(turn_id_, n));
  ChannelObserver::on_model_call(n);
}

void TurnBroadcaster::on_silence(bool late) {
  announce({});
  // Informational: the page removes what was shown by the delete frames the outbox sends next.
  send(silence_frame(turn_id_, late));
  ChannelObserver::on_silence(late);
}

void TurnBroadcaster::on_message_end() {
  announce({});
  ChannelObserver::on_message_end();
}

void TurnBroadcaster::turn_ended(const agent::TurnSummary& summary, const deliver::DeliveryReport& report) {
  announce(summary.turn_id);
  send(end_frame(summary, turn_id_.empty() ? summary.turn_id : turn_id_, &report));
  if (on_end_) on_end_(summary);
}

}  // namespace sigil::server
