#include "sigil/channels/telegram/telegram_channel.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <climits>
#include <optional>
#include <thread>
#include <utility>

#include "channels/markdown_walk.h"
#include "sigil/channels/telegram/telegram_html.h"
#include "sigil/deliver/split.h"
#include "sigil/log/log.h"
#include "sigil/text/ascii.h"
#include "sigil/text/emoji_compare.h"
#include "sigil/text/utf8.h"

namespace sigil::channels::telegram {
namespace {

constexpr std::size_t kTextLimit = 4096;
constexpr std::size_t kCaptionLimit = 1024;
constexpr std::uint64_t kPhotoLimit = 10u << 20;

bool contains_ci(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i)
    if (text::ascii::iequals(haystack.substr(i, needle.size()), needle)) return true;
  return false;
}

std::string message_id_of(const ApiOutcome& o) {
  if (!o.result.is_object()) return {};
  const auto* id = o.result.as_object().if_contains("message_id");
  return id != nullptr && id->is_int64() ? std::to_string(id->as_int64()) : std::string();
}

// A message id as the outbox hands it back ("42"), or nullopt when it is not one.
std::optional<std::int64_t> message_number(std::string_view id) {
  if (id.empty()) return std::nullopt;
  std::int64_t n = 0;
  for (char c : id) {
    if (c < '0' || c > '9' || n > (INT64_MAX - 9) / 10) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Reaction emoji are compared without variation selectors; Telegram's list has none.
std::string without_variation_selectors(std::string_view emoji) {
  std::string out(emoji);
  for (std::size_t at; (at = out.find("\xEF\xB8\x8F")) != std::string::npos;) out.erase(at, 3);
  for (std::size_t at; (at = out.find("\xEF\xB8\x8E")) != std::string::npos;) out.erase(at, 3);
  return out;
}

}  // namespace

TelegramChannel::TelegramChannel(BotApi& api, TelegramTarget target) : api_(api), target_(target) {}

deliver::ChannelCapabilities TelegramChannel::telegram_capabilities() {
  deliver::ChannelCapabilities c;
  c.reactions = true;
  c.allowed_reactions = telegram_reaction_emoji();
  c.file_kinds = {"image", "document", "audio", "video"};
  c.voice_notes = true;
  c.text_limit = kTextLimit;
  c.text_unit = deliver::TextUnit::Utf16;
  c.markdown = deliver::MarkdownFlavour::CommonMark;  // rendered here, to Telegram HTML
  c.rate = {1.0, 3};
  c.deletes = true;
  return c;
}

deliver::ChannelCapabilities TelegramChannel::capabilities() const {
  deliver::ChannelCapabilities c = telegram_capabilities();
  c.edits = target_.stream;
  // A group's admins may allow fewer reactions than Telegram has: then the outbox skips the others (and
  // says so in the report) instead of Telegram refusing them.
  if (auto allowed = api_.chat_reactions(target_.chat_id)) {
    std::erase_if(*allowed, [](const std::string& e) {
      return std::none_of(telegram_reaction_emoji().begin(), telegram_reaction_emoji().end(),
                          [&](const std::string& t) { return text::same_emoji(t, e); });
    });
    c.allowed_reactions = std::move(*allowed);
  }
  return c;
}

deliver::ChannelResult TelegramChannel::finish(std::string_view method, const ApiOutcome& o, bool text) {
  if (o.ok()) return shown(message_id_of(o));
  return failed({"telegram-send-failed", "chat", std::to_string(target_.chat_id), "method"}, method,
                o.summary(), o.kind == ApiOutcome::Kind::Unknown, text, " (not sent again)");
}

ApiOutcome TelegramChannel::call_with_text(std::string_view method, boost::json::object p,
                                           std::string_view text) {
  const std::string html = render_telegram_html(text);
  const bool html_fits = telegram_visible_units(html) <= kTextLimit && !html.empty();
  p["text"] = html_fits ? html : nuls_replaced(text);
  if (html_fits) p["parse_mode"] = "HTML";
  ApiOutcome o = api_.call(method, p);
  if (html_fits && o.kind == ApiOutcome::Kind::Refused && o.error_code == 400 &&
      contains_ci(o.description, "can't parse entities")) {
    // Our HTML and Telegram's parser disagree: the words matter more than the formatting.
    if (log::enabled(log::Level::warn))
      log::write(log::Record{log::Level::warn, "telegram-html-refused", {}}
                     .with("chat", target_.chat_id)
                     .with("error", o.description));
    p["text"] = nuls_replaced(text);
    p.erase("parse_mode");
    o = api_.call(method, p);
  }
  return o;
}

bool TelegramChannel::shows_text(std::string_view text) const {
  // "```sh\n" alone renders to an empty <pre>: Telegram would refuse it ("message text is empty").
  return telegram_visible_units(render_telegram_html(text)) > 0;
}

boost::json::object TelegramChannel::new_message_params() const {
  boost::json::object p;
  p["chat_id"] = target_.chat_id;
  // A forum topic's messages name it, or they land in the General topic. (General itself is never named:
  // Telegram refuses message_thread_id 1 with "message thread not found"; thread_id is 0 there.)
  if (target_.thread_id != 0) p["message_thread_id"] = target_.thread_id;
  return p;
}

deliver::ChannelResult TelegramChannel::send_text(std::string_view text) {
  boost::json::object p = new_message_params();
  if (target_.reply && !replied_ && target_.answering != 0) {
    p["reply_parameters"] =
        boost::json::object{{"message_id", target_.answering}, {"allow_sending_without_reply", true}};
    replied_ = true;
  }
  deliver::ChannelResult r = finish("sendMessage", call_with_text("sendMessage", std::move(p), text), true);
  if (r.ok()) last_shown_ = std::chrono::steady_clock::now();
  return r;
}

deliver::ChannelResult TelegramChannel::edit_text(const std::string& id, std::string_view text) {
  const std::optional<std::int64_t> message = message_number(id);
  if (!message) return deliver::channel_error("not a Telegram message id");
  const auto ready = last_shown_ + target_.edit_gap;
  if (const auto now = std::chrono::steady_clock::now(); ready > now)
    std::this_thread::sleep_for(ready - now);
  const boost::json::object p{{"chat_id", target_.chat_id}, {"message_id", *message}};
  ApiOutcome o = call_with_text("editMessageText", p, text);
  // Repeating an edit cannot show anything twice: at worst Telegram says the message is not modified.
  if (o.kind == ApiOutcome::Kind::Unknown) o = call_with_text("editMessageText", p, text);
  if (o.kind == ApiOutcome::Kind::Refused && o.error_code == 400 &&
      contains_ci(o.description, "message is not modified"))
    return deliver::ChannelResult(id);  // it shows this text already (no edit happened: no wait next time)
  deliver::ChannelResult r = finish("editMessageText", o, true);
  last_shown_ = std::chrono::steady_clock::now();
  if (r.ok()) return deliver::ChannelResult(id);
  return r;
}

deliver::ChannelResult TelegramChannel::delete_message(const std::string& id) {
  const std::optional<std::int64_t> message = message_number(id);
  if (!message) return deliver::channel_error("not a Telegram message id");
  const boost::json::object p{{"chat_id", target_.chat_id}, {"message_id", *message}};
  ApiOutcome o = api_.call("deleteMessage", p);
  // Deleting again cannot take away anything else: at worst the message is gone already (below).
  if (o.kind == ApiOutcome::Kind::Unknown) o = api_.call("deleteMessage", p);
  if (o.kind == ApiOutcome::Kind::Refused && o.error_code == 400 &&
      contains_ci(o.description, "message to delete not found"))
    return deliver::ChannelResult(id);  // gone already
  deliver::ChannelResult r = finish("deleteMessage", o, true);
  if (r.ok()) return deliver::ChannelResult(id);
  return r;
}

deliver::ChannelResult TelegramChannel::upload(std::string_view method, std::string_view field,
                                               const deliver::OutgoingFile& f, bool with_caption,
                                               bool voice) {
  if (!f.payload) return deliver::channel_error("the delivery has no bytes");
  UploadFile file;
  std::string error;
  if (!deliver::read_payload(*f.payload, file.data, error)) return deliver::channel_error(error);
  file.field = std::string(field);
  file.filename = f.name.empty() ? f.payload->name() : f.name;
  file.content_type = f.mime_type.empty() ? f.payload->mime_type() : f.mime_type;
  boost::json::object p = new_message_params();
  if (with_caption && !f.caption.empty()) p["caption"] = f.caption;
  if (voice && f.duration_ms > 0) p["duration"] = static_cast<std::int64_t>((f.duration_ms + 999) / 1000);
  return finish(method, api_.upload(method, p, file), false);
}

deliver::ChannelResult TelegramChannel::send_file(const deliver::OutgoingFile& file) {
  const bool caption_fits = text::utf16_length(file.caption) <= kCaptionLimit;
  std::string_view method = "sendDocument", field = "document";
  if (file.kind == "image" && file.size <= kPhotoLimit) {
    method = "sendPhoto";
    field = "photo";
  } else if (file.kind == "video") {
    method = "sendVideo";
    field = "video";
  } else if (file.kind == "audio") {
    method = "sendAudio";
    field = "audio";
  }
  deliver::ChannelResult r = upload(method, field, file, caption_fits, false);
  if (r.ok() && !caption_fits) {
    // Telegram cuts nothing for us: a long caption becomes the text after the file.
    for (const std::string& part : deliver::split_text(file.caption, kTextLimit, deliver::TextUnit::Utf16))
      (void)send_text(part);
  }
  return r;
}

deliver::ChannelResult TelegramChannel::send_voice(const deliver::OutgoingFile& voice) {
  // A refusal (400 VOICE_MESSAGES_FORBIDDEN: the user's privacy settings refuse voice messages from bots)
  // fails here, and the outbox falls back to an audio file (sendAudio), noting it in the turn report.
  return upload("sendVoice", "voice", voice, true, true);
}

deliver::ChannelResult TelegramChannel::react(const std::string& message_id, std::string_view emoji) {
  std::int64_t target = target_.answering;
  if (!message_id.empty()) {
    const std::optional<std::int64_t> given = message_number(message_id);
    if (!given) return deliver::channel_error("not a Telegram message id");
    target = *given;
  }
  if (target == 0) return deliver::channel_error("no message to react to");
  boost::json::object p;
  p["chat_id"] = target_.chat_id;
  p["message_id"] = target;
  p["reaction"] = boost::json::array{
      boost::json::object{{"type", "emoji"}, {"emoji", without_variation_selectors(emoji)}}};
  ApiOutcome o = api_.call("setMessageReaction", p);
  deliver::ChannelResult r = finish("setMessageReaction", o, false);
  if (r.ok()) return deliver::ChannelResult(std::to_string(target));
  return r;
}

bool TelegramChannel::typing() {
  boost::json::object p = new_message_params();  // the indicator shows in the topic
  p["action"] = "typing";
  return api_.call("sendChatAction", p).ok();
}

}  // namespace sigil::channels::telegram
