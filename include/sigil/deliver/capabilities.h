// What a channel can show (architecture: "a channel declares capabilities"). The outbox asks these, never
// assumes, and falls back where one is missing (voice -> audio -> document -> a text line; a reaction the
// channel cannot show is skipped and reported).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::deliver {

// How a channel counts its text limit. Telegram counts UTF-16 code units, Slack and Discord count
// characters (code points), a byte-limited transport counts bytes.
enum class TextUnit : unsigned char { Bytes, Utf16, CodePoints };
std::string_view to_string(TextUnit unit);

// Which Markdown the channel renders. The outbox passes text through as the model wrote it (CommonMark-ish);
// the flavour is declared so a renderer can convert (not done yet: see docs/channels.md).
enum class MarkdownFlavour : unsigned char { Plain, CommonMark, Gfm, TelegramMarkdownV2, SlackMrkdwn, Html };
std::string_view to_string(MarkdownFlavour flavour);

// A token bucket: `per_second` messages on average, up to `burst` at once. per_second == 0: unlimited.
// Every channel call that shows something (send, edit, append, file, voice, reaction, delete) takes a token.
struct RateLimit {
  double per_second = 0;
  unsigned burst = 1;
};

struct ChannelCapabilities {
  bool reactions = false;
  // The reactions the channel accepts (Unicode, compared without U+FE0E/U+FE0F); nullopt: any emoji.
  std::optional<std::vector<std::string>> allowed_reactions;
  // File kinds it can send as such: any of "image", "document", "audio", "video" (spec 13 send-file kinds).
  std::vector<std::string> file_kinds;
  bool voice_notes = false;
  // edits: a sent text message can be replaced (streaming by edit, one message growing).
  // append: a sent text message can be extended but never changed (a terminal, an event stream); when a
  //         channel has both, the outbox streams by appending (it sends only what is new).
  // deletes: a sent message can be removed (late sentinels, spec 7.4 / 12.7).
  bool edits = false;
  bool append = false;
  bool deletes = false;
  // Longest text message, counted in text_unit; 0: no limit. Longer text is split (see split.h).
  std::size_t text_limit = 0;
  TextUnit text_unit = TextUnit::Bytes;
  MarkdownFlavour markdown = MarkdownFlavour::Plain;
  RateLimit rate;

  bool accepts_file_kind(std::string_view kind) const;
  // Whether a reaction with this emoji can be shown (reactions on, and allowed when there is a set).
  bool accepts_reaction(std::string_view emoji) const;

  // Everything, no limits: what the web chat offers (streaming by append, deletes, every file kind, voice
  // notes, any reaction, no text limit, GFM, no rate limit).
  static ChannelCapabilities everything();
};

}  // namespace sigil::deliver
