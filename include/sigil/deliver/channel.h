// A chat channel as the outbox sees it: one chat (or one conversation) on one transport. Adapters live in
// channels/<name>/. Errors are results, never exceptions: the outbox also catches anything a channel throws
// and treats it as a failed call, so nothing crosses the boundary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sigil/base/result.h"
#include "sigil/deliver/capabilities.h"
#include "sigil/deliver/delivery.h"

namespace sigil::deliver {

// The outcome of one channel call: the id of the message the call created (send_*) or changed (may be
// empty when the platform gives none), or why the call failed (a line a person can read).
using ChannelResult = Result<std::string>;
inline ChannelResult channel_error(std::string why) { return Failure{std::move(why)}; }

// A file or voice note to send: the bytes come from the open payload (spec 15: never reopened by path).
struct OutgoingFile {
  std::shared_ptr<const deliver::Payload> payload;
  std::string name;       // shown to the user ("report.pdf")
  std::string kind;       // image document audio video (send_file); empty for send_voice
  std::string caption;    // may be empty
  std::string mime_type;  // may be empty
  std::uint64_t size = 0;
  std::uint64_t duration_ms = 0;  // voice
  std::string sha256;
};

class Channel {
 public:
  virtual ~Channel();

  virtual ChannelCapabilities capabilities() const = 0;

  // A new text message; returns its id.
  virtual ChannelResult send_text(std::string_view text) = 0;
  // Whether `text` (Markdown) shows anything once rendered for this channel: a streamed reply that has only
  // opened a code block shows nothing yet, and a platform refuses an empty message.
  virtual bool shows_text(std::string_view /*text*/) const { return true; }
  // Replaces the text of a message (only when capabilities().edits).
  virtual ChannelResult edit_text(const std::string& id, std::string_view text);
  // Adds text at the end of a message (only when capabilities().append).
  virtual ChannelResult append_text(const std::string& id, std::string_view more);
  // The outbox will not change this text message again (a terminal ends the line, the web marks it done).
  virtual void text_done(const std::string& id);
  // Removes a message (only when capabilities().deletes).
  virtual ChannelResult delete_message(const std::string& id);
  // A file of one of capabilities().file_kinds.
  virtual ChannelResult send_file(const OutgoingFile& file) = 0;
  // A voice note (only when capabilities().voice_notes).
  virtual ChannelResult send_voice(const OutgoingFile& voice) = 0;
  // A reaction on a message (only when capabilities().reactions).
  virtual ChannelResult react(const std::string& message_id, std::string_view emoji) = 0;
};

}  // namespace sigil::deliver
