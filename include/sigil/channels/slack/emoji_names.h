// The names Slack's reactions.add takes for the emoji a model reacts with: Slack names emoji (`thumbsup`,
// `tada`, without colons) and has no way to react with the character itself.
//
// What it promises:
// - slack_reaction_name(emoji): the Slack name of a Unicode emoji (with or without U+FE0F) from a table of
//   the common ones (the short names of iamcal/emoji-data, which Slack uses), e.g. "👍" -> "+1",
//   "🎉" -> "tada"; a name written as `:name:` or a bare name (`thumbsup`, `sigil_logo`: a workspace's
//   custom emoji) is passed on without its colons; nullopt for anything else, which the channel reports as a
//   clear error ("Slack has no name for …"), never sends.
// - reaction_emoji(): the emoji of the table, for the channel's capabilities.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels::slack {

std::optional<std::string> slack_reaction_name(std::string_view emoji);

const std::vector<std::string>& reaction_emoji();

}  // namespace sigil::channels::slack
