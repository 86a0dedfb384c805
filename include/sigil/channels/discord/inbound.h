// The inbound side's decisions for Discord: a MESSAGE_CREATE dispatch read as a message, and which messages
// become turns. Pure: no I/O.
//
// What it promises:
// - read_message_create() takes the fields sigil needs from the Message object (ids as the strings Discord
//   sends), or nullopt when something essential (id, channel_id, author) is missing.
// - admit(): the bot's own messages and other bots' are never answered; with allowed_users set only those
//   users are; a message without text or a file starts nothing; in a DM every message is addressed to the
//   bot, in a guild channel (or thread) only one that mentions the bot (`<@id>`, `<@!id>` or the mentions
//   list) or replies to one of its messages.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels::discord {

// Message flag IS_VOICE_MESSAGE: its one attachment is a voice note (both ways).
inline constexpr std::int64_t kVoiceMessageFlag = 1 << 13;

// A file attached to a message, as the Message object's attachments[] describes it.
struct InboundAttachment {
  std::string id;
  std::string filename;
  std::string content_type;  // "" when Discord gives none
  std::int64_t size = 0;
  std::string url;  // where it is downloaded from (the CDN)
};

struct InboundMessage {
  std::string id;          // the message's snowflake: the key that makes a redelivery harmless
  std::string channel_id;  // the conversation: a guild channel, a thread or a DM
  std::string guild_id;    // empty in a DM
  std::string author_id;
  std::string author_name;  // for logs and history
  bool author_bot = false;
  std::string content;
  std::vector<std::string> mentions;  // user ids
  std::string reply_to_author;        // the author of the message this one replies to ("": not a reply)
  std::vector<InboundAttachment> attachments;
  bool voice = false;  // flag 8192 (IS_VOICE_MESSAGE): its one attachment is a voice note
};

std::optional<InboundMessage> read_message_create(const boost::json::object& d);

enum class Verdict : unsigned char { Admitted, Own, FromBot, NotAllowed, NoText, NotAddressed };
std::string_view to_string(Verdict verdict);

struct AdmitPolicy {
  std::vector<std::string> allowed_users;  // empty: anyone
  std::string bot_id;
};

Verdict admit(const InboundMessage& message, const AdmitPolicy& policy);

// The content with the bot's mentions removed and whitespace trimmed: what the model is asked.
std::string without_bot_mention(std::string_view content, std::string_view bot_id);

}  // namespace sigil::channels::discord
