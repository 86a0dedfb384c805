// The inbound side's decisions for Matrix: a room timeline event read as a message, and which messages become
// turns. Pure: no I/O.
//
// What it promises:
// - read_event() takes the fields sigil needs from an `m.room.message` or `m.room.encrypted` event of a
//   joined room's timeline (as /sync and /messages give them), or nullopt for other events (state, reactions,
//   redactions) and for one without an event_id or a sender.
// - The event_id is the message's identity: a batch read again (after a crash before its token was kept)
//   or an event both in a gap's /messages page and in the timeline is one message.
// - admit(): the bot's own events are never answered; an `m.room.encrypted` event (sigil has no keys) is
//   Encrypted, for the caller to answer with a notice; edits (`m.replace`) and notices (`m.notice`, what
//   bots send) start nothing; with allowed_users set only those users are answered; a message without text
//   or a file starts nothing; in a room of two (a DM) every message is addressed to the bot, elsewhere only
//   one that mentions it: its user id in `m.mentions.user_ids`, or its user id or display name in the body.
// - readable_text(): the body for the model, a reply's quoted fallback ("> <@user> …" lines before the
//   first blank line) removed; for a file, its caption (a body that differs from its `filename`, as
//   Matrix v1.10 says), else "".
// - invite_allowed(): whether the inviter of an invite may make the bot join: allowed_users empty (anyone
//   is answered), or the inviter in it.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels::matrix {

struct InboundEvent {
  std::string room;
  std::string event_id;
  std::string sender;
  std::string type;     // "m.room.message" or "m.room.encrypted"
  std::string msgtype;  // m.text, m.notice, m.emote, m.image, m.file, m.audio, m.video
  std::string body;
  std::vector<std::string> mentions;  // m.mentions.user_ids
  std::string relation;               // m.relates_to.rel_type ("m.replace", "m.thread", …)
  bool reply = false;                 // m.relates_to has m.in_reply_to
  // A file's mxc:// URI, its name and type (m.image, m.file, m.audio, m.video).
  std::string url, filename, mimetype;
  std::int64_t size = 0;
  std::int64_t ts = 0;            // origin_server_ts
  std::int64_t room_members = 0;  // joined members when it was read (2: a DM); 0: unknown

  bool encrypted() const { return type == "m.room.encrypted"; }
  bool direct() const { return room_members == 2; }
  bool has_file() const { return !url.empty(); }
};

std::optional<InboundEvent> read_event(const std::string& room, const boost::json::object& event);

enum class Verdict : unsigned char {
  Admitted,
  Encrypted,
  Own,
  NotMessage,
  Edit,
  Notice,
  NotAllowed,
  NoText,
  NotAddressed
};
std::string_view to_string(Verdict verdict);

struct AdmitPolicy {
  std::vector<std::string> allowed_users;  // empty: anyone
  std::string bot_user;                    // "@sigil:example.org"
  std::string bot_name;                    // its display name ("": none)
};

Verdict admit(const InboundEvent& event, const AdmitPolicy& policy);

std::string readable_text(const InboundEvent& event);

bool invite_allowed(std::string_view inviter, const AdmitPolicy& policy);

}  // namespace sigil::channels::matrix
