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
  const Entry& front = entries_.front();
  if (const TextPiece* text = piece(front)) {
    render_text(*text);
    return rendered_;
  }
  head_size_ = 0;
  channels::web::serialize(*front.frame, rendered_);
  // A WebSocket text message must be UTF-8; model text and file names may not be (repaired with U+FFFD).
  if (!text::is_valid_utf8(rendered_)) rendered_ = valid_utf8(std::move(rendered_));
  return rendered_;
}

void FrameQueue::render_text(const TextPiece& text) {
  if (head_size_ > 0 && text.turn == head_turn_ && text.message == head_message_) {
    rendered_.resize(head_size_);
  } else {
    channels::web::serialize_text_head(text, rendered_);
    ++heads_rendered_;
    if (text::is_valid_utf8(rendered_)) {
      head_size_ = rendered_.size();
      head_turn_ = text.turn;
      head_message_ = text.message;
    } else {
      head_size_ = 0;  // repaired below with the rest, and not kept
    }
  }
  // The head ends in ASCII, so the text after it is checked alone: the head was checked when rendered.
  channels::web::append_text_tail(text, rendered_);
  if (!text::is_valid_utf8(std::string_view(rendered_).substr(head_size_))) {
    rendered_ = valid_utf8(std::move(rendered_));
    head_size_ = 0;  // the buffer was replaced: no head is kept in it
  }
}

void FrameQueue::finish_write() {
  writing_ = false;
  entries_.pop_front();
  if (rendered_.capacity() > kKeptRenderBytes) {
    std::string().swap(rendered_);
    head_size_ = 0;
  }
}

}  // namespace sigil::server
