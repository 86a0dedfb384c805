#include "server/frame_queue.h"

#include <utility>
#include <variant>

#include "server/valid_utf8.h"
#include "sigil/text/utf8.h"

namespace sigil::server {

using channels::web::TextPiece;

const TextPiece* FrameQueue::piece(const Entry& entry) {
  if (entry.own) return &*entry.own;
  return std::get_if<TextPiece>(entry.frame.get());
}

void FrameQueue::push(channels::web::SharedFrame frame) {
  // The tail may take the frame only while it waits: not when it is the frame being written.
  const bool tail_waits = !entries_.empty() && !(writing_ && entries_.size() == 1);
  const TextPiece* incoming = std::get_if<TextPiece>(frame.get());
  if (tail_waits && incoming != nullptr) {
    Entry& tail = entries_.back();
    if (const TextPiece* waiting = piece(tail)) {
      TextPiece merged = *waiting;
      if (channels::web::merge(merged, *incoming, max_merged_text_)) {
        tail.own = std::move(merged);
        ++merged_;
        return;
      }
    }
  }
  entries_.push_back(Entry{std::move(frame), std::nullopt});
}

const std::string& FrameQueue::start_write() {
  writing_ = true;
  Entry& front = entries_.front();
  if (front.own)
    channels::web::serialize(*front.own, rendered_);
  else
    channels::web::serialize(*front.frame, rendered_);
  // A WebSocket text message must be UTF-8; model text and file names may not be (repaired with U+FFFD).
  if (!text::is_valid_utf8(rendered_)) rendered_ = valid_utf8(std::move(rendered_));
  return rendered_;
}

void FrameQueue::finish_write() {
  writing_ = false;
  entries_.pop_front();
  if (rendered_.capacity() > kKeptRenderBytes) std::string().swap(rendered_);
}

}  // namespace sigil::server
