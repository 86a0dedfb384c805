// One Discord channel (a guild text channel, a thread or a DM) as a deliver::Channel (architecture:
// channels/discord/): what the outbox's calls become as REST calls.
//
// What it promises:
// - Capabilities: text up to 2,000 code points (the outbox splits longer text), any reaction (Unicode emoji,
//   or a guild's custom emoji as `name:id`), files as image, document, audio and video attachments, voice
//   messages, edits and deletes, 5 messages per 5 s per channel (Discord's message bucket).
// - send_text: the Markdown rendered to Discord Markdown (discord_markdown.h); when escaping made it longer
//   than 2,000 code points it goes as several messages, cut at safe points (split.h), and the id returned is
//   the last one's. Mentions never ping: allowed_mentions is empty on every message.
// - Every message created carries a `nonce` and `enforce_nonce: true`. The nonces are derived from the
//   target's `nonce_seed` (the turn id) and a count of creates, so the same turn run again (after a
//   restart) makes the same nonces, and Discord answers a repeated one with the message it already has:
//   a send made again after an unknown outcome, or by a resumed turn, never shows twice.
// - send_file: one attachment (multipart payload_json + files[0]) with the caption as the content (a caption
//   over 2,000 code points goes as text after the file). send_voice: flags 8192 (IS_VOICE_MESSAGE), one
//   Ogg Opus attachment with duration_secs and a base64 waveform, no content; a refusal fails, and the outbox
//   falls back to an audio file.
// - react: PUT /channels/{c}/messages/{m}/reactions/{emoji}/@me, the emoji URL-encoded; the message id ""
//   is the one being answered.
// - A call whose outcome stayed unknown after RestApi's repeats is listed by in_doubt(); text fails with
//   "outcome unknown: …", a file, voice message or reaction reports success so the outbox does not send
//   the same thing another way.
// - In guild channels (reply set) the first text message replies to the message being answered.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/channels/discord/rest_api.h"
#include "sigil/channels/platform_channel.h"

namespace sigil::channels::discord {

struct DiscordTarget {
  std::string channel_id;  // snowflake
  std::string answering;   // the message being answered ("": none)
  bool reply = false;      // thread the first text message as a reply to `answering` (guild channels)
  std::string nonce_seed;  // the turn id ("": a random one)
};

class DiscordChannel final : public PlatformChannel {
 public:
  DiscordChannel(RestApi& api, DiscordTarget target);

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  deliver::ChannelResult edit_text(const std::string& id, std::string_view text) override;
  deliver::ChannelResult delete_message(const std::string& id) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;

  // POST /channels/{id}/typing (shown for ~10 s). Best effort: false when it failed.
  bool typing() override;

  static deliver::ChannelCapabilities discord_capabilities();

 private:
  std::string next_nonce();
  deliver::ChannelResult create(boost::json::object payload, std::vector<RestFile> files, bool text);
  deliver::ChannelResult finish(std::string_view what, const RestOutcome& o, bool text);
  deliver::ChannelResult attach(const deliver::OutgoingFile& f, bool voice);

  RestApi& api_;
  DiscordTarget target_;
  std::uint64_t creates_ = 0;
  bool replied_ = false;
};

// The nonce of the n-th create under a seed: up to 20 decimal digits (Discord takes at most 25).
std::string discord_nonce(std::string_view seed, std::uint64_t n);

}  // namespace sigil::channels::discord
