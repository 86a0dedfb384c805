// The outgoing frames of one WebSocket connection, oldest first, written one at a time.
//
// What it promises:
// - Frames go out in the order they were pushed, each exactly once (a merged frame carries what the frames
//   it replaced said, in order).
// - While a frame waits behind another one (a write is in flight), a text piece pushed right behind a
//   waiting text piece of the same message of the same turn is merged into it (channels::web::merge): an
//   appended piece adds its text, a replacing piece replaces it. A connection that falls behind thus sends
//   fewer, bigger messages instead of one per token. Never merged: across any other frame (order holds),
//   into the frame being written, or past `max_merged_text` bytes of text.
// - Frames are typed (channels::web::WebFrame) until their write starts: nothing is parsed, and a frame is
//   serialised once, when start_write() takes it, as valid UTF-8 (invalid bytes become U+FFFD), into one
//   buffer the queue keeps for the next frame (up to kKeptRenderBytes of capacity): a frame costs no
//   allocation of its own text. The pieces of one message share their head ({"type":"text","turn":…,
//   "message":…,"text":): it is rendered once and kept in that buffer, so a piece renders only its text.
// - Not thread-safe: the connection's strand owns it.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "sigil/channels/web/web_frame.h"

namespace sigil::server {

class FrameQueue {
 public:
  // A rendering buffer grown past this by a large frame is let go after its write.
  static constexpr std::size_t kKeptRenderBytes = 2048;

  explicit FrameQueue(std::size_t max_merged_text = 64 * 1024) : max_merged_text_(max_merged_text) {}
  FrameQueue(const FrameQueue&) = delete;
  FrameQueue& operator=(const FrameQueue&) = delete;

  void push(channels::web::SharedFrame frame);

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  bool writing() const { return writing_; }

  // Marks the oldest frame as being written and returns its text; it stays valid (and the frame is never
  // merged into) until finish_write(). Requires !empty() && !writing().
  const std::string& start_write();
  // Drops the frame start_write() returned.
  void finish_write();

  // Frames merged into another one so far (for tests and metrics).
  std::size_t merged() const { return merged_; }
  // Text piece heads rendered so far: one per message written while nothing else came between (for tests).
  std::size_t heads_rendered() const { return heads_rendered_; }

 private:
  struct Entry {
    channels::web::SharedFrame frame;             // as pushed (shared with the other watchers)
    std::optional<channels::web::TextPiece> own;  // this connection's copy, once something merged into it
  };
  // The entry's text piece (its own copy when merged), or nullptr for any other frame.
  static const channels::web::TextPiece* piece(const Entry& entry);
  // Renders a text piece into rendered_, reusing the head left there by the previous piece of its message.
  void render_text(const channels::web::TextPiece& piece);

  std::size_t max_merged_text_;
  std::deque<Entry> entries_;
  std::string rendered_;  // the text start_write() returned, of the front entry while writing_
  // rendered_ begins with the head of (head_turn_, head_message_)'s pieces, head_size_ bytes (0: no head).
  std::size_t head_size_ = 0;
  channels::web::SharedId head_turn_;
  std::string head_message_;
  std::size_t heads_rendered_ = 0;
  bool writing_ = false;
  std::size_t merged_ = 0;
};

}  // namespace sigil::server
