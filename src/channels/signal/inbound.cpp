#include "sigil/channels/signal/inbound.h"

#include <algorithm>

#include "sigil/channels/json_fields.h"

namespace sigil::channels::signal {
namespace {

constexpr std::string_view kObjectReplacement = "\xEF\xBF\xBC";  // U+FFFC: where Signal puts a mention

struct Mention {
  std::size_t start = 0, length = 0;  // UTF-16 units
  std::string shown;                  // "" for the bot: removed
};

// The byte offset where `units` UTF-16 code units of `s` end.
std::size_t byte_at(std::string_view s, std::size_t units) {
  std::size_t i = 0, u = 0;
  while (i < s.size() && u < units) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    u += n == 4 ? 2 : 1;
    i += n;
  }
  return std::min(i, s.size());
}

std::string with_mentions(std::string text, std::vector<Mention> mentions) {
  // From the last to the first, so earlier offsets stay right.
  std::sort(mentions.begin(), mentions.end(),
            [](const Mention& a, const Mention& b) { return a.start > b.start; });
  for (const Mention& m : mentions) {
    const std::size_t a = byte_at(text, m.start), b = byte_at(text, m.start + m.length);
    if (a >= b) continue;
    text.replace(a, b - a, m.shown);
  }
  // A mention Signal sent without a `mentions` entry: no U+FFFC reaches the model.
  for (std::size_t at; (at = text.find(kObjectReplacement)) != std::string::npos;)
    text.erase(at, kObjectReplacement.size());
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\n");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::optional<SignalMessage> parse_message(const boost::json::object& event, std::string_view account,
                                           std::string_view account_uuid) {
  const boost::json::object* env = object_at(event, "envelope");
  if (env == nullptr) return std::nullopt;
  const boost::json::object* data = object_at(*env, "dataMessage");
  if (data == nullptr) return std::nullopt;  // receipts, typing, sync, edits, stories, calls
  if (object_at(*data, "reaction") != nullptr || object_at(*data, "remoteDelete") != nullptr)
    return std::nullopt;
  if (const auto* g = object_at(*data, "groupInfo"); g != nullptr && string_at(*g, "type") == "UPDATE")
    return std::nullopt;
  SignalMessage m;
  m.source_number = string_at(*env, "sourceNumber");
  m.source_uuid = string_at(*env, "sourceUuid");
  m.source_name = string_at(*env, "sourceName");
  m.timestamp = int_at(*env, "timestamp");
  if (m.sender().empty() || m.timestamp <= 0) return std::nullopt;
  if (m.source_number == account || (!account_uuid.empty() && m.source_uuid == account_uuid))
    return std::nullopt;
  if (const auto* g = object_at(*data, "groupInfo")) m.group_id = string_at(*g, "groupId");
  std::vector<Mention> mentions;
  if (const auto* ms = data->if_contains("mentions"); ms != nullptr && ms->is_array()) {
    for (const auto& v : ms->as_array()) {
      if (!v.is_object()) continue;
      const auto& o = v.as_object();
      const std::string number = string_at(o, "number"), uuid = string_at(o, "uuid");
      const bool bot =
          (!number.empty() && number == account) || (!account_uuid.empty() && uuid == account_uuid);
      if (bot) m.mentions_bot = true;
      mentions.push_back({static_cast<std::size_t>(std::max<std::int64_t>(0, int_at(o, "start"))),
                          static_cast<std::size_t>(std::max<std::int64_t>(0, int_at(o, "length"))),
                          bot ? std::string() : "@" + (number.empty() ? uuid : number)});
    }
  }
  m.text = with_mentions(string_at(*data, "message"), std::move(mentions));
  if (const auto* as = data->if_contains("attachments"); as != nullptr && as->is_array()) {
    for (const auto& v : as->as_array()) {
      if (!v.is_object()) continue;
      const auto& o = v.as_object();
      SignalAttachment a{string_at(o, "id"), string_at(o, "contentType"), string_at(o, "filename"),
                         int_at(o, "size")};
      if (!a.id.empty()) m.attachments.push_back(std::move(a));
    }
  }
  if (m.text.empty() && m.attachments.empty())
    return std::nullopt;  // stickers, polls, payments: nothing to read
  return m;
}

bool answered(const SignalMessage& m, const std::vector<std::string>& allowed_users,
              const std::vector<std::string>& allowed_groups) {
  const auto in = [](const std::vector<std::string>& list, const std::string& s) {
    return !s.empty() && std::find(list.begin(), list.end(), s) != list.end();
  };
  if (m.group_id.empty()) return in(allowed_users, m.source_number) || in(allowed_users, m.source_uuid);
  return m.mentions_bot && in(allowed_groups, m.group_id);
}

bool is_signal_user(std::string_view s) {
  const auto digits = [](std::string_view d) {
    return !d.empty() && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (s.size() >= 8 && s.size() <= 16 && s.front() == '+' && s[1] != '0' && digits(s.substr(1))) return true;
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
      return false;
  }
  return true;
}

bool is_signal_group(std::string_view s) {
  if (s.size() != 44 || s.back() != '=' || s[42] == '=') return false;
  return s.substr(0, 43).find_first_not_of(
             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") == std::string_view::npos;
}

}  // namespace sigil::channels::signal
