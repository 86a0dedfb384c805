// One Matrix room as a deliver::Channel (architecture: channels/matrix/): what the outbox's calls become as
// client-server API calls. Unencrypted rooms only: sigil holds no keys (inbound.h answers an encrypted
// room's message with a notice instead).
//
// What it promises:
// - Capabilities: text up to 16,000 code points a message (an event is at most 65,536 bytes of JSON, body
//   and formatted_body together), any emoji as a reaction, files as image, document, audio and video,
//   voice notes, edits (m.replace) and deletes (redaction), about one event every five seconds with a burst
//   of ten (Synapse's default rc_message). Every event goes as `PUT …/send/{type}/{txnId}`, which the
//   homeserver deduplicates per access token, so ClientApi repeats a send whose outcome is unknown.
// - txnIds are derived from the target's `txn_seed` (the turn id) and a count of the sends of each kind, so
//   the same turn run again (after a restart) makes the same txnIds and the homeserver answers each with
//   the event it already has. A text send whose outcome stayed unknown keeps its count: sending the same
//   text again is the same transaction, never a second message (a different text is a new one). So the
//   outbox may repeat a failed send (ChatOutboxOptions::repeat_failed_sends), and the Matrix service does.
// - send_text: an `m.text` (`m.notice` when the target says so) with `body` (plain) and `formatted_body`
//   (org.matrix.custom.html, matrix_html.h); a rendering whose event would pass 48,000 bytes goes as several
//   events cut at safe points (split.h); the id returned is the last event's.
// - edit_text: an `m.replace` with `m.new_content` (and "* " before the fallback body, as clients write).
//   delete_message: a redaction. react: an `m.reaction` `m.annotation` with the emoji as the key; the
//   message id "" is the event being answered; `M_DUPLICATE_ANNOTATION` (it is there already) is success.
// - send_file / send_voice: the bytes uploaded (media upload → mxc://), then an `m.image`, `m.audio`,
//   `m.video` or `m.file` event with `info` (mimetype, size); a voice note is an `m.audio` with
//   `org.matrix.msc3245.voice` and `org.matrix.msc1767.audio` {duration}. A caption follows as text.
// - A call whose outcome stayed unknown after ClientApi's repeats is listed by in_doubt(); text fails with
//   "outcome unknown: …", a file or reaction reports success so the outbox does not send it another way.
// - typing(): PUT …/typing/{user} {typing: true, timeout: 10000}; false when it failed or no user is known.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/channels/matrix/client_api.h"
#include "sigil/channels/platform_channel.h"

namespace sigil::channels::matrix {

struct MatrixTarget {
  std::string room;       // "!abc:example.org"
  std::string answering;  // the event being answered ("": none)
  std::string txn_seed;   // the turn id ("": a random one)
  std::string bot_user;   // "@sigil:example.org", for typing ("": no typing)
  bool notice = false;    // send text as m.notice (a bot's automatic answer, which other bots ignore)
};

class MatrixChannel final : public PlatformChannel {
 public:
  MatrixChannel(ClientApi& api, MatrixTarget target);

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  deliver::ChannelResult edit_text(const std::string& id, std::string_view text) override;
  deliver::ChannelResult delete_message(const std::string& id) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;
  bool typing() override;

  static deliver::ChannelCapabilities matrix_capabilities();

 private:
  deliver::ChannelResult finish(std::string_view what, const ApiOutcome& o, bool text);
  deliver::ChannelResult media(const deliver::OutgoingFile& f, std::string msgtype, bool voice);
  std::string txn(std::string_view kind, std::uint64_t n) const;

  ClientApi& api_;
  MatrixTarget target_;
  std::uint64_t texts_ = 0, edits_ = 0, files_ = 0;
  std::string doubtful_text_;  // the text whose send stayed unknown: its repeat keeps the count
};

// The txnId of the n-th send of `kind` under a seed: "sg" and 16 hex digits (FNV-1a of seed, kind and n),
// the same in every process.
std::string matrix_txn_id(std::string_view seed, std::string_view kind, std::uint64_t n);

// The markdown as the texts of events that each stay within `max_bytes` of JSON content (body and
// formatted_body), cut at safe points.
std::vector<std::string> event_parts(std::string_view markdown, std::size_t max_bytes);

}  // namespace sigil::channels::matrix
