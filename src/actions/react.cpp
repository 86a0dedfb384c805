#include "sigil/actions/react.h"

#include <utf8proc.h>

#include <algorithm>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "actions/json_fields.h"
#include "sigil/text/ascii.h"
#include "sigil/text/emoji_compare.h"
#include "sigil/text/unicode.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace detail {
namespace {
#include "emoji_table.inc"  // generated: scripts/gen-emoji-table
}  // namespace

std::span<const EmojiName> emoji_names() noexcept { return kEmojiNames; }
std::span<const EmojiForm> emoji_forms() noexcept { return kEmojiForms; }
}  // namespace detail

namespace {

namespace json = boost::json;
using exec::ActionContext;
using exec::Directive;
using exec::HandlerResult;

constexpr std::size_t kMaxWrittenBytes = 128;  // far above the longest name or emoji sequence
constexpr std::size_t kMaxUnknownBytes = 32;   // an emoji the table does not know, passed through
constexpr std::string_view kHint = "write a Unicode emoji or a name like thumbsup, heart, tada";

enum class Failure { empty, too_long, several, unknown };

struct Resolved {
  std::string emoji;  // empty on failure
  Failure failure = Failure::unknown;
};

using text::ascii::trim;

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// The same normalisation scripts/gen-emoji-table applies to the table's names.
std::string normalize_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    c = text::ascii::lower(c);
    if (c == '-' || c == ' ') c = '_';
    if (c == '_' && !out.empty() && out.back() == '_') continue;
    out.push_back(c);
  }
  return out;
}

std::optional<std::string_view> find_name(std::string_view name) {
  const auto names = detail::emoji_names();
  auto it = std::lower_bound(names.begin(), names.end(), name,
                             [](const detail::EmojiName& e, std::string_view n) { return e.name < n; });
  if (it == names.end() || it->name != name) return std::nullopt;
  return it->emoji;
}

std::optional<std::string_view> find_form(std::string_view emoji) {
  const std::string bare = text::without_variation_selectors(emoji);
  const auto forms = detail::emoji_forms();
  auto it = std::lower_bound(forms.begin(), forms.end(), std::string_view(bare),
                             [](const detail::EmojiForm& e, std::string_view b) { return e.bare < b; });
  if (it == forms.end() || it->bare != bare) return std::nullopt;
  return it->emoji;
}

// `name`, `name::skin_tone_N` (Slack), already normalised and without its outer colons.
std::optional<std::string_view> resolve_name(std::string_view name) {
  const std::size_t sep = name.find("::");
  if (sep == std::string_view::npos) return find_name(name);
  const std::string_view base = name.substr(0, sep);
  const std::string_view suffix = name.substr(sep + 2);
  constexpr std::string_view kTone = "skin_tone_";
  if (suffix.size() != kTone.size() + 1 || !suffix.starts_with(kTone)) return std::nullopt;
  const char n = suffix.back();
  if (n < '1' || n > '6') return std::nullopt;
  if (n >= '2') {
    // Slack's skin-tone-2..6 are the five Fitzpatrick modifiers, emojibase's tone1..5.
    std::string toned(base);
    toned += "_tone";
    toned += static_cast<char>(n - 1);
    if (auto e = find_name(toned)) return e;
  }
  return find_name(base);  // skin-tone-1, or an emoji without skin tones: the tone is ignored
}

bool is_emoji_symbol(char32_t c, utf8proc_category_t cat) {
  // Unassigned in utf8proc's Unicode version but in the emoji planes: most likely an emoji newer than it.
  return cat == UTF8PROC_CATEGORY_SO || (cat == UTF8PROC_CATEGORY_CN && c >= 0x1F000 && c <= 0x1FFFF);
}

// What may follow the first symbol inside one emoji: more symbols (ZWJ sequences, flags), skin-tone
// modifiers (Sk), combining marks (keycaps' U+20E3), ZWJ, variation selectors and tag characters.
bool is_emoji_continuation(char32_t c, utf8proc_category_t cat) {
  if (c == 0x200D || c == 0xFE0E || c == 0xFE0F) return true;
  if (c >= 0xE0020 && c <= 0xE007F) return true;
  return is_emoji_symbol(c, cat) || cat == UTF8PROC_CATEGORY_SK || cat == UTF8PROC_CATEGORY_MN ||
         cat == UTF8PROC_CATEGORY_ME;
}

// An emoji the table does not know: symbol code points only, one grapheme cluster. `several` is set when
// the text is made of emoji-like code points but more than one cluster ("👍👍").
bool plausible_unknown_emoji(std::string_view s, bool* several) {
  *several = false;
  if (s.empty() || !text::is_valid_utf8(s)) return false;
  utf8proc_int32_t state = 0;
  char32_t prev = 0;
  int clusters = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = 0;
    const char32_t c = text::decode_at(s, i, &len);
    i += len;
    if (c < 0x80) return false;
    const auto cat = static_cast<utf8proc_category_t>(utf8proc_category(static_cast<utf8proc_int32_t>(c)));
    const bool starts_cluster =
        prev == 0 || utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(prev),
                                                      static_cast<utf8proc_int32_t>(c), &state);
    if (starts_cluster) {
      if (!is_emoji_symbol(c, cat)) return false;
      ++clusters;
    } else if (!is_emoji_continuation(c, cat)) {
      return false;
    }
    prev = c;
  }
  if (clusters > 1) {
    *several = true;
    return false;
  }
  return s.size() <= kMaxUnknownBytes;
}

Resolved resolve(std::string_view written) {
  std::string_view s = trim(written);
  if (s.empty()) return {{}, Failure::empty};
  if (s.size() > kMaxWrittenBytes) return {{}, Failure::too_long};
  // Outer colons, each side on its own: models also write `:thumbsup` and `thumbsup:`.
  if (s.front() == ':') s.remove_prefix(1);
  if (!s.empty() && s.back() == ':') s.remove_suffix(1);
  if (s.empty()) return {{}, Failure::unknown};
  if (is_ascii(s)) {
    if (auto e = resolve_name(normalize_name(s))) return {std::string(*e), {}};
    return {{}, Failure::unknown};
  }
  if (auto e = find_form(s)) return {std::string(*e), {}};
  bool several = false;
  if (plausible_unknown_emoji(s, &several)) return {std::string(s), {}};
  return {{}, several ? Failure::several : Failure::unknown};
}

// The written value for a message: quoted, escaped onto one line, cut to a readable length.
std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 40;
  std::string shown(s.substr(0, text::safe_cut(s, kShown)));
  if (shown.size() < s.size()) shown += "\u2026";
  return json::serialize(json::string(shown));
}

std::string failure_message(std::string_view written, Failure failure) {
  switch (failure) {
    case Failure::empty:
      return "react: the emoji is empty; " + std::string(kHint);
    case Failure::too_long:
      return "react: the emoji is too long (" + std::to_string(trim(written).size()) +
             " bytes); write one emoji " + "or a name like thumbsup, heart, tada";
    case Failure::several:
      return "react: " + quoted(trim(written)) + " is more than one emoji; a reaction is a single emoji";
    case Failure::unknown:
      break;
  }
  return "react: unknown emoji " + quoted(trim(written)) + "; " + std::string(kHint);
}

}  // namespace

std::optional<std::string> resolve_emoji(std::string_view written) {
  Resolved r = resolve(written);
  if (r.emoji.empty()) return std::nullopt;
  return std::move(r.emoji);
}

void add_react_handlers(exec::HandlerTable& table, ReactConfig config) {
  // Resolved once, compared by bare form: the operator may write ":heart:" and the model "❤".
  std::vector<std::string> allowed;       // resolved, in the operator's order (for the message)
  std::vector<std::string> allowed_bare;  // sorted
  for (const std::string& e : config.allowed) {
    std::optional<std::string> r = resolve_emoji(e);
    if (!r) throw std::invalid_argument("react: the allowed emoji " + quoted(e) + " is not an emoji");
    allowed_bare.push_back(text::without_variation_selectors(*r));
    allowed.push_back(std::move(*r));
  }
  std::sort(allowed_bare.begin(), allowed_bare.end());

  table.add(
      "react",
      [allowed = std::move(allowed), allowed_bare = std::move(allowed_bare)](
          const Directive& d, ActionContext& context) -> HandlerResult {
        const std::string written = string_at(d.args, "emoji");
        Resolved r = resolve(written);
        if (r.emoji.empty()) return HandlerResult::error(failure_message(written, r.failure));
        if (!allowed.empty() && !std::binary_search(allowed_bare.begin(), allowed_bare.end(),
                                                    text::without_variation_selectors(r.emoji))) {
          std::string list;
          for (const std::string& a : allowed) list += (list.empty() ? "" : " ") + a;
          return HandlerResult::error("react: " + r.emoji + " is not available here; use one of " + list);
        }
        exec::Delivery delivery;
        delivery.op = exec::Delivery::Op::Reaction;
        delivery.emoji = r.emoji;
        delivery.message = std::string(trim(string_at(d.args, "message")));
        if (!delivery.message.empty()) {
          // Only an id the model was shown ("[message <id>]") names a message: anything else would be a
          // reaction the platform refuses or, worse, one on a message of someone else's choosing.
          const auto known = context.store().has_platform_message(context.scope(), delivery.message);
          if (!known) return HandlerResult::error("react: cannot look the message up: " + known.error());
          if (!*known)
            return HandlerResult::error("react: no message " + quoted(delivery.message) +
                                        " in this conversation; use an id shown as [message <id>] before a "
                                        "message, or leave message out to react to the one being answered");
        }
        std::string message = "reacted " + r.emoji;
        if (!delivery.message.empty()) message += " to message " + quoted(delivery.message);
        HandlerResult result = HandlerResult::ok(std::move(message), json::object{{"emoji", r.emoji}});
        result.deliveries.push_back(std::move(delivery));
        return result;
      });
  table.set_quick("react");  // resolves an emoji and hands a delivery on: no wait of its own
}

}  // namespace sigil::actions
