#include "sigil/channels/web/web_channel.h"

#include <boost/json/object.hpp>
#include <exception>
#include <utility>

namespace sigil::channels::web {
namespace json = boost::json;

WebChannel::WebChannel(WebTransport transport, std::string turn)
    : transport_(std::move(transport)), turn_(std::move(turn)) {}

deliver::ChannelCapabilities WebChannel::capabilities() const {
  return deliver::ChannelCapabilities::everything();
}

void WebChannel::send(WebFrame frame) {
  if (transport_.send) transport_.send(std::move(frame));
}

deliver::ChannelResult WebChannel::send_text(std::string_view text) {
  std::string id = "m" + std::to_string(++next_message_);
  send(TextPiece{turn_, id, std::string(text), false});
  return deliver::ChannelResult(std::move(id));
}

deliver::ChannelResult WebChannel::append_text(const std::string& id, std::string_view more) {
  send(TextPiece{turn_, id, std::string(more), false});
  return deliver::ChannelResult(id);
}

deliver::ChannelResult WebChannel::edit_text(const std::string& id, std::string_view text) {
  send(TextPiece{turn_, id, std::string(text), true});
  return deliver::ChannelResult(id);
}

deliver::ChannelResult WebChannel::delete_message(const std::string& id) {
  send(json::object{{"type", "delete"}, {"turn", turn_.str()}, {"message", id}});
  return deliver::ChannelResult(id);
}

deliver::ChannelResult WebChannel::attachment(const deliver::OutgoingFile& file, bool voice) {
  PublishedMedia media;
  if (transport_.publish) {
    std::string error;
    if (!transport_.publish(file, voice, media, error))
      return deliver::channel_error(error.empty() ? "the file could not be kept" : error);
  }
  json::object o{{"type", "delivery"}, {"turn", turn_.str()}, {"op", voice ? "voice" : "file"}};
  o["name"] = media.name.empty() ? file.name : media.name;
  o["kind"] = voice ? std::string("voice") : file.kind;
  o["caption"] = file.caption;
  o["sha256"] = media.sha256.empty() ? file.sha256 : media.sha256;
  o["mime"] = media.mime.empty() ? file.mime_type : media.mime;
  o["size"] = media.url.empty() ? file.size : media.size;
  if (media.url.empty())
    o["url"] = nullptr;
  else
    o["url"] = media.url;
  if (voice) o["duration_ms"] = file.duration_ms;
  deliver_frame(std::move(o));
  return deliver::ChannelResult{std::string()};
}

deliver::ChannelResult WebChannel::send_file(const deliver::OutgoingFile& file) {
  return attachment(file, false);
}

deliver::ChannelResult WebChannel::send_voice(const deliver::OutgoingFile& voice) {
  return attachment(voice, true);
}

deliver::ChannelResult WebChannel::react(const std::string& message_id, std::string_view emoji) {
  // The page knows messages by turn: "" is this turn's own (user) message.
  const std::string target = message_id == kTurnMessage ? std::string() : message_id;
  deliver_frame(json::object{{"type", "delivery"},
                             {"turn", turn_.str()},
                             {"op", "reaction"},
                             {"emoji", emoji},
                             {"message", target}});
  return deliver::ChannelResult{std::string()};
}

std::string WebChannel::relayed(const deliver::Delivery& d) {
  deliver_frame(json::object{{"type", "delivery"},
                             {"turn", turn_.str()},
                             {"op", "message"},
                             {"text", d.text},
                             {"channel", d.channel},
                             {"chat", d.chat}});
  return {};
}

void WebChannel::deliver_frame(json::object frame) {
  if (!transport_.keep) return send(std::move(frame));
  json::object kept = frame;
  send(std::move(frame));
  kept.erase("type");
  kept.erase("turn");
  transport_.keep(kept);
}

}  // namespace sigil::channels::web
