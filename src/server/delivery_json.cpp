#include "server/delivery_json.h"

#include <string>

#include "server/ws_frames.h"

namespace sigil::server {

namespace json = boost::json;

json::object delivery_json(const exec::Delivery& d, MediaStore* media) {
  json::object o{{"op", exec::to_string(d.op)}};
  switch (d.op) {
    case exec::Delivery::Op::Text:
      o["text"] = d.text;
      break;
    case exec::Delivery::Op::Message:
      o["text"] = d.text;
      o["channel"] = d.channel;
      o["chat"] = d.chat;
      break;
    case exec::Delivery::Op::Reaction:
      o["emoji"] = d.emoji;
      o["message"] = d.message;
      break;
    case exec::Delivery::Op::File:
    case exec::Delivery::Op::Voice: {
      const bool voice = d.op == exec::Delivery::Op::Voice;
      std::optional<MediaInfo> kept;
      std::string error;
      if (media == nullptr) {
        error = "media: not kept by this endpoint";
      } else if (!d.payload) {
        error = "media: the delivery has no bytes";
      } else if (auto stored = media->put(*d.payload, voice); stored.ok()) {
        kept = *stored;
      } else {
        error = stored.error();
      }
      std::string name = kept ? kept->name : (d.payload ? d.payload->name() : std::string());
      if (name.empty() && !voice) name = d.path.substr(d.path.find_last_of('/') + 1);
      o["name"] = name;
      o["kind"] = d.kind.empty() && voice ? "voice" : d.kind;
      o["caption"] = d.caption;
      o["sha256"] = kept ? kept->sha256 : d.sha256;
      o["mime"] = kept ? kept->mime : (d.payload ? d.payload->mime_type() : std::string());
      o["size"] = kept ? kept->size : (d.payload ? d.payload->size() : 0);
      if (kept) {
        o["url"] = media_url(*kept);
      } else {
        o["url"] = nullptr;
        o["error"] = error;
      }
      if (voice) o["duration_ms"] = d.duration_ms;
      break;
    }
  }
  return o;
}

}  // namespace sigil::server
