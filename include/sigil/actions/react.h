// The `react` action (spec 13): `<react emoji="thumbsup"/>` adds a reaction to the message being answered
// (or to args.message). The parser keeps the emoji as written (spec 9.5); it is resolved here, when the
// reaction runs.
//
// What resolve_emoji() accepts, after trimming ASCII whitespace (at most 128 bytes; longer is refused):
// - A name: one pair of surrounding colons is dropped (`:thumbsup:`), ASCII case is ignored, `-` and ` `
//   count as `_` and runs of `_` as one (`THUMBS-UP`, `thumbs up` = `thumbs_up`). Names come from the
//   emojibase, Slack (iamcal), GitHub and CLDR shortcode sets of emojibase-data plus a few hand-written
//   words (like, love, laugh, check, done...): see scripts/gen-emoji-table, which generated
//   src/actions/emoji_table.inc.
// - A skin tone: `thumbsup_tone2` (emojibase's names), or Slack's `:thumbsup::skin-tone-3:` (skin-tone-2..6
//   = tone1..5; skin-tone-1 is the default yellow). A tone on an emoji that has no skin tones is ignored.
// - A Unicode emoji the table knows, compared without U+FE0E/U+FE0F (❤ and ❤️ are the same): it
// resolves
//   to its fully-qualified form (👍, ❤️), which is what channels expect.
// - A Unicode emoji the table does not know (newer than the data), passed through as written: at most 32
//   bytes, one grapheme cluster, starting with a symbol (So, or an unassigned code point in U+1F000..1FFFF),
//   followed only by symbols, modifiers, combining marks, ZWJ, variation selectors and tag characters; no
//   ASCII, letters, digits, spaces or controls.
// Anything else is refused (nullopt).
//
// The handler promises: on success one Reaction delivery {emoji: the resolved Unicode form, message:
// args.message or "" for the message being answered}, the message `reacted 👍` and the result
// {"emoji":"👍"}; otherwise an error result, one line, that says what to write instead (`react: unknown
// emoji "thumbs upp"; write a Unicode emoji or a name like thumbsup, heart, tada`). args.message must be a
// platform id the conversation's history holds (store::Message::platform_id, shown to the model as
// "[message <id>]"); any other is an error result naming it, never a reaction sent nowhere. It does one
// indexed store read at most and never blocks otherwise, so it has no stop point. It never sees a channel:
// whether the channel can show the reaction is the channel's business, except for ReactConfig::allowed.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/exec/handler.h"

namespace sigil::actions {

struct ReactConfig {
  // The emoji this deployment may react with (any spelling resolve_emoji() accepts; compared without
  // variation selectors). Empty: any emoji. Telegram, for one, only allows a fixed set of reactions; a
  // refused emoji is an error result naming the allowed ones, so the model can pick one.
  std::vector<std::string> allowed;
};

// Registers `react`. Throws std::invalid_argument when an entry of config.allowed is not an emoji.
void add_react_handlers(exec::HandlerTable& table, ReactConfig config = {});

// The Unicode emoji that `written` names (rules above), or nullopt. Thread-safe, no allocation beyond the
// result.
std::optional<std::string> resolve_emoji(std::string_view written);

namespace detail {
// The generated tables (src/actions/emoji_table.inc), exposed for tests.
struct EmojiName {
  std::string_view name;   // normalised: lowercase ASCII, `_` for `-` and ` `
  std::string_view emoji;  // fully qualified
};
struct EmojiForm {
  std::string_view bare;   // the emoji without U+FE0E/U+FE0F, what a lookup compares
  std::string_view emoji;  // fully qualified
};
std::span<const EmojiName> emoji_names() noexcept;  // sorted by name, unique
std::span<const EmojiForm> emoji_forms() noexcept;  // sorted by bare, unique
}  // namespace detail

}  // namespace sigil::actions
