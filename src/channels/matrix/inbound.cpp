#include "sigil/channels/matrix/inbound.h"

#include <algorithm>

#include "sigil/channels/json_fields.h"
#include "sigil/text/ascii.h"

namespace sigil::channels::matrix {
namespace {

const boost::json::object* object_in(const boost::json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\n");
  return std::string(s.substr(first, last - first + 1));
}

bool contains_ci(std::string_view text, std::string_view what) {
  if (what.empty() || what.size() > text.size()) return false;
  const std::string t = text::ascii::to_lower(text), w = text::ascii::to_lower(what);
  return t.find(w) != std::string::npos;
}

}  // namespace

std::optional<InboundEvent> read_event(const std::string& room, const boost::json::object& e) {
  InboundEvent m;
  m.room = room;
  m.type = string_at(e, "type");
  if (m.type != "m.room.message" && m.type != "m.room.encrypted") return std::nullopt;
  if (e.contains("state_key")) return std::nullopt;
  m.event_id = string_at(e, "event_id");
  m.sender = string_at(e, "sender");
  m.ts = int_at(e, "origin_server_ts");
  if (m.event_id.empty() || m.sender.empty()) return std::nullopt;
  const boost::json::object* c = object_in(e, "content");
  if (c == nullptr) return m;  // redacted: no content, nothing to answer (admit: NoText)
  m.msgtype = string_at(*c, "msgtype");
  m.body = string_at(*c, "body");
  if (const auto* mentions = object_in(*c, "m.mentions")) {
    if (const auto* ids = mentions->if_contains("user_ids"); ids != nullptr && ids->is_array())
      for (const auto& id : ids->as_array())
        if (id.is_string()) m.mentions.emplace_back(id.as_string());
  }
  if (const auto* rel = object_in(*c, "m.relates_to")) {
    m.relation = string_at(*rel, "rel_type");
    m.reply = object_in(*rel, "m.in_reply_to") != nullptr;
  }
  if (m.msgtype == "m.image" || m.msgtype == "m.file" || m.msgtype == "m.audio" || m.msgtype == "m.video") {
    m.url = string_at(*c, "url");
    m.filename = string_at(*c, "filename");
    if (m.filename.empty()) m.filename = m.body;
    if (const auto* info = object_in(*c, "info")) {
      m.mimetype = string_at(*info, "mimetype");
      m.size = int_at(*info, "size");
    }
  }
  return m;
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Admitted:
      return "admitted";
    case Verdict::Encrypted:
      return "encrypted";
    case Verdict::Own:
      return "own event";
    case Verdict::NotMessage:
      return "not a message";
    case Verdict::Edit:
      return "an edit";
    case Verdict::Notice:
      return "a notice (from a bot)";
    case Verdict::NotAllowed:
      return "user not in allowed_users";
    case Verdict::NoText:
      return "no text or file";
    case Verdict::NotAddressed:
      return "not addressed to the bot";
  }
  return "?";
}

bool invite_allowed(std::string_view inviter, const AdmitPolicy& policy) {
  return policy.allowed_users.empty() || std::find(policy.allowed_users.begin(), policy.allowed_users.end(),
                                                   inviter) != policy.allowed_users.end();
}

Verdict admit(const InboundEvent& m, const AdmitPolicy& policy) {
  if (m.sender == policy.bot_user) return Verdict::Own;
  if (!invite_allowed(m.sender, policy)) return Verdict::NotAllowed;
  if (m.encrypted()) return Verdict::Encrypted;
  if (m.type != "m.room.message") return Verdict::NotMessage;
  if (m.relation == "m.replace") return Verdict::Edit;
  if (m.msgtype == "m.notice") return Verdict::Notice;
  if (readable_text(m).empty() && !m.has_file()) return Verdict::NoText;
  if (m.direct()) return Verdict::Admitted;
  if (std::find(m.mentions.begin(), m.mentions.end(), policy.bot_user) != m.mentions.end())
    return Verdict::Admitted;
  if (!policy.bot_user.empty() && m.body.find(policy.bot_user) != std::string::npos) return Verdict::Admitted;
  if (contains_ci(m.body, policy.bot_name)) return Verdict::Admitted;
  return Verdict::NotAddressed;
}

std::string readable_text(const InboundEvent& m) {
  // A file's body is its name, unless a `filename` differs from it: then the body is the caption (v1.10).
  if (m.has_file() && (m.filename.empty() || m.filename == m.body)) return {};
  std::string_view body = m.body;
  if (m.reply && body.starts_with("> ")) {
    // The reply fallback: quoted lines, then a blank line, then what the user wrote.
    const std::size_t gap = body.find("\n\n");
    body = gap == std::string_view::npos ? std::string_view() : body.substr(gap + 2);
  }
  return trimmed(body);
}

}  // namespace sigil::channels::matrix
