#include "sigil/channels/matrix/matrix_channel.h"

#include <boost/json/serialize.hpp>
#include <cstdio>
#include <utility>

#include "sigil/channels/json_fields.h"
#include "sigil/channels/matrix/matrix_html.h"
#include "sigil/deliver/split.h"
#include "sigil/text/random_id.h"

namespace sigil::channels::matrix {
namespace {

constexpr std::size_t kTextLimit = 16'000;
constexpr deliver::TextUnit kUnit = deliver::TextUnit::CodePoints;
// Well below the 65,536 bytes of a whole event: the homeserver measures the federation PDU, which adds
// hashes, signatures and auth events to the content.
constexpr std::size_t kMaxContentBytes = 48'000;

boost::json::object text_content(std::string_view markdown, bool notice) {
  MatrixText t = render_matrix_text(markdown);
  boost::json::object c{{"msgtype", notice ? "m.notice" : "m.text"}, {"body", std::move(t.body)}};
  c["format"] = "org.matrix.custom.html";
  c["formatted_body"] = std::move(t.html);
  return c;
}

bool is_event_id(std::string_view id) { return id.size() > 1 && id.front() == '$'; }

}  // namespace

std::string matrix_txn_id(std::string_view seed, std::string_view kind, std::uint64_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&](std::string_view s) {
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001b3ull;
    }
    h ^= 0xff;  // a separator no UTF-8 text holds
    h *= 0x100000001b3ull;
  };
  mix(seed);
  mix(kind);
  mix(std::to_string(n));
  char out[19];
  std::snprintf(out, sizeof out, "sg%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::vector<std::string> event_parts(std::string_view markdown, std::size_t max_bytes) {
  const std::size_t size = boost::json::serialize(text_content(markdown, false)).size();
  if (size <= max_bytes || markdown.size() < 2) return {std::string(markdown)};
  std::vector<std::string> out;
  // Half the bytes (at least): each half renders to about half the event.
  for (const std::string& part : deliver::split_text(markdown, markdown.size() / 2, deliver::TextUnit::Bytes))
    for (std::string& p : event_parts(part, max_bytes)) out.push_back(std::move(p));
  return out;
}

MatrixChannel::MatrixChannel(ClientApi& api, MatrixTarget target) : api_(api), target_(std::move(target)) {
  if (target_.txn_seed.empty()) target_.txn_seed = text::random_id("mx-");
}

deliver::ChannelCapabilities MatrixChannel::matrix_capabilities() {
  deliver::ChannelCapabilities c;
  c.reactions = true;  // any emoji: the key is the emoji itself
  c.file_kinds = {"image", "document", "audio", "video"};
  c.voice_notes = true;
  c.edits = true;
  c.deletes = true;
  c.text_limit = kTextLimit;
  c.text_unit = kUnit;
  c.markdown = deliver::MarkdownFlavour::CommonMark;  // rendered here, to Matrix's HTML
  c.rate = {0.2, 10};
  return c;
}

deliver::ChannelCapabilities MatrixChannel::capabilities() const { return matrix_capabilities(); }

std::string MatrixChannel::txn(std::string_view kind, std::uint64_t n) const {
  return matrix_txn_id(target_.txn_seed, kind, n);
}

deliver::ChannelResult MatrixChannel::finish(std::string_view what, const ApiOutcome& o, bool text) {
  if (o.ok()) return shown(string_at(o.body, "event_id"));
  return failed({"matrix-send-failed", "room", target_.room, "call"}, what, o.summary(),
                o.kind == ApiOutcome::Kind::Unknown, text);
}

deliver::ChannelResult MatrixChannel::send_text(std::string_view text) {
  // A different text than the one in doubt is a new transaction; the same one is its repeat.
  if (!doubtful_text_.empty() && doubtful_text_ != text) {
    ++texts_;
    doubtful_text_.clear();
  }
  const std::string kind = "text" + std::to_string(texts_);
  deliver::ChannelResult last = deliver::channel_error("nothing to send");
  std::uint64_t n = 0;
  for (const std::string& part : event_parts(text, kMaxContentBytes)) {
    if (part.empty()) continue;
    const ApiOutcome o =
        api_.send_event(target_.room, "m.room.message", text_content(part, target_.notice), txn(kind, n++));
    last = finish("send m.text", o, true);
    if (o.kind == ApiOutcome::Kind::Unknown) {
      doubtful_text_ = std::string(text);
      return last;
    }
    if (!last.ok()) break;
  }
  ++texts_;
  doubtful_text_.clear();
  return last;
}

deliver::ChannelResult MatrixChannel::edit_text(const std::string& id, std::string_view text) {
  if (!is_event_id(id)) return deliver::channel_error("not a Matrix event id");
  std::string markdown(text);
  const std::vector<std::string> parts = event_parts(markdown, kMaxContentBytes / 2);
  if (parts.size() > 1) markdown = parts.front();  // one event cannot become two by an edit: its head
  boost::json::object fresh = text_content(markdown, target_.notice);
  boost::json::object c{{"msgtype", fresh.at("msgtype")},
                        {"body", "* " + std::string(fresh.at("body").as_string())},
                        {"format", "org.matrix.custom.html"},
                        {"formatted_body", "* " + std::string(fresh.at("formatted_body").as_string())}};
  c["m.new_content"] = std::move(fresh);
  c["m.relates_to"] = boost::json::object{{"rel_type", "m.replace"}, {"event_id", id}};
  deliver::ChannelResult r = finish(
      "send m.replace", api_.send_event(target_.room, "m.room.message", c, txn("edit", edits_++)), true);
  if (r.ok()) return deliver::ChannelResult(id);
  return r;
}

deliver::ChannelResult MatrixChannel::delete_message(const std::string& id) {
  if (!is_event_id(id)) return deliver::channel_error("not a Matrix event id");
  deliver::ChannelResult r = finish("redact", api_.redact(target_.room, id, txn("redact:" + id, 0)), true);
  if (r.ok()) return deliver::ChannelResult(id);
  return r;
}

deliver::ChannelResult MatrixChannel::media(const deliver::OutgoingFile& f, std::string msgtype, bool voice) {
  if (!f.payload) return deliver::channel_error("the delivery has no bytes");
  std::string data, error;
  if (!deliver::read_payload(*f.payload, data, error)) return deliver::channel_error(error);
  const std::string name = !f.name.empty()              ? f.name
                           : !f.payload->name().empty() ? f.payload->name()
                           : voice                      ? std::string("voice-note.ogg")
                                                        : std::string("file");
  const std::string mime = !f.mime_type.empty() ? f.mime_type
                           : voice              ? "audio/ogg"
                                                : "application/octet-stream";
  const std::uint64_t n = files_++;
  // Nothing is shown by an upload: a failed one fails the call, and the outbox tries the next way.
  const ApiOutcome up = api_.upload(data, mime, name);
  if (!up.ok()) return deliver::channel_error("media upload: " + up.summary());
  const std::string uri = string_at(up.body, "content_uri");
  if (uri.empty()) return deliver::channel_error("media upload without content_uri");
  boost::json::object info{{"mimetype", mime}, {"size", data.size()}};
  boost::json::object c{{"msgtype", std::move(msgtype)}, {"body", name}, {"filename", name}, {"url", uri}};
  if (voice || f.duration_ms > 0) info["duration"] = f.duration_ms;
  c["info"] = std::move(info);
  if (voice) {
    c["org.matrix.msc1767.audio"] = boost::json::object{{"duration", f.duration_ms}};
    c["org.matrix.msc3245.voice"] = boost::json::object{};
  }
  deliver::ChannelResult r =
      finish("send " + std::string(c.at("msgtype").as_string()),
             api_.send_event(target_.room, "m.room.message", c, txn("file", n)), false);
  if (r.ok() && !f.caption.empty()) (void)send_text(f.caption);
  return r;
}

deliver::ChannelResult MatrixChannel::send_file(const deliver::OutgoingFile& file) {
  const std::string type = file.kind == "image"   ? "m.image"
                           : file.kind == "audio" ? "m.audio"
                           : file.kind == "video" ? "m.video"
                                                  : "m.file";
  return media(file, type, false);
}

deliver::ChannelResult MatrixChannel::send_voice(const deliver::OutgoingFile& voice) {
  return media(voice, "m.audio", true);
}

deliver::ChannelResult MatrixChannel::react(const std::string& message_id, std::string_view emoji) {
  const std::string target = message_id.empty() ? target_.answering : message_id;
  if (target.empty()) return deliver::channel_error("no message to react to");
  if (!is_event_id(target)) return deliver::channel_error("not a Matrix event id");
  if (emoji.empty()) return deliver::channel_error("no emoji");
  boost::json::object c{
      {"m.relates_to",
       boost::json::object{{"rel_type", "m.annotation"}, {"event_id", target}, {"key", std::string(emoji)}}}};
  const ApiOutcome o =
      api_.send_event(target_.room, "m.reaction", c, txn("react:" + target + ":" + std::string(emoji), 0));
  // The same reaction is there already (an earlier run of this turn sent it under another token).
  if (o.kind == ApiOutcome::Kind::Refused && o.errcode == "M_DUPLICATE_ANNOTATION") return shown(target);
  deliver::ChannelResult r = finish("send m.reaction", o, false);
  if (r.ok()) return deliver::ChannelResult(target);
  return r;
}

bool MatrixChannel::typing() {
  if (target_.bot_user.empty()) return false;
  const ApiOutcome o = api_.call(
      "PUT",
      "/_matrix/client/v3/rooms/" + path_segment(target_.room) + "/typing/" + path_segment(target_.bot_user),
      R"({"typing":true,"timeout":10000})", true);
  return o.ok();
}

}  // namespace sigil::channels::matrix
