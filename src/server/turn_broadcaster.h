// A turn observer that shows the turn on the web chat: a ChannelObserver (deliver's ordered outbox) on a
// channels::web::WebChannel whose frames go to every connection watching the conversation
// (ConversationHub), plus the turn's own frames (turn, model_call, silence, end with the delivery report).
// Used for turns started over the WebSocket, for SSE turns (as a tee) and for turns the server did not
// start (scheduled tasks: HttpServer::conversation_observer()).
//
// What it promises:
// - File and voice deliveries are read into the MediaStore once, before their frame goes out, so the
//   frame's url downloads exactly those bytes (when nobody watches, they are not read: url null).
// - A turn it was not told the id of (announce == true) gets its "turn" frame at its first event: the id
//   and text are read from the conversation's last stored message, which is the turn's user message then
//   (the agent stores it before the first model call, and runs one turn per conversation at a time).
// - It holds the hub and the media store by shared_ptr, never the server: it may outlive the server (the
//   agent keeps observers until their turn ends); the hub is closed by then and every frame is dropped.
// - on_end (optional) is called last, from on_turn_end.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "server/conversation_hub.h"
#include "server/media_store.h"
#include "sigil/agent/agent.h"
#include "sigil/agent/channel_observer.h"
#include "sigil/channels/web/web_channel.h"
#include "sigil/store/store.h"

namespace sigil::server {

namespace detail {
// Built before the ChannelObserver base, which keeps a reference to it.
struct WebChannelMember {
  channels::web::WebChannel web;
};
}  // namespace detail

class TurnBroadcaster : private detail::WebChannelMember, public agent::ChannelObserver {
 public:
  struct Shared {
    std::shared_ptr<ConversationHub> hub;
    std::shared_ptr<MediaStore> media;
    store::Store* store = nullptr;  // outlives every turn (it outlives the agent)
  };

  // turn_id empty: a turn started elsewhere, announced (scheduled: true) at its first event.
  TurnBroadcaster(Shared shared, std::string user, std::string conversation, std::string turn_id,
                  std::function<void(const agent::TurnSummary&)> on_end = {});

  void on_text(std::string_view text) override;
  void on_delivery(const exec::Delivery& delivery) override;
  void on_model_call(int n) override;
  void on_silence(bool late) override;
  void on_message_end() override;

  const std::string& turn_id() const { return turn_id_; }

 private:
  void turn_ended(const agent::TurnSummary& summary, const deliver::DeliveryReport& report) override;
  void announce(const std::string& fallback_id);
  void send(channels::web::WebFrame frame);
  channels::web::WebTransport transport();
  deliver::ChatOutboxOptions outbox_options();

  Shared shared_;
  std::string user_, conversation_, turn_id_;
  bool announced_;
  std::function<void(const agent::TurnSummary&)> on_end_;
};

}  // namespace sigil::server
