// What a Signal bot reads of signal-cli's received-message events (`{"envelope":…,"account":…}`, the data of
// an `event:receive` on GET /api/v1/events), and which messages it answers.
//
// What it promises:
// - parse_message() gives a person's message (a `dataMessage` with text or attachments) with its sender
//   (number and/or ACI), timestamp (its id), group, attachments and whether it mentions the bot; nullopt for
//   everything a bot does not answer: reactions, receipts, typing, edits, remote deletes, group updates, the
//   account's own messages from its other devices (`syncMessage`, note-to-self), stories, calls.
// - The text shows a mention of the bot (U+FFFC with a `mentions` entry naming the account) removed, and
//   every other mention as "@" and the member's number or ACI, so no U+FFFC reaches the model.
// - key(): "<sender>/<timestamp>", what the inbound record is keyed by: signal-cli hands a message on once
// per
//   stream, and a repeated delivery has the same sender and timestamp.
// - answered(): a message not in a group from a sender in `allowed_users` (E.164 numbers or ACIs), or a group
//   message that mentions the bot in a group of `allowed_groups` (base64 ids) from anyone in it.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels::signal {

struct SignalAttachment {
  std::string id;  // signal-cli's id: getAttachment {id} returns the bytes
  std::string content_type;
  std::string filename;
  std::int64_t size = 0;
};

struct SignalMessage {
  std::string source_number;  // may be empty (a sender who hides their number)
  std::string source_uuid;    // the sender's ACI
  std::string source_name;
  std::int64_t timestamp = 0;
  std::string text;
  std::string group_id;  // base64; empty outside groups
  bool mentions_bot = false;
  std::vector<SignalAttachment> attachments;

  // The sender as signal-cli takes a RECIPIENT: the number when known, else the ACI.
  std::string sender() const { return source_number.empty() ? source_uuid : source_number; }
  std::string key() const { return sender() + "/" + std::to_string(timestamp); }
};

std::optional<SignalMessage> parse_message(const boost::json::object& event, std::string_view account,
                                           std::string_view account_uuid = {});

bool answered(const SignalMessage& m, const std::vector<std::string>& allowed_users,
              const std::vector<std::string>& allowed_groups);

// A person as Signal names one: a phone number in E.164 ("+" and 7 to 15 digits) or an ACI (a UUID).
bool is_signal_user(std::string_view s);
// A group id as signal-cli writes it: base64 of 32 bytes (44 characters).
bool is_signal_group(std::string_view s);

}  // namespace sigil::channels::signal
