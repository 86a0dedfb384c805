#include "sigil/deliver/capabilities.h"

#include <algorithm>

#include "sigil/text/emoji_compare.h"
#include "sigil/text/enum_names.h"

namespace sigil::deliver {

namespace {
constexpr text::EnumNames<TextUnit::CodePoints> kTextUnitNames{{"bytes", "utf16", "code-points"}, "bytes"};
constexpr text::EnumNames<MarkdownFlavour::Html> kFlavourNames{
    {"plain", "commonmark", "gfm", "telegram-markdown-v2", "slack-mrkdwn", "html"}, "plain"};
}  // namespace

std::string_view to_string(TextUnit unit) { return kTextUnitNames.name(unit); }

std::string_view to_string(MarkdownFlavour flavour) { return kFlavourNames.name(flavour); }

bool ChannelCapabilities::accepts_file_kind(std::string_view kind) const {
  return std::find(file_kinds.begin(), file_kinds.end(), kind) != file_kinds.end();
}

bool ChannelCapabilities::accepts_reaction(std::string_view emoji) const {
  if (!reactions) return false;
  if (!allowed_reactions) return true;
  // "❤" and "❤️" are the same reaction.
  return std::any_of(allowed_reactions->begin(), allowed_reactions->end(),
                     [&](const std::string& e) { return text::same_emoji(e, emoji); });
}

ChannelCapabilities ChannelCapabilities::everything() {
  ChannelCapabilities c;
  c.reactions = true;
  c.file_kinds = {"image", "document", "audio", "video"};
  c.voice_notes = true;
  c.edits = true;
  c.append = true;
  c.deletes = true;
  c.text_limit = 0;
  c.text_unit = TextUnit::Bytes;
  c.markdown = MarkdownFlavour::Gfm;
  c.rate = {};
  return c;
}

}  // namespace sigil::deliver
