// The inbound side's decisions for Slack: an Events API payload (from Socket Mode) read as a message, and
// which messages become turns. Pure: no I/O.
//
// What it promises:
// - read_event() takes the fields sigil needs from an event_callback whose event is a `message` or an
//   `app_mention`, or nullopt for other events and for one without channel or ts.
// - key(): "<channel>:<ts>", the message's identity. The same message may come as a `message` event and as
//   an `app_mention` (two event_ids), and again after a late ack: the key makes each of them one message.
// - admit(): the bot's own messages (its user id or bot_id) and other bots' are never answered; messages
//   with a subtype other than file_share (edits, deletions, joins) start nothing; with allowed_users set only
//   those users are answered; a message without text or a file starts nothing; in a DM every message is
//   addressed to the bot, elsewhere only an app_mention (or a message that names `<@bot user id>`).
// - thread_for(): where the answer goes: a DM at the top level (or in the thread the user wrote in), a
//   channel message in its thread (the mention's own ts when it started none).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels::slack {

// A file a user shared with the message, as the event's files[] describes it.
struct InboundFile {
  std::string id;
  std::string name;
  std::string mimetype;
  std::int64_t size = 0;
  std::string url;  // url_private_download (else url_private): fetched with the bot token
};

struct InboundMessage {
  std::string event_id;
  std::string event_type;    // "message" or "app_mention"
  std::string channel;       // C…, G… or D…
  std::string channel_type;  // "im", "channel", "group", "mpim" ("" for an app_mention: not a DM)
  std::string user;
  std::string bot_id;   // set on a bot's message
  std::string subtype;  // "", "file_share", "message_changed", …
  std::string text;
  std::string ts;
  std::string thread_ts;  // the thread it was written in ("": none)
  std::vector<InboundFile> files;

  std::string key() const { return channel + ":" + ts; }
  bool direct() const { return channel_type == "im" || (!channel.empty() && channel.front() == 'D'); }
};

std::optional<InboundMessage> read_event(const boost::json::object& payload);

enum class Verdict : unsigned char { Admitted, Own, FromBot, Subtype, NotAllowed, NoText, NotAddressed };
std::string_view to_string(Verdict verdict);

struct AdmitPolicy {
  std::vector<std::string> allowed_users;  // empty: anyone
  std::string bot_user;                    // U… (auth.test's user_id)
  std::string bot_id;                      // B… (auth.test's bot_id)
};

Verdict admit(const InboundMessage& message, const AdmitPolicy& policy);

// The thread the answer goes in ("": the top level).
std::string thread_for(const InboundMessage& message);

// The text with the bot's mentions (`<@U…>`) removed and whitespace trimmed.
std::string without_bot_mention(std::string_view text, std::string_view bot_user);

// Slack's message text as the user saw it, for the model: `&amp; &lt; &gt;` decoded, a link `<url|text>` as
// "text (url)" and `<url>` as the URL; other `<…>` (mentions, channels) are kept as written.
std::string readable_text(std::string_view text);

}  // namespace sigil::channels::slack
