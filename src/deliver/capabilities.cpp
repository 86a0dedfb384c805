#include "sigil/deliver/capabilities.h"

#include <algorithm>

namespace sigil::deliver {

namespace {

// Emoji compared without variation selectors (U+FE0E, U+FE0F): ❤ and ❤️ are the same reaction.
std::string without_variation_selectors(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i + 2 < s.size() && s[i] == '\xEF' && s[i + 1] == '\xB8' &&
        (s[i + 2] == '\x8E' || s[i + 2] == '\x8F')) {
      i += 2;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

}  // namespace

std::string_view to_string(TextUnit unit) {
  switch (unit) {
    case TextUnit::Bytes:
      return "bytes";
    case TextUnit::Utf16:
      return "utf16";
    case TextUnit::CodePoints:
      return "code-points";
  }
  return "bytes";
}

std::string_view to_string(MarkdownFlavour flavour) {
  switch (flavour) {
    case MarkdownFlavour::Plain:
      return "plain";
    case MarkdownFlavour::CommonMark:
      return "commonmark";
    case MarkdownFlavour::Gfm:
      return "gfm";
    case MarkdownFlavour::TelegramMarkdownV2:
      return "telegram-markdown-v2";
    case MarkdownFlavour::SlackMrkdwn:
      return "slack-mrkdwn";
    case MarkdownFlavour::Html:
      return "html";
  }
  return "plain";
}

bool ChannelCapabilities::accepts_file_kind(std::string_view kind) const {
  return std::find(file_kinds.begin(), file_kinds.end(), kind) != file_kinds.end();
}

bool ChannelCapabilities::accepts_reaction(std::string_view emoji) const {
  if (!reactions) return false;
  if (!allowed_reactions) return true;
  const std::string want = without_variation_selectors(emoji);
  return std::any_of(allowed_reactions->begin(), allowed_reactions->end(),
                     [&](const std::string& e) { return without_variation_selectors(e) == want; });
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
