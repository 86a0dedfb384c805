#include "server/frame_queue.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <string_view>
#include <utility>

namespace sigil::server {
namespace {

namespace json = boost::json;

// A cheap filter before parsing: every text frame serialises its type this way (ws_frames), and a frame
// without it is never parsed. Parsing decides; this only saves the parse of other frames.
bool may_be_text_frame(const std::string& frame) {
  return frame.find(R"("type":"text")") != std::string::npos;
}

// The merge key: every field but "text" equal (in any order).
bool same_key(const json::object& a, const json::object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& field : a) {
    if (field.key() == "text") continue;
    const json::value* other = b.if_contains(field.key());
    if (other == nullptr || *other != field.value()) return false;
  }
  return true;
}

}  // namespace

bool FrameQueue::parse(Entry& entry) {
  if (entry.kind != Entry::Kind::unknown) return entry.kind == Entry::Kind::text;
  entry.kind = Entry::Kind::other;
  if (!may_be_text_frame(*entry.frame)) return false;
  boost::system::error_code ec;
  json::value parsed = json::parse(*entry.frame, ec);
  if (ec || !parsed.is_object()) return false;
  json::object& object = parsed.as_object();
  const json::value* type = object.if_contains("type");
  const json::value* text = object.if_contains("text");
  if (type == nullptr || !type->is_string() || type->as_string() != "text") return false;
  if (text == nullptr || !text->is_string()) return false;
  entry.object = std::move(object);
  entry.kind = Entry::Kind::text;
  return true;
}

void FrameQueue::push(std::shared_ptr<const std::string> frame) {
  Entry incoming;
  incoming.frame = std::move(frame);
  // The tail may take the frame only while it waits: not when it is the frame being written.
  const bool tail_waits = !entries_.empty() && !(writing_ && entries_.size() == 1);
  if (tail_waits && may_be_text_frame(*incoming.frame)) {
    Entry& tail = entries_.back();
    if (parse(tail) && parse(incoming) && same_key(tail.object, incoming.object)) {
      json::string& text = tail.object["text"].as_string();
      const json::string& more = incoming.object["text"].as_string();
      if (text.size() + more.size() <= max_merged_text_) {
        text.append(std::string_view(more));
        tail.merged = true;
        tail.frame.reset();
        ++merged_;
        return;
      }
    }
  }
  entries_.push_back(std::move(incoming));
}

const std::string& FrameQueue::start_write() {
  writing_ = true;
  Entry& front = entries_.front();
  if (!front.merged) return *front.frame;
  front.rendered = json::serialize(front.object);
  front.object = {};
  return front.rendered;
}

void FrameQueue::finish_write() {
  writing_ = false;
  entries_.pop_front();
}

}  // namespace sigil::server
