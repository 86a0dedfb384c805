#include "sigil/channels/whatsapp/inbound.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

#include "sigil/channels/json_fields.h"
#include "sigil/net/url.h"
#include "sigil/text/same_secret.h"

namespace sigil::channels::whatsapp {
namespace {

std::string hex_hmac_sha256(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(), &length) == nullptr)
    return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[mac[i] >> 4];
    out += kHex[mac[i] & 15];
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// The query's parameters, decoded (a name may repeat: the first one counts).
std::optional<std::string> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    const auto key = net::percent_decode(pair.substr(0, eq), true);
    if (key && *key == name)
      return eq == std::string_view::npos ? std::string() : net::percent_decode(pair.substr(eq + 1), true);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

const char* const kMediaTypes[] = {"image", "audio", "document", "video", "sticker"};

InboundMessage read_message(const boost::json::object& m, const std::string& phone_number_id,
                            const boost::json::array* contacts) {
  InboundMessage out;
  out.id = string_at(m, "id");
  out.from = string_at(m, "from");
  out.type = string_at(m, "type");
  out.timestamp = string_at(m, "timestamp");
  out.phone_number_id = phone_number_id;
  if (const auto* context = object_at(m, "context")) out.context_id = string_at(*context, "id");
  if (contacts != nullptr)
    for (const auto& c : *contacts)
      if (c.is_object() && string_at(c.as_object(), "wa_id") == out.from)
        if (const auto* profile = object_at(c.as_object(), "profile")) out.name = string_at(*profile, "name");
  if (out.type == "text") {
    if (const auto* text = object_at(m, "text")) out.text = string_at(*text, "body");
  } else if (out.type == "reaction") {
    if (const auto* r = object_at(m, "reaction")) {
      out.reaction_to = string_at(*r, "message_id");
      out.reaction_emoji = string_at(*r, "emoji");
    }
  } else {
    for (const char* kind : kMediaTypes) {
      if (out.type != kind) continue;
      if (const auto* media = object_at(m, kind)) {
        InboundMedia f;
        f.id = string_at(*media, "id");
        f.mime_type = string_at(*media, "mime_type");
        f.filename = string_at(*media, "filename");
        f.voice = bool_at(*media, "voice");
        out.text = string_at(*media, "caption");
        out.media = std::move(f);
      }
    }
  }
  return out;
}

StatusUpdate read_status(const boost::json::object& s) {
  StatusUpdate out;
  out.id = string_at(s, "id");
  out.status = string_at(s, "status");
  out.recipient = string_at(s, "recipient_id");
  if (const auto* errors = s.if_contains("errors"); errors != nullptr && errors->is_array())
    for (const auto& e : errors->as_array()) {
      if (!e.is_object()) continue;
      out.error_code = int_at(e.as_object(), "code");
      out.error = string_at(e.as_object(), "title");
      if (const auto* data = object_at(e.as_object(), "error_data")) {
        const std::string details = string_at(*data, "details");
        if (!details.empty()) out.error += (out.error.empty() ? "" : ": ") + details;
      }
      break;
    }
  return out;
}

}  // namespace

bool signature_matches(std::string_view app_secret, std::string_view header, std::string_view body) {
  constexpr std::string_view kPrefix = "sha256=";
  if (app_secret.empty() || !header.starts_with(kPrefix)) return false;
  header.remove_prefix(kPrefix.size());
  if (header.size() != 64) return false;
  return text::same_secret(lower(header), hex_hmac_sha256(app_secret, body));
}

std::optional<std::string> verification_answer(std::string_view query, std::string_view verify_token) {
  const auto mode = query_param(query, "hub.mode");
  const auto token = query_param(query, "hub.verify_token");
  const auto challenge = query_param(query, "hub.challenge");
  if (!mode || *mode != "subscribe" || !token || !challenge || verify_token.empty() ||
      !text::same_secret(*token, verify_token))
    return std::nullopt;
  return challenge;
}

std::optional<WebhookPayload> read_payload(std::string_view body) {
  const auto parsed = parse_object(body);
  if (!parsed || string_at(*parsed, "object") != "whatsapp_business_account") return std::nullopt;
  WebhookPayload out;
  const auto* entries = parsed->if_contains("entry");
  if (entries == nullptr || !entries->is_array()) return out;
  for (const auto& entry : entries->as_array()) {
    if (!entry.is_object()) continue;
    const auto* changes = entry.as_object().if_contains("changes");
    if (changes == nullptr || !changes->is_array()) continue;
    for (const auto& change : changes->as_array()) {
      if (!change.is_object() || string_at(change.as_object(), "field") != "messages") continue;
      const auto* value = object_at(change.as_object(), "value");
      if (value == nullptr) continue;
      std::string number;
      if (const auto* meta = object_at(*value, "metadata")) number = string_at(*meta, "phone_number_id");
      const auto* contacts_v = value->if_contains("contacts");
      const boost::json::array* contacts =
          contacts_v != nullptr && contacts_v->is_array() ? &contacts_v->as_array() : nullptr;
      if (const auto* list = value->if_contains("messages"); list != nullptr && list->is_array())
        for (const auto& m : list->as_array()) {
          if (!m.is_object()) continue;
          InboundMessage message = read_message(m.as_object(), number, contacts);
          if (!message.id.empty() && !message.from.empty()) out.messages.push_back(std::move(message));
        }
      if (const auto* list = value->if_contains("statuses"); list != nullptr && list->is_array())
        for (const auto& s : list->as_array())
          if (s.is_object()) out.statuses.push_back(read_status(s.as_object()));
    }
  }
  return out;
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Admitted:
      return "admitted";
    case Verdict::OtherNumber:
      return "another business number";
    case Verdict::NotAllowed:
      return "not in allowed_users";
    case Verdict::Unsupported:
      return "a message type sigil does not answer";
    case Verdict::NoContent:
      return "no text or file";
  }
  return "?";
}

std::string wa_id_of(std::string_view phone) {
  std::string out;
  for (char c : phone)
    if (c >= '0' && c <= '9') out += c;
  return out;
}

Verdict admit(const InboundMessage& m, const AdmitPolicy& policy) {
  if (!policy.phone_number_id.empty() && m.phone_number_id != policy.phone_number_id)
    return Verdict::OtherNumber;
  if (!policy.allowed_users.empty()) {
    bool allowed = false;
    for (const std::string& u : policy.allowed_users) allowed = allowed || wa_id_of(u) == m.from;
    if (!allowed) return Verdict::NotAllowed;
  }
  if (m.type == "text") return m.text.empty() ? Verdict::NoContent : Verdict::Admitted;
  for (const char* kind : kMediaTypes)
    if (m.type == kind) return m.media && !m.media->id.empty() ? Verdict::Admitted : Verdict::NoContent;
  return Verdict::Unsupported;
}

}  // namespace sigil::channels::whatsapp
