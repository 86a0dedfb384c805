#include "sigil/channels/whatsapp/whatsapp_channel.h"

#include <utility>
#include <vector>

#include "sigil/channels/json_fields.h"
#include "sigil/channels/whatsapp/whatsapp_markup.h"
#include "sigil/deliver/split.h"
#include "sigil/text/media_types.h"

namespace sigil::channels::whatsapp {
namespace {

constexpr std::size_t kTextLimit = 4096;
constexpr std::size_t kCaptionLimit = 1024;
constexpr deliver::TextUnit kUnit = deliver::TextUnit::CodePoints;

std::vector<std::string> rendered_parts(std::string_view markdown, std::size_t limit) {
  std::string rendered = render_whatsapp(markdown);
  if (deliver::text_units(rendered, kUnit) <= limit) return {std::move(rendered)};
  return deliver::split_text(rendered, limit, kUnit);
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (s == x) return true;
  return false;
}

// The message id the first entry of messages[] names ("" when the answer has none).
std::string wamid_of(const boost::json::object& body) {
  const auto* list = body.if_contains("messages");
  if (list == nullptr || !list->is_array() || list->as_array().empty() || !list->as_array()[0].is_object())
    return {};
  return string_at(list->as_array()[0].as_object(), "id");
}

}  // namespace

MediaChoice media_choice(std::string_view kind, std::string_view mime_type, std::string_view name) {
  std::string mime(mime_type.empty() ? text::mime_type_for_name(name) : mime_type);
  if (const auto semi = mime.find(';'); semi != std::string::npos) mime.resize(semi);
  if (kind == "image" && one_of(mime, {"image/jpeg", "image/png"})) return {"image", mime};
  if (kind == "video" && one_of(mime, {"video/mp4", "video/3gpp"})) return {"video", mime};
  if (kind == "audio" && one_of(mime, {"audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"}))
    return {"audio", mime};
  // Everything else goes as a document, of a type WhatsApp takes.
  if (one_of(mime, {"application/pdf", "text/plain", "application/msword", "application/vnd.ms-excel",
                    "application/vnd.ms-powerpoint",
                    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                    "application/vnd.openxmlformats-officedocument.presentationml.presentation"}))
    return {"document", mime};
  if (mime.starts_with("text/") ||
      one_of(mime, {"application/json", "application/xml", "application/x-yaml"}))
    return {"document", "text/plain"};
  return {"document", ""};
}

WhatsAppChannel::WhatsAppChannel(GraphApi& api, WhatsAppTarget target)
    : api_(api), target_(std::move(target)) {}

deliver::ChannelCapabilities WhatsAppChannel::whatsapp_capabilities() {
  deliver::ChannelCapabilities c;
  c.reactions = true;  // any emoji
  c.file_kinds = {"image", "document", "audio", "video"};
  c.voice_notes = true;
  c.edits = false;    // the Cloud API has no edits
  c.deletes = false;  // nor deletes
  c.text_limit = kTextLimit;
  c.text_unit = kUnit;
  c.markdown = deliver::MarkdownFlavour::CommonMark;  // rendered here, to WhatsApp's formatting
  // Meta's pair rate: a burst, then about one message every few seconds to the same user (131056 beyond).
  c.rate = {1.0, 5};
  return c;
}

deliver::ChannelCapabilities WhatsAppChannel::capabilities() const { return whatsapp_capabilities(); }

deliver::ChannelResult WhatsAppChannel::finish(std::string_view what, const GraphOutcome& o, bool text) {
  if (o.ok()) return shown(wamid_of(o.body));
  std::string error = o.summary();
  if (o.outside_window())
    error =
        "WhatsApp refused it: more than 24 hours since the user's last message (131047); only a template "
        "may open the conversation again, and sigil sends none (" +
        error + ")";
  return failed({"whatsapp-send-failed", "to", target_.to, "call"}, what, error,
                o.kind == GraphOutcome::Kind::Unknown, text);
}

deliver::ChannelResult WhatsAppChannel::send_one_text(const std::string& rendered) {
  boost::json::object m{{"to", target_.to},
                        {"type", "text"},
                        {"text", boost::json::object{{"body", rendered}, {"preview_url", false}}}};
  return finish("send text", api_.send(std::move(m)), true);
}

deliver::ChannelResult WhatsAppChannel::send_text(std::string_view text) {
  deliver::ChannelResult last = deliver::channel_error("nothing to send");
  for (const std::string& part : rendered_parts(text, kTextLimit)) {
    if (part.empty()) continue;
    last = send_one_text(part);
    if (!last.ok()) return last;
  }
  return last;
}

deliver::ChannelResult WhatsAppChannel::send_media(const deliver::OutgoingFile& f, std::string kind,
                                                   bool voice) {
  if (!f.payload) return deliver::channel_error("the delivery has no bytes");
  std::string data, error;
  if (!deliver::read_payload(*f.payload, data, error)) return deliver::channel_error(error);
  if (data.empty()) return deliver::channel_error("an empty file");
  const std::string name = !f.name.empty()              ? f.name
                           : !f.payload->name().empty() ? f.payload->name()
                           : voice                      ? std::string("voice-note.ogg")
                                                        : std::string("file");
  const MediaChoice choice =
      voice ? MediaChoice{"audio", "audio/ogg"} : media_choice(kind, f.mime_type, name);
  if (choice.mime_type.empty())
    return deliver::channel_error("WhatsApp takes no file of this type (" +
                                  (f.mime_type.empty() ? name : f.mime_type) +
                                  "): documents must be text, PDF or Office files");
  const GraphOutcome up = api_.upload(choice.mime_type, name, data);
  if (!up.ok()) return finish("upload", up, false);
  const std::string media_id = string_at(up.body, "id");
  if (media_id.empty()) return deliver::channel_error("WhatsApp's upload answer has no media id");
  boost::json::object media{{"id", media_id}};
  std::vector<std::string> caption;
  if (!f.caption.empty() && choice.kind != "audio") caption = rendered_parts(f.caption, kCaptionLimit);
  if (caption.size() == 1) media["caption"] = caption.front();
  if (choice.kind == "document") media["filename"] = name;
  if (voice) media["voice"] = true;
  boost::json::object m{{"to", target_.to}, {"type", choice.kind}};
  m[choice.kind] = std::move(media);
  deliver::ChannelResult r = finish("send " + choice.kind, api_.send(std::move(m)), false);
  // A caption WhatsApp cannot carry (over 1,024 characters, or on audio) follows as text.
  if (r.ok() && (caption.size() > 1 || (choice.kind == "audio" && !f.caption.empty())))
    (void)send_text(f.caption);
  return r;
}

deliver::ChannelResult WhatsAppChannel::send_file(const deliver::OutgoingFile& file) {
  return send_media(file, file.kind, false);
}

deliver::ChannelResult WhatsAppChannel::send_voice(const deliver::OutgoingFile& voice) {
  return send_media(voice, "audio", true);
}

deliver::ChannelResult WhatsAppChannel::react(const std::string& message_id, std::string_view emoji) {
  const std::string target = message_id.empty() ? target_.answering : message_id;
  if (target.empty()) return deliver::channel_error("no message to react to");
  if (!target.starts_with("wamid.")) return deliver::channel_error("not a WhatsApp message id");
  boost::json::object m{{"to", target_.to},
                        {"type", "reaction"},
                        {"reaction", boost::json::object{{"message_id", target}, {"emoji", emoji}}}};
  deliver::ChannelResult res = finish("send reaction", api_.send(std::move(m)), false);
  if (res.ok()) return deliver::ChannelResult(target);
  return res;
}

bool WhatsAppChannel::typing() {
  if (target_.answering.empty()) return false;
  return api_.mark_read(target_.answering, true).ok();
}

}  // namespace sigil::channels::whatsapp
