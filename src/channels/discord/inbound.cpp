#include "sigil/channels/discord/inbound.h"

#include <algorithm>

#include "sigil/channels/json_fields.h"
#include "sigil/text/enum_names.h"

namespace sigil::channels::discord {
namespace {

bool mentions_in_text(std::string_view content, std::string_view bot_id) {
  if (bot_id.empty()) return false;
  const std::string a = "<@" + std::string(bot_id) + ">", b = "<@!" + std::string(bot_id) + ">";
  return content.find(a) != std::string_view::npos || content.find(b) != std::string_view::npos;
}

}  // namespace

std::optional<InboundMessage> read_message_create(const boost::json::object& d) {
  InboundMessage m;
  m.id = string_at(d, "id");
  m.channel_id = string_at(d, "channel_id");
  m.guild_id = string_at(d, "guild_id");
  m.content = string_at(d, "content");
  const auto* author = object_at(d, "author");
  if (author == nullptr || m.id.empty() || m.channel_id.empty()) return std::nullopt;
  m.author_id = string_at(*author, "id");
  m.author_name = string_at(*author, "global_name");
  if (m.author_name.empty()) m.author_name = string_at(*author, "username");
  if (const auto* bot = author->if_contains("bot"); bot != nullptr && bot->is_bool())
    m.author_bot = bot->as_bool();
  if (const auto* list = d.if_contains("mentions"); list != nullptr && list->is_array())
    for (const auto& u : list->as_array())
      if (u.is_object()) m.mentions.push_back(string_at(u.as_object(), "id"));
  if (const auto* ref = object_at(d, "referenced_message"))
    if (const auto* ra = object_at(*ref, "author")) m.reply_to_author = string_at(*ra, "id");
  if (const auto* list = d.if_contains("attachments"); list != nullptr && list->is_array()) {
    for (const auto& a : list->as_array()) {
      if (!a.is_object()) continue;
      const auto& o = a.as_object();
      InboundAttachment at{string_at(o, "id"), string_at(o, "filename"), string_at(o, "content_type"),
                           int_at(o, "size"), string_at(o, "url")};
      if (!at.url.empty()) m.attachments.push_back(std::move(at));
    }
  }
  m.voice = (int_at(d, "flags") & kVoiceMessageFlag) != 0;
  if (m.author_id.empty()) return std::nullopt;
  return m;
}

namespace {
constexpr text::EnumNames<Verdict::NotAddressed> kVerdictNames{
    {"admitted", "the bot's own message", "sent by a bot", "sender not in allowed_users", "no text",
     "guild message not addressed to the bot"},
    "unknown"};
}  // namespace

std::string_view to_string(Verdict verdict) { return kVerdictNames.name(verdict); }

Verdict admit(const InboundMessage& m, const AdmitPolicy& policy) {
  if (!policy.bot_id.empty() && m.author_id == policy.bot_id) return Verdict::Own;
  if (m.author_bot) return Verdict::FromBot;
  if (!policy.allowed_users.empty() && std::find(policy.allowed_users.begin(), policy.allowed_users.end(),
                                                 m.author_id) == policy.allowed_users.end())
    return Verdict::NotAllowed;
  if (without_bot_mention(m.content, policy.bot_id).empty() && m.attachments.empty()) return Verdict::NoText;
  if (!m.guild_id.empty()) {
    const bool mentioned =
        std::find(m.mentions.begin(), m.mentions.end(), policy.bot_id) != m.mentions.end() ||
        mentions_in_text(m.content, policy.bot_id);
    const bool replied = !policy.bot_id.empty() && m.reply_to_author == policy.bot_id;
    if (!mentioned && !replied) return Verdict::NotAddressed;
  }
  return Verdict::Admitted;
}

std::string without_bot_mention(std::string_view content, std::string_view bot_id) {
  std::string out(content);
  if (!bot_id.empty())
    for (const std::string& tag : {"<@" + std::string(bot_id) + ">", "<@!" + std::string(bot_id) + ">"})
      for (std::size_t at; (at = out.find(tag)) != std::string::npos;) out.erase(at, tag.size());
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (!out.empty() && space(out.back())) out.pop_back();
  std::size_t start = 0;
  while (start < out.size() && space(out[start])) ++start;
  return out.substr(start);
}

}  // namespace sigil::channels::discord
