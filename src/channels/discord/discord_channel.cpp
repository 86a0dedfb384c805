#include "sigil/channels/discord/discord_channel.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <utility>

#include "sigil/channels/discord/discord_markdown.h"
#include "sigil/channels/discord/inbound.h"
#include "sigil/channels/discord/voice_waveform.h"
#include "sigil/deliver/split.h"
#include "sigil/net/url.h"
#include "sigil/text/random_id.h"

namespace sigil::channels::discord {
namespace {

constexpr std::size_t kTextLimit = 2000;
constexpr deliver::TextUnit kUnit = deliver::TextUnit::CodePoints;

std::string id_of(const RestOutcome& o) {
  if (!o.body.is_object()) return {};
  const auto* id = o.body.as_object().if_contains("id");
  return id != nullptr && id->is_string() ? std::string(id->as_string()) : std::string();
}

bool is_snowflake(std::string_view s) {
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The rendered text as messages of at most 2,000 code points.
std::vector<std::string> rendered_parts(std::string_view markdown) {
  std::string rendered = render_discord_markdown(markdown);
  if (deliver::text_units(rendered, kUnit) <= kTextLimit) return {std::move(rendered)};
  return deliver::split_text(rendered, kTextLimit, kUnit);
}

}  // namespace

std::string discord_nonce(std::string_view seed, std::uint64_t n) {
  // FNV-1a, 64 bits: the same seed and count give the same nonce in every process.
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&](unsigned char c) {
    h ^= c;
    h *= 0x100000001b3ull;
  };
  for (char c : seed) mix(static_cast<unsigned char>(c));
  mix(':');
  for (char c : std::to_string(n)) mix(static_cast<unsigned char>(c));
  return std::to_string(h);
}

DiscordChannel::DiscordChannel(RestApi& api, DiscordTarget target) : api_(api), target_(std::move(target)) {
  if (target_.nonce_seed.empty()) target_.nonce_seed = text::random_id("dc-");
}

deliver::ChannelCapabilities DiscordChannel::discord_capabilities() {
  deliver::ChannelCapabilities c;
  c.reactions = true;  // any Unicode emoji, or name:id
  c.file_kinds = {"image", "document", "audio", "video"};
  c.voice_notes = true;
  c.edits = true;
  c.deletes = true;
  c.text_limit = kTextLimit;
  c.text_unit = kUnit;
  c.markdown = deliver::MarkdownFlavour::CommonMark;  // rendered here, to Discord Markdown
  c.rate = {1.0, 5};
  return c;
}

deliver::ChannelCapabilities DiscordChannel::capabilities() const { return discord_capabilities(); }

std::string DiscordChannel::next_nonce() { return discord_nonce(target_.nonce_seed, creates_++); }

deliver::ChannelResult DiscordChannel::finish(std::string_view what, const RestOutcome& o, bool text) {
  if (o.ok()) return shown(id_of(o));
  return failed({"discord-send-failed", "channel", target_.channel_id, "call"}, what, o.summary(),
                o.kind == RestOutcome::Kind::Unknown, text);
}

deliver::ChannelResult DiscordChannel::create(boost::json::object payload, std::vector<RestFile> files,
                                              bool text) {
  payload["nonce"] = next_nonce();
  payload["enforce_nonce"] = true;
  payload["allowed_mentions"] = boost::json::object{{"parse", boost::json::array{}}};
  if (text && target_.reply && !replied_ && !target_.answering.empty()) {
    payload["message_reference"] =
        boost::json::object{{"message_id", target_.answering}, {"fail_if_not_exists", false}};
    replied_ = true;
  }
  RestRequest r;
  r.method = "POST";
  r.path = "/channels/" + target_.channel_id + "/messages";
  r.json = std::move(payload);
  r.files = std::move(files);
  return finish("create message", api_.call(r), text);
}

deliver::ChannelResult DiscordChannel::send_text(std::string_view text) {
  deliver::ChannelResult last = deliver::channel_error("nothing to send");
  for (std::string& part : rendered_parts(text)) {
    if (part.empty()) continue;
    last = create(boost::json::object{{"content", std::move(part)}}, {}, true);
    if (!last.ok()) return last;
  }
  return last;
}

deliver::ChannelResult DiscordChannel::edit_text(const std::string& id, std::string_view text) {
  if (!is_snowflake(id)) return deliver::channel_error("not a Discord message id");
  std::string content = render_discord_markdown(text);
  if (deliver::text_units(content, kUnit) > kTextLimit) {
    // One message cannot become two by an edit: the longest safe head of it.
    if (auto cut = deliver::split_once(content, kTextLimit, kUnit)) content = cut->head;
  }
  RestRequest r;
  r.method = "PATCH";
  r.path = "/channels/" + target_.channel_id + "/messages/" + id;
  r.json = boost::json::object{{"content", content}, {"allowed_mentions", {{"parse", boost::json::array{}}}}};
  deliver::ChannelResult res = finish("edit message", api_.call(r), true);
  if (res.ok()) return deliver::ChannelResult(id);
  return res;
}

deliver::ChannelResult DiscordChannel::delete_message(const std::string& id) {
  if (!is_snowflake(id)) return deliver::channel_error("not a Discord message id");
  RestRequest r;
  r.method = "DELETE";
  r.path = "/channels/" + target_.channel_id + "/messages/" + id;
  const RestOutcome o = api_.call(r);
  if (o.kind == RestOutcome::Kind::Refused && o.code == 10008)
    return deliver::ChannelResult(id);  // gone already
  deliver::ChannelResult res = finish("delete message", o, true);
  if (res.ok()) return deliver::ChannelResult(id);
  return res;
}

deliver::ChannelResult DiscordChannel::attach(const deliver::OutgoingFile& f, bool voice) {
  if (!f.payload) return deliver::channel_error("the delivery has no bytes");
  RestFile file;
  std::string error;
  if (!deliver::read_payload(*f.payload, file.data, error)) return deliver::channel_error(error);
  file.filename = f.name.empty() ? f.payload->name() : f.name;
  file.content_type = f.mime_type.empty() ? f.payload->mime_type() : f.mime_type;
  boost::json::object attachment{{"id", 0}, {"filename", file.filename}};
  boost::json::object payload;
  std::vector<std::string> caption_after;
  if (voice) {
    if (file.content_type.rfind("audio/ogg", 0) != 0)
      return deliver::channel_error("a voice message must be Ogg Opus");
    payload["flags"] = kVoiceMessageFlag;
    attachment["duration_secs"] = static_cast<double>(f.duration_ms) / 1000.0;
    attachment["waveform"] = voice_waveform_base64(file.data);
  } else if (!f.caption.empty()) {
    std::vector<std::string> parts = rendered_parts(f.caption);
    if (parts.size() == 1) {
      payload["content"] = parts.front();
    } else {
      caption_after = std::move(parts);  // Discord cuts nothing for us: a long caption follows as text
    }
  }
  payload["attachments"] = boost::json::array{std::move(attachment)};
  std::vector<RestFile> files;
  files.push_back(std::move(file));
  deliver::ChannelResult r = create(std::move(payload), std::move(files), false);
  if (r.ok())
    for (std::string& part : caption_after)
      (void)create(boost::json::object{{"content", std::move(part)}}, {}, true);
  return r;
}

deliver::ChannelResult DiscordChannel::send_file(const deliver::OutgoingFile& file) {
  return attach(file, false);
}

deliver::ChannelResult DiscordChannel::send_voice(const deliver::OutgoingFile& voice) {
  return attach(voice, true);
}

deliver::ChannelResult DiscordChannel::react(const std::string& message_id, std::string_view emoji) {
  const std::string target = message_id.empty() ? target_.answering : message_id;
  if (target.empty()) return deliver::channel_error("no message to react to");
  if (!is_snowflake(target)) return deliver::channel_error("not a Discord message id");
  if (emoji.empty()) return deliver::channel_error("no emoji");
  // A custom emoji is name:id as Discord names it ("<:name:id>" as written in a message works too).
  std::string_view e = emoji;
  if (e.size() > 2 && e.front() == '<' && e.back() == '>') {
    e = e.substr(1, e.size() - 2);
    if (e.front() == ':') e.remove_prefix(1);
  }
  RestRequest r;
  r.method = "PUT";
  r.path = "/channels/" + target_.channel_id + "/messages/" + target + "/reactions/" +
           net::percent_encode(e) + "/@me";
  deliver::ChannelResult res = finish("add reaction", api_.call(r), false);
  if (res.ok()) return deliver::ChannelResult(target);
  return res;
}

bool DiscordChannel::typing() {
  RestRequest r;
  r.method = "POST";
  r.path = "/channels/" + target_.channel_id + "/typing";
  return api_.call(r).ok();
}

}  // namespace sigil::channels::discord
