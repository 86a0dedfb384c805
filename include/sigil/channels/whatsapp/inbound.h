// The inbound side's decisions for WhatsApp: a webhook POST's signature, the subscription's verification
// GET, a `whatsapp_business_account` payload read as messages and statuses, and which messages become turns.
// Pure: no I/O.
//
// What it promises:
// - signature_matches(): the X-Hub-Signature-256 header is "sha256=" and the hex HMAC-SHA256 of the raw body
//   keyed with the app secret (either case of hex), compared in constant time; a missing or malformed header
//   never matches, nor does any header when the secret is empty.
// - verification_answer(): the hub.challenge to answer a GET with, when hub.mode is "subscribe" and
//   hub.verify_token is the configured one (constant-time); nullopt otherwise.
// - read_payload(): the messages and statuses of every entry's `messages` change; nullopt when the body is
//   not JSON or not a whatsapp_business_account payload. A message without id or sender is left out.
// - admit(): a message to another business number (metadata.phone_number_id) is not ours; with
//   allowed_users set, only those senders (their phone number in any spelling: "+1 650-555-1234" is wa_id
//   16505551234) are answered; reactions, and types sigil does not read (location, contacts, interactive,
//   system, unsupported, …) start nothing; a text without text and media without an id start nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels::whatsapp {

// A file a user sent (image, audio, voice note, document, video, sticker): fetched by its media id.
struct InboundMedia {
  std::string id;
  std::string mime_type;
  std::string filename;  // documents only
  bool voice = false;    // an audio message recorded in WhatsApp (a voice note)
};

struct InboundMessage {
  std::string id;  // the wamid
  std::string from;
  std::string name;  // the sender's profile name ("" when the payload has none)
  std::string phone_number_id;
  std::string type;  // text, image, audio, document, video, sticker, reaction, …
  std::string text;  // text.body, or the media's caption
  std::string timestamp;
  std::string context_id;  // the message it replies to ("": none)
  std::string reaction_to, reaction_emoji;
  std::optional<InboundMedia> media;
};

// A delivery state of a message the business sent.
struct StatusUpdate {
  std::string id;      // the wamid of our message
  std::string status;  // sent, delivered, read, failed
  std::string recipient;
  std::int64_t error_code = 0;  // failed: the first error's code (131026, 131047, …)
  std::string error;            // failed: its title and details
};

struct WebhookPayload {
  std::vector<InboundMessage> messages;
  std::vector<StatusUpdate> statuses;
};

bool signature_matches(std::string_view app_secret, std::string_view header, std::string_view body);
std::optional<std::string> verification_answer(std::string_view query, std::string_view verify_token);
std::optional<WebhookPayload> read_payload(std::string_view body);

enum class Verdict : unsigned char { Admitted, OtherNumber, NotAllowed, Unsupported, NoContent };
std::string_view to_string(Verdict verdict);

struct AdmitPolicy {
  std::string phone_number_id;             // the business number sigil answers for
  std::vector<std::string> allowed_users;  // phone numbers or wa_ids; empty: anyone
};

Verdict admit(const InboundMessage& message, const AdmitPolicy& policy);

// A phone number as WhatsApp's wa_id spells it: its digits only ("+44 7700 900123" → "447700900123").
std::string wa_id_of(std::string_view phone);

}  // namespace sigil::channels::whatsapp
