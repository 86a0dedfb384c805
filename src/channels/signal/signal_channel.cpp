#include "sigil/channels/signal/signal_channel.h"

#include <boost/json/array.hpp>
#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include "sigil/channels/signal/signal_text.h"
#include "sigil/deliver/delivery.h"
#include "sigil/text/base64.h"

namespace sigil::channels::signal {
namespace {

std::optional<std::int64_t> timestamp_of(std::string_view id) {
  std::int64_t t = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), t);
  if (ec != std::errc() || end != id.data() + id.size() || t <= 0) return std::nullopt;
  return t;
}

boost::json::array wire_styles(const SignalText& t) {
  boost::json::array a;
  for (const TextStyle& s : t.styles) a.emplace_back(s.wire());
  return a;
}

void put_text(boost::json::object& params, const SignalText& t) {
  params["message"] = t.text;
  if (!t.styles.empty()) params["textStyle"] = wire_styles(t);
}

// A file as signal-cli takes it without a path: RFC 2397 with its name
// (`data:<type>;filename=<name>;base64,`).
std::string data_uri(const std::string& type, const std::string& name, std::string_view bytes) {
  std::string safe;
  for (char c : name) safe += (c == ';' || c == ',' || c == '/' || c == '\\') ? '_' : c;
  return "data:" + (type.empty() ? std::string("application/octet-stream") : type) + ";filename=" + safe +
         ";base64," + text::base64_encode(bytes);
}

}  // namespace

SignalChannel::SignalChannel(RpcApi& api, SignalTarget target) : api_(api), target_(std::move(target)) {}

deliver::ChannelCapabilities SignalChannel::signal_capabilities() {
  deliver::ChannelCapabilities c;
  c.reactions = true;  // any emoji: Signal shows whatever grapheme it is given
  c.file_kinds = {"image", "document", "audio", "video"};
  c.voice_notes = true;
  c.edits = true;
  c.deletes = true;
  c.text_limit = kSignalBodyBytes;
  c.text_unit = deliver::TextUnit::Bytes;
  c.markdown = deliver::MarkdownFlavour::CommonMark;  // rendered here, to text and style ranges
  c.rate = {1.0, 5};
  return c;
}

deliver::ChannelCapabilities SignalChannel::capabilities() const { return signal_capabilities(); }

boost::json::object SignalChannel::addressed() const {
  boost::json::object p;
  if (!target_.group_id.empty())
    p["groupId"] = target_.group_id;
  else
    p["recipient"] = boost::json::array{boost::json::value(target_.recipient)};
  return p;
}

deliver::ChannelResult SignalChannel::finish(std::string_view what, const RpcOutcome& o, bool text) {
  if (o.ok()) return shown(std::to_string(o.timestamp()));
  const std::string chat = target_.group_id.empty() ? target_.recipient : target_.group_id;
  return failed({"signal-send-failed", "chat", chat, "call"}, what, o.summary(),
                o.kind == RpcOutcome::Kind::Unknown, text);
}

deliver::ChannelResult SignalChannel::send_text(std::string_view text) {
  deliver::ChannelResult last = deliver::channel_error("nothing to send");
  bool first = true;
  for (const SignalText& part : split_signal_text(render_signal_text(text), kSignalBodyBytes)) {
    boost::json::object p = addressed();
    put_text(p, part);
    if (first && !target_.group_id.empty() && target_.answering != 0 && !target_.answering_author.empty()) {
      p["quoteTimestamp"] = target_.answering;
      p["quoteAuthor"] = target_.answering_author;
    }
    first = false;
    last = finish("send", api_.call("send", std::move(p), false), true);
    if (!last.ok()) return last;
  }
  return last;
}

deliver::ChannelResult SignalChannel::edit_text(const std::string& id, std::string_view text) {
  const auto ts = timestamp_of(id);
  if (!ts) return deliver::channel_error("not a Signal message timestamp");
  const auto parts = split_signal_text(render_signal_text(text), kSignalBodyBytes);
  if (parts.empty()) return deliver::channel_error("nothing to send");
  boost::json::object p = addressed();
  put_text(p, parts.front());  // one message cannot become two by an edit: its first part
  p["editTimestamp"] = *ts;
  // An edit made again shows the same text: safe to repeat after an unknown outcome.
  deliver::ChannelResult res = finish("send (edit)", api_.call("send", std::move(p), true), true);
  if (res.ok()) return deliver::ChannelResult(id);  // edits keep the original's id
  return res;
}

deliver::ChannelResult SignalChannel::delete_message(const std::string& id) {
  const auto ts = timestamp_of(id);
  if (!ts) return deliver::channel_error("not a Signal message timestamp");
  boost::json::object p = addressed();
  p["targetTimestamp"] = *ts;
  deliver::ChannelResult res = finish("remoteDelete", api_.call("remoteDelete", std::move(p), true), true);
  if (res.ok()) return deliver::ChannelResult(id);
  return res;
}

deliver::ChannelResult SignalChannel::file(const deliver::OutgoingFile& f, bool voice) {
  if (!f.payload) return deliver::channel_error("the delivery has no bytes");
  std::string bytes, error;
  if (!deliver::read_payload(*f.payload, bytes, error)) return deliver::channel_error(error);
  const std::string name = !f.name.empty()              ? f.name
                           : !f.payload->name().empty() ? f.payload->name()
                           : voice                      ? std::string("voice-note.ogg")
                                                        : std::string("file");
  const std::string type = !f.mime_type.empty() ? f.mime_type
                           : voice              ? std::string("audio/ogg")
                                                : std::string();
  boost::json::object p = addressed();
  p["attachment"] = boost::json::array{boost::json::value(data_uri(type, name, bytes))};
  if (voice) p["voiceNote"] = true;
  std::vector<SignalText> caption;
  if (!f.caption.empty()) caption = split_signal_text(render_signal_text(f.caption), kSignalBodyBytes);
  if (!caption.empty()) put_text(p, caption.front());
  deliver::ChannelResult r =
      finish(voice ? "send (voice note)" : "send (file)", api_.call("send", std::move(p), false), false);
  for (std::size_t i = 1; r.ok() && i < caption.size(); ++i) {
    boost::json::object more = addressed();
    put_text(more, caption[i]);
    (void)finish("send", api_.call("send", std::move(more), false), true);
  }
  return r;
}

deliver::ChannelResult SignalChannel::send_file(const deliver::OutgoingFile& f) { return file(f, false); }

deliver::ChannelResult SignalChannel::send_voice(const deliver::OutgoingFile& voice) {
  return file(voice, true);
}

deliver::ChannelResult SignalChannel::react(const std::string& message_id, std::string_view emoji) {
  if (emoji.empty()) return deliver::channel_error("no emoji");
  // "" is the message being answered; "<author>/<timestamp>" a person's message (the id the history shows,
  // inbound.h's key()); a bare timestamp the message being answered or one of the bot's own.
  std::optional<std::int64_t> ts;
  std::string author;
  if (message_id.empty()) {
    ts = target_.answering;
    author = target_.answering_author;
  } else if (const auto slash = message_id.rfind('/'); slash != std::string::npos) {
    ts = timestamp_of(std::string_view(message_id).substr(slash + 1));
    author = message_id.substr(0, slash);
  } else {
    ts = timestamp_of(message_id);
    author = ts && *ts == target_.answering ? target_.answering_author : target_.account;
  }
  if (!ts || *ts == 0) return deliver::channel_error("no message to react to");
  if (author.empty()) return deliver::channel_error("the message's author is unknown");
  boost::json::object p = addressed();
  p["emoji"] = std::string(emoji);
  p["targetAuthor"] = author;
  p["targetTimestamp"] = *ts;
  // One reaction per reactor per message: made again, it replaces itself with itself.
  deliver::ChannelResult res = finish("sendReaction", api_.call("sendReaction", std::move(p), true), false);
  if (res.ok()) return deliver::ChannelResult(message_id.empty() ? std::to_string(*ts) : message_id);
  return res;
}

bool SignalChannel::typing() { return api_.call("sendTyping", addressed(), true).ok(); }

}  // namespace sigil::channels::signal
