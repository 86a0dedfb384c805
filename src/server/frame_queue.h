// The outgoing frames of one WebSocket connection, oldest first, written one at a time.
//
// What it promises:
// - Frames go out in the order they were pushed, each exactly once (a merged frame carries the texts of
//   the frames it replaced, in order).
// - While a frame waits behind another one (a write is in flight), a "text" frame pushed right behind a
//   waiting "text" frame whose other fields are all equal (same turn, and whatever else a text frame may
//   carry later) is merged into it: one frame whose "text" is the concatenation. A connection that falls
//   behind thus sends fewer, bigger messages instead of one per token. Never merged: across any other
//   frame (order holds), into the frame being written, past `max_merged_text` bytes of text, or frames
//   that are not JSON objects with a string "text" and "type": "text".
// - Costs nothing extra while the connection keeps up: a frame is only parsed when it is pushed behind a
//   waiting text frame. A merged frame is rendered once, when its write starts.
// - Not thread-safe: the connection's strand owns it.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>

namespace sigil::server {

class FrameQueue {
 public:
  explicit FrameQueue(std::size_t max_merged_text = 64 * 1024) : max_merged_text_(max_merged_text) {}
  FrameQueue(const FrameQueue&) = delete;
  FrameQueue& operator=(const FrameQueue&) = delete;

  void push(std::shared_ptr<const std::string> frame);

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  bool writing() const { return writing_; }

  // Marks the oldest frame as being written and returns it; it stays valid (and is never merged into) until
  // finish_write(). Requires !empty() && !writing().
  const std::string& start_write();
  // Drops the frame start_write() returned.
  void finish_write();

  // Frames merged into another one so far (for tests and metrics).
  std::size_t merged() const { return merged_; }

 private:
  struct Entry {
    enum class Kind : unsigned char { unknown, other, text };
    std::shared_ptr<const std::string> frame;  // as pushed; released once something is merged into it
    Kind kind = Kind::unknown;
    bool merged = false;
    boost::json::object object;  // kind == text: the parsed frame, "text" holding the merged texts
    std::string rendered;        // merged: the object serialised by start_write()
  };
  // Parses the entry on first need; true when it is a mergeable text frame.
  static bool parse(Entry& entry);

  std::size_t max_merged_text_;
  std::deque<Entry> entries_;
  bool writing_ = false;
  std::size_t merged_ = 0;
};

}  // namespace sigil::server
