// One Signal conversation (a person, or a group) as a deliver::Channel (architecture: channels/signal/): what
// the outbox's calls become as signal-cli JSON-RPC calls (rpc_api.h).
//
// What it promises:
// - Capabilities: plain text with style ranges rendered from the Markdown (signal_text.h), at most 2,000
//   UTF-8 bytes a message (Signal's inline body limit: signal-cli sends a longer body as a long-text
//   attachment some apps do not show, so a longer text goes as several messages); reactions with any emoji;
//   files of every kind and voice notes (`voiceNote`), sent as data URIs so signal-cli needs no access to
//   sigil's files; edits (`editTimestamp`) and deletes (`remoteDelete`) of its own messages; typing
//   (`sendTyping`).
// - send_text: the parts in order; the id returned is the last part's timestamp (Signal's message id). In a
//   group the first part quotes the message being answered.
// - send_file / send_voice: the file with the caption's first part as its text (and its style ranges); the
//   caption's further parts follow as text messages.
// - react: `message_id` "" (or the answered message's timestamp) reacts to the message being answered, by
//   its author; "<author>/<timestamp>" (the id a person's message has in the history: inbound.h's key()) to
//   that message; any other timestamp is one of the bot's own messages.
// - Signal has no idempotency key: a send whose outcome stayed unknown (a time-out after it went out) is
//   never repeated; it is listed by in_doubt(), text fails with "outcome unknown: …", and a file or
//   reaction reports success so the outbox does not send the same thing another way. A user may then see a
//   message missing (never one twice). Edits, deletes and typing are made again after an unknown outcome:
//   repeating them shows nothing new.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "sigil/channels/platform_channel.h"
#include "sigil/channels/signal/rpc_api.h"

namespace sigil::channels::signal {

struct SignalTarget {
  std::string recipient;         // a number (E.164) or an ACI; empty for a group
  std::string group_id;          // base64; empty for a person
  std::int64_t answering = 0;    // the timestamp of the message being answered (0: none)
  std::string answering_author;  // its author (number or ACI)
  std::string account;           // the bot's own number: the author of its messages
};

inline constexpr std::size_t kSignalBodyBytes = 2000;

class SignalChannel final : public PlatformChannel {
 public:
  SignalChannel(RpcApi& api, SignalTarget target);

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  deliver::ChannelResult edit_text(const std::string& id, std::string_view text) override;
  deliver::ChannelResult delete_message(const std::string& id) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;
  bool typing() override;

  static deliver::ChannelCapabilities signal_capabilities();

 private:
  boost::json::object addressed() const;
  deliver::ChannelResult finish(std::string_view what, const RpcOutcome& o, bool text);
  deliver::ChannelResult file(const deliver::OutgoingFile& f, bool voice);

  RpcApi& api_;
  SignalTarget target_;
};

}  // namespace sigil::channels::signal
