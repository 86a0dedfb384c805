// The vocabulary of what a turn shows its user (spec 12.1): deliveries with their bytes, and the outbox they
// go to in reply order. A leaf of std only: exec/ produces these, deliver/ and channels/ consume them, and
// neither side includes the other's headers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace sigil::deliver {

// The bytes of a file or voice delivery, opened once by its handler (spec 15: sent from the open file,
// never reopened by path). Channels read it with read_at(); whatever backs it (an open descriptor, a
// temporary voice note) lives as long as the last Delivery that holds it.
class Payload {
 public:
  virtual ~Payload();
  virtual std::uint64_t size() const = 0;
  // The name a channel shows ("report.pdf").
  virtual std::string name() const = 0;
  // "audio/ogg; codecs=opus", "application/pdf", ... (empty: let the channel guess from the name).
  virtual std::string mime_type() const = 0;
  // Up to out.size() bytes from offset into out; 0 at the end; -1 on a read error.
  virtual std::int64_t read_at(std::uint64_t offset, std::span<char> out) const = 0;
};

// A payload of bytes held in memory (a picture a model server sent): they live as long as the last holder.
std::shared_ptr<const Payload> make_bytes_payload(std::string bytes, std::string name, std::string mime_type);

// Reads a payload's bytes whole into `out` (uploads to chat platforms are request bodies in memory); false
// with `error` set when a read failed.
bool read_payload(const Payload& payload, std::string& out, std::string& error);

// Something the user sees; a channel renders it.
struct Delivery {
  // Message: a text to another chat (send-message), allow-listed by its handler before it gets here.
  enum class Op : unsigned char { Text, File, Voice, Reaction, Message } op = Op::Text;
  std::string text;                        // Text, Message
  std::string path;                        // File, Voice
  std::string kind;                        // File: image document audio voice video
  std::string caption;                     // File
  std::string sha256;                      // File, Voice: identical attachments in one turn go once (12.4)
  std::string emoji;                       // Reaction
  std::string message;                     // Reaction: the message reacted to (empty: the one being answered)
  std::string channel;                     // Message: target channel
  std::string chat;                        // Message: target chat on that channel
  std::shared_ptr<const Payload> payload;  // File, Voice: the bytes to send (path is for display and reports)
  std::uint64_t duration_ms = 0;           // Voice
};

// The op's name in every JSON that shows a delivery (turn reports, SSE, WebSocket, the OpenAI extension):
// "text", "file", "voice", "reaction", "message".
std::string_view to_string(Delivery::Op op);

// Where a turn's user-visible output goes, in reply order (spec 12.1). The executor calls it from one
// thread at a time (under its own lock), in order; an implementation should not block for long.
class Outbox {
 public:
  virtual ~Outbox() = default;
  virtual void text(std::string_view text) = 0;        // clean reply text, a piece at a time
  virtual void deliver(const Delivery& delivery) = 0;  // a file, voice note, reaction, or a separate text
  virtual void end() = 0;                              // the turn's output is complete
  // The reply is silent (spec 7.4): no more of its text comes. `late`: some text already went to text();
  // a channel that can delete removes what it showed of this reply, one that cannot should not have shown
  // it yet (12.7: it sends a reply's text only when the reply ends). Deliveries may still follow.
  virtual void silence(bool late) { (void)late; }
  // The text so far is one whole message; the next text starts a new one (say mode: each say block is its
  // own message, spec 6.1). Default: ignored (the text simply continues).
  virtual void end_message() {}
};

}  // namespace sigil::deliver
