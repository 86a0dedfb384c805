#include "sigil/channels/slack/inbound.h"

#include <algorithm>

#include "sigil/channels/json_fields.h"

namespace sigil::channels::slack {

std::optional<InboundMessage> read_event(const boost::json::object& payload) {
  const auto* ev = payload.if_contains("event");
  if (ev == nullptr || !ev->is_object()) return std::nullopt;
  const boost::json::object& e = ev->as_object();
  InboundMessage m;
  m.event_id = string_at(payload, "event_id");
  m.event_type = string_at(e, "type");
  if (m.event_type != "message" && m.event_type != "app_mention") return std::nullopt;
  m.channel = string_at(e, "channel");
  m.channel_type = string_at(e, "channel_type");
  m.user = string_at(e, "user");
  m.bot_id = string_at(e, "bot_id");
  m.subtype = string_at(e, "subtype");
  m.text = string_at(e, "text");
  m.ts = string_at(e, "ts");
  m.thread_ts = string_at(e, "thread_ts");
  if (const auto* files = e.if_contains("files"); files != nullptr && files->is_array()) {
    for (const auto& f : files->as_array()) {
      if (!f.is_object()) continue;
      const auto& o = f.as_object();
      InboundFile file{string_at(o, "id"), string_at(o, "name"), string_at(o, "mimetype"), int_at(o, "size"),
                       string_at(o, "url_private_download")};
      if (file.url.empty()) file.url = string_at(o, "url_private");
      m.files.push_back(std::move(file));
    }
  }
  if (m.channel.empty() || m.ts.empty()) return std::nullopt;
  return m;
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Admitted:
      return "admitted";
    case Verdict::Own:
      return "own message";
    case Verdict::FromBot:
      return "from a bot";
    case Verdict::Subtype:
      return "not a new message";
    case Verdict::NotAllowed:
      return "user not in allowed_users";
    case Verdict::NoText:
      return "no text or file";
    case Verdict::NotAddressed:
      return "not addressed to the bot";
  }
  return "?";
}

Verdict admit(const InboundMessage& m, const AdmitPolicy& policy) {
  if ((!policy.bot_user.empty() && m.user == policy.bot_user) ||
      (!policy.bot_id.empty() && m.bot_id == policy.bot_id))
    return Verdict::Own;
  if (!m.bot_id.empty() || m.subtype == "bot_message") return Verdict::FromBot;
  if (!m.subtype.empty() && m.subtype != "file_share") return Verdict::Subtype;
  if (!policy.allowed_users.empty() && std::find(policy.allowed_users.begin(), policy.allowed_users.end(),
                                                 m.user) == policy.allowed_users.end())
    return Verdict::NotAllowed;
  if (without_bot_mention(m.text, policy.bot_user).empty() && m.files.empty()) return Verdict::NoText;
  if (m.direct()) return Verdict::Admitted;
  if (m.event_type == "app_mention") return Verdict::Admitted;
  if (!policy.bot_user.empty() && m.text.find("<@" + policy.bot_user) != std::string::npos)
    return Verdict::Admitted;
  return Verdict::NotAddressed;
}

std::string thread_for(const InboundMessage& m) {
  if (!m.thread_ts.empty()) return m.thread_ts;
  return m.direct() ? std::string() : m.ts;
}

std::string without_bot_mention(std::string_view text, std::string_view bot_user) {
  std::string out(text);
  if (!bot_user.empty()) {
    const std::string mention = "<@" + std::string(bot_user);
    for (std::size_t at; (at = out.find(mention)) != std::string::npos;) {
      const std::size_t end = out.find('>', at);
      if (end == std::string::npos) break;
      out.erase(at, end - at + 1);
    }
  }
  const auto first = out.find_first_not_of(" \t\n");
  if (first == std::string::npos) return {};
  const auto last = out.find_last_not_of(" \t\n");
  return out.substr(first, last - first + 1);
}

std::string readable_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') {
      const std::size_t end = text.find('>', i);
      if (end != std::string_view::npos) {
        const std::string_view inner = text.substr(i + 1, end - i - 1);
        if (!inner.empty() && inner.front() != '@' && inner.front() != '#' && inner.front() != '!') {
          const std::size_t bar = inner.find('|');
          const std::string url = readable_text(inner.substr(0, bar));
          out +=
              bar == std::string_view::npos ? url : readable_text(inner.substr(bar + 1)) + " (" + url + ")";
          i = end;
          continue;
        }
      }
    }
    if (text.compare(i, 5, "&amp;") == 0) {
      out += '&';
      i += 4;
    } else if (text.compare(i, 4, "&lt;") == 0) {
      out += '<';
      i += 3;
    } else if (text.compare(i, 4, "&gt;") == 0) {
      out += '>';
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace sigil::channels::slack
