// One Telegram chat as a deliver::Channel (architecture: channels/telegram/): what the outbox's calls
// become as Bot API calls.
//
// What it promises:
// - Capabilities: text up to 4096 UTF-16 units (the outbox splits longer text; see telegram_html.h for why
//   the rendered message then fits too), reactions limited to Telegram's 73 emoji, files as image, document,
//   audio and video, voice notes, ~1 message per second per chat (Telegram's advice), deletes, and edits
//   when the target streams (TelegramTarget::stream): the outbox then shows a reply as it is written, by
//   sendMessage and editMessageText, and deletes it (deleteMessage) when a late sentinel silences it;
//   without, it holds a reply's text until it is final.
// - edit_text: the whole text so far rendered to Telegram HTML, as send_text does (plain-text retry
//   included), so the last edit leaves the message exactly as send_text would have sent it. 400 "message
//   is not modified" is success (the message already shows that text). An edit whose outcome is unknown is
//   made once more: an edit is idempotent, unlike a send. An edit comes at least edit_gap after the last
//   send or edit of this chat (it waits, on the caller's thread, for what is missing).
// - delete_message: deleteMessage; 400 "message to delete not found" is success (it is gone), so one whose
//   outcome is unknown is made once more.
// - send_text: the Markdown rendered to Telegram HTML (sendMessage, parse_mode HTML); when Telegram
//   refuses it with 400 "can't parse entities", the same text is sent once more as plain text.
// - react: setMessageReaction with one emoji (U+FE0F removed); the message id "" is the one being answered.
// - send_file: image -> sendPhoto (up to 10 MB; larger ones sendDocument), video -> sendVideo, audio ->
//   sendAudio, anything else sendDocument, as multipart uploads of the payload's bytes. A caption longer
//   than 1024 UTF-16 units goes as a text message after the file.
// - send_voice: sendVoice (Ogg Opus, duration in whole seconds). A refusal (400 VOICE_MESSAGES_FORBIDDEN)
//   fails, and the outbox falls back to an audio file: sendAudio with the same bytes.
// - A call whose outcome is unknown (sent, then no answer) is never made again, and in_doubt() lists it,
//   so the turn report says the user may or may not have it. Text fails with "outcome unknown: …";
//   a file, voice note or reaction reports success, so the outbox does not try another way (a second
//   copy if the first one arrived).
// - In groups (reply_to set) the first text message replies to the message being answered.
// - In a forum topic (TelegramTarget::thread_id) every call that makes a message (texts, files, voice notes)
//   and the typing indicator carry message_thread_id, so the reply lands in that topic.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/channels/platform_channel.h"
#include "sigil/channels/telegram/bot_api.h"

namespace sigil::channels::telegram {

struct TelegramTarget {
  std::int64_t chat_id = 0;
  // The forum topic (message_thread_id) every new message, file, voice note and typing indicator goes to;
  // 0: the chat itself (and a forum's General topic, which Telegram never lets a bot name).
  std::int64_t thread_id = 0;
  std::int64_t answering = 0;  // the message being answered (reactions without a target); 0: none
  bool reply = false;          // thread the first text message as a reply to `answering` (groups)
  bool stream = false;         // declare edits: the outbox streams the reply by editing its message
  // Least time between showing a message and editing it (Telegram: about one edit a second per chat). The
  // outbox spaces its streaming edits so; this also holds for the last edit, which the outbox makes at once.
  std::chrono::milliseconds edit_gap{0};
};

class TelegramChannel final : public PlatformChannel {
 public:
  TelegramChannel(BotApi& api, TelegramTarget target);

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  bool shows_text(std::string_view text) const override;
  deliver::ChannelResult edit_text(const std::string& id, std::string_view text) override;
  deliver::ChannelResult delete_message(const std::string& id) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;

  // sendChatAction "typing" (shown for ~5 s). Best effort: false when it failed.
  bool typing() override;

  static deliver::ChannelCapabilities telegram_capabilities();

 private:
  deliver::ChannelResult finish(std::string_view method, const ApiOutcome& o, bool text);
  // chat_id, and message_thread_id in a forum topic: what every call that makes a message starts with.
  boost::json::object new_message_params() const;
  // sendMessage or editMessageText with `p` plus the text as HTML, and once more as plain text when
  // Telegram cannot parse the HTML.
  ApiOutcome call_with_text(std::string_view method, boost::json::object p, std::string_view text);
  deliver::ChannelResult upload(std::string_view method, std::string_view field,
                                const deliver::OutgoingFile& f, bool with_caption, bool voice);

  BotApi& api_;
  TelegramTarget target_;
  bool replied_ = false;
  std::chrono::steady_clock::time_point last_shown_{};  // the last send_text or edit_text that succeeded
};

}  // namespace sigil::channels::telegram
